// dlmscope-cli bench: runs benchmarks and writes each as its own section of a markdown report
// (docs/benchmarks.md). Sections are registered in kBenchmarks; adding one (strategy presets,
// GPU runs) means adding a function that measures and fills a MarkdownSection.
#include <sys/utsname.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "args.h"
#include "model/embedded_models.h"
#include "bench_decode.h"
#include "bench_step_cpu.h"
#include "bench_forward_cuda.h"
#include "bench_report.h"
#include "commands.h"
#include "bench/forward_bench.h"
#include "decode/decode_session.h"
#include "model/model_config.h"
#include "decode_options.h"
#include "eval_data.h"
#include "output.h"
#include "text/chat_template.h"

namespace dlm::cli {

namespace {

const CommandSpec& bench_spec() {
    static const CommandSpec spec = with_decode_options(with_forward_cuda_options(CommandSpec{
        "bench",
        "[--out FILE] [--reps N] [--threads N] [--section ID ...] [strategies options]",
        "Run the benchmarks and write their sections of a markdown report.",
        "Sections:\n"
        "  forward-cpu  CPU forward rows/s at N = 128, 256, 512 (random llada-family model, 4 layers,\n"
        "               d = 512) and the sparse/dense time ratio at 25/50/75% of rows computed.\n"
        "  strategies   every compute-saving preset (SureLock, FreeCache, Fast-dLLM, selection, ...) against\n"
        "               the baseline on the embedded model's test split, same run: accuracy, steps, paper\n"
        "               FLOPs ratio, wall-time speedup, E2E TPS, revision counters; the SureLock epsilon x m\n"
        "               sweep and the per-step FLOPs-ratio curve. Writes --data-out (JSON + CSV) for\n"
        "               tools/scripts/plot_strategies.py.\n"
        "  step-cpu     (only when named; needs --model DIR, e.g. from 'make-checkpoint --dims llada-8b')\n"
        "               seconds per denoising step on the CPU at each --lengths N (default 64,320; prompt\n"
        "               --prompt-len, at most N/2), peak resident memory next to the weights' size, and the\n"
        "               compute floor at the fp32 GEMM rate measured in the same run (--reps: timed steps).\n"
        "Each section replaces its previous version in the report; other sections are kept.",
        {
            {"out", "FILE", "markdown report to update (default docs/benchmarks.md; '-' prints it)"},
            {"reps", "N", "timed repetitions per measurement, median reported (default 5)"},
            {"threads", "N", "CPU threads (default: 1 for a model under 20 M parameters, else all cores)"},
            {"section", "ID", "run only this section", true},
            {"model", "DIR", "strategies: checkpoint (default: the embedded " + std::string(kDefaultEmbeddedModel) + ")"},
            {"limit", "N", "strategies: examples per family of the test split (default 3)"},
            {"data", "FILE", "strategies: examples (eval JSONL) instead of the model's test split"},
            {"gen-lens", "LIST", "strategies: generation lengths, comma-separated; 'family': each example on the "
                                 "canvas its family is evaluated on, as eval decodes it (default family)"},
            {"sweep-gen", "N", "strategies: generation length of the SureLock sweep, or 'family' (default: the "
                               "largest)"},
            {"data-out", "PREFIX", "strategies: raw results PREFIX.json / PREFIX.csv (default docs/bench/strategies)"},
            {"backend", "NAME", "strategies: compute backend auto, cpu or cuda (default auto: CUDA when usable)"},
        },
        0,
        0,
        "",
    }));
    return spec;
}

// A generation length of the strategies section that means "each example on its own canvas":
// the length its family is evaluated on (the eval data's "gen_length"), as `eval` decodes it.
constexpr int kFamilyCanvas = 0;

// What every section records about where and how it was measured.
struct BenchContext {
    std::string command;  // the exact command line, for the report
    int reps = 5;
    int threads = 0;
    // strategies section
    std::string model = embedded_model_dir().string();
    int limit_per_family = 3;
    std::string data;  // examples file; empty: the model's test split
    std::vector<int> gen_lens{kFamilyCanvas};
    std::optional<int> sweep_gen;  // none: the largest of gen_lens
    std::string data_out = "docs/bench/strategies";
    BackendKind backend = BackendKind::Auto;
    ForwardCudaOptions forward_cuda;  // forward-cuda section
    std::vector<std::string> decode_presets{"LLaDA low-confidence", "Fast-dLLM dual cache", "SureLock",
                                            "SureLock + FreeCache"};  // decode section
    int prompt_len = 64;                                                                                  // decode section
    std::string decode_json;                                                                              // decode section
    bool reps_given = false, gen_lens_given = false, lengths_given = false;
};

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0)
            if (auto colon = line.find(':'); colon != std::string::npos) {
                std::string name = line.substr(colon + 1);
                name.erase(0, name.find_first_not_of(' '));
                return name;
            }
    return "unknown CPU";
}

