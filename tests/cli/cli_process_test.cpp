// The CLI as a process: help and version, flops on LLaDA-8B's real config, inspect on a tiny
// checkpoint, and the error contract (non-zero exit, one "dlmscope-cli: error:" line).
#include <gtest/gtest.h>

#include <cmath>

#include "cli/cli_test_support.h"
#include "decode/flops.h"
#include "model/model_config.h"

namespace dlm::cli_test {
namespace {

const std::string kLladaConfig = std::string(DLM_TEST_DATA_DIR) + "/llada-8b-config.json";

class CliProcess : public ::testing::Test {
protected:
    test::ScratchDir scratch{"dlm-cli-test"};
    CliResult cli(const std::vector<std::string>& args) { return run_cli(args, scratch.path()); }
};

TEST_F(CliProcess, VersionAndHelp) {
    auto v = cli({"--version"});
    EXPECT_EQ(v.status, 0);
    EXPECT_NE(v.out.find("dlmscope-cli " DLM_VERSION), std::string::npos) << v.out;

    auto h = cli({"--help"});
    EXPECT_EQ(h.status, 0);
    for (const char* cmd : {"inspect", "flops", "run", "eval", "bench", "trace"})
        EXPECT_NE(h.out.find(cmd), std::string::npos) << "top-level help lacks " << cmd;

    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"run", "--help"}, {"eval", "--help"}, {"inspect", "--help"}, {"flops", "--help"},
          {"bench", "--help"}, {"trace", "show", "--help"}, {"trace", "compare", "--help"}}) {
        auto r = cli(args);
        EXPECT_EQ(r.status, 0) << args[0];
        EXPECT_NE(r.out.find("usage: dlmscope-cli " + args[0]), std::string::npos) << r.out;
        EXPECT_TRUE(r.err.empty()) << r.err;
    }
    auto run_help = cli({"run", "--help"});
    for (const char* opt : {"--model", "--prompt", "--gen-len", "--steps", "--block-len", "--set", "--trace", "--live",
                            "--backend"})
        EXPECT_NE(run_help.out.find(opt), std::string::npos) << "run --help lacks " << opt;
}

// `settings KEY` describes one key; a strategy or a namespace, the parameters it reads; a bare
// parameter name is refused with its full key.
TEST_F(CliProcess, SettingsDescribesAKeyAStrategyOrANamespace) {
    auto one = cli({"settings", "surelock.m"});
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_EQ(one.out.rfind("surelock.m  (", 0), 0u) << one.out;
    EXPECT_EQ(one.out.find("surelock.epsilon"), std::string::npos) << one.out;
    auto ns = cli({"settings", "surelock"});
    ASSERT_EQ(ns.status, 0) << ns.err;
    for (const char* key : {"surelock.epsilon  (", "surelock.m  (", "surelock.unlock.rho  ("})
        EXPECT_NE(ns.out.find(key), std::string::npos) << key << "\n" << ns.out;
    auto strategy = cli({"settings", "fast-dllm"});
    ASSERT_EQ(strategy.status, 0) << strategy.err;
    for (const char* key : {"threshold.tau  (", "threshold.factor  (", "cache.refresh_every  ("})
        EXPECT_NE(strategy.out.find(key), std::string::npos) << key << "\n" << strategy.out;
    EXPECT_EQ(strategy.out.find("surelock."), std::string::npos) << strategy.out;
    expect_one_line_error(cli({"settings", "unlock"}), "did you mean 'surelock.unlock'?");
}

