// A Hugging Face tokenizer.json (byte-level BPE), loaded, then used: encode with and without
// special-token parsing, decode, and every token's text.
#include "fuzz_support.h"
#include "text/hf_bpe_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    dlm::fuzz::expect_refusal_or_success([&] {
        auto tok = dlm::HfBpeTokenizer::from_json(dlm::fuzz::as_text(data, size), "tokenizer.json");
        for (const char* text : {"Hello world, 12 + 345 = 357.\n", "<|im_start|>user\n\xC3\xA9\xE2\x82\xAC<|im_end|>", "\xFF\xFE"}) {
            const auto ids = tok->encode(text, true);
            (void)tok->decode(ids, false);
            (void)tok->encode(text, false);
        }
        const int n = tok->vocab_size();
        for (int i = 0; i < n && i < 4096; ++i) (void)tok->token_text(i);
    });
    return 0;
}
