// The backend factory (backends/backend_factory.h): parsing the user's choice, and what each
// choice gives on this machine. Without a usable GPU every choice ends on the CPU, with a note
// when CUDA was asked for; on a GPU machine auto and cuda give the CUDA backend, quietly.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "backends/backend_factory.h"
#include "bench/random_weights.h"
#include "util/error.h"

#if DLM_WITH_CUDA
#include "device_probe.h"
#endif

namespace dlm {
namespace {

// Whether a CUDA backend can be made here at all: built with CUDA and a device answers.
bool gpu_usable() {
#if DLM_WITH_CUDA
    return cuda::probe_device().available;
#else
    return false;
#endif
}

std::unique_ptr<OwnedModelWeights> tiny_weights() {
    RandomLladaSpec spec;
    spec.d_model = 64;
    spec.n_layers = 1;
    spec.n_heads = 4;
    spec.d_ff = 96;
    spec.vocab_size = 50;
    spec.max_seq_len = 32;
    return make_random_llada_weights(spec);
}

// The backend chosen must actually run: one dense forward gives finite logits of the vocab size.
void expect_runs(Backend& backend) {
    const int n = 8;
    std::vector<int32_t> tokens(n), rows(n);
    std::iota(rows.begin(), rows.end(), 0);
    for (int i = 0; i < n; ++i) tokens[i] = (7 * i + 3) % (backend.config().vocab_size - 1);
    auto cache = backend.make_cache(n);
    ForwardItem item;
    item.tokens = tokens;
    item.rows = rows;
    item.head_rows = rows;
    item.cache = cache.get();
    backend.forward(std::span<const ForwardItem>(&item, 1));
    const std::vector<float> logits = backend.logits(0, n - 1);
    ASSERT_EQ(static_cast<int>(logits.size()), backend.config().vocab_size);
    for (float v : logits) ASSERT_TRUE(std::isfinite(v));
}

TEST(BackendFactory, ParsesTheThreeNamesAndNothingElse) {
    EXPECT_EQ(parse_backend_kind("auto"), BackendKind::Auto);
    EXPECT_EQ(parse_backend_kind("cpu"), BackendKind::Cpu);
    EXPECT_EQ(parse_backend_kind("cuda"), BackendKind::Cuda);
    for (BackendKind k : {BackendKind::Auto, BackendKind::Cpu, BackendKind::Cuda})
        EXPECT_EQ(parse_backend_kind(backend_kind_name(k)), k);
    for (const char* bad : {"gpu", "CUDA", "", "cpu ", "opencl"}) {
        try {
            parse_backend_kind(bad);
            ADD_FAILURE() << "'" << bad << "' was accepted";
        } catch (const Error& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("auto, cpu, cuda"), std::string::npos) << m;
            EXPECT_NE(m.find(std::string("'") + bad + "'"), std::string::npos) << m;
        }
    }
}

TEST(BackendFactory, BuiltFlagMatchesTheBuild) {
#if DLM_WITH_CUDA
    EXPECT_TRUE(cuda_backend_built());
#else
    EXPECT_FALSE(cuda_backend_built());
#endif
}

TEST(BackendFactory, CpuIsTheCpuBackendWithoutNote) {
    auto w = tiny_weights();
    BackendChoice c = make_backend(w->weights, BackendKind::Cpu, CpuBackendOptions{.threads = 1});
    ASSERT_TRUE(c.backend);
    EXPECT_EQ(c.backend->name(), "cpu");
    EXPECT_TRUE(c.note.empty()) << c.note;
    expect_runs(*c.backend);
}

TEST(BackendFactory, CudaWithoutADeviceFallsBackToTheCpuAndSaysWhy) {
    auto w = tiny_weights();
    BackendChoice c = make_backend(w->weights, BackendKind::Cuda, CpuBackendOptions{.threads = 1});
    ASSERT_TRUE(c.backend);
    if (gpu_usable()) {
        // Asked for by name on a machine that has it: CUDA, and nothing to explain.
        EXPECT_EQ(c.backend->name(), "cuda") << c.note;
        EXPECT_TRUE(c.note.empty()) << c.note;
        expect_runs(*c.backend);
        GTEST_SKIP() << "a CUDA device is present: the fallback itself cannot be observed here";
    }
    EXPECT_EQ(c.backend->name(), "cpu");
    EXPECT_NE(c.note.find("CUDA"), std::string::npos) << c.note;
    EXPECT_NE(c.note.find("running on the CPU"), std::string::npos) << c.note;
    if (!cuda_backend_built()) EXPECT_NE(c.note.find("nvcc"), std::string::npos) << c.note;
    expect_runs(*c.backend);
}

TEST(BackendFactory, AutoPrefersAUsableGpu) {
    auto w = tiny_weights();
    BackendChoice c = make_backend(w->weights, BackendKind::Auto, CpuBackendOptions{.threads = 1});
    ASSERT_TRUE(c.backend);
    if (gpu_usable()) {
        EXPECT_EQ(c.backend->name(), "cuda") << c.note;
        EXPECT_TRUE(c.note.empty()) << c.note;
    } else {
        EXPECT_EQ(c.backend->name(), "cpu");
        if (!std::filesystem::exists("/proc/driver/nvidia/version")) {
            // No NVIDIA driver, so no GPU could run here, whatever the build: nothing worth a note.
            EXPECT_TRUE(c.note.empty()) << c.note;
        } else if (cuda_backend_built()) {
            // A driver, a CUDA build, and still no usable device: say why.
            EXPECT_NE(c.note.find("CUDA"), std::string::npos) << c.note;
        } else {
            // A GPU visibly going unused by a build without CUDA.
            EXPECT_NE(c.note.find("nvcc"), std::string::npos) << c.note;
        }
    }
    expect_runs(*c.backend);
}

}  // namespace
}  // namespace dlm
