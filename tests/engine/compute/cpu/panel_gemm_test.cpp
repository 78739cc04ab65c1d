// panel_gemm: weights packed once into column panels give X · Wᵀ to fp32 accuracy, at every edge
// (partial panels, partial row blocks, accumulation), and each row's result is the same bits
// whichever rows share the call and however the panels are split: a SureLock step that computes a
// handful of rows gets the bits the dense forward gives those rows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "compute/cpu/panel_gemm.h"
#include "compute/cpu/weight_gemm.h"
#include "util/counter_rng.h"
#include "util/error.h"

namespace dlm::cpu {
namespace {

std::vector<float> random_values(std::size_t n, uint64_t seed, double scale = 1.0) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>((dlm::uniform(seed, 3, i) * 2.0 - 1.0) * scale);
    return v;
}

struct Packed {
    std::vector<float> w;       // W [rows, cols], row-major
    std::vector<float> panels;  // W packed
    int rows = 0, cols = 0, width = 0;
    std::size_t panel_count() const { return static_cast<std::size_t>((rows + width - 1) / width); }
};

Packed pack(int rows, int cols, uint64_t seed) {
    Packed p;
    p.rows = rows;
    p.cols = cols;
    p.width = panel_width();
    p.w = random_values(static_cast<std::size_t>(rows) * cols, seed);
    p.panels.assign(packed_floats(rows, cols, p.width), -7.0f);  // padding must be overwritten
    pack_panels(DType::F32, reinterpret_cast<const std::byte*>(p.w.data()), rows, cols, p.width, 0, p.panel_count(),
                p.panels.data());
    return p;
}

// Every kernel this CPU can run (an AVX-512 machine runs the AVX2 one too).
class PanelGemm : public testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        if (!use_panel_isa(GetParam())) GTEST_SKIP() << "this CPU cannot run the " << GetParam() << " kernel";
        ASSERT_EQ(panel_isa(), GetParam());
    }
    void TearDown() override { use_panel_isa(""); }
};

TEST_P(PanelGemm, MatchesADoubleReferenceAtEveryEdge) {
    struct Shape {
        int m, rows, cols;
        bool accumulate;
    };
    for (const Shape s : {Shape{1, 1, 1, false}, Shape{3, 37, 5, false}, Shape{9, 70, 128, true},
                          Shape{17, 129, 300, false}, Shape{25, 64, 33, true}, Shape{8, 32, 512, false}}) {
        const Packed p = pack(s.rows, s.cols, 1 + s.m);
        const std::vector<float> x = random_values(static_cast<std::size_t>(s.m) * s.cols, 2 + s.m);
        const std::vector<float> y0 = random_values(static_cast<std::size_t>(s.m) * s.rows, 3 + s.m);
        std::vector<float> y = y0;
        panel_gemm(x.data(), s.m, p.panels.data(), p.width, s.rows, s.cols, 0, p.panel_count(), y.data(), s.rows,
                   s.accumulate);
        double worst = 0;
        for (int i = 0; i < s.m; ++i)
            for (int j = 0; j < s.rows; ++j) {
                double ref = s.accumulate ? y0[static_cast<std::size_t>(i) * s.rows + j] : 0.0;
                for (int t = 0; t < s.cols; ++t)
                    ref += double(x[static_cast<std::size_t>(i) * s.cols + t]) *
                           p.w[static_cast<std::size_t>(j) * s.cols + t];
                worst = std::max(worst, std::abs(ref - y[static_cast<std::size_t>(i) * s.rows + j]));
            }
        EXPECT_LT(worst, 2e-5 * s.cols) << s.m << "x" << s.cols << " · [" << s.rows << ", " << s.cols << "]ᵀ";
    }
}

TEST_P(PanelGemm, WritesOnlyItsOwnColumns) {
    const int m = 5, rows = 45, cols = 16, ldy = 60;  // Y wider than W: columns 45..59 belong to others
    const Packed p = pack(rows, cols, 9);
    const std::vector<float> x = random_values(static_cast<std::size_t>(m) * cols, 10);
    std::vector<float> y(static_cast<std::size_t>(m) * ldy, 42.0f);
    panel_gemm(x.data(), m, p.panels.data(), p.width, rows, cols, 0, p.panel_count(), y.data(), ldy, false);
    for (int i = 0; i < m; ++i)
        for (int j = rows; j < ldy; ++j) EXPECT_EQ(y[static_cast<std::size_t>(i) * ldy + j], 42.0f) << i << ", " << j;
}

