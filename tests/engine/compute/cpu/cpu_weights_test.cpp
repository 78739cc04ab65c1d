// CpuWeights' memory plan: fp32 copies (packed into panels where the CPU has the kernels) at load
// only when all of them fit the budget and the memory available, widening from the memory map
// otherwise, and a refusal that names the numbers when the weights cannot fit at all.
#include <gtest/gtest.h>

#include <string>

#include "compute/cpu/cpu_weights.h"
#include "compute/cpu/panel_gemm.h"
#include "support/random_checkpoint.h"
#include "util/error.h"

namespace dlm::cpu {
namespace {

struct Bf16Model : test::RandomModel {
    Bf16Model() : RandomModel("dlm-cpu-weights-test") {
        test::RandomCheckpointOptions o;
        o.dtype = DType::BF16;
        test::load_random_model(*this, Family::Llada, o);
    }
};

constexpr double kPlenty = 64e9;

// Elements of every matrix the forward multiplies by (the layers' seven and the LM head).
double matrix_elements(const ModelWeights& w) {
    double n = double(w.lm_head->numel());
    for (const LayerWeights& l : w.layers)
        for (const TensorView* t : {l.wq, l.wk, l.wv, l.wo, l.w_gate, l.w_up, l.w_down}) n += double(t->numel());
    return n;
}

TEST(CpuWeights, CopiesToFp32WhenEverythingFits) {
    Bf16Model m;
    ThreadPool pool(1);
    CpuWeights w(m.weights, std::size_t(1) << 30, kPlenty, pool);
    EXPECT_GT(w.converted_bytes(), 0u);
    EXPECT_EQ(w.widened_matrices(), 0);
    if (panel_width() > 0) {  // packed: every matrix, the LM head too
        EXPECT_NE(w.layer(0).wq.panels, nullptr);
        EXPECT_NE(w.lm_head().panels, nullptr);
        EXPECT_GE(double(w.converted_bytes()), 4.0 * matrix_elements(m.weights));
    } else {
        EXPECT_NE(w.layer(0).wq.f32, nullptr);
    }
}

// Packed copies of fp32 matrices too: the mapped pages are left alone.
TEST(CpuWeights, PacksFp32MatricesWhenThePanelsFit) {
    if (panel_width() == 0) GTEST_SKIP() << "this CPU has neither AVX-512F nor AVX2 with FMA: no panels";
    test::RandomModel m("dlm-cpu-weights-f32-test");
    test::load_random_model(m, Family::Llada, {});
    ThreadPool pool(2);
    CpuWeights w(m.weights, std::size_t(1) << 30, kPlenty, pool);
    EXPECT_NE(w.layer(0).w_down.panels, nullptr);
    EXPECT_EQ(w.layer(0).w_down.f32, nullptr);
    CpuWeights unpacked(m.weights, 1024, kPlenty, pool);  // the budget holds no copy: used in place
    EXPECT_EQ(unpacked.layer(0).w_down.panels, nullptr);
    EXPECT_NE(unpacked.layer(0).w_down.f32, nullptr);
}

// A CPU without the kernels (no AVX2) copies to fp32 for sgemm, as before panels existed.
TEST(CpuWeights, WithoutPanelKernelsCopiesForSgemm) {
    Bf16Model m;
    ThreadPool pool(1);
    ASSERT_TRUE(use_panel_isa("none"));
    CpuWeights w(m.weights, std::size_t(1) << 30, kPlenty, pool);
    use_panel_isa("");
    EXPECT_EQ(w.layer(0).wq.panels, nullptr);
    EXPECT_NE(w.layer(0).wq.f32, nullptr);
    EXPECT_NE(w.lm_head().f32, nullptr);
    EXPECT_EQ(w.widened_matrices(), 0);
}

// A matrix wider than the panels stay fast for keeps the whole model on sgemm.
TEST(CpuWeights, WideMatricesKeepSgemm) {
    test::RandomModel m("dlm-cpu-weights-wide-test");
    test::RandomCheckpointOptions o;
    o.dtype = DType::BF16;
    o.d_ff = kPanelMaxCols + 8;  // the FFN's down projection reads d_ff columns
    test::load_random_model(m, Family::Llada, o);
    ThreadPool pool(1);
    CpuWeights w(m.weights, std::size_t(1) << 30, kPlenty, pool);
    EXPECT_EQ(w.layer(0).wq.panels, nullptr);
    EXPECT_EQ(w.layer(0).w_down.panels, nullptr);
    EXPECT_NE(w.layer(0).w_down.f32, nullptr);  // copied to fp32 at load instead
    EXPECT_EQ(w.widened_matrices(), 0);
}

TEST(CpuWeights, WidensEveryMatrixWhenTheCopiesPassTheBudget) {
    Bf16Model m;
    ThreadPool pool(1);
    CpuWeights w(m.weights, 1024, kPlenty, pool);  // less than the copies need
    EXPECT_EQ(w.converted_bytes(), 0u);
    const int per_layer = 7;
    EXPECT_EQ(w.widened_matrices(), per_layer * m.weights.config.n_layers + 1);  // + the LM head
    EXPECT_EQ(w.layer(0).wq.f32, nullptr);
    EXPECT_EQ(w.layer(0).wq.panels, nullptr);
    EXPECT_NE(w.layer(0).wq.stored, nullptr);
    EXPECT_EQ(w.lm_head().dtype, DType::BF16);
}

TEST(CpuWeights, WidensInsteadOfCopyingPastTheAvailableMemory) {
    Bf16Model m;
    ThreadPool pool(1);
    // Enough for the mapped BF16 weights (2 bytes each) and the working margin, not for their
    // fp32 copies (4 bytes each).
    const double stored = 2.0 * matrix_elements(m.weights);
    CpuWeights w(m.weights, std::size_t(1) << 30, CpuWeights::working_memory(stored) + 1.5 * stored, pool);
    EXPECT_EQ(w.converted_bytes(), 0u);
    EXPECT_GT(w.widened_matrices(), 0);
}

TEST(CpuWeights, RefusesWeightsThatCannotFitAndSaysWhatTheyNeed) {
    Bf16Model m;
    ThreadPool pool(1);
    try {
        CpuWeights w(m.weights, std::size_t(1) << 30, 1e6, pool);
        FAIL() << "a model larger than the available memory was accepted";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("needs"), std::string::npos) << msg;
        EXPECT_NE(msg.find("0.0 GB"), std::string::npos) << msg;  // 1 MB available, in GB
        EXPECT_NE(msg.find("available"), std::string::npos) << msg;
    }
}

TEST(CpuWeights, UnknownAvailableMemoryRefusesNothing) {
    Bf16Model m;
    ThreadPool pool(1);
    CpuWeights w(m.weights, std::size_t(1) << 30, 0.0, pool);
    EXPECT_GT(w.converted_bytes(), 0u);
}

}  // namespace
}  // namespace dlm::cpu