std::string os_name() {
    utsname u{};
    if (::uname(&u) != 0) return "unknown OS";
    return std::string(u.sysname) + " " + u.release + " " + u.machine;
}


void machine_bullets(MarkdownSection& s, int threads_used, const std::string& backend = backend_label("cpu")) {
    const unsigned cores = std::thread::hardware_concurrency();
    const std::string used = threads_used > 0 ? std::to_string(threads_used) : "all " + std::to_string(cores);
    s.bullet("machine: " + table_cell(cpu_model()) + ", " + std::to_string(cores) + " hardware threads, " + used +
             " used; " + os_name());
    s.bullet("engine: dlmscope " DLM_VERSION ", " + backend + "; measured " + utc_now());
}

std::string pct(double v) { return format_fixed(100.0 * v, 1) + "%"; }

MarkdownSection forward_cpu(const BenchContext& ctx) {
    ForwardBenchOptions o;
    o.reps = ctx.reps;
    o.threads = ctx.threads;
    o.progress = [](const std::string& line) { std::cerr << "bench: " << line << std::endl; };
    const ForwardBenchResult r = run_forward_bench(o);
    const RandomLladaSpec& m = r.model;

    MarkdownSection s("forward-cpu", "CPU forward pass: throughput and token-sparse scaling");
    s.paragraph(
        "One forward pass of a random llada-family model (bidirectional attention, SwiGLU, untied LM head) over "
        "a canvas of N positions. *Dense* computes every row; *sparse* computes a random subset of rows and reads "
        "the others' K/V from the cache (design.md §3), the mechanism behind SureLock locks, FreeCache blocks and "
        "COVER. Times are the median of " +
        std::to_string(r.reps) + " repetitions after a warm-up.");
    machine_bullets(s, r.threads);
    s.bullet("model: " + std::to_string(m.n_layers) + " layers, d_model " + std::to_string(m.d_model) + ", " +
             std::to_string(m.n_heads) + " heads (head dim " + std::to_string(m.d_model / m.n_heads) + "), d_ff " +
             std::to_string(m.d_ff) + ", vocabulary " + std::to_string(m.vocab_size) + ", fp32 weights");
    s.paragraph("Command:");
    s.code_block(ctx.command, "sh");

    std::vector<std::vector<std::string>> dense;
    for (const auto& p : r.points)
        dense.push_back({std::to_string(p.n), format_fixed(p.dense_seconds * 1e3, 2),
                         format_fixed(p.dense_rows_per_s, 0), format_fixed(p.dense_gflops, 1)});
    s.paragraph("**Dense forward** (GFLOP/s counts the design.md §6 GEMMs plus the LM head):");
    s.table({"N", "ms / forward", "rows / s", "GFLOP/s"}, dense);

    std::vector<std::vector<std::string>> sparse;
    double worst_excess = 0.0;
    for (const auto& p : r.points)
        for (const auto& sp : p.sparse) {
            const double ideal = p.n > 0 ? double(sp.rows) / p.n : 0.0;
            worst_excess = std::max(worst_excess, sp.ratio - ideal);
            sparse.push_back({std::to_string(p.n), std::to_string(sp.rows) + " (" + pct(ideal) + ")",
                              format_fixed(sp.seconds * 1e3, 2), format_fixed(sp.ratio, 3), format_fixed(ideal, 3),
                              format_fixed(ideal > 0 ? sp.ratio / ideal : 0.0, 2)});
        }
    s.paragraph(
        "**Sparse / dense time.** With M of N rows computed every GEMM term shrinks by M/N (attention is M x N), so "
        "the ideal time ratio is the share of rows computed; *ratio / ideal* above 1 is the fixed cost that does "
        "not shrink (attention over all N cached keys, gathers, thread start-up).");
    s.table({"N", "rows computed", "ms / forward", "time ratio", "ideal (M/N)", "ratio / ideal"}, sparse);
    s.paragraph("Largest gap between measured ratio and ideal share: " + format_fixed(worst_excess, 3) + ".");
    return s;
}

