// A .safetensors file (header length, JSON header, data section), opened and validated as a
// checkpoint's weight file is. The reader maps a file, as it does for real checkpoints: the bytes
// go to an anonymous in-memory file of this process (memfd), opened by its /proc path, so no run,
// not even one that crashes, leaves a file behind.
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "fuzz_support.h"
#include "model/safetensors_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static const int fd = ::memfd_create("dlmscope-fuzz-safetensors", 0);
    static const std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (fd < 0 || ::ftruncate(fd, 0) != 0) return 0;
    if (size > 0 && ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) return 0;
    dlm::fuzz::expect_refusal_or_success([&] {
        dlm::SafetensorsFile file(path);
        for (const auto& [name, view] : file.tensors()) (void)name.size();
    });
    return 0;
}