TEST_F(CliProcess, FlopsJsonReproducesThePaperForLlada8B) {
    auto r = cli({"flops", "--config", kLladaConfig, "--n", "320", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    const double per_step = j.at("paper_flops_per_step").get<double>();
    // the SureLock paper's worked number: 4.5205e12 at N = M = 320 (and the exact integer behind it).
    EXPECT_NEAR(per_step / 4.5205e12, 1.0, 1e-4);
    EXPECT_DOUBLE_EQ(per_step, 320.0 * (13958643712.0 + 524288.0 * 320.0));
    EXPECT_DOUBLE_EQ(j.at("paper_flops_dense_per_step").get<double>(), per_step);
    EXPECT_DOUBLE_EQ(j.at("lm_head_flops_per_step").get<double>(), 2.0 * 320 * 4096 * 126464);
    EXPECT_EQ(j.at("steps").get<int>(), 1);
    EXPECT_DOUBLE_EQ(j.at("paper_flops_total").get<double>(), per_step);
    EXPECT_DOUBLE_EQ(j.at("lm_head_flops_total").get<double>(), j.at("lm_head_flops_per_step").get<double>());
}

TEST_F(CliProcess, FlopsSparseRowsAndSteps) {
    auto r = cli({"flops", "--config=" + kLladaConfig, "--n", "320", "--m", "256", "--steps", "256", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    // M = 256 (prompt cached): 3.6164e12 per step; 256 dense steps = 1.157e15.
    EXPECT_NEAR(j.at("paper_flops_per_step").get<double>() / 3.6164e12, 1.0, 1e-4);
    EXPECT_NEAR(j.at("paper_flops_dense_per_step").get<double>() / 4.5205e12, 1.0, 1e-4);
    EXPECT_DOUBLE_EQ(j.at("paper_flops_total").get<double>(), 256 * j.at("paper_flops_per_step").get<double>());
    EXPECT_DOUBLE_EQ(j.at("lm_head_flops_per_step").get<double>(), 2.0 * 256 * 4096 * 126464);
    EXPECT_NEAR(j.at("paper_flops_dense_per_step").get<double>() * 256 / 1.157e15, 1.0, 1e-3);

    auto text = cli({"flops", "--config", kLladaConfig, "--n", "320"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("4.5205e+12"), std::string::npos) << text.out;
}

TEST_F(CliProcess, ErrorsAreOneLineAndNonZero) {
    expect_one_line_error(cli({}), "no command given (commands: inspect, flops, run, eval, bench, make-checkpoint, trace, settings;");
    expect_one_line_error(cli({"frobnicate"}), "unknown command 'frobnicate'");
    expect_one_line_error(cli({"run", "--bogus", "1"}), "unknown option '--bogus'");
    expect_one_line_error(cli({"flops", "--config", kLladaConfig, "--n", "320", "--mm", "3"}), "--mm");
    expect_one_line_error(cli({"run", "--model", (scratch.path() / "no-such-model").string()}), "missing --prompt");
    expect_one_line_error(cli({"run", "--model", (scratch.path() / "no-such-model").string(), "--prompt", "hi"}),
                          "no-such-model");
    expect_one_line_error(cli({"inspect", (scratch.path() / "nowhere").string()}), "nowhere");
    expect_one_line_error(cli({"flops", "--config"}), "requires a value");
    expect_one_line_error(cli({"flops", "--config", kLladaConfig, "--n", "abc"}), "--n");
    expect_one_line_error(cli({"flops", "--config", kLladaConfig, "--n", "320", "--json=yes"}), "--json");
    expect_one_line_error(cli({"flops", "--config", kLladaConfig}), "missing --n");
    expect_one_line_error(cli({"trace", "show"}), "FILE");
    expect_one_line_error(cli({"trace", "show", (scratch.path() / "missing.ndjson").string()}));
    expect_one_line_error(cli({"eval", "--model", "x", "--split", "train"}), "--split");

    // Usage mistakes exit 2; failures while working exit 1.
    EXPECT_EQ(cli({"run", "--bogus"}).status, 2);
    EXPECT_EQ(cli({"run", "--model", (scratch.path() / "no-such-model").string(), "--prompt", "hi"}).status, 1);
}

TEST_F(CliProcess, MalformedConfigIsReportedNotCrashed) {
    const auto broken = scratch.path() / "broken.json";
    write_text(broken, "{\"architectures\": [\"LLaDAModelLM\"], \"d_model\": 4096,");
    expect_one_line_error(cli({"flops", "--config", broken.string(), "--n", "16"}), "broken.json");

    const auto absurd = scratch.path() / "absurd.json";
    write_text(absurd, R"({"architectures": ["NoSuchModel"], "model_type": "nope"})");
    expect_one_line_error(cli({"flops", "--config", absurd.string(), "--n", "16"}));

    const auto model_dir = scratch.path() / "bad-model";
    std::filesystem::create_directories(model_dir);
    write_text(model_dir / "config.json", "not json at all");
    expect_one_line_error(cli({"inspect", model_dir.string()}));
    expect_one_line_error(cli({"run", "--model", model_dir.string(), "--prompt", "hi"}));
}

TEST_F(CliProcess, InspectTinyCheckpoint) {
    const auto dir = scratch.path() / "tiny";
    const auto ckpt = write_tiny_model(dir);
    long long params = 0;
    for (const auto& [name, t] : ckpt.tensors) params += static_cast<long long>(t.values.size());

    auto r = cli({"inspect", dir.string(), "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j.at("family"), "llada");
    EXPECT_EQ(j.at("architecture"), "LLaDAModelLM");
    EXPECT_EQ(j.at("d_model"), 32);
    EXPECT_EQ(j.at("n_layers"), 2);
    EXPECT_EQ(j.at("n_heads"), 4);
    EXPECT_EQ(j.at("n_kv_heads"), 4);
    EXPECT_EQ(j.at("head_dim"), 8);
    EXPECT_EQ(j.at("d_ff"), 48);
    EXPECT_EQ(j.at("vocab_size"), kTinyVocab);
    EXPECT_EQ(j.at("context"), 256);
    EXPECT_EQ(j.at("tensor_count").get<long long>(), static_cast<long long>(ckpt.tensors.size()));
    EXPECT_EQ(j.at("tensor_count").get<long long>(), 2 * 9 + 3);
    EXPECT_EQ(j.at("parameter_count").get<long long>(), params);
    EXPECT_EQ(j.at("total_bytes").get<long long>(), params * 4);
    EXPECT_EQ(j.at("dtypes").at("F32").get<int>(), 21);
    EXPECT_EQ(j.at("tokenizer").at("kind"), "hf-bpe");
    EXPECT_EQ(j.at("tokenizer").at("vocab_size"), kTinyVocab);
    EXPECT_EQ(j.at("special_tokens").at("mask").at("id"), 257);
    EXPECT_EQ(j.at("special_tokens").at("mask").at("text"), "<|mdm_mask|>");
    EXPECT_EQ(j.at("special_tokens").at("eos").at("id"), 256);
    EXPECT_EQ(j.at("chat_template").at("kind"), "none");
    EXPECT_FALSE(j.at("chat_template").at("published").get<bool>());
    EXPECT_TRUE(j.at("unexpected_tensors").empty());

    auto text = cli({"inspect", dir.string()});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("llada"), std::string::npos);
    EXPECT_NE(text.out.find("mask=257"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("hf-bpe"), std::string::npos);
}

TEST_F(CliProcess, InspectListsUnexpectedTensors) {
    const auto dir = scratch.path() / "extra";
    auto ckpt = write_tiny_model(dir);
    auto tensors = ckpt.tensors;
    tensors["model.transformer.blocks.0.mystery.weight"] = test::TensorData{{4}, {1, 2, 3, 4}, DType::F32};
    test::write_safetensors(ckpt.weights_file, tensors);
    auto r = cli({"inspect", dir.string(), "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    ASSERT_EQ(j.at("unexpected_tensors").size(), 1u);
    EXPECT_EQ(j.at("unexpected_tensors")[0], "model.transformer.blocks.0.mystery.weight");
}

TEST_F(CliProcess, BenchWritesItsSectionAndKeepsOthers) {
    const auto report = scratch.path() / "benchmarks.md";
    write_text(report, "# dlmscope benchmarks\n\n<!-- dlmscope-bench:presets begin -->\n## Presets\n\nkeep me\n"
                       "<!-- dlmscope-bench:presets end -->\n");
    auto r = cli({"bench", "--out", report.string(), "--reps", "1", "--section", "forward-cpu"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string md = read_text(report);
    EXPECT_NE(md.find("keep me"), std::string::npos) << md;
    EXPECT_NE(md.find("<!-- dlmscope-bench:forward-cpu begin -->"), std::string::npos) << md;
    EXPECT_NE(md.find("dlmscope-cli bench --out"), std::string::npos) << "the exact command is recorded";
    for (const char* n : {"| 128 |", "| 256 |", "| 512 |", "(25.0%)", "(50.0%)", "(75.0%)"})
        EXPECT_NE(md.find(n), std::string::npos) << "missing " << n << " in:\n" << md;

    expect_one_line_error(cli({"bench", "--section", "nope"}), "unknown bench section 'nope'");
    expect_one_line_error(cli({"bench", "--reps", "0"}), "--reps");
}

}  // namespace
}  // namespace dlm::cli_test
