// A .safetensors file (header length, JSON header, data section), opened and validated as a
// checkpoint's weight file is. The bytes go to a file of this process first: the reader maps a
// file, as it does for real checkpoints.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "fuzz_support.h"
#include "model/safetensors_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static const std::string path = "/tmp/dlmscope-fuzz-" + std::to_string(::getpid()) + ".safetensors";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    dlm::fuzz::expect_refusal_or_success([&] {
        dlm::SafetensorsFile file(path);
        for (const auto& [name, view] : file.tensors()) (void)name.size();
    });
    return 0;
}
