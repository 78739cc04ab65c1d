// A tokenizer.model (SentencePiece ModelProto) through the engine's own checks and then
// libsentencepiece: loaded, encoded, decoded.
#include "fuzz_support.h"
#include "text/sentencepiece_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    dlm::fuzz::expect_refusal_or_success([&] {
        auto tok = dlm::SentencePieceTokenizer::from_serialized(dlm::fuzz::as_text(data, size), "tokenizer.model");
        for (const char* text : {"What is 12 + 345?", " <|mask|> two  spaces\t\xC3\xA9", "\xFF\x00x"}) {
            const auto ids = tok->encode(text, true);
            (void)tok->decode(ids, false);
        }
    });
    return 0;
}