// ---------------------------------------------------------------------------------------------
// strategies: every preset of the app against the baseline, measured in the same run.
// ---------------------------------------------------------------------------------------------

// One configuration of the benchmark: a preset of the engine's table at its own settings, or a
// point of the SureLock sweep.
struct StrategyConfig {
    StrategyPreset preset;
    bool sweep = false;  // part of the SureLock epsilon x m sweep
    const std::string& label() const { return preset.name; }
    const std::string& strategy() const { return preset.settings.at("strategy"); }
};

// Every preset the app offers, under its name, the first (LLaDA low-confidence) the baseline of
// the ratios; one block over the whole generation with S = N_gen steps (the SureLock paper's
// setting) unless the preset brings its own blocks (FreeCache's and Fast-dLLM's 32).
std::vector<StrategyConfig> strategy_configs(bool with_sweep) {
    std::vector<StrategyConfig> c;
    c.push_back({bench_preset("LLaDA low-confidence", "strategies"), false});
    for (const StrategyPreset& p : strategy_presets())
        if (p.name != c.front().label()) c.push_back({p, false});
    if (with_sweep)
        for (const char* eps : {"5e-4", "5e-3", "5e-2"})
            for (const char* m : {"10", "20", "40"})
                c.push_back({{std::string("SureLock ε=") + eps + " m=" + m + "%", "",
                              {{"strategy", "surelock"}, {"surelock.epsilon", eps}, {"surelock.m", m}}},
                             true});
    return c;
}

struct StrategyTotals {
    int n = 0, correct = 0;
    std::map<std::string, std::pair<int, int>> by_family;  // family -> (correct, n)
    long long steps = 0, tokens = 0, rows = 0, rows_total = 0;
    double wall = 0, flops = 0, dense = 0;
    double guider_flops = 0;  // part of `flops`
    std::map<std::string, double> events;  // remasks, flipflops, replaces, locks, ...
    struct Curve {
        std::vector<double> sum;  // per step: sum of F_t / F_base,t over the examples
        std::vector<int> n;       // per step: examples that reached it
    };
    // By canvas length: averaging steps of canvases of different lengths would draw a saw, each
    // tooth where the shorter canvases end.
    std::map<int, Curve> curves;
};

// "Family canvases (addition 48, counting 96, ...)": the lengths the examples decode on.
std::string family_canvas_caption(const std::vector<EvalExample>& examples) {
    std::map<std::string, std::set<int>> lens;
    for (const auto& e : examples) lens[e.family].insert(e.gen_length);
    std::string out = "Family canvases (";
    bool first = true;
    for (const auto& [family, ls] : lens) {
        out += (first ? "" : ", ") + family + " ";
        first = false;
        out += std::to_string(*ls.begin());
        if (ls.size() > 1) out += "–" + std::to_string(*ls.rbegin());
    }
    return out + ")";
}

