// A message as dlmscope-server reads it from a client, and as the app reads the server's.
#include "fuzz_support.h"
#include "serve/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const auto text = dlm::fuzz::as_text(data, size);
    dlm::fuzz::expect_refusal_or_success([&] { (void)dlm::serve::parse_client_message(text, dlm::serve::ServeLimits{}); });
    dlm::fuzz::expect_refusal_or_success([&] { (void)dlm::serve::parse_server_message(text); });
    return 0;
}
