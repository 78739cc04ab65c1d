#include "text/hf_bpe_tokenizer.h"

#include <array>
#include <fstream>
#include <mutex>
#include <queue>
#include <sstream>
#include <unordered_map>

#include "text/added_token_matcher.h"
#include "text/byte_level_map.h"
#include "text/hf_pre_tokenizer.h"
#include "text/hf_tokenizer_spec.h"
#include "text/unicode_normalizer.h"
#include "text/utf8_util.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/json_depth.h"
#include "util/text_file.h"

namespace dlm {
namespace {

enum class Slot : uint8_t { Unused, Vocab, Added, AddedSpecial };

uint64_t pair_key(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

struct Merge {
    int32_t rank;
    int32_t merged_id;
};

// Words longer than this are BPE'd every time: caching them would mostly hold one-off noise.
constexpr std::size_t kMaxCachedWordBytes = 256;
constexpr std::size_t kMaxCacheEntries = 1 << 16;

}  // namespace

struct HfBpeTokenizer::Impl {
    std::string source;
    std::vector<std::string> id_to_token;  // vocab spelling or added content, "" where unused
    std::vector<Slot> slots;
    std::vector<std::string> id_bytes;  // what each id decodes to (HF ByteLevel decoder), precomputed
    std::unordered_map<std::string, int32_t> vocab;          // byte-level spelling -> id
    std::unordered_map<std::string, int32_t> added_by_text;  // added content -> id
    std::unordered_map<uint64_t, Merge> merges;
    std::array<int32_t, 256> byte_symbol{};  // id of each single mapped byte, -1 if absent
    int32_t unk_id = -1;
    bool ignore_merges = false;
    std::vector<UnicodeForm> normalizer;
    std::unique_ptr<HfPreTokenizer> pre_tokenizer;
    // Added-token matchers: [normalized?][with specials?]
    AddedTokenMatcher raw_plain, raw_all, normalized_plain, normalized_all;

    mutable std::mutex cache_mutex;
    mutable std::unordered_map<std::string, std::vector<int32_t>> cache;

    void set_slot(int32_t id, const std::string& text, Slot slot) {
        if (static_cast<std::size_t>(id) >= id_to_token.size()) {
            id_to_token.resize(static_cast<std::size_t>(id) + 1);
            slots.resize(static_cast<std::size_t>(id) + 1, Slot::Unused);
        }
        id_to_token[id] = text;
        slots[id] = slot;
    }

    void bpe_word(std::string_view word, std::vector<int32_t>& out) const;
    void bpe_word_cached(std::string_view word, std::vector<int32_t>& out) const;
    void encode_plain(std::string_view text, bool parse_special, std::vector<int32_t>& out) const;
};

HfBpeTokenizer::HfBpeTokenizer(const HfTokenizerSpec& spec) : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    m.source = spec.source;
    const auto fail = [&](const std::string& what) { throw Error(spec.source + ": " + what); };

    // One id sizes the id table: refuse absurd ones before allocating it.
    for (const auto& [piece, id] : spec.vocab)
        if (id >= limits::kMaxVocabRows)
            fail("model.vocab[\"" + piece.substr(0, 40) + "\"] has id " + std::to_string(id) + ", over the limit of " +
                 std::to_string(limits::kMaxVocabRows) + " tokens");
    for (const HfAddedToken& a : spec.added_tokens)
        if (a.id >= limits::kMaxVocabRows)
            fail("added token \"" + a.content.substr(0, 40) + "\" has id " + std::to_string(a.id) +
                 ", over the limit of " + std::to_string(limits::kMaxVocabRows) + " tokens");
    m.vocab.reserve(spec.vocab.size());
    for (const auto& [piece, id] : spec.vocab) {
        m.vocab.emplace(piece, id);
        m.set_slot(id, piece, Slot::Vocab);
    }
    if (m.vocab.empty()) fail("model.vocab is empty");

    m.merges.reserve(spec.merges.size());
    for (std::size_t rank = 0; rank < spec.merges.size(); ++rank) {
        const auto& [left, right] = spec.merges[rank];
        const std::string where = "model.merges[" + std::to_string(rank) + "] (\"" + left + "\", \"" + right + "\")";
        auto l = m.vocab.find(left), r = m.vocab.find(right);
        if (l == m.vocab.end()) fail(where + " refers to \"" + left + "\", which is not in model.vocab");
        if (r == m.vocab.end()) fail(where + " refers to \"" + right + "\", which is not in model.vocab");
        auto merged = m.vocab.find(left + right);
        if (merged == m.vocab.end()) fail(where + " produces \"" + left + right + "\", which is not in model.vocab");
        // Like HF, a repeated merge takes the rank of its last occurrence.
        m.merges[pair_key(l->second, r->second)] = Merge{static_cast<int32_t>(rank), merged->second};
    }

