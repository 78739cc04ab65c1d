// config.json of a checkpoint (LLaDA, Dream, Qwen2 and the dlmscope-tiny layouts), parsed and
// its derived sizes computed as inspect and run do.
#include "fuzz_support.h"
#include "model/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    dlm::fuzz::expect_refusal_or_success([&] {
        const dlm::ModelConfig c = dlm::parse_model_config(dlm::fuzz::as_text(data, size), "config.json");
        (void)dlm::parameter_count(c);
    });
    return 0;
}
