#include "text/added_token_matcher.h"

#include <utf8proc.h>

#include <algorithm>

#include "text/utf8_util.h"

namespace dlm {
namespace {

bool is_space_byte(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool is_word_code_point(utf8proc_int32_t cp) {
    if (cp == '_') return true;
    switch (utf8proc_category(cp)) {
        case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
        case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_ND:
        case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_NO: case UTF8PROC_CATEGORY_MN:
        case UTF8PROC_CATEGORY_MC:
            return true;
        default:
            return false;
    }
}

// Is the character starting at `pos` a word character? Invalid bytes are not.
bool word_char_at(std::string_view text, std::size_t pos) {
    const std::size_t len = utf8::valid_sequence_length(text, pos);
    if (len == 0) return false;
    utf8proc_int32_t cp = 0;
    utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos), static_cast<utf8proc_ssize_t>(len), &cp);
    return is_word_code_point(cp);
}

// Is the character ending right before `pos` a word character?
bool word_char_before(std::string_view text, std::size_t pos) {
    if (pos == 0) return false;
    std::size_t start = pos - 1;
    while (start > 0 && pos - start < 4 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    if (utf8::valid_sequence_length(text, start) != pos - start) return false;
    return word_char_at(text, start);
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<LiteralToken> tokens) : tokens_(std::move(tokens)) {
    std::erase_if(tokens_, [](const LiteralToken& t) { return t.content.empty(); });
    for (std::size_t i = 0; i < tokens_.size(); ++i)
        by_first_byte_[static_cast<unsigned char>(tokens_[i].content[0])].push_back(i);
    for (auto& [byte, list] : by_first_byte_)
        std::stable_sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
            return tokens_[a].content.size() > tokens_[b].content.size();
        });
}

bool AddedTokenMatcher::accepts(std::string_view text, std::size_t begin, std::size_t end,
                                const LiteralToken& t) const {
    if (!t.single_word) return true;
    return !word_char_before(text, begin) && !(end < text.size() && word_char_at(text, end));
}

std::vector<TextSegment> AddedTokenMatcher::split(std::string_view text) const {
    std::vector<TextSegment> out;
    if (tokens_.empty()) {
        if (!text.empty()) out.push_back({text, -1});
        return out;
    }
    std::size_t plain_start = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const LiteralToken* hit = nullptr;
        if (auto it = by_first_byte_.find(static_cast<unsigned char>(text[pos])); it != by_first_byte_.end()) {
            for (std::size_t idx : it->second) {
                const LiteralToken& t = tokens_[idx];
                if (text.compare(pos, t.content.size(), t.content) == 0 &&
                    accepts(text, pos, pos + t.content.size(), t)) {
                    hit = &t;
                    break;
                }
            }
        }
        if (!hit) {
            ++pos;
            continue;
        }
        std::size_t begin = pos, end = pos + hit->content.size();
        if (hit->lstrip)
            while (begin > plain_start && is_space_byte(text[begin - 1])) --begin;
        if (hit->rstrip)
            while (end < text.size() && is_space_byte(text[end])) ++end;
        if (begin > plain_start) out.push_back({text.substr(plain_start, begin - plain_start), -1});
        out.push_back({text.substr(begin, end - begin), hit->payload});
        plain_start = pos = end;
    }
    if (plain_start < text.size()) out.push_back({text.substr(plain_start), -1});
    return out;
}

}  // namespace dlm