    for (int b = 0; b < 256; ++b) {
        auto it = m.vocab.find(byte_level::encode(std::string(1, static_cast<char>(b))));
        m.byte_symbol[b] = it == m.vocab.end() ? -1 : it->second;
    }
    if (!spec.unk_token.empty()) {
        auto it = m.vocab.find(spec.unk_token);
        if (it == m.vocab.end()) fail("model.unk_token \"" + spec.unk_token + "\" is not in model.vocab");
        m.unk_id = it->second;
    }
    m.ignore_merges = spec.ignore_merges;
    m.normalizer = spec.normalizer;
    m.pre_tokenizer = std::make_unique<HfPreTokenizer>(spec);

    std::vector<LiteralToken> raw_plain, raw_all, norm_plain, norm_all;
    for (const HfAddedToken& a : spec.added_tokens) {
        const std::string where = "added token \"" + a.content + "\" (id " + std::to_string(a.id) + ")";
        if (auto v = m.vocab.find(a.content); v != m.vocab.end() && v->second != a.id)
            fail(where + " is spelled like vocab token id " + std::to_string(v->second));
        if (static_cast<std::size_t>(a.id) < m.slots.size()) {
            const Slot s = m.slots[a.id];
            if ((s == Slot::Added || s == Slot::AddedSpecial) && m.id_to_token[a.id] != a.content)
                fail(where + ": the id is already used by added token \"" + m.id_to_token[a.id] + "\"");
            if (s == Slot::Vocab && m.id_to_token[a.id] != a.content)
                fail(where + ": model.vocab gives that id to \"" + m.id_to_token[a.id] + "\"");
        }
        if (auto prev = m.added_by_text.find(a.content); prev != m.added_by_text.end() && prev->second != a.id)
            fail(where + " repeats the content of added token id " + std::to_string(prev->second));
        m.set_slot(a.id, a.content, a.special ? Slot::AddedSpecial : Slot::Added);
        m.added_by_text[a.content] = a.id;
        LiteralToken lt{a.content, a.id, a.lstrip, a.rstrip, a.single_word};
        auto& all = a.normalized ? norm_all : raw_all;
        auto& plain = a.normalized ? norm_plain : raw_plain;
        all.push_back(lt);
        if (!a.special) plain.push_back(lt);
    }
    // HF's ByteLevel decoder maps each character back to its byte; a spelling holding a character
    // outside the byte table is kept as it is. Added tokens decode to their content.
    m.id_bytes.resize(m.slots.size());
    for (std::size_t id = 0; id < m.slots.size(); ++id) {
        if (m.slots[id] != Slot::Vocab) m.id_bytes[id] = m.id_to_token[id];
        else if (auto bytes = byte_level::decode(m.id_to_token[id])) m.id_bytes[id] = std::move(*bytes);
        else m.id_bytes[id] = m.id_to_token[id];
    }
    m.raw_plain = AddedTokenMatcher(std::move(raw_plain));
    m.raw_all = AddedTokenMatcher(std::move(raw_all));
    m.normalized_plain = AddedTokenMatcher(std::move(norm_plain));
    m.normalized_all = AddedTokenMatcher(std::move(norm_all));
}

HfBpeTokenizer::~HfBpeTokenizer() = default;

std::unique_ptr<HfBpeTokenizer> HfBpeTokenizer::from_json(std::string_view json_text, const std::string& source) {
    return std::make_unique<HfBpeTokenizer>(parse_hf_tokenizer_json(json_text, source));
}

std::unique_ptr<HfBpeTokenizer> HfBpeTokenizer::load_vocab_merges(const std::filesystem::path& dir) {
    return std::make_unique<HfBpeTokenizer>(read_hf_slow_tokenizer_files(dir));
}

std::unique_ptr<HfBpeTokenizer> HfBpeTokenizer::load(const std::filesystem::path& tokenizer_json) {
    return from_json(read_text_file(tokenizer_json, limits::kTokenizerJsonBytes, "tokenizer file"),
                     tokenizer_json.string());
}

// BPE of one pre-token: start from one symbol per byte and repeatedly merge the adjacent pair with
// the lowest rank (leftmost first on ties), using a heap over a linked list of symbols so long
// words stay O(n log n).
void HfBpeTokenizer::Impl::bpe_word(std::string_view word, std::vector<int32_t>& out) const {
    if (ignore_merges) {
        if (auto it = vocab.find(byte_level::encode(word)); it != vocab.end()) {
            out.push_back(it->second);
            return;
        }
    }
    struct Symbol {
        int32_t id;
        int prev, next;
    };
    std::vector<Symbol> sym;
    sym.reserve(word.size());
    for (char c : word) {
        int32_t id = byte_symbol[static_cast<unsigned char>(c)];
        if (id < 0) id = unk_id;
        if (id < 0) continue;  // HF drops characters it cannot spell when there is no unk token
        const int i = static_cast<int>(sym.size());
        sym.push_back({id, i - 1, i + 1});
    }
    if (sym.empty()) return;
    sym.back().next = -1;

    struct Candidate {
        int32_t rank;
        int left, right;
        int32_t left_id, right_id, merged_id;
        bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
    const auto consider = [&](int left) {
        if (left < 0) return;
        const int right = sym[left].next;
        if (right < 0) return;
        auto it = merges.find(pair_key(sym[left].id, sym[right].id));
        if (it != merges.end()) heap.push({it->second.rank, left, right, sym[left].id, sym[right].id, it->second.merged_id});
    };
    for (int i = 0; i + 1 < static_cast<int>(sym.size()); ++i) consider(i);

    std::vector<bool> dead(sym.size(), false);
    while (!heap.empty()) {
        const Candidate c = heap.top();
        heap.pop();
        // Skip stale entries: one side was merged away or changed since the entry was pushed.
        if (dead[c.left] || dead[c.right] || sym[c.left].next != c.right || sym[c.left].id != c.left_id ||
            sym[c.right].id != c.right_id)
            continue;
        sym[c.left].id = c.merged_id;
        dead[c.right] = true;
        sym[c.left].next = sym[c.right].next;
        if (sym[c.right].next >= 0) sym[sym[c.right].next].prev = c.left;
        consider(sym[c.left].prev);
        consider(c.left);
    }
    for (int i = 0; i >= 0; i = sym[i].next) out.push_back(sym[i].id);
}

void HfBpeTokenizer::Impl::bpe_word_cached(std::string_view word, std::vector<int32_t>& out) const {
    if (word.size() > kMaxCachedWordBytes) {
        bpe_word(word, out);
        return;
    }
    std::string key(word);
    {
        std::lock_guard lock(cache_mutex);
        if (auto it = cache.find(key); it != cache.end()) {
            out.insert(out.end(), it->second.begin(), it->second.end());
            return;
        }
    }
    std::vector<int32_t> ids;
    bpe_word(word, ids);
    out.insert(out.end(), ids.begin(), ids.end());
    std::lock_guard lock(cache_mutex);
    if (cache.size() >= kMaxCacheEntries) cache.clear();
    cache.emplace(std::move(key), std::move(ids));
}

void HfBpeTokenizer::Impl::encode_plain(std::string_view text, bool parse_special, std::vector<int32_t>& out) const {
    const std::string normalized = normalize_unicode(text, normalizer);
    for (const TextSegment& seg : (parse_special ? normalized_all : normalized_plain).split(normalized)) {
        if (seg.payload >= 0) {
            out.push_back(seg.payload);
            continue;
        }
        for (const std::string& word : pre_tokenizer->split(seg.text)) bpe_word_cached(word, out);
    }
}

std::vector<int32_t> HfBpeTokenizer::encode(std::string_view text, bool parse_special) const {
    std::vector<int32_t> ids;
    ids.reserve(text.size() / 3 + 1);
    for (const TextSegment& seg : (parse_special ? impl_->raw_all : impl_->raw_plain).split(text)) {
        if (seg.payload >= 0) ids.push_back(seg.payload);
        else impl_->encode_plain(seg.text, parse_special, ids);
    }
    return ids;
}

std::string HfBpeTokenizer::decode(const std::vector<int32_t>& ids, bool skip_special) const {
    const Impl& m = *impl_;
    std::string out;
    for (int32_t id : ids) {
        if (id < 0 || static_cast<std::size_t>(id) >= m.slots.size()) continue;  // not a token: nothing to show
        if (m.slots[id] == Slot::Unused || (skip_special && m.slots[id] == Slot::AddedSpecial)) continue;
        out += m.id_bytes[id];
    }
    return out;
}

std::string HfBpeTokenizer::token_text(int32_t id) const {
    const Impl& m = *impl_;
    if (id < 0 || static_cast<std::size_t>(id) >= m.slots.size() || m.slots[id] == Slot::Unused)
        return "<unused:" + std::to_string(id) + ">";
    if (m.slots[id] != Slot::Vocab) return m.id_to_token[id];
    return utf8::display_bytes(m.id_bytes[id]);
}

bool HfBpeTokenizer::is_special(int32_t id) const {
    return id >= 0 && static_cast<std::size_t>(id) < impl_->slots.size() && impl_->slots[id] == Slot::AddedSpecial;
}

int HfBpeTokenizer::vocab_size() const { return static_cast<int>(impl_->slots.size()); }

std::optional<int32_t> HfBpeTokenizer::token_id(std::string_view piece) const {
    const std::string key(piece);
    if (auto it = impl_->added_by_text.find(key); it != impl_->added_by_text.end()) return it->second;
    if (auto it = impl_->vocab.find(key); it != impl_->vocab.end()) return it->second;
    return std::nullopt;
}

}  // namespace dlm
