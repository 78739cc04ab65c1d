#include "text/sentencepiece_model_info.h"

#include "text/sentencepiece_charsmap.h"
#include "util/error.h"

namespace dlm {
namespace {

class WireReader {
public:
    WireReader(std::string_view data, const std::string& source) : data_(data), source_(source) {}

    bool done() const { return pos_ >= data_.size(); }

    uint64_t varint() {
        uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos_ >= data_.size()) fail("truncated varint");
            const auto byte = static_cast<unsigned char>(data_[pos_++]);
            value |= static_cast<uint64_t>(byte & 0x7F) << shift;
            if (!(byte & 0x80)) return value;
        }
        fail("varint longer than 10 bytes");
    }

    std::string_view bytes(uint64_t n) {
        if (n > data_.size() - pos_) fail("a field runs past the end of the data");
        std::string_view out = data_.substr(pos_, n);
        pos_ += n;
        return out;
    }

    void skip(uint32_t wire_type) {
        switch (wire_type) {
            case 0: varint(); break;
            case 1: bytes(8); break;
            case 2: bytes(varint()); break;
            case 5: bytes(4); break;
            default: fail("unsupported protobuf wire type " + std::to_string(wire_type));
        }
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw Error(source_ + ": not a valid SentencePiece model (" + what + " at byte " + std::to_string(pos_) + ")");
    }

private:
    std::string_view data_;
    const std::string& source_;
    std::size_t pos_ = 0;
};

void read_piece(std::string_view msg, const std::string& source, SentencePieceModelInfo& info) {
    WireReader r(msg, source);
    std::string piece;
    PieceType type = PieceType::Normal;
    while (!r.done()) {
        const uint64_t key = r.varint();
        const uint32_t field = static_cast<uint32_t>(key >> 3), wire = static_cast<uint32_t>(key & 7);
        if (field == 1 && wire == 2) {
            piece = std::string(r.bytes(r.varint()));
        } else if (field == 3 && wire == 0) {
            const uint64_t t = r.varint();
            if (t < 1 || t > 6) r.fail("piece type " + std::to_string(t) + " is unknown");
            type = static_cast<PieceType>(t);
        } else {
            r.skip(wire);
        }
    }
    // libsentencepiece's trie throws (uncaught, from inside its loader) on an empty key.
    if (piece.empty()) r.fail("piece " + std::to_string(info.pieces.size()) + " is empty");
    info.pieces.push_back(std::move(piece));
    info.types.push_back(type);
}

void read_normalizer(std::string_view msg, const std::string& source, SentencePieceModelInfo& info) {
    WireReader r(msg, source);
    while (!r.done()) {
        const uint64_t key = r.varint();
        const uint32_t field = static_cast<uint32_t>(key >> 3), wire = static_cast<uint32_t>(key & 7);
        if (wire == 0 && (field == 3 || field == 4 || field == 5)) {
            const bool v = r.varint() != 0;
            (field == 3 ? info.add_dummy_prefix : field == 4 ? info.remove_extra_whitespaces : info.escape_whitespaces) = v;
        } else if (field == 2 && wire == 2) {
            check_precompiled_charsmap(r.bytes(r.varint()), source, "normalizer");
        } else {
            r.skip(wire);
        }
    }
}

// The denormalizer (used when decoding) carries a charsmap of its own; its flags are not ours.
void check_denormalizer(std::string_view msg, const std::string& source) {
    WireReader r(msg, source);
    while (!r.done()) {
        const uint64_t key = r.varint();
        const uint32_t field = static_cast<uint32_t>(key >> 3), wire = static_cast<uint32_t>(key & 7);
        if (field == 2 && wire == 2) check_precompiled_charsmap(r.bytes(r.varint()), source, "denormalizer");
        else r.skip(wire);
    }
}

}  // namespace

SentencePieceModelInfo read_sentencepiece_model_info(std::string_view serialized, const std::string& source) {
    SentencePieceModelInfo info;
    WireReader r(serialized, source);
    while (!r.done()) {
        const uint64_t key = r.varint();
        const uint32_t field = static_cast<uint32_t>(key >> 3), wire = static_cast<uint32_t>(key & 7);
        if (field == 1 && wire == 2) read_piece(r.bytes(r.varint()), source, info);
        else if (field == 3 && wire == 2) read_normalizer(r.bytes(r.varint()), source, info);
        else if (field == 5 && wire == 2) check_denormalizer(r.bytes(r.varint()), source);
        else r.skip(wire);
    }
    return info;
}

std::string without_dummy_prefix(std::string_view serialized) {
    std::string out(serialized);
    // field 3 (normalizer_spec), wire type 2, length 2: { field 3 (add_dummy_prefix), varint 0 }
    out += std::string("\x1A\x02\x18\x00", 4);
    return out;
}

}  // namespace dlm