MarkdownSection strategies(const BenchContext& ctx) {
    LoadedModel model = load_model(ctx.model, {.backend = ctx.backend, .cpu_threads = ctx.threads});
    print_backend_note(model);
    const Checkpoint& ckpt = *model.checkpoint;
    const bool chat = ckpt.chat_template.recognised();
    const std::vector<EvalExample> all =
        read_eval_jsonl(ctx.data.empty() ? find_eval_split("test", ctx.model) : std::filesystem::path(ctx.data));
    std::set<std::string> families;
    for (const auto& e : all) families.insert(e.family);
    const std::vector<EvalExample> examples =
        take_balanced(all, static_cast<long long>(families.size()) * ctx.limit_per_family);
    const int sweep_gen = ctx.sweep_gen ? *ctx.sweep_gen : *std::max_element(ctx.gen_lens.begin(), ctx.gen_lens.end());
    // The canvas of an example under a generation length of the command line.
    auto canvas_of = [](const EvalExample& ex, int gen) {
        if (gen != kFamilyCanvas) return gen;
        if (ex.gen_length <= 0)
            throw UsageError("--gen-lens family: the example at line " + std::to_string(ex.line) +
                             " gives no gen_length; name lengths instead (e.g. --gen-lens 64,128)");
        return ex.gen_length;
    };

    // results[gen][label]
    std::map<int, std::map<std::string, StrategyTotals>> results;
    std::map<int, std::vector<StrategyConfig>> configs_of;
    std::set<std::string> warned;
    std::map<std::string, std::string> failed;  // label -> why it could not run
    const auto t_start = std::chrono::steady_clock::now();
    for (int gen : ctx.gen_lens) {
        const auto configs = strategy_configs(gen == sweep_gen);
        configs_of[gen] = configs;
        for (std::size_t e = 0; e < examples.size(); ++e) {
            const EvalExample& ex = examples[e];
            const std::vector<int32_t> prompt_ids = build_prompt(ckpt, ex.prompt, chat);
            // Every configuration on the same example back to back: machine load drifts equally.
            for (const StrategyConfig& c : configs) {
                DecodeSettings s = preset_settings(c.preset, canvas_of(ex, gen));
                if (failed.count(c.label())) continue;
                std::unique_ptr<DecodeSession> made;
                try {
                    check_settings(s, ckpt.config(), static_cast<int>(prompt_ids.size()), &warned);
                    made = std::make_unique<DecodeSession>(*model.backend, *ckpt.tokenizer, ckpt.config(), prompt_ids, s,
                                                            model.run_labels(ex.prompt), model.guiders.get());
                } catch (const std::exception& err) {
                    // A preset that cannot run here (e.g. a guider model missing) is reported, not fatal.
                    failed[c.label()] = err.what();
                    continue;
                }
                DecodeSession& session = *made;
                StrategyTotals& t = results[gen][c.label()];
                session.run([&](const StepTrace& st) {
                    // The engine's own counts (a Saber step may commit and remask one position:
                    // one event, two counts).
                    for (const auto& [k, v] : st.counters)
                        if (k == "remasks" || k == "flipflops" || k == "replaces" || k == "effective_remasks" ||
                            k == "locks" || k == "unlocks")
                            t.events[k] += v;
                    const auto i = static_cast<std::size_t>(st.step);
                    StrategyTotals::Curve& curve = t.curves[s.gen_length];
                    if (curve.sum.size() <= i) {
                        curve.sum.resize(i + 1, 0.0);
                        curve.n.resize(i + 1, 0);
                    }
                    // A guider's forwards are the price of guided's fewer steps: they count.
                    curve.sum[i] += st.paper_flops_dense > 0 ? st.strategy_flops() / st.paper_flops_dense : 0.0;
                    curve.n[i] += 1;
                    return true;
                });
                const TraceSummary sum = session.summary();
                const bool right = answer_matches(extract_answer(sum.text), ex.answer);
                ++t.n;
                t.correct += right;
                t.by_family[ex.family].first += right;
                t.by_family[ex.family].second += 1;
                t.steps += sum.steps;
                t.tokens += sum.tokens_unmasked;
                t.rows += sum.rows_computed;
                t.rows_total += sum.rows_total;
                t.wall += sum.wall_s;
                t.flops += sum.strategy_flops();
                t.guider_flops += sum.guider_flops;
                t.dense += sum.paper_flops_dense;
            }
            std::cerr << "bench: strategies " << (gen == kFamilyCanvas ? "family canvases" : "gen " + std::to_string(gen))
                      << ": example " << e + 1 << "/" << examples.size() << ", "
                      << format_fixed(std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count(), 0)
                      << " s" << std::endl;
        }
    }

    // Raw results for the plots.
    nlohmann::json j = {{"model", model.name}, {"examples", examples.size()}, {"sweep_gen", sweep_gen}, {"runs", nlohmann::json::array()}};
    std::ostringstream csv;
    csv << "gen_length,label,strategy,sweep,n,accuracy,avg_steps,flops_ratio,active_ratio,speedup,e2e_tps,remasks,"
           "effective_remasks,flipflops,replaces,locks\n";
    const std::string where = model.backend->name() == "cpu" ? "CPU" : "CUDA";
    MarkdownSection sec("strategies", "Decoding strategies: accuracy next to speed (" + where + ", embedded model)");
    sec.paragraph(
        "Every preset of the app's preset box (`dlmscope-cli settings --presets`), under its name, decodes the same "
        "examples of " +
        (ctx.data.empty() ? std::string("the embedded model's test split") : table_cell(ctx.data)) + " (" +
        std::to_string(examples.size()) +
        " examples, " + std::to_string(ctx.limit_per_family) + " per family, chat template, temperature 0), each "
        "configuration right after the others on the same example so that machine load drifts equally. *FLOPs ratio* "
        "= the preset's paper FLOPs (design.md §6, GEMMs only, LM head excluded) / the baseline's on the same examples, "
        "so step savings count too (for guided, its AR guider's forwards are added, LM head included: they are what "
        "its fewer steps cost); *r̄* = rows computed / rows of its own steps (the SureLock paper's active ratio); "
        "*speedup* = baseline wall time / preset wall time, measured in this run; *E2E TPS* = unmasked tokens / wall "
        "time. LLaDA low-confidence is the baseline. Presets decode on one block over the whole generation with "
        "S = N_gen steps (the SureLock paper's setting) unless they bring their papers' blocks: FreeCache and "
        "Fast-dLLM use blocks of 32, or the largest divisor of the canvas below 32 where 32 does not divide it "
        "(Fast-dLLM: threshold 0.9, dual or prefix cache, step count data-dependent). Every parameter is the "
        "preset's, as the app runs it. "
        "*Family canvases*: each example decodes on the canvas its family is evaluated on (`dlmscope-cli eval`), "
        "the setting the model's accuracy figures in docs/models.md are measured in.");
    machine_bullets(sec, ctx.threads, backend_label(model.backend->name()));
    sec.bullet("model: " + model.name + " (d_model " + std::to_string(ckpt.config().d_model) + ", " +
               std::to_string(ckpt.config().n_layers) + " layers, " +
               std::to_string(parameter_count(ckpt.config())) + " parameters); see docs/models.md for its accuracy "
               "under the reference sampler, the yardstick for the accuracy column");
    sec.bullet("raw data: " + ctx.data_out + ".json / .csv; plots: tools/scripts/plot_strategies.py");
    sec.paragraph("Command:");
    sec.code_block(ctx.command, "sh");
    for (int gen : ctx.gen_lens) {
        const StrategyTotals& base = results[gen][configs_of[gen].front().label()];
        std::vector<std::vector<std::string>> rows, sweep, by_family;
        for (const StrategyConfig& c : configs_of[gen]) {
            if (failed.count(c.label())) continue;
            const StrategyTotals& t = results[gen][c.label()];
            const double acc = t.n ? double(t.correct) / t.n : 0.0;
            const double ratio = base.flops > 0 ? t.flops / base.flops : 0.0;
            const double active = t.rows_total > 0 ? double(t.rows) / double(t.rows_total) : 0.0;
            const double speedup = t.wall > 0 ? base.wall / t.wall : 0.0;
            const double tps = t.wall > 0 ? t.tokens / t.wall : 0.0;
            auto ev = [&](const char* k) { auto it = t.events.find(k); return it == t.events.end() ? 0.0 : it->second; };
            const std::vector<std::string> row{
                c.label(), format_fixed(100 * acc, 1) + "%", format_fixed(t.n ? double(t.steps) / t.n : 0.0, 1),
                format_fixed(ratio, 3), format_fixed(active, 3), format_fixed(speedup, 2) + "x", format_fixed(tps, 1),
                format_fixed(ev("remasks"), 0) + " / " + format_fixed(ev("effective_remasks"), 0) + " / " +
                    format_fixed(ev("flipflops"), 0) + " / " + format_fixed(ev("replaces"), 0)};
            (c.sweep ? sweep : rows).push_back(row);
            if (!c.sweep) {
                std::vector<std::string> fam_row{c.label()};
                for (const std::string& f : families) {
                    auto it = t.by_family.find(f);
                    fam_row.push_back(it == t.by_family.end() ? "—"
                                                             : std::to_string(it->second.first) + " / " +
                                                                   std::to_string(it->second.second));
                }
                by_family.push_back(fam_row);
            }
            nlohmann::json curves = nlohmann::json::object();
            for (const auto& [canvas, curve] : t.curves) {
                nlohmann::json mean = nlohmann::json::array();
                for (std::size_t i = 0; i < curve.sum.size(); ++i) mean.push_back(curve.sum[i] / std::max(1, curve.n[i]));
                curves[std::to_string(canvas)] = mean;
            }
            j["runs"].push_back({{"gen_length", gen}, {"label", c.label()}, {"strategy", c.strategy()}, {"sweep", c.sweep},
                                 {"n", t.n}, {"accuracy", acc}, {"avg_steps", t.n ? double(t.steps) / t.n : 0.0},
                                 {"flops_ratio", ratio}, {"guider_flops_ratio", base.flops > 0 ? t.guider_flops / base.flops : 0.0},
                                 {"active_ratio", active}, {"speedup", speedup},
                                 {"e2e_tps", tps}, {"wall_s", t.wall}, {"events", t.events},
                                 {"step_flops_ratio_by_canvas", curves}});
            csv << gen << ",\"" << c.label() << "\"," << c.strategy() << ',' << c.sweep << ',' << t.n << ',' << acc << ','
                << (t.n ? double(t.steps) / t.n : 0.0) << ',' << ratio << ',' << active << ',' << speedup << ',' << tps
                << ',' << ev("remasks") << ',' << ev("effective_remasks") << ',' << ev("flipflops") << ','
                << ev("replaces") << ',' << ev("locks") << '\n';
        }
        const std::vector<std::string> header{"preset", "accuracy", "avg steps", "FLOPs ratio", "r̄", "speedup",
                                              "E2E TPS", "remasks / eff. / flip-flops / replaces"};
        const std::string caption = gen == kFamilyCanvas ? family_canvas_caption(examples)
                                                         : "Gen length " + std::to_string(gen);
        sec.paragraph("**" + caption + "**:");
        sec.table(header, rows);
        std::vector<std::string> fam_header{"preset"};
        for (const std::string& f : families) fam_header.push_back(f);
        sec.paragraph("**" + caption + ", answers right by family**:");
        sec.table(fam_header, by_family);
        if (!sweep.empty()) {
            sec.paragraph("**SureLock sweep, " + (gen == kFamilyCanvas ? std::string("family canvases") : "gen length " + std::to_string(gen)) +
                          "** (epsilon x gate m):");
            sec.table(header, sweep);
        }
    }
    for (const auto& [label, why] : failed) sec.bullet("not run: " + label + " — " + table_cell(why));
    sec.paragraph("Plots: ![per-step FLOPs ratio](img/bench-strategies-step-flops.png) "
                  "![accuracy vs FLOPs](img/bench-strategies-tradeoff.png)");
    const std::filesystem::path json_path = ctx.data_out + ".json", csv_path = ctx.data_out + ".csv";
    if (json_path.has_parent_path()) std::filesystem::create_directories(json_path.parent_path());
    std::ofstream(json_path) << j.dump(1) << '\n';
    std::ofstream(csv_path) << csv.str();
    std::cerr << "bench: wrote " << json_path.string() << " and " << csv_path.string() << std::endl;
    return sec;
}

