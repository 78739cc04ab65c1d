#include "text/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "text/added_token_matcher.h"
#include "text/sentencepiece_model_info.h"
#include "text/utf8_util.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/json_depth.h"
#include "util/text_file.h"

namespace dlm {
namespace {

constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";       // U+2581 "▁"
constexpr std::string_view kUnknownSurface = " \xE2\x81\x87 ";  // " ⁇ ", libsentencepiece's rendering

std::string replace_space_symbol(std::string_view piece) {
    std::string out;
    out.reserve(piece.size());
    for (std::size_t i = 0; i < piece.size();) {
        if (piece.compare(i, kSpaceSymbol.size(), kSpaceSymbol) == 0) {
            out += ' ';
            i += kSpaceSymbol.size();
        } else {
            out += piece[i++];
        }
    }
    return out;
}

// "<0x41>" -> 0x41; -1 if the piece is not of that form.
int byte_of_piece(std::string_view piece) {
    if (piece.size() != 6 || piece.substr(0, 3) != "<0x" || piece[5] != '>') return -1;
    int value = 0;
    for (char c : piece.substr(3, 2)) {
        value <<= 4;
        if (c >= '0' && c <= '9') value |= c - '0';
        else if (c >= 'A' && c <= 'F') value |= c - 'A' + 10;
        else if (c >= 'a' && c <= 'f') value |= c - 'a' + 10;
        else return -1;
    }
    return value;
}

}  // namespace

struct SentencePieceTokenizer::Impl {
    std::string source;
    sentencepiece::SentencePieceProcessor with_prefix;     // for the text at the start
    sentencepiece::SentencePieceProcessor without_prefix;  // for text that continues after something
    SentencePieceModelInfo info;
    std::vector<int> byte_value;  // per id: the byte of a BYTE piece, else -1
    std::array<int32_t, 256> byte_piece{};  // per byte: its BYTE piece id, else -1
    bool has_byte_pieces = false;            // all 256 present (byte_fallback models)
    std::unordered_map<std::string, int32_t> by_piece;
    AddedTokenMatcher user_defined;  // spellings sentencepiece matches by itself
    AddedTokenMatcher all_special;   // CONTROL + USER_DEFINED + UNKNOWN

    bool valid(int32_t id) const { return id >= 0 && static_cast<std::size_t>(id) < info.types.size(); }
    PieceType type(int32_t id) const { return info.types[id]; }

    void encode_valid(std::string_view text, bool at_start, std::vector<int32_t>& out) const {
        if (text.empty()) return;
        std::vector<int> ids;
        const auto status = (at_start ? with_prefix : without_prefix).Encode(text, &ids);
        if (!status.ok()) throw Error(source + ": encoding failed (" + status.ToString() + ")");
        out.insert(out.end(), ids.begin(), ids.end());
    }

    // Bytes the library cannot give back: invalid UTF-8 (it becomes U+FFFD) and a literal "▁" (it
    // becomes a space when whitespace is escaped). Spelling them with BYTE pieces keeps
    // decode(encode(s)) == s for any byte string; without byte fallback they go to the library
    // (invalid bytes as <unk>).
    std::size_t bytes_to_spell(std::string_view text, std::size_t i) const {
        const std::size_t len = utf8::valid_sequence_length(text, i);
        if (len == 0) return 1;
        if (has_byte_pieces && info.escape_whitespaces && text.compare(i, kSpaceSymbol.size(), kSpaceSymbol) == 0)
            return kSpaceSymbol.size();
        return 0;
    }

    void encode_run(std::string_view text, bool at_start, std::vector<int32_t>& out) const {
        std::size_t run_start = 0, i = 0;
        while (i < text.size()) {
            const std::size_t spell = bytes_to_spell(text, i);
            if (spell == 0) {
                i += utf8::char_length(text, i);
                continue;
            }
            if (i > run_start) encode_valid(text.substr(run_start, i - run_start), at_start, out);
            at_start = false;
            for (std::size_t k = i; k < i + spell; ++k) {
                const int32_t b = byte_piece[static_cast<unsigned char>(text[k])];
                out.push_back(b >= 0 ? b : with_prefix.unk_id());
            }
            run_start = i += spell;
        }
        encode_valid(text.substr(run_start), at_start, out);
    }

