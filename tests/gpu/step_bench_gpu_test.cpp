// The GPU benchmark's device-side pieces: the roofline ceilings measured on the
// device, and the step bench driving the CUDA backend (batched canvases, sparse rows read from
// the cache, row statistics of the head rows).
#include <gtest/gtest.h>

#include <cmath>

#include "bench/random_weights.h"
#include "bench/step_bench.h"
#include "cuda_backend.h"
#include "device_roofline.h"
#include "gpu_test_support.h"

namespace dlm {
namespace {

TEST(GpuStepBench, RooflineCeilingsAreRatesOfTheRightMagnitude) {
    DLM_REQUIRE_GPU();
    cuda::DeviceRooflineOptions o;
    o.gemm_size = 2048;
    o.gemm_reps = 3;
    o.copy_bytes = std::size_t(64) << 20;
    o.copy_reps = 3;
    const RooflineRates r = cuda::measure_device_roofline(o);
    // Any CUDA GPU of the last decade lies well inside these bounds; a unit slip (ms for s, bytes
    // counted once or a thousand times) does not.
    EXPECT_GT(r.gemm_flops_per_s, 1e12) << r.how;
    EXPECT_LT(r.gemm_flops_per_s, 1e16) << r.how;
    EXPECT_GT(r.copy_bytes_per_s, 1e10) << r.how;
    EXPECT_LT(r.copy_bytes_per_s, 1e14) << r.how;
    EXPECT_NE(r.how.find("GEMM"), std::string::npos);
}

TEST(GpuStepBench, DrivesTheCudaBackendThroughDenseAndSparseSteps) {
    DLM_REQUIRE_GPU();
    auto model = make_random_llada_weights(random_llada_preset("tiny"));
    auto backend = make_cuda_backend(model->weights);
    StepBenchOptions o;
    o.prompt_len = 16;
    o.lengths = {80};
    o.batches = {2};
    o.fractions = {1.0, 0.25};
    o.reps = 2;
    o.warmup = 1;
    const uint64_t before = backend->rows_computed();
    const StepBenchReport r = run_step_bench(*backend, RooflineRates{1e14, 1e12, "test"}, "gpu", o);
    ASSERT_EQ(r.points.size(), 1u);
    const StepBenchPoint& p = r.points[0];
    EXPECT_EQ(p.sparse[0].rows, 64);
    EXPECT_EQ(p.sparse[1].rows, 16);
    // 3 steps (warm-up + reps) per measurement, 2 canvases per step: the backend computed exactly
    // the rows asked for, no more.
    EXPECT_EQ(backend->rows_computed() - before, uint64_t(3 * 2 * (80 + 64 + 16)));
    EXPECT_GT(p.dense.seconds, 0.0);
    EXPECT_GT(p.sparse[1].seconds, 0.0);
    EXPECT_TRUE(std::isfinite(p.dense.roofline_seconds));
}

}  // namespace
}  // namespace dlm
