#include "backends/backend_factory.h"

#include <filesystem>

#include "util/error.h"

#if DLM_WITH_CUDA
#include "cuda_backend.h"
#include "device_probe.h"
#endif

namespace dlm {

namespace {

constexpr const char* kCpuFallback = "; running on the CPU";

// Whether the NVIDIA kernel driver is loaded (Linux): tells "no driver" apart from the CUDA
// runtime's own wording for it, and spots a GPU that a build without CUDA leaves unused.
bool nvidia_driver_visible() {
    std::error_code ec;
    return std::filesystem::exists("/proc/driver/nvidia/version", ec);
}

BackendChoice on_cpu(const ModelWeights& weights, const CpuBackendOptions& cpu_options, std::string note) {
    return BackendChoice{make_cpu_backend(weights, cpu_options), std::move(note)};
}

}  // namespace

BackendKind parse_backend_kind(const std::string& text) {
    if (text == "auto") return BackendKind::Auto;
    if (text == "cpu") return BackendKind::Cpu;
    if (text == "cuda") return BackendKind::Cuda;
    throw Error("unknown backend '" + text + "' (accepted: auto, cpu, cuda)");
}

const char* backend_kind_name(BackendKind kind) {
    switch (kind) {
        case BackendKind::Auto: return "auto";
        case BackendKind::Cpu: return "cpu";
        case BackendKind::Cuda: return "cuda";
    }
    return "auto";
}

bool cuda_backend_built() {
#if DLM_WITH_CUDA
    return true;
#else
    return false;
#endif
}

BackendChoice make_backend(const ModelWeights& weights, BackendKind kind, CpuBackendOptions cpu_options) {
    if (kind == BackendKind::Cpu) return on_cpu(weights, cpu_options, {});
    // `auto` on a machine without an NVIDIA driver stays quiet, whatever the build: no GPU can
    // run here, so the CPU is simply what runs, not a fallback worth a note on every load.
    // Asking for CUDA by name always gets the reason.
    if (kind == BackendKind::Auto && !nvidia_driver_visible()) return on_cpu(weights, cpu_options, {});
#if DLM_WITH_CUDA
    const cuda::DeviceProbe probe = cuda::probe_device();
    if (!probe.available) {
        // Without a driver the runtime reports an "insufficient" driver version: say it plainly.
        const std::string why = nvidia_driver_visible() ? "CUDA is not usable here"
                                                        : "no NVIDIA driver is loaded, so CUDA cannot run";
        return on_cpu(weights, cpu_options, why + " (" + probe.message + ")" + kCpuFallback);
    }
    try {
        return BackendChoice{make_cuda_backend(weights), {}};
    } catch (const Error& e) {
        // Typically the weights do not fit the device; the CPU backend still runs the model.
        return on_cpu(weights, cpu_options, std::string("the CUDA backend failed: ") + e.what() + kCpuFallback);
    }
#else
    return on_cpu(weights, cpu_options,
                  std::string(kind == BackendKind::Auto ? "an NVIDIA driver is present, but this build"
                                                        : "this build") +
                      " has no CUDA backend (nvcc was not found when it was built)" + kCpuFallback);
#endif
}

}  // namespace dlm
