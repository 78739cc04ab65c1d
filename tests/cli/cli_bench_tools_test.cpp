// The GPU benchmark's CLI pieces that run anywhere: make-checkpoint as a process, the
// forward-cuda section's refusal (or run, where a GPU and a CUDA build are present), its options
// and its markdown.
#include <gtest/gtest.h>

#include "bench_forward_cuda.h"
#include "cli/cli_test_support.h"
#include "compute/cpu/cpu_backend.h"
#include "bench/random_weights.h"

namespace dlm::cli_test {
namespace {

using namespace dlm::cli;

class CliBenchTools : public ::testing::Test {
protected:
    test::ScratchDir scratch{"dlm-cli-bench-tools"};
    CliResult cli(const std::vector<std::string>& args) { return run_cli(args, scratch.path()); }
};

TEST_F(CliBenchTools, MakeCheckpointWritesAFolderTheLoaderReads) {
    const std::string dir = (scratch / "tiny").string();
    auto r = cli({"make-checkpoint", "--dims", "tiny", "--out", dir, "--seed", "5"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("172,352 parameters"), std::string::npos) << r.out;
    EXPECT_TRUE(std::filesystem::exists(scratch / "tiny" / "model.safetensors"));
    // The config goes through the normal parser.
    auto f = cli({"flops", "--config", dir, "--n", "64", "--json"});
    ASSERT_EQ(f.status, 0) << f.err;
    EXPECT_EQ(f.json()["family"], "llada");

    auto again = cli({"make-checkpoint", "--dims", "tiny", "--out", dir});
    expect_one_line_error(again, "already holds a checkpoint");
    EXPECT_EQ(again.status, 1);
    auto forced = cli({"make-checkpoint", "--dims", "tiny", "--out", dir, "--force", "--dtype", "f32"});
    EXPECT_EQ(forced.status, 0) << forced.err;

    auto bad = cli({"make-checkpoint", "--dims", "llada-70b", "--out", dir});
    expect_one_line_error(bad, "llada-8b");
    EXPECT_EQ(bad.status, 2);
    auto bad_dtype = cli({"make-checkpoint", "--dims", "tiny", "--out", dir, "--dtype", "int8"});
    expect_one_line_error(bad_dtype, "--dtype");
    EXPECT_EQ(bad_dtype.status, 2);
}

TEST_F(CliBenchTools, ForwardCudaRefusesInOneLineWhereItCannotRun) {
    const std::string dir = (scratch / "tiny").string();
    ASSERT_EQ(cli({"make-checkpoint", "--dims", "tiny", "--out", dir}).status, 0);
    auto r = cli({"bench", "--section", "forward-cuda", "--model", dir, "--out", "-", "--lengths", "96",
                  "--prompt-len", "32", "--batch", "1", "--fractions", "0.5", "--reps", "1"});
    if (r.status == 0) {
        // A CUDA build on a machine with a GPU: the section ran on the tiny model.
        EXPECT_NE(r.out.find("| 96 | 1 |"), std::string::npos) << r.out;
    } else {
        // No CUDA in this build, or no usable device: one clear line, no crash.
        expect_one_line_error(r, "CUDA");
        EXPECT_EQ(r.status, 1);
    }
    auto bad = cli({"bench", "--section", "forward-cuda", "--model", dir, "--fractions", "0.5,1.5"});
    expect_one_line_error(bad, "--fractions");
    auto short_n = cli({"bench", "--section", "forward-cuda", "--model", dir, "--lengths", "64"});
    expect_one_line_error(short_n, "--lengths");
}

TEST(CliBenchToolsUnits, OptionsAndMarkdownOfTheForwardCudaSection) {
    // The bench command's own --model and --reps, plus the section's options.
    const CommandSpec spec = with_forward_cuda_options(
        CommandSpec{"bench", "", "", "Sections:", {{"model", "DIR", ""}, {"reps", "N", ""}}, 0, 0, ""});
    const std::vector<std::string> args = {"--model", "m", "--lengths", "96,160", "--batch", "1,2",
                                           "--fractions", "1,0.5", "--prompt-len", "32", "--json", "r.json"};
    const ForwardCudaOptions o = forward_cuda_options_from_args(parse_args(spec, args), "cmd");
    EXPECT_EQ(o.model, "m");
    EXPECT_EQ(o.json_out, "r.json");
    EXPECT_EQ(o.steps.lengths, (std::vector<int>{96, 160}));
    EXPECT_EQ(o.steps.batches, (std::vector<int>{1, 2}));
    EXPECT_EQ(o.steps.fractions, (std::vector<double>{1.0, 0.5}));
    EXPECT_EQ(o.steps.prompt_len, 32);
    EXPECT_EQ(o.steps.reps, 10);

    // The section rendered from a real (CPU) report.
    auto model = make_random_llada_weights(random_llada_preset("tiny"));
    auto be = make_cpu_backend(model->weights);
    StepBenchOptions so = o.steps;
    so.reps = 1;
    so.warmup = 0;
    const StepBenchReport r = run_step_bench(*be, RooflineRates{1e11, 1e10, "fixed"}, "cpu", so);
    const std::string md = render_forward_cuda_section(r, "tiny", "dlmscope-cli bench ...").render();
    for (const char* needle : {"| N | batch | dense ms | TFLOP/s | roofline ms | % of roofline | statistics ms (share) | 100% rows: ms (ratio) | "
                               "50% rows: ms (ratio) |",
                               "| 96 | 1 |", "| 160 | 2 |", "dlmscope-bench:forward-cuda begin", "roofline ceilings: fixed"})
        EXPECT_NE(md.find(needle), std::string::npos) << needle << " missing in\n" << md;
}

}  // namespace
}  // namespace dlm::cli_test