TEST_P(PanelGemm, ARowsBitsDoNotDependOnItsBatchNorOnThePanelSplit) {
    const int m = 23, rows = 100, cols = 96;
    const Packed p = pack(rows, cols, 4);
    const std::vector<float> x = random_values(static_cast<std::size_t>(m) * cols, 5);
    std::vector<float> all(static_cast<std::size_t>(m) * rows);
    panel_gemm(x.data(), m, p.panels.data(), p.width, rows, cols, 0, p.panel_count(), all.data(), rows, false);
    for (int i = 0; i < m; ++i) {
        std::vector<float> one(static_cast<std::size_t>(rows));
        const std::size_t half = p.panel_count() / 2;  // and the panels in two calls
        panel_gemm(x.data() + static_cast<std::size_t>(i) * cols, 1, p.panels.data(), p.width, rows, cols, 0, half,
                   one.data(), rows, false);
        panel_gemm(x.data() + static_cast<std::size_t>(i) * cols, 1, p.panels.data(), p.width, rows, cols, half,
                   p.panel_count(), one.data(), rows, false);
        EXPECT_EQ(0, std::memcmp(one.data(), all.data() + static_cast<std::size_t>(i) * rows, rows * sizeof(float)))
            << "row " << i;
    }
}

// WeightGemm on a matrix packed at load equals sgemm on the same matrix to fp32 rounding (the sums
// run in another order), and does not depend on the thread count.
TEST_P(PanelGemm, WeightGemmOnPanelsMatchesSgemmOnTheSameMatrix) {
    const int m = 11, rows = 700, cols = kPanelMaxCols;
    const Packed p = pack(rows, cols, 12);
    const std::vector<float> x = random_values(static_cast<std::size_t>(m) * cols, 6, 0.1);
    const std::vector<float> y0 = random_values(static_cast<std::size_t>(m) * rows, 7);
    WeightMatrix packed, plain;
    packed.rows = plain.rows = rows;
    packed.cols = plain.cols = cols;
    packed.panels = p.panels.data();
    packed.panel_width = p.width;
    plain.f32 = p.w.data();
    std::vector<std::vector<float>> on_panels;
    for (int threads : {1, 3}) {
        ThreadPool pool(threads);
        WeightGemm gemm(pool);
        gemm.xwt(x.data(), m, packed, on_panels.emplace_back(y0).data(), true);
    }
    EXPECT_EQ(0, std::memcmp(on_panels[0].data(), on_panels[1].data(), on_panels[0].size() * sizeof(float)));
    ThreadPool pool(1);
    WeightGemm gemm(pool);
    std::vector<float> by_sgemm = y0;
    gemm.xwt(x.data(), m, plain, by_sgemm.data(), true);
    double worst = 0;
    for (std::size_t i = 0; i < by_sgemm.size(); ++i)
        worst = std::max(worst, double(std::abs(by_sgemm[i] - on_panels[0][i])));
    EXPECT_LT(worst, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Kernels, PanelGemm, testing::Values("avx2+fma", "avx512f"),
                         [](const testing::TestParamInfo<const char*>& info) {
                             return std::string(info.param) == "avx2+fma" ? "avx2" : "avx512";
                         });

// A matrix keeps the kernel of the width it was packed at, whatever is selected afterwards; a
// width no kernel of this CPU reads is refused.
TEST(PanelGemmIsa, AMatrixKeepsTheKernelOfItsPackedWidth) {
    if (!use_panel_isa("avx2+fma")) GTEST_SKIP() << "this CPU has no AVX2 kernel";
    const int m = 5, rows = 40, cols = 24;
    const Packed p = pack(rows, cols, 21);  // 16 columns a panel
    use_panel_isa("");                      // the fastest again (32 on an AVX-512 CPU)
    ASSERT_EQ(p.width, 16);
    const std::vector<float> x = random_values(static_cast<std::size_t>(m) * cols, 22);
    WeightMatrix w;
    w.rows = rows;
    w.cols = cols;
    w.panels = p.panels.data();
    w.panel_width = p.width;
    ThreadPool pool(1);
    WeightGemm gemm(pool);
    std::vector<float> y(static_cast<std::size_t>(m) * rows);
    gemm.xwt(x.data(), m, w, y.data(), false);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < rows; ++j) {
            double ref = 0;
            for (int t = 0; t < cols; ++t)
                ref += double(x[static_cast<std::size_t>(i) * cols + t]) * p.w[static_cast<std::size_t>(j) * cols + t];
            EXPECT_NEAR(y[static_cast<std::size_t>(i) * rows + j], ref, 1e-4) << i << ", " << j;
        }
    EXPECT_THROW(panel_gemm(x.data(), m, p.panels.data(), 7, rows, cols, 0, 1, y.data(), rows, false), Error);
}

TEST(PanelGemmIsa, TheFastestKernelIsTheDefaultAndOnlyRunnableOnesAreSelectable) {
    const std::vector<std::string_view> isas = panel_isas();
    ASSERT_FALSE(isas.empty());
    EXPECT_EQ(isas.front(), "none");
    EXPECT_EQ(panel_isa(), isas.back());
    EXPECT_FALSE(use_panel_isa("avx1024"));
    EXPECT_EQ(panel_isa(), isas.back());
    ASSERT_TRUE(use_panel_isa("none"));
    EXPECT_EQ(panel_width(), 0);
    use_panel_isa("");
    EXPECT_EQ(panel_isa(), isas.back());
}

}  // namespace
}  // namespace dlm::cpu