    // Ordinary text that must not produce USER_DEFINED ids: cut inside every spelling of one.
    void encode_literal(std::string_view text, bool at_start, std::vector<int32_t>& out) const {
        std::size_t chunk_start = 0;
        while (chunk_start < text.size()) {
            std::size_t hit_begin = text.size(), hit_end = text.size();
            for (const TextSegment& seg : user_defined.split(text.substr(chunk_start))) {
                if (seg.payload < 0) continue;
                hit_begin = static_cast<std::size_t>(seg.text.data() - text.data());
                hit_end = hit_begin + seg.text.size();
                break;
            }
            if (hit_begin == text.size()) {
                encode_run(text.substr(chunk_start), at_start, out);
                return;
            }
            const std::size_t first_char = utf8::char_length(text, hit_begin);
            if (hit_begin + first_char < hit_end) {
                // Cutting after the first character breaks the spelling; the rest is rescanned.
                encode_run(text.substr(chunk_start, hit_begin + first_char - chunk_start), at_start, out);
                chunk_start = hit_begin + first_char;
            } else {
                // A one-character special piece cannot be cut: spell its bytes.
                encode_run(text.substr(chunk_start, hit_begin - chunk_start), at_start, out);
                for (std::size_t i = hit_begin; i < hit_end; ++i) {
                    const int32_t b = byte_piece[static_cast<unsigned char>(text[i])];
                    if (b < 0) {  // no byte fallback: nothing else can spell it
                        encode_run(text.substr(hit_begin, hit_end - hit_begin), false, out);
                        break;
                    }
                    out.push_back(b);
                }
                chunk_start = hit_end;
            }
            at_start = false;
        }
    }
};

SentencePieceTokenizer::SentencePieceTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::load(const std::filesystem::path& model_file) {
    return from_serialized(read_text_file(model_file, limits::kSentencepieceBytes, "tokenizer model"),
                           model_file.string());
}

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::from_serialized(std::string_view model_proto,
                                                                               const std::string& source) {
    auto m = std::make_unique<Impl>();
    m->source = source;
    if (model_proto.empty()) throw Error(source + ": the SentencePiece model file is empty");
    // Our own reader first: it rejects malformed bytes with a precise message before the library
    // sees them.
    m->info = read_sentencepiece_model_info(model_proto, source);
    if (m->info.pieces.empty()) throw Error(source + ": not a SentencePiece model (it holds no pieces)");

    // The library also throws from inside (its trie builder): anything it raises is a refusal too.
    sentencepiece::util::Status status;
    try {
        status = m->with_prefix.LoadFromSerializedProto(model_proto);
        if (status.ok()) status = m->without_prefix.LoadFromSerializedProto(without_dummy_prefix(model_proto));
    } catch (const std::exception& e) {
        throw Error(source + ": not a valid SentencePiece model (" + e.what() + ")");
    }
    if (!status.ok()) throw Error(source + ": not a valid SentencePiece model (" + status.ToString() + ")");
    if (m->with_prefix.GetPieceSize() != static_cast<int>(m->info.pieces.size()))
        throw Error(source + ": SentencePiece reports " + std::to_string(m->with_prefix.GetPieceSize()) +
                    " pieces but the file lists " + std::to_string(m->info.pieces.size()));

    const auto n = static_cast<int32_t>(m->info.pieces.size());
    m->byte_value.assign(n, -1);
    m->byte_piece.fill(-1);
    std::vector<LiteralToken> user_defined, all_special;
    for (int32_t id = 0; id < n; ++id) {
        const std::string& piece = m->info.pieces[id];
        m->by_piece.emplace(piece, id);
        switch (m->info.types[id]) {
            case PieceType::Byte:
                m->byte_value[id] = byte_of_piece(piece);
                if (m->byte_value[id] < 0) throw Error(source + ": byte piece " + std::to_string(id) + " is \"" + piece + "\", not <0xNN>");
                m->byte_piece[m->byte_value[id]] = id;
                break;
            case PieceType::UserDefined:
                user_defined.push_back({piece, id});
                all_special.push_back({piece, id});
                break;
            case PieceType::Control:
            case PieceType::Unknown:
                all_special.push_back({piece, id});
                break;
            default: break;
        }
    }
    m->has_byte_pieces = std::find(m->byte_piece.begin(), m->byte_piece.end(), -1) == m->byte_piece.end();
    m->user_defined = AddedTokenMatcher(std::move(user_defined));
    m->all_special = AddedTokenMatcher(std::move(all_special));
    return std::unique_ptr<SentencePieceTokenizer>(new SentencePieceTokenizer(std::move(m)));
}

std::vector<int32_t> SentencePieceTokenizer::encode(std::string_view text, bool parse_special) const {
    const Impl& m = *impl_;
    std::vector<int32_t> ids;
    if (!parse_special) {
        m.encode_literal(text, true, ids);
        return ids;
    }
    bool at_start = true;
    for (const TextSegment& seg : m.all_special.split(text)) {
        if (seg.payload < 0) {
            m.encode_run(seg.text, at_start, ids);
            at_start = false;
        } else {
            ids.push_back(seg.payload);
            if (m.type(seg.payload) != PieceType::Control) at_start = false;
        }
    }
    return ids;
}

std::string SentencePieceTokenizer::decode(const std::vector<int32_t>& ids, bool skip_special) const {
    const Impl& m = *impl_;
    std::string out;
    bool at_start = true;  // no text yet: a leading "▁" here is the dummy prefix
    for (int32_t id : ids) {
        if (!m.valid(id)) continue;
        const std::string& piece = m.info.pieces[id];
        switch (m.type(id)) {
            case PieceType::Control:
                if (!skip_special) out += piece;
                break;
            case PieceType::UserDefined:
                if (!skip_special) out += piece;
                at_start = false;
                break;
            case PieceType::Unknown:
                if (!skip_special) out += kUnknownSurface;
                at_start = false;
                break;
            case PieceType::Byte:
                out += static_cast<char>(m.byte_value[id]);
                at_start = false;
                break;
            case PieceType::Normal:
            case PieceType::Unused: {
                std::string_view p = piece;
                if (at_start && m.info.add_dummy_prefix && p.substr(0, kSpaceSymbol.size()) == kSpaceSymbol)
                    p.remove_prefix(kSpaceSymbol.size());
                out += m.info.escape_whitespaces ? replace_space_symbol(p) : std::string(p);
                at_start = false;
                break;
            }
        }
    }
    return out;
}

std::string SentencePieceTokenizer::token_text(int32_t id) const {
    const Impl& m = *impl_;
    if (!m.valid(id)) return "<unused:" + std::to_string(id) + ">";
    const std::string& piece = m.info.pieces[id];
    switch (m.type(id)) {
        case PieceType::Byte:
            return m.byte_value[id] < 0x80 ? std::string(1, static_cast<char>(m.byte_value[id])) : piece;
        case PieceType::Normal:
        case PieceType::Unused:
            return m.info.escape_whitespaces ? replace_space_symbol(piece) : piece;
        default:
            return piece;
    }
}

bool SentencePieceTokenizer::is_special(int32_t id) const {
    if (!impl_->valid(id)) return false;
    const PieceType t = impl_->type(id);
    return t == PieceType::Control || t == PieceType::UserDefined || t == PieceType::Unknown;
}

int SentencePieceTokenizer::vocab_size() const { return static_cast<int>(impl_->info.pieces.size()); }

std::optional<int32_t> SentencePieceTokenizer::token_id(std::string_view piece) const {
    auto it = impl_->by_piece.find(std::string(piece));
    if (it == impl_->by_piece.end()) return std::nullopt;
    return it->second;
}

}  // namespace dlm
