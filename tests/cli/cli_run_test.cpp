// run / trace / eval end to end on a tiny random checkpoint (and on the embedded tiny-mdlm
// model when it has been trained).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "cli/cli_test_support.h"
#include "decode/flops.h"
#include "decode/settings_schema.h"
#include "trace/trace_io.h"

namespace dlm::cli_test {
namespace {

class CliRun : public ::testing::Test {
protected:
    void SetUp() override { ckpt = write_tiny_model(model_dir()); }
    std::filesystem::path model_dir() const { return scratch.path() / "tiny"; }
    std::filesystem::path file(const std::string& name) const { return scratch.path() / name; }
    CliResult cli(const std::vector<std::string>& args) { return run_cli(args, scratch.path()); }
    // A baseline run of the tiny model with the given extra arguments.
    CliResult run(std::vector<std::string> extra) {
        std::vector<std::string> args = {"run", "--model", model_dir().string(), "--prompt", "hello world",
                                         "--gen-len", "16"};
        args.insert(args.end(), extra.begin(), extra.end());
        return cli(args);
    }

    test::ScratchDir scratch{"dlm-cli-run"};
    test::RandomCheckpoint ckpt;
};

TEST_F(CliRun, JsonSummaryIsConsistent) {
    auto r = run({"--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    for (const char* key : {"text", "steps", "wall_s", "e2e_tps", "paper_flops", "paper_flops_dense", "flops_ratio",
                            "rows_computed", "rows_total", "lm_head_flops", "counters", "model", "strategy", "settings"})
        EXPECT_TRUE(j.contains(key)) << "run --json lacks " << key;
    EXPECT_TRUE(j.at("text").is_string());
    EXPECT_EQ(j.at("steps"), 16);  // steps default to gen-len
    EXPECT_EQ(j.at("strategy"), "baseline");
    EXPECT_EQ(j.at("model"), "tiny");
    EXPECT_EQ(j.at("chat"), false);  // the byte tokenizer has no chat template
    EXPECT_EQ(j.at("settings").at("gen_length"), "16");
    EXPECT_EQ(j.at("settings").at("block_length"), "0");  // the schema's default: one block
    EXPECT_EQ(j.at("settings").at("temperature"), "0");
    EXPECT_GT(j.at("wall_s").get<double>(), 0.0);
    EXPECT_EQ(j.at("tokens_unmasked"), 16);

    // The baseline computes every row of the N = prompt + 16 canvas at every step.
    const int n = j.at("prompt_tokens").get<int>() + 16;
    EXPECT_EQ(j.at("prompt_tokens"), 11);  // "hello world": 11 bytes, no BOS for llada
    EXPECT_DOUBLE_EQ(j.at("paper_flops_dense").get<double>(), 16 * paper_flops(ckpt.config, n, n));
    EXPECT_DOUBLE_EQ(j.at("paper_flops").get<double>(), j.at("paper_flops_dense").get<double>());
    EXPECT_DOUBLE_EQ(j.at("flops_ratio").get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(j.at("flops_ratio_to_baseline").get<double>(), 1.0);  // steps = gen length: the baseline itself
    EXPECT_EQ(j.at("rows_computed").get<long long>(), 16LL * n);
    EXPECT_EQ(j.at("rows_total").get<long long>(), 16LL * n);
}

// Fewer steps than positions: every step dense, half the baseline sampler's run.
TEST_F(CliRun, FewerStepsCostLessThanTheBaselineRun) {
    auto r = run({"--steps", "8", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_DOUBLE_EQ(j.at("flops_ratio").get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(j.at("flops_ratio_to_baseline").get<double>(), 0.5);
}

TEST_F(CliRun, TextOutputHasSummary) {
    auto r = run({"--steps", "8"});
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* label : {"steps        8", "wall time", "E2E", "paper FLOPs", "dense", "ratio", "rows",
                              "of the baseline"})
        EXPECT_NE(r.out.find(label), std::string::npos) << "missing '" << label << "' in:\n" << r.out;
}

// The summaries name a run as the app's titles do: the preset its settings are, else the
// preset of its strategy it is closest to, with what it changes.
TEST_F(CliRun, SummariesNameTheStrategysVariant) {
    const auto t = file("unlock.ndjson");
    auto r = run({"--strategy", "surelock", "--set", "surelock.unlock=on", "--set", "surelock.m=20", "--trace", t.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("preset SureLock + unlocking, prompt"), std::string::npos) << r.out;  // m = 20 is the default
    auto show = cli({"trace", "show", t.string()});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("decode         preset SureLock + unlocking, gen 16"), std::string::npos) << show.out;
    r = run({"--strategy", "surelock", "--set", "surelock.unlock=on", "--set", "surelock.epsilon=1e-3", "--trace", t.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("preset SureLock + unlocking (epsilon=1e-3), prompt"), std::string::npos) << r.out;
    show = cli({"trace", "show", t.string()});
    EXPECT_NE(show.out.find("decode         preset SureLock + unlocking (epsilon=1e-3), gen 16"), std::string::npos) << show.out;
}

// --preset runs the app's preset by its name (case and spaces aside); --strategy and --set
// given with it change it further; a name that is no preset is refused with the names there are.
TEST_F(CliRun, APresetByTheAppsName) {
    auto r = run({"--preset", "surelock + UNLOCKING", "--set", "surelock.epsilon=1e-3", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j.at("strategy"), "surelock");
    EXPECT_EQ(j.at("settings").at("surelock.unlock"), "on");
    EXPECT_EQ(j.at("settings").at("surelock.epsilon"), "1e-3");
    r = run({"--preset", "LLaDA random", "--strategy", "freecache", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    j = r.json();
    EXPECT_EQ(j.at("strategy"), "freecache");
    EXPECT_EQ(j.at("settings").at("remasking"), "random");
    // A block strategy's preset brings its blocks of 32, fitted to the canvas of 16; a block
    // length given beside it is the user's.
    r = run({"--preset", "Fast-dLLM dual cache", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json().at("settings").at("block_length"), "16");
    r = run({"--preset", "FreeCache", "--block-len", "8", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json().at("settings").at("block_length"), "8");
    auto bad = run({"--preset", "SureLok"});
    expect_one_line_error(bad, "--preset: no preset 'SureLok' (presets: SureLock, SureLock + unlocking,");
    auto listed = cli({"settings", "--presets"});
    ASSERT_EQ(listed.status, 0) << listed.err;
    EXPECT_NE(listed.out.find("SureLock + unlocking\n"), std::string::npos) << listed.out;
    EXPECT_NE(listed.out.find("sets: strategy=surelock surelock.unlock=on"), std::string::npos) << listed.out;
}

TEST_F(CliRun, SameSeedGivesIdenticalTraces) {
    const auto a = file("a.ndjson"), b = file("b.ndjson"), c = file("c.ndjson");
    ASSERT_EQ(run({"--temperature", "1", "--seed", "7", "--trace", a.string()}).status, 0);
    ASSERT_EQ(run({"--temperature", "1", "--seed", "7", "--trace", b.string(), "--json"}).status, 0);
    auto same = cli({"trace", "compare", a.string(), b.string()});
    EXPECT_EQ(same.status, 0) << same.out << same.err;
    EXPECT_NE(same.out.find("identical"), std::string::npos) << same.out;

    // The trace is complete: a header, one record per step and the summary.
    const TraceFile t = read_trace(a);
    EXPECT_EQ(t.steps.size(), 16u);
    ASSERT_TRUE(t.summary.has_value());
    EXPECT_EQ(t.header.seed, 7u);
    EXPECT_EQ(t.header.prompt, "hello world");

    // Another seed at T = 1 over a random model: the sampled canvases part at some step.
    ASSERT_EQ(run({"--temperature", "1", "--seed", "8", "--trace", c.string()}).status, 0);
    auto diff = cli({"trace", "compare", a.string(), c.string()});
    EXPECT_EQ(diff.status, 1) << diff.out << diff.err;
    EXPECT_NE(diff.out.find("traces differ at step"), std::string::npos) << diff.out;
    EXPECT_NE(diff.out.find("note: seed differs"), std::string::npos) << diff.out;
    EXPECT_EQ(diff.out.find("note: setting seed"), std::string::npos) << diff.out;  // once
    // A setting changed is noted once, as the app's compare box names it.
    ASSERT_EQ(run({"--temperature", "0.5", "--seed", "7", "--trace", c.string()}).status, 0);
    diff = cli({"trace", "compare", a.string(), c.string()});
    EXPECT_NE(diff.out.find("note: setting temperature differs: '1' vs '0.5'"), std::string::npos) << diff.out;
}

TEST_F(CliRun, CompareNamesTheFirstDifferingStep) {
    const auto a = file("a.ndjson"), b = file("b.ndjson");
    ASSERT_EQ(run({"--trace", a.string()}).status, 0);
    TraceFile t = read_trace(a);
    ASSERT_GE(t.steps.size(), 10u);
    // Tamper with step 9 only: compare must point there, not earlier.
    t.steps[9].positions[3].token = (t.steps[9].positions[3].token + 1) % 200;
    {
        TraceWriter w(b);
        w.write_header(t.header);
        for (const auto& s : t.steps) w.write_step(s);
        w.write_summary(*t.summary);
    }
    auto r = cli({"trace", "compare", a.string(), b.string()});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("traces differ at step 9: position 3"), std::string::npos) << r.out;

    // A trace cut short after 5 steps: identical prefix, different length.
    {
        TraceWriter w(b);
        w.write_header(t.header);
        for (int i = 0; i < 5; ++i) w.write_step(read_trace(a).steps[static_cast<std::size_t>(i)]);
    }
    auto shorter = cli({"trace", "compare", a.string(), b.string()});
    EXPECT_EQ(shorter.status, 1);
    EXPECT_NE(shorter.out.find("the first 5 steps are identical"), std::string::npos) << shorter.out;

    auto show = cli({"trace", "show", b.string(), "--json"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_EQ(show.json().at("steps"), 5);
    EXPECT_EQ(show.json().at("complete"), false);
}

TEST_F(CliRun, TraceShowMatchesTheRun) {
    const auto a = file("a.ndjson");
    auto r = run({"--trace", a.string(), "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto show = cli({"trace", "show", a.string(), "--json"});
    ASSERT_EQ(show.status, 0) << show.err;
    const auto s = show.json(), j = r.json();
    EXPECT_EQ(s.at("text"), j.at("text"));
    EXPECT_EQ(s.at("steps"), j.at("steps"));
    EXPECT_DOUBLE_EQ(s.at("paper_flops").get<double>(), j.at("paper_flops").get<double>());
    EXPECT_EQ(s.at("complete"), true);

    auto text = cli({"trace", "show", a.string(), "--steps"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("model          tiny"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("steps          16"), std::string::npos) << text.out;
}

TEST_F(CliRun, SettingsAreValidatedBeforeRunning) {
    // gen 16 in blocks of 5: refused with exit 2 and the reason.
    auto bad = run({"--block-len", "5"});
    EXPECT_EQ(bad.status, 2);
    expect_one_line_error(bad, "block_length");

    auto unknown = run({"--set", "no_such_setting=1"});
    EXPECT_EQ(unknown.status, 2);
    expect_one_line_error(unknown, "no_such_setting");

    // A strategy parameter no strategy declares fails before the model loads, saying what is read.
    auto typo = run({"--set", "fast_dllm.threshold=0.5"});
    EXPECT_EQ(typo.status, 2);
    expect_one_line_error(typo, "strategy 'fast-dllm' reads cache.*, threshold.*");

    // Another strategy's parameter runs, and says it is ignored; so do the strategy's own
    // warnings, in the text output as in --json.
    auto foreign = run({"--set", "surelock.epsilon=1e-3"});
    EXPECT_EQ(foreign.status, 0) << foreign.err;
    EXPECT_NE(foreign.err.find("warning: parameter 'surelock.epsilon' belongs to another strategy; 'baseline' ignores it"),
              std::string::npos) << foreign.err;
    auto no_effect = run({"--strategy", "surelock", "--set", "surelock.epsilon=0"});
    EXPECT_EQ(no_effect.status, 0) << no_effect.err;
    EXPECT_NE(no_effect.err.find("warning: surelock.epsilon = 0 disables locking"), std::string::npos) << no_effect.err;

    auto malformed = run({"--set", "temperature"});
    EXPECT_EQ(malformed.status, 2);
    expect_one_line_error(malformed, "key=value");

    // A legal but wasteful choice runs, with a warning on stderr.
    auto wasteful = run({"--steps", "32", "--json"});
    EXPECT_EQ(wasteful.status, 0) << wasteful.err;
    EXPECT_NE(wasteful.err.find("warning: "), std::string::npos) << wasteful.err;
    EXPECT_EQ(wasteful.err.find("error"), std::string::npos) << wasteful.err;

    // --set and the dedicated options reach the settings.
    auto set = run({"--set", "top_k=3", "--temperature", "0.5", "--json"});
    ASSERT_EQ(set.status, 0) << set.err;
    EXPECT_EQ(set.json().at("settings").at("top_k"), "3");
    EXPECT_EQ(set.json().at("settings").at("temperature"), "0.5");
}

TEST_F(CliRun, BackendChoice) {
    // cpu: the CPU backend, named in the summary, nothing to explain.
    auto cpu = run({"--backend", "cpu", "--json"});
    ASSERT_EQ(cpu.status, 0) << cpu.err;
    EXPECT_EQ(cpu.json().at("backend"), "cpu");
    EXPECT_EQ(cpu.err.find("note:"), std::string::npos) << cpu.err;
    auto text = run({"--backend", "cpu"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("(llada, cpu)"), std::string::npos) << text.out;

    // cuda: the CUDA backend where a GPU is usable; elsewhere the CPU, with one note on stderr
    // (never in the JSON on stdout) saying why.
    auto cuda = run({"--backend", "cuda", "--json"});
    ASSERT_EQ(cuda.status, 0) << cuda.err;
    const auto j = cuda.json();
    if (j.at("backend") == "cpu") {
        EXPECT_EQ(std::count(cuda.err.begin(), cuda.err.end(), '\n'), 1) << cuda.err;
        EXPECT_EQ(cuda.err.rfind("note: ", 0), 0u) << cuda.err;
        EXPECT_NE(cuda.err.find("CUDA"), std::string::npos) << cuda.err;
        EXPECT_NE(cuda.err.find("running on the CPU"), std::string::npos) << cuda.err;
    } else {
        EXPECT_EQ(j.at("backend"), "cuda");
        EXPECT_EQ(cuda.err.find("note:"), std::string::npos) << cuda.err;
    }
    EXPECT_EQ(cuda.out.find("note:"), std::string::npos) << cuda.out;

    // The note waits for the settings to be accepted: a refused run is still one error line.
    auto refused = run({"--backend", "cuda", "--block-len", "5"});
    EXPECT_EQ(refused.status, 2);
    expect_one_line_error(refused, "block_length");

    // A name it does not know: refused before the model loads, naming the accepted values.
    auto bad = run({"--backend", "gpu"});
    EXPECT_EQ(bad.status, 2);
    expect_one_line_error(bad, "--backend");
    expect_one_line_error(bad, "auto, cpu, cuda");
    expect_one_line_error(cli({"eval", "--model", model_dir().string(), "--split", "test", "--backend", "metal"}),
                          "'metal'");
}

TEST_F(CliRun, PromptFileAndLiveView) {
    const auto prompt = file("prompt.txt");
    write_text(prompt, "hello world\n");
    auto r = cli({"run", "--model", model_dir().string(), "--prompt-file", prompt.string(), "--gen-len", "8",
                  "--live", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json().at("prompt"), "hello world");  // the file's final newline is not part of it
    // Not a terminal: one canvas line + one progress line per step, appended.
    EXPECT_NE(r.err.find("step 8/8"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("\033["), std::string::npos) << "ANSI codes written to a non-terminal";

    expect_one_line_error(cli({"run", "--model", model_dir().string(), "--prompt", "x", "--prompt-file",
                               prompt.string()}),
                          "not both");
    expect_one_line_error(cli({"run", "--model", model_dir().string()}), "--prompt");
    expect_one_line_error(
        cli({"run", "--model", model_dir().string(), "--prompt-file", file("missing.txt").string()}), "missing.txt");
}

TEST_F(CliRun, TracePathProblemsFailEarlyAndCleanly) {
    expect_one_line_error(run({"--trace", file("no-such-dir/t.ndjson").string()}), "no-such-dir");
    // A run that fails before its first step leaves no empty trace behind.
    const auto t = file("t.ndjson");
    auto r = cli({"run", "--model", file("missing-model").string(), "--prompt", "x", "--trace", t.string()});
    expect_one_line_error(r, "missing-model");
    EXPECT_FALSE(std::filesystem::exists(t));
}

TEST_F(CliRun, EvalOnAJsonlFile) {
    const auto data = file("mini.jsonl");
    write_text(data,
               "{\"family\": \"addition\", \"prompt\": \"1 + 2\", \"answer\": \"3\"}\n"
               "{\"family\": \"addition\", \"prompt\": \"2 + 2\", \"answer\": \"4\"}\n"
               "\n"
               "{\"family\": \"copy\", \"prompt\": \"copy ab\", \"answer\": \"ab\"}\n");
    auto r = cli({"eval", "--model", model_dir().string(), "--data", data.string(), "--gen-len", "8", "--json",
                  "--predictions", file("pred.jsonl").string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j.at("n"), 3);
    EXPECT_EQ(j.at("families").at("addition").at("n"), 2);
    EXPECT_EQ(j.at("families").at("copy").at("n"), 1);
    const double micro = j.at("accuracy").get<double>();
    EXPECT_GE(micro, 0.0);
    EXPECT_LE(micro, 1.0);
    EXPECT_DOUBLE_EQ(j.at("avg_steps").get<double>(), 8.0);
    EXPECT_DOUBLE_EQ(j.at("flops_ratio").get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(j.at("flops_ratio_to_baseline").get<double>(), 1.0);  // it is the baseline
    EXPECT_NE(r.err.find("eval 3/3"), std::string::npos) << r.err;  // progress on stderr
    EXPECT_NE(r.err.find(" s elapsed"), std::string::npos) << r.err;  // wall time, not the examples' sum

    // Half the steps: every step is still dense, but the run costs half the baseline sampler's.
    auto halved = cli({"eval", "--model", model_dir().string(), "--data", data.string(), "--gen-len", "8",
                       "--steps", "4", "--json"});
    ASSERT_EQ(halved.status, 0) << halved.err;
    EXPECT_DOUBLE_EQ(halved.json().at("flops_ratio").get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(halved.json().at("flops_ratio_to_baseline").get<double>(), 0.5);

    // eval checks the strategy's parameters as run does: its warnings once, its refusals before any decode.
    auto unlocked = cli({"eval", "--model", model_dir().string(), "--data", data.string(), "--gen-len", "8",
                         "--strategy", "surelock", "--set", "surelock.epsilon=0"});
    ASSERT_EQ(unlocked.status, 0) << unlocked.err;
    const std::string warning = "warning: surelock.epsilon = 0 disables locking";
    const auto at = unlocked.err.find(warning);
    EXPECT_NE(at, std::string::npos) << unlocked.err;
    EXPECT_EQ(unlocked.err.find(warning, at + warning.size()), std::string::npos) << unlocked.err;  // once
    auto refused = cli({"eval", "--model", model_dir().string(), "--data", data.string(), "--gen-len", "8",
                        "--strategy", "surelock", "--set", "surelock.m=150"});
    EXPECT_EQ(refused.status, 2);
    expect_one_line_error(refused, "surelock.m=150 is outside [0, 100]");

    // Every example is in the predictions file, with the extracted answer.
    const std::string pred = read_text(file("pred.jsonl"));
    EXPECT_EQ(std::count(pred.begin(), pred.end(), '\n'), 3) << pred;

    // --limit takes families round-robin: 2 examples = one of each family.
    auto limited = cli({"eval", "--model", model_dir().string(), "--data", data.string(), "--gen-len", "8",
                        "--limit", "2", "--json"});
    ASSERT_EQ(limited.status, 0) << limited.err;
    EXPECT_EQ(limited.json().at("families").size(), 2u);

    // Output that cannot be written is an error, never a silent success.
    const auto full = cli({"eval", "--model", model_dir().string(), "--data", data.string(), "--gen-len", "8",
                           "--predictions", "/dev/full"});
    EXPECT_NE(full.status, 0);
    ASSERT_FALSE(full.err_lines().empty());
    EXPECT_EQ(full.err_lines().back().rfind("dlmscope-cli: error: ", 0), 0u) << full.err;
    EXPECT_NE(full.err_lines().back().find("/dev/full"), std::string::npos) << full.err;

    // Each example on its own canvas: one block, or a preset's blocks of 32 fitted to it.
    const auto canvases = file("canvases.jsonl");
    write_text(canvases,
               "{\"family\": \"addition\", \"prompt\": \"1 + 2\", \"answer\": \"3\", \"gen_length\": 24}\n"
               "{\"family\": \"addition\", \"prompt\": \"2 + 2\", \"answer\": \"4\", \"gen_length\": 40}\n");
    auto blocks_of = [&](std::vector<std::string> extra) {
        std::vector<std::string> args{"eval", "--model", model_dir().string(), "--data", canvases.string(),
                                      "--predictions", file("blocks.jsonl").string()};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto run = cli(args);
        EXPECT_EQ(run.status, 0) << run.err;
        std::vector<int> blocks;
        std::istringstream lines(read_text(file("blocks.jsonl")));
        for (std::string line; std::getline(lines, line);) blocks.push_back(nlohmann::json::parse(line).at("block_length"));
        return blocks;
    };
    EXPECT_EQ(blocks_of({}), (std::vector<int>{24, 40}));
    EXPECT_EQ(blocks_of({"--preset", "Fast-dLLM dual cache"}), (std::vector<int>{24, 20}));
    EXPECT_EQ(blocks_of({"--preset", "Fast-dLLM dual cache", "--block-len", "8"}), (std::vector<int>{8, 8}));

    write_text(file("bad.jsonl"), "{\"family\": \"x\", \"prompt\": \"p\"}\n");
    expect_one_line_error(cli({"eval", "--model", model_dir().string(), "--data", file("bad.jsonl").string()}),
                          "bad.jsonl:1");
}

TEST_F(CliRun, EvalScoresACausalModelByGreedyDecoding) {
    const std::filesystem::path ar = std::filesystem::path(DLM_SOURCE_DIR) / "resources" / "models" / "tiny-ar";
    ASSERT_TRUE(std::filesystem::exists(ar / "config.json")) << "the embedded guider " << ar << " is missing";
    const auto data = file("ar.jsonl");
    write_text(data,
               "{\"family\": \"addition\", \"prompt\": \"What is 12 + 30?\", \"answer\": \"42\"}\n"
               "{\"family\": \"counting\", \"prompt\": \"Count the words in: \\\"A cat sat.\\\"\", \"answer\": \"3\"}\n");
    auto r = cli({"eval", "--model", ar.string(), "--data", data.string(), "--gen-len", "40", "--json", "--jobs", "2",
                  "--predictions", file("ar-pred.jsonl").string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j.at("strategy"), "greedy (autoregressive)");
    EXPECT_EQ(j.at("n"), 2);
    // One forward per generated token plus the stop token's: never more than the gen length.
    EXPECT_GE(j.at("avg_steps").get<double>(), 1.0);
    EXPECT_LE(j.at("avg_steps").get<double>(), 40.0);
    EXPECT_TRUE(j.at("flops_ratio_to_baseline").is_null());  // no diffusion baseline to compare with
    const std::string pred = read_text(file("ar-pred.jsonl"));
    EXPECT_EQ(std::count(pred.begin(), pred.end(), '\n'), 2) << pred;
}

TEST_F(CliRun, EvalJobsDecodeExactlyAsOneAtATime) {
    // Examples side by side on one-thread backends must give the very outputs of a sequential run.
    const auto data = file("jobs.jsonl");
    std::string lines;
    for (int i = 0; i < 5; ++i)
        lines += "{\"family\": \"f" + std::to_string(i % 2) + "\", \"prompt\": \"case " + std::to_string(i) +
                 "\", \"answer\": \"x\"}\n";
    write_text(data, lines);
    auto one = cli({"eval", "--model", model_dir().string(), "--data", data.string(), "--gen-len", "8", "--jobs", "1",
                    "--json", "--predictions", file("one.jsonl").string()});
    auto three = cli({"eval", "--model", model_dir().string(), "--data", data.string(), "--gen-len", "8", "--jobs", "3",
                      "--json", "--predictions", file("three.jsonl").string()});
    ASSERT_EQ(one.status, 0) << one.err;
    ASSERT_EQ(three.status, 0) << three.err;
    EXPECT_EQ(one.json().at("jobs"), 1);
    EXPECT_EQ(three.json().at("jobs"), 3);
    auto outputs = [&](const std::string& name) {
        std::vector<std::string> out;
        std::istringstream in(read_text(file(name)));
        for (std::string l; std::getline(in, l);) out.push_back(nlohmann::json::parse(l).at("output"));
        return out;
    };
    EXPECT_EQ(outputs("one.jsonl"), outputs("three.jsonl"));
    EXPECT_EQ(outputs("one.jsonl").size(), 5u);
    expect_one_line_error(cli({"eval", "--model", model_dir().string(), "--data", data.string(), "--jobs", "0"}),
                          "--jobs");
}

TEST_F(CliRun, JsonHasTheGeneratedIds) {
    auto r = run({"--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto ids = r.json().at("generated_ids");
    ASSERT_TRUE(ids.is_array());
    EXPECT_EQ(ids.size(), 16u);
    for (const auto& id : ids) EXPECT_NE(id.get<int>(), ckpt.config.mask_token_id);  // a finished run has no masks
}

// A strategy that stops at its step budget with positions still masked says so: the text leaves
// them out, so run warns and reports masks_left, and eval counts such runs.
TEST_F(CliRun, AStepBudgetThatLeavesMasksIsReported) {
    auto r = run({"--strategy", "cover", "--set", "cover.max_steps=2", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j.at("steps"), 2);
    const int left = j.at("masks_left").get<int>();
    EXPECT_GT(left, 0);
    int masks = 0;
    for (const auto& id : j.at("generated_ids")) masks += id.get<int>() == ckpt.config.mask_token_id;
    EXPECT_EQ(masks, left);
    EXPECT_NE(r.err.find("stopped at its step budget (2 steps) with " + std::to_string(left) + " of 16 positions"),
              std::string::npos)
        << r.err;
    // A run that ends with every position filled reports 0 and warns of nothing of the kind.
    auto full = run({"--json"});
    ASSERT_EQ(full.status, 0) << full.err;
    EXPECT_EQ(full.json().at("masks_left"), 0);
    EXPECT_EQ(full.err.find("step budget"), std::string::npos) << full.err;

    write_text(file("one.jsonl"), "{\"family\": \"addition\", \"prompt\": \"hello world\", \"answer\": \"1\"}\n");
    auto ev = cli({"eval", "--model", model_dir().string(), "--data", file("one.jsonl").string(), "--gen-len", "16",
                   "--strategy", "cover", "--set", "cover.max_steps=2", "--json", "--predictions",
                   file("pred.jsonl").string()});
    ASSERT_EQ(ev.status, 0) << ev.err;
    EXPECT_EQ(ev.json().at("stopped_with_masks"), 1);
    std::ifstream pred(file("pred.jsonl"));
    std::string line;
    ASSERT_TRUE(std::getline(pred, line));
    EXPECT_EQ(nlohmann::json::parse(line).at("masks_left"), left);
}

TEST_F(CliRun, DecodeBenchSectionOnATokenizerFreeCheckpoint) {
    // make-checkpoint writes weights and config only: the decode bench feeds ids and needs none.
    auto made = cli({"make-checkpoint", "--dims", "tiny", "--out", file("rand").string()});
    ASSERT_EQ(made.status, 0) << made.err;
    auto r = cli({"bench", "--section", "decode", "--model", file("rand").string(), "--backend", "cpu", "--gen-lens",
                  "32", "--prompt-len", "8", "--strategies", "baseline, fast-dLLM DUAL cache", "--json", file("d.json").string(),
                  "--out", file("report.md").string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string md = read_text(file("report.md"));
    EXPECT_NE(md.find("End-to-end decode"), std::string::npos) << md;
    const auto j = nlohmann::json::parse(read_text(file("d.json")));
    ASSERT_EQ(j.at("runs").size(), 2u);
    const auto& base = j.at("runs")[0];
    // A strategy key stands for the first preset that runs it; a name may differ in case and spaces.
    EXPECT_EQ(base.at("label"), "LLaDA low-confidence");
    EXPECT_EQ(j.at("runs")[1].at("label"), "Fast-dLLM dual cache");
    EXPECT_EQ(j.at("runs")[1].at("block"), 32);  // the preset's blocks
    EXPECT_EQ(base.at("block"), 0);              // one block over the canvas
    EXPECT_EQ(base.at("tokens"), 32);
    EXPECT_EQ(base.at("forwards"), 32);  // one token per forward, one forward per step
    EXPECT_DOUBLE_EQ(base.at("speedup").get<double>(), 1.0);
    EXPECT_GT(base.at("forward_s").get<double>(), 0.0);
    EXPECT_LE(base.at("forward_s").get<double>() + base.at("stats_s").get<double>(), base.at("wall_s").get<double>());
    EXPECT_LT(j.at("runs")[1].at("flops_ratio_to_baseline").get<double>(), 1.0);  // the cache saves work
    // The CPU backend copies nothing between host and device: the copies column says so.
    EXPECT_EQ(base.at("copies").at("to_device"), 0);
    EXPECT_EQ(base.at("copies").at("to_host"), 0);
    EXPECT_NE(md.find("copies per forward"), std::string::npos) << md;
    expect_one_line_error(cli({"bench", "--section", "decode", "--model", file("rand").string(), "--strategies",
                               "no-such-preset", "--out", "-"}),
                          "no-such-preset");
}

TEST(CliTinyMdlm, RunsTheEmbeddedModel) {
    const std::filesystem::path dir = std::filesystem::path(DLM_SOURCE_DIR) / "resources" / "models" / "tiny-mdlm";
    ASSERT_TRUE(std::filesystem::exists(dir / "config.json")) << "the embedded model " << dir << " is missing";
    test::ScratchDir scratch("dlm-cli-tiny-mdlm");
    auto r = run_cli({"run", "--model", dir.string(), "--prompt", "What is 2 + 3?", "--gen-len", "32", "--json"},
                     scratch.path());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j.at("steps"), 32);
    EXPECT_EQ(j.at("family"), "llada");
    EXPECT_FALSE(j.at("text").get<std::string>().empty());
    EXPECT_DOUBLE_EQ(j.at("flops_ratio").get<double>(), 1.0);
}

// Without --model, run and eval use the embedded model, as the app opens it (found beside the
// program, from wherever it is called).
TEST(CliTinyMdlm, WithoutAModelFolderTheEmbeddedModelRuns) {
    test::ScratchDir scratch("dlm-cli-embedded");
    auto r = run_cli({"run", "--prompt", "What is 2 + 3?", "--gen-len", "16", "--json"}, scratch.path());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json().at("model"), "tiny-mdlm");
    auto e = run_cli({"eval", "--split", "examples", "--limit", "1", "--json"}, scratch.path());
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_EQ(e.json().at("model"), "tiny-mdlm");
    EXPECT_NE(run_cli({"run", "--help"}, scratch.path()).out.find("default: the embedded tiny-mdlm"), std::string::npos);
}

TEST(CliTinyMdlm, EvalReportsWhenAnswerDigitsAreRevealed) {
    const std::filesystem::path dir = std::filesystem::path(DLM_SOURCE_DIR) / "resources" / "models" / "tiny-mdlm";
    ASSERT_TRUE(std::filesystem::exists(dir / "config.json")) << "the embedded model " << dir << " is missing";
    test::ScratchDir scratch("dlm-cli-tiny-mdlm-reveal");
    // The arithmetic examples: the embedded model writes "a + b = c" then "#### d".
    auto r = run_cli({"eval", "--model", dir.string(), "--split", "examples", "--json"}, scratch.path());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j.at("split"), "examples");
    const auto& reveal = j.at("reveal");
    ASSERT_GT(reveal.at("examples").get<int>(), 0) << j.dump();
    for (const char* k : {"answer_digits", "other_tokens"}) {
        EXPECT_GE(reveal.at(k).get<double>(), 0.0) << k;
        EXPECT_LT(reveal.at(k).get<double>(), 1.0) << k;
    }
}

// --gen-lens family: every example decodes on its own canvas (the data's gen_length), as eval
// does; blocks of 32 become the largest divisor of a canvas that 32 does not divide.
TEST(CliTinyMdlm, StrategiesBenchDecodesEachExampleOnItsFamilysCanvas) {
    const std::filesystem::path dir = std::filesystem::path(DLM_SOURCE_DIR) / "resources" / "models" / "tiny-mdlm";
    ASSERT_TRUE(std::filesystem::exists(dir / "config.json")) << "the embedded model " << dir << " is missing";
    test::ScratchDir scratch("dlm-cli-bench-family");
    const auto data = scratch.path() / "two.jsonl";
    test::write_file(data, "{\"family\": \"addition\", \"prompt\": \"What is 12 + 30?\", \"answer\": \"42\", \"gen_length\": 24}\n"
                           "{\"family\": \"subtraction\", \"prompt\": \"What is 50 - 8?\", \"answer\": \"42\", \"gen_length\": 40}\n");
    const auto report = scratch.path() / "report.md";
    auto r = run_cli({"bench", "--section", "strategies", "--model", dir.string(), "--data", data.string(), "--limit",
                      "1", "--gen-lens", "family", "--sweep-gen", "999", "--threads", "1", "--backend", "cpu",
                      "--data-out", (scratch.path() / "raw").string(), "--out", report.string()},
                     scratch.path());
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string md = read_text(report);
    EXPECT_NE(md.find("**Family canvases (addition 24, subtraction 40)**"), std::string::npos) << md;
    EXPECT_NE(md.find("answers right by family"), std::string::npos) << md;
    EXPECT_EQ(md.find("SureLock sweep"), std::string::npos) << "no sweep was asked for";
    const auto j = nlohmann::json::parse(read_text(scratch.path() / "raw.json"));
    bool saw_baseline = false, saw_fast = false;
    for (const auto& run : j.at("runs")) {
        EXPECT_EQ(run.at("gen_length"), 0);
        EXPECT_EQ(run.at("n"), 2) << run.at("label");
        if (run.at("label") == "LLaDA low-confidence") {  // the baseline: the preset box's names
            saw_baseline = true;
            EXPECT_DOUBLE_EQ(run.at("avg_steps").get<double>(), (24 + 40) / 2.0);  // one token per step
            EXPECT_DOUBLE_EQ(run.at("flops_ratio").get<double>(), 1.0);
        }
        // The per-step curve is kept per canvas: steps of different canvases do not line up.
        const auto& curves = run.at("step_flops_ratio_by_canvas");
        EXPECT_TRUE(curves.contains("24") && curves.contains("40")) << curves.dump();
        if (run.at("label") == "LLaDA low-confidence") EXPECT_EQ(curves.at("40").size(), 40u);
        // Blocks of 32 on canvases of 24 (one block) and 40 (blocks of 20): it runs.
        saw_fast = saw_fast || run.at("label") == "Fast-dLLM dual cache";
        // Guided's AR guider is part of its cost, and only guided has one.
        const double guider = run.at("guider_flops_ratio").get<double>();
        if (run.at("strategy") == "guided") {
            EXPECT_GT(guider, 0.0);
            EXPECT_GE(run.at("flops_ratio").get<double>(), guider);
        } else {
            EXPECT_EQ(guider, 0.0) << run.at("label");
        }
    }
    EXPECT_TRUE(saw_baseline && saw_fast) << j.dump();
    // Every preset of the app's box is reported under its name (or said not to run, and why).
    std::set<std::string> labels;
    for (const auto& run : j.at("runs")) labels.insert(run.at("label").get<std::string>());
    for (const StrategyPreset& p : strategy_presets())
        EXPECT_TRUE(labels.count(p.name) || md.find("not run: " + p.name + " — ") != std::string::npos) << p.name;
    for (const char* bad : {"0", "64x", "famly"})
        expect_one_line_error(run_cli({"bench", "--section", "strategies", "--gen-lens", bad, "--out", "-"}, scratch.path()),
                              "--gen-lens");
    expect_one_line_error(run_cli({"bench", "--section", "decode", "--model", dir.string(), "--gen-lens", "family",
                                   "--out", "-"},
                                  scratch.path()),
                          "family");
}

}  // namespace
}  // namespace dlm::cli_test

namespace dlm::cli_test {
namespace {

// A checkpoint's generation_config.json gives the sampling defaults and the task's size; the
// command line wins over both.
TEST(CliRunGenerationDefaults, TheModelsDefaultsLayerUnderTheCommandLine) {
    test::ScratchDir scratch{"dlm-cli-gen-defaults"};
    const auto dir = scratch.path() / "tiny";
    write_tiny_model(dir);
    test::write_file(dir / "generation_config.json", R"({"temperature": 0.5, "top_k": 3, "steps": 512, "top_p": null})");
    auto run = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = {"run", "--model", dir.string(), "--prompt", "hello", "--gen-len", "8", "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_cli(args, scratch.path());
    };
    auto r = run({});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json().at("settings").at("temperature"), "0.5");
    EXPECT_EQ(r.json().at("settings").at("top_k"), "3");
    EXPECT_EQ(r.json().at("settings").at("top_p"), "1");   // null: the schema's default
    EXPECT_EQ(r.json().at("settings").at("steps"), "8");   // the user's gen length: steps follow it
    r = run({"--temperature", "0", "--set", "top_k=0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json().at("settings").at("temperature"), "0");
    EXPECT_EQ(r.json().at("settings").at("top_k"), "0");
    const auto inspect = run_cli({"inspect", dir.string()}, scratch.path());
    EXPECT_NE(inspect.out.find("temperature=0.5"), std::string::npos) << inspect.out;
    EXPECT_NE(inspect.out.find("steps=512 (when the gen length is not set)"), std::string::npos) << inspect.out;
    // A preset is named as the app names it on this model: over its temperature and top-k.
    const auto t = scratch.path() / "preset.ndjson";
    r = run_cli({"run", "--model", dir.string(), "--prompt", "hello", "--gen-len", "8", "--preset", "SureLock", "--trace",
                 t.string()}, scratch.path());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("preset SureLock, prompt"), std::string::npos) << r.out;
    const auto show = run_cli({"trace", "show", t.string()}, scratch.path());
    EXPECT_NE(show.out.find("decode         preset SureLock, gen 8"), std::string::npos) << show.out;

    // Without a gen length, the model's max_new_tokens and steps size the task.
    test::write_file(dir / "generation_config.json", R"({"max_new_tokens": 12, "steps": 6})");
    r = run_cli({"run", "--model", dir.string(), "--prompt", "hello", "--json"}, scratch.path());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json().at("settings").at("gen_length"), "12");
    EXPECT_EQ(r.json().at("settings").at("steps"), "6");
}

}  // namespace
}  // namespace dlm::cli_test

namespace dlm::cli_test {
namespace {

// Dream's tokenizer and config files as published, beside random weights under Dream's tensor
// names: `run --trace` writes the prompt ids transformers makes (tests/data/tokenizer-vectors/
// chat.json: the template rendered by the reference renderer, tokenized by the reference library).
TEST(CliPublishedCheckpoint, DreamFolderRunsWithThePromptTransformersMakes) {
    test::ScratchDir scratch{"dlm-cli-dream"};
    const auto dir = scratch.path() / "dream";
    test::RandomCheckpointOptions o;
    o.vocab_size = 152064;
    o.d_model = 16;
    o.d_ff = 16;
    o.n_layers = 1;
    o.mask_token_id = 151666;
    o.eos_token_id = 151643;
    o.dtype = DType::BF16;
    test::write_random_checkpoint(dir, Family::Dream, o);
    const std::filesystem::path data = DLM_TEST_DATA_DIR;
    for (const char* f : {"vocab.json", "merges.txt", "tokenizer_config.json", "added_tokens.json",
                          "special_tokens_map.json", "generation_config.json"})
        std::filesystem::copy_file(data / "dream-v0-instruct-7b" / f, dir / f);

    const auto vectors = nlohmann::json::parse(read_text(data / "tokenizer-vectors" / "chat.json"));
    nlohmann::json expected;
    for (const auto& c : vectors.at("cases"))
        if (c.at("template") == "dream-v0-instruct-7b" && c.at("messages").size() == 1 &&
            c.at("messages")[0].at("content") == "What is 2+2?")
            expected = c.at("ids");
    ASSERT_FALSE(expected.is_null());

    const auto trace = scratch.path() / "dream.ndjson";
    const auto r = run_cli({"run", "--model", dir.string(), "--prompt", "What is 2+2?", "--gen-len", "4", "--steps", "2",
                            "--threads", "1", "--trace", trace.string()},
                           scratch.path());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
    std::istringstream lines(read_text(trace));
    std::string header;
    std::getline(lines, header);
    EXPECT_EQ(nlohmann::json::parse(header).at("prompt_ids"), expected);

    const auto inspect = run_cli({"inspect", dir.string()}, scratch.path());
    ASSERT_EQ(inspect.status, 0) << inspect.err;
    EXPECT_NE(inspect.out.find("ChatML (Qwen2.5 / Dream form); default system \"You are a helpful assistant.\""),
              std::string::npos)
        << inspect.out;

    // A template the engine does not render exactly: one warning line, and the prompt goes in raw.
    auto config = nlohmann::json::parse(read_text(dir / "tokenizer_config.json"));
    config["chat_template"] = "{% for m in messages %}<<{{ m.content }}>>{% endfor %}";
    write_text(dir / "tokenizer_config.json", config.dump());
    const auto raw = run_cli({"run", "--model", dir.string(), "--prompt", "What is 2+2?", "--gen-len", "4", "--steps", "2",
                              "--threads", "1", "--backend", "cpu", "--json"},
                             scratch.path());
    ASSERT_EQ(raw.status, 0) << raw.err;
    ASSERT_EQ(raw.err_lines().size(), 1u) << raw.err;
    EXPECT_NE(raw.err.find("not one this engine renders exactly"), std::string::npos) << raw.err;
    EXPECT_FALSE(raw.json().at("chat").get<bool>());
    // "What is 2+2?" in Qwen's vocabulary, and no BOS: Dream's tokenizer_config.json says add_bos_token false.
    EXPECT_EQ(raw.json().at("prompt_tokens"), 7) << raw.out;
}

// Qwen2.5's tokenizer files as published (its vocabulary and merges are Dream's, which the test
// data keeps once) beside random qwen2 weights: the folder opens as the guider family, and
// `inspect --prompt` shows the ids transformers makes for its ChatML template with Qwen's own
// default system line. A causal model is not decoded by `run`, so inspect is where a user sees them.
TEST(CliPublishedCheckpoint, QwenFolderOpensWithThePromptTransformersMakes) {
    test::ScratchDir scratch{"dlm-cli-qwen25"};
    const auto dir = scratch.path() / "qwen2.5";
    test::RandomCheckpointOptions o;
    o.vocab_size = 151936;
    o.d_model = 16;
    o.d_ff = 16;
    o.n_layers = 1;
    o.eos_token_id = 151645;
    o.dtype = DType::BF16;
    test::write_random_checkpoint(dir, Family::Qwen2, o);
    const std::filesystem::path data = DLM_TEST_DATA_DIR;
    for (const char* f : {"vocab.json", "merges.txt"})
        std::filesystem::copy_file(data / "dream-v0-instruct-7b" / f, dir / f);
    for (const char* f : {"tokenizer_config.json", "added_tokens.json", "special_tokens_map.json", "generation_config.json"})
        std::filesystem::copy_file(data / "qwen2.5-0.5b-instruct" / f, dir / f);

    const auto vectors = nlohmann::json::parse(read_text(data / "tokenizer-vectors" / "chat.json"));
    nlohmann::json expected;
    for (const auto& c : vectors.at("cases"))
        if (c.at("template") == "qwen2.5-0.5b-instruct" && c.at("messages").size() == 1 &&
            c.at("messages")[0].at("content") == "What is 2+2?")
            expected = c.at("ids");
    ASSERT_FALSE(expected.is_null());

    const auto r = run_cli({"inspect", dir.string(), "--prompt", "What is 2+2?", "--json"}, scratch.path());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j.at("family"), "qwen2");
    EXPECT_EQ(j.at("tokenizer").at("files"), "vocab.json + merges.txt") << j.at("tokenizer");
    EXPECT_EQ(j.at("chat_template").at("default_system"),
              "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.");
    EXPECT_TRUE(j.at("prompt").at("chat").get<bool>());
    EXPECT_EQ(j.at("prompt").at("ids"), expected);

    // Plain text: "What is 2+2?" is 7 of Qwen's tokens, no BOS (add_bos_token is false).
    const auto plain = run_cli({"inspect", dir.string(), "--prompt", "What is 2+2?", "--no-chat", "--json"}, scratch.path());
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_FALSE(plain.json().at("prompt").at("chat").get<bool>());
    EXPECT_EQ(plain.json().at("prompt").at("ids").size(), 7u);

    const auto text = run_cli({"inspect", dir.string(), "--prompt", "What is 2+2?"}, scratch.path());
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("(chat template): 151644=\"<|im_start|>\""), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("logits         causal (row i predicts token i+1)"), std::string::npos) << text.out;

    const auto bad = run_cli({"inspect", dir.string(), "--no-chat"}, scratch.path());
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.err.find("--no-chat goes with --prompt"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace dlm::cli_test
