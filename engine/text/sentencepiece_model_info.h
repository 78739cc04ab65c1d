#pragma once
// Reads what libsentencepiece 0.1.97 does not expose from a serialized .model (ModelProto):
// each piece's type (USER_DEFINED has no accessor) and the normalizer flags that decide how the
// leading "▁" is handled. A minimal protobuf wire-format reader, bounds-checked throughout.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dlm {

enum class PieceType : uint8_t { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

struct SentencePieceModelInfo {
    std::vector<std::string> pieces;  // index = id
    std::vector<PieceType> types;
    bool add_dummy_prefix = true;  // proto defaults
    bool remove_extra_whitespaces = true;
    bool escape_whitespaces = true;
};

// Throws dlm::Error naming `source` when `serialized` is not a well-formed ModelProto.
SentencePieceModelInfo read_sentencepiece_model_info(std::string_view serialized, const std::string& source);

// The same model with normalizer_spec.add_dummy_prefix = false. Protobuf merges a repeated
// embedded message field into the earlier one, so appending {normalizer_spec {add_dummy_prefix:
// false}} overrides exactly that flag and nothing else.
std::string without_dummy_prefix(std::string_view serialized);

}  // namespace dlm
