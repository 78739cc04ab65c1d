// design.md §6 worked numbers.
#include <gtest/gtest.h>

#include "decode/flops.h"

namespace dlm {
namespace {

ModelConfig llada_8b() {
    ModelConfig c;
    c.family = Family::Llada;
    c.d_model = 4096;
    c.n_layers = 32;
    c.n_heads = 32;
    c.n_kv_heads = 32;
    c.head_dim = 128;
    c.d_ff = 12288;
    c.vocab_size = 126464;
    return c;
}

ModelConfig dream_7b() {
    ModelConfig c;
    c.family = Family::Dream;
    c.d_model = 3584;
    c.n_layers = 28;
    c.n_heads = 28;
    c.n_kv_heads = 4;
    c.head_dim = 128;
    c.d_ff = 18944;
    c.vocab_size = 152064;
    return c;
}

void expect_rel(double got, double want, double tol) { EXPECT_NEAR(got / want, 1.0, tol) << got << " vs " << want; }

TEST(DecodeFlops, Llada8BDenseStepAt320) {
    expect_rel(paper_flops(llada_8b(), 320, 320), 4.5205e12, 1e-4);
    expect_rel(paper_flops_dense(llada_8b(), 320), 4.5205e12, 1e-4);
}

TEST(DecodeFlops, Llada8BPerLayerBreakdown) {
    ModelConfig one = llada_8b();
    one.n_layers = 1;
    expect_rel(paper_flops(one, 320, 320), 1.4126e11, 1e-4);
}

TEST(DecodeFlops, Dream7BDenseStepAt320) { expect_rel(paper_flops(dream_7b(), 320, 320), 4.2173e12, 1e-4); }

TEST(DecodeFlops, ScalesLinearlyWithComputedRows) {
    const auto c = llada_8b();
    expect_rel(paper_flops(c, 320, 256), 3.6164e12, 1e-4);
    expect_rel(paper_flops(c, 320, 32), 4.5205e11, 1e-4);
    EXPECT_DOUBLE_EQ(paper_flops(c, 320, 0), 0.0);
    for (int m : {1, 7, 100, 320}) expect_rel(paper_flops(c, 320, m), paper_flops(c, 320, 320) * m / 320.0, 1e-12);
}

TEST(DecodeFlops, AttentionTermGrowsWithCanvas) {
    const auto c = llada_8b();
    // Per computed row, one more key costs 4 * H * d_h * L FLOPs (524,288 for LLaDA-8B).
    EXPECT_DOUBLE_EQ(paper_flops(c, 321, 1) - paper_flops(c, 320, 1), 524288.0);
}

TEST(DecodeFlops, LmHeadIsSeparate) {
    expect_rel(lm_head_flops(llada_8b(), 320), 3.315e11, 1e-3);
    expect_rel(lm_head_flops(llada_8b(), 256), 2.652e11, 1e-3);
    EXPECT_DOUBLE_EQ(lm_head_flops(llada_8b(), 1), 1035993088.0);
    EXPECT_DOUBLE_EQ(lm_head_flops(dream_7b(), 1), 1089994752.0);
}

}  // namespace
}  // namespace dlm
