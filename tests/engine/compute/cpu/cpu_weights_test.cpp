// CpuWeights' memory plan: fp32 copies at load only when all of them fit the budget and the
// memory available, widening from the memory map otherwise, and a refusal that names the numbers
// when the weights cannot fit at all.
#include <gtest/gtest.h>

#include <string>

#include "compute/cpu/cpu_weights.h"
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
    EXPECT_NE(w.layer(0).wq.f32, nullptr);
}

TEST(CpuWeights, WidensEveryMatrixWhenTheCopiesPassTheBudget) {
    Bf16Model m;
    ThreadPool pool(1);
    CpuWeights w(m.weights, 1024, kPlenty, pool);  // less than the copies need
    EXPECT_EQ(w.converted_bytes(), 0u);
    const int per_layer = 7;
    EXPECT_EQ(w.widened_matrices(), per_layer * m.weights.config.n_layers + 1);  // + the LM head
    EXPECT_EQ(w.layer(0).wq.f32, nullptr);
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