MarkdownSection forward_cuda(const BenchContext& ctx) { return forward_cuda_section(ctx.forward_cuda); }

// The presets of the strategies section (same parameters), by label, in the order asked.
MarkdownSection decode(const BenchContext& ctx) {
    DecodeBenchOptions o;
    o.model = ctx.model;
    o.gen_lens = ctx.gen_lens_given ? ctx.gen_lens : std::vector<int>{256};
    for (int g : o.gen_lens)
        if (g == kFamilyCanvas)
            throw UsageError("--gen-lens family is for the strategies section; the decode section needs lengths");
    o.prompt_len = ctx.prompt_len;
    o.reps = ctx.reps_given ? ctx.reps : 1;
    o.threads = ctx.threads;
    o.backend = ctx.backend;
    o.json_out = ctx.decode_json;
    o.command = ctx.command;
    for (const std::string& want : ctx.decode_presets) o.presets.push_back(bench_preset(want, "--strategies"));
    return decode_section(o);
}

MarkdownSection step_cpu(const BenchContext& ctx) {
    StepCpuOptions o;
    o.model = ctx.forward_cuda.model;
    if (ctx.lengths_given) o.lengths = ctx.forward_cuda.steps.lengths;
    o.prompt_len = ctx.prompt_len;
    if (ctx.reps_given) o.steps = ctx.reps;
    o.threads = ctx.threads;
    o.json_out = ctx.decode_json;
    o.command = ctx.command;
    return step_cpu_section(o);
}

