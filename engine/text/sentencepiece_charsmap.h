#pragma once
// SentencePiece's normalisation rules travel inside a model as a compiled blob
// (NormalizerSpec.precompiled_charsmap): a little-endian uint32 trie size, a Darts double-array
// trie of that many bytes, then the replacement strings the trie's leaves point into. The library
// walks the trie and reads the strings without bounds checks, so a corrupt blob crashes the first
// encode. check_precompiled_charsmap walks every path the library can take and refuses a blob on
// which any of them would leave the arrays.
#include <string>
#include <string_view>

namespace dlm {

// Throws dlm::Error naming `source` and `spec` ("normalizer" or "denormalizer") when the blob is
// malformed. An empty blob (no rules) is valid.
void check_precompiled_charsmap(std::string_view blob, const std::string& source, const char* spec);

}  // namespace dlm
