#include "text/hf_pre_tokenizer.h"

#include <algorithm>
#include <utility>

#include "text/unicode_regex.h"

namespace dlm {
namespace {

struct Span {
    std::size_t begin, end;
    bool is_match;
};

// The whole of `text` as alternating gaps and matches (HF `Pattern::find_matches`).
std::vector<Span> cover(std::string_view text, const std::vector<std::pair<std::size_t, std::size_t>>& matches) {
    std::vector<Span> spans;
    std::size_t prev = 0;
    for (auto [b, e] : matches) {
        if (b > prev) spans.push_back({prev, b, false});
        spans.push_back({b, e, true});
        prev = e;
    }
    if (prev < text.size()) spans.push_back({prev, text.size(), false});
    return spans;
}

std::vector<std::pair<std::size_t, std::size_t>> find_literal(std::string_view text, std::string_view needle) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    if (needle.empty()) return out;
    for (std::size_t pos = text.find(needle); pos != std::string_view::npos; pos = text.find(needle, pos)) {
        out.emplace_back(pos, pos + needle.size());
        pos += needle.size();
    }
    return out;
}

// HF `SplitDelimiterBehavior`, applied to the covering spans; returns the pieces to keep.
std::vector<std::pair<std::size_t, std::size_t>> apply_behavior(std::vector<Span> spans, SplitBehavior behavior) {
    std::vector<std::pair<std::size_t, std::size_t>> pieces;
    switch (behavior) {
        case SplitBehavior::Isolated:
            for (const Span& s : spans) pieces.emplace_back(s.begin, s.end);
            break;
        case SplitBehavior::Removed:
            for (const Span& s : spans)
                if (!s.is_match) pieces.emplace_back(s.begin, s.end);
            break;
        case SplitBehavior::MergedWithPrevious: {
            bool previous_match = false;
            for (const Span& s : spans) {
                if (s.is_match && !previous_match && !pieces.empty()) pieces.back().second = s.end;
                else pieces.emplace_back(s.begin, s.end);
                previous_match = s.is_match;
            }
            break;
        }
        case SplitBehavior::MergedWithNext: {
            bool previous_match = false;
            for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
                if (it->is_match && !previous_match && !pieces.empty()) pieces.back().first = it->begin;
                else pieces.emplace_back(it->begin, it->end);
                previous_match = it->is_match;
            }
            std::reverse(pieces.begin(), pieces.end());
            break;
        }
        case SplitBehavior::Contiguous: {
            bool previous_match = false;
            bool first = true;
            for (const Span& s : spans) {
                if (!first && s.is_match == previous_match) pieces.back().second = s.end;
                else pieces.emplace_back(s.begin, s.end);
                previous_match = s.is_match;
                first = false;
            }
            break;
        }
    }
    return pieces;
}

}  // namespace

const char* HfPreTokenizer::gpt2_pattern() {
    return R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
}

HfPreTokenizer::HfPreTokenizer(const HfTokenizerSpec& spec) {
    for (std::size_t i = 0; i < spec.pre_tokenizer.size(); ++i) {
        Step step{spec.pre_tokenizer[i], nullptr};
        const std::string where = spec.source + " pre_tokenizer step " + std::to_string(i);
        if (step.spec.kind == HfPreTokenizerStep::Kind::Split && step.spec.pattern_is_regex)
            step.regex = std::make_unique<UnicodeRegex>(step.spec.pattern, where);
        else if (step.spec.kind == HfPreTokenizerStep::Kind::ByteLevel && step.spec.use_regex)
            step.regex = std::make_unique<UnicodeRegex>(gpt2_pattern(), where + " (ByteLevel)");
        steps_.push_back(std::move(step));
    }
}

HfPreTokenizer::~HfPreTokenizer() = default;

std::vector<std::string> HfPreTokenizer::split(std::string_view text) const {
    std::vector<std::string> words{std::string(text)};
    for (const Step& step : steps_) {
        std::vector<std::string> next;
        for (std::string& word : words) {
            if (word.empty()) continue;
            if (step.spec.kind == HfPreTokenizerStep::Kind::ByteLevel) {
                // HF applies the prefix space to every piece that reaches this step.
                if (step.spec.add_prefix_space && (word.empty() || word.front() != ' ')) word.insert(word.begin(), ' ');
                if (!step.regex) {
                    next.push_back(std::move(word));
                    continue;
                }
            }
            const auto matches = step.regex ? step.regex->find_all(word) : find_literal(word, step.spec.pattern);
            std::vector<Span> spans = cover(word, matches);
            SplitBehavior behavior = SplitBehavior::Isolated;
            if (step.spec.kind == HfPreTokenizerStep::Kind::Split) {
                behavior = step.spec.behavior;
                if (step.spec.invert)
                    for (Span& s : spans) s.is_match = !s.is_match;
            }
            for (auto [b, e] : apply_behavior(std::move(spans), behavior))
                if (e > b) next.emplace_back(word.substr(b, e - b));
        }
        words = std::move(next);
    }
    std::erase_if(words, [](const std::string& w) { return w.empty(); });
    return words;
}

}  // namespace dlm