struct Benchmark {
    const char* id;
    MarkdownSection (*run)(const BenchContext&);
    bool in_default_run = true;  // false: runs only when named with --section
};

constexpr Benchmark kBenchmarks[] = {
    {"forward-cpu", forward_cpu},
    {"strategies", strategies},
    {"forward-cuda", forward_cuda, false},  // needs a GPU and a large checkpoint
    {"decode", decode, false},              // end-to-end decodes, meant for large models
    {"step-cpu", step_cpu, false},          // a large checkpoint's step on the CPU: minutes
};

// A length of --gen-lens / --sweep-gen: positive, or "family" (kFamilyCanvas).
int parse_gen_length(const std::string& w, const std::string& option) {
    if (w == "family") return kFamilyCanvas;
    try {
        std::size_t used = 0;
        const int g = std::stoi(w, &used);
        if (g > 0 && used == w.size()) return g;
    } catch (const std::exception&) {
    }
    throw UsageError(option + ": '" + w + "' is neither a positive length nor 'family' (e.g. " + option + " 64,128 or family)");
}

std::string quoted(const std::string& word) {
    if (!word.empty() && word.find_first_of(" \t'\"$\\`|&;<>()*?") == std::string::npos) return word;
    std::string q = "'";
    for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace

int bench_main(std::span<const std::string> args) {
    const CommandSpec& spec = bench_spec();
    const ParsedArgs a = parse_args(spec, args);
    if (a.help_requested()) {
        std::cout << format_help(spec);
        return kExitOk;
    }
    BenchContext ctx;
    ctx.reps = static_cast<int>(a.get_int("reps", 1, 1000).value_or(5));
    ctx.threads = static_cast<int>(a.get_int("threads", 0, 4096).value_or(0));
    ctx.command = "dlmscope-cli bench";
    for (const auto& w : args) {
        ctx.command += ' ';
        ctx.command += quoted(w);
    }
    const std::string out = a.get_or("out", "docs/benchmarks.md");
    ctx.model = a.get_or("model", ctx.model);
    ctx.limit_per_family = static_cast<int>(a.get_int("limit", 1, 1'000'000).value_or(ctx.limit_per_family));
    ctx.data = a.get_or("data", "");
    if (auto v = a.get("sweep-gen")) ctx.sweep_gen = parse_gen_length(*v, "--sweep-gen");
    ctx.data_out = a.get_or("data-out", ctx.data_out);
    ctx.backend = backend_from_args(a);
    ctx.forward_cuda = forward_cuda_options_from_args(a, ctx.command);
    ctx.reps_given = a.has("reps");
    ctx.gen_lens_given = a.has("gen-lens");
    ctx.lengths_given = a.has("lengths");
    ctx.prompt_len = ctx.forward_cuda.steps.prompt_len;
    ctx.decode_json = ctx.forward_cuda.json_out;
    if (auto v = a.get("strategies")) {
        ctx.decode_presets.clear();
        std::stringstream ss(*v);
        for (std::string w; std::getline(ss, w, ',');)
            if (!w.empty()) ctx.decode_presets.push_back(w);
        if (ctx.decode_presets.empty()) throw UsageError("--strategies is empty");
    }
    if (auto lens = a.get("gen-lens")) {
        ctx.gen_lens.clear();
        std::stringstream ss(*lens);
        for (std::string w; std::getline(ss, w, ',');) ctx.gen_lens.push_back(parse_gen_length(w, "--gen-lens"));
        if (ctx.gen_lens.empty()) throw UsageError("--gen-lens is empty");
    }

    std::vector<const Benchmark*> selected;
    for (const auto& id : a.all("section")) {
        const Benchmark* found = nullptr;
        for (const auto& b : kBenchmarks)
            if (id == b.id) found = &b;
        if (!found) {
            std::string known;
            for (const auto& b : kBenchmarks) {
                if (!known.empty()) known += ", ";
                known += b.id;
            }
            throw UsageError("unknown bench section '" + id + "' (known: " + known + ")");
        }
        selected.push_back(found);
    }
    if (selected.empty())
        for (const auto& b : kBenchmarks)
            if (b.in_default_run) selected.push_back(&b);

    for (const Benchmark* b : selected) {
        const MarkdownSection section = b->run(ctx);
        if (out == "-") {
            std::cout << section.render() << '\n';
        } else {
            write_section(out, section);
            std::cout << section.render() << "\nwrote section '" << b->id << "' to " << out << '\n';
        }
    }
    return kExitOk;
}

}  // namespace dlm::cli
