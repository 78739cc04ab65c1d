// dlmscope-cli eval: exact-match accuracy of a model + strategy on an evaluation split, with the
// cost (steps, wall time, FLOPs ratio) next to it — the numbers a strategy trade-off is judged by.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "decode/generation_defaults.h"
#include "model/embedded_models.h"
#include "args.h"
#include "decode/settings_schema.h"
#include "compute/cpu/cpu_backend.h"
#include "commands.h"
#include "decode/ar_generate.h"
#include "decode/decode_session.h"
#include "trace/position_timeline.h"
#include "decode_options.h"
#include "eval_data.h"
#include "output.h"
#include "text/chat_template.h"

namespace dlm::cli {

namespace {

const CommandSpec& eval_spec() {
    static const CommandSpec spec = [] {
        CommandSpec s{
            "eval",
            "[--model DIR] --split test|heldout|paraphrase|examples [--data FILE] [options]",
            "Exact-match accuracy on an evaluation split: the answer is the text after the last '####'.",
            "The split is read from <model>/../../eval/<split>.jsonl, ./resources/eval/ or the source\n"
            "tree; --data reads any jsonl with {\"family\", \"prompt\", \"answer\"} lines instead.\n"
            "Prompts go through the chat template when the tokenizer has one. A causal model (qwen2\n"
            "family, e.g. the guider tiny-ar) is scored by greedy decoding up to the gen length.\n" +
                decode_options_description(),
            {
                {"model", "DIR", "checkpoint folder (default: the embedded " + std::string(kDefaultEmbeddedModel) + ")"},
                {"split", "NAME", "test, heldout (templates kept out of training), paraphrase (hand-written wordings) or "
                                  "examples (the app's worked examples)"},
                {"data", "FILE", "jsonl file to evaluate instead of the split's file"},
                {"limit", "N", "evaluate N examples, taken round-robin over the families"},
                {"predictions", "FILE", "write every example with its output and prediction (jsonl)"},
                {"jobs", "N", "examples decoded at once, each on its own one-thread CPU backend (default: all "
                              "cores, or --threads, for a CPU model under 200 M parameters; else 1)"},
                {"json", "", "print one JSON object"},
            },
            0,
            0,
            "",
        };
        for (auto& o : decode_option_specs()) s.options.push_back(std::move(o));
        return s;
    }();
    return spec;
}

struct FamilyScore {
    int n = 0;
    int correct = 0;
    double accuracy() const { return n > 0 ? double(correct) / n : 0.0; }
};

// Progress on stderr: an in-place line on a terminal, a line every ~5% otherwise. The time is
// wall time since the start (with several jobs the examples' own times add up to more).
class Progress {
public:
    explicit Progress(int total)
        : total_(total), terminal_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}
    void update(int done, int correct) {
        const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        const bool last = done == total_;
        const int every = std::max(1, total_ / 20);
        if (!terminal_ && !last && done % every != 0) return;
        char line[160];
        std::snprintf(line, sizeof line, "eval %d/%d  accuracy %.3f  %.1f s elapsed", done, total_,
                      done > 0 ? double(correct) / done : 0.0, wall_s);
        std::cerr << (terminal_ ? "\r\033[K" : "") << line << (terminal_ && !last ? "" : "\n");
        std::cerr.flush();
    }

private:
    int total_;
    bool terminal_;
    std::chrono::steady_clock::time_point start_;
};

// An example's own canvas length ("gen_length" in the data) applies unless the command line
// fixed one; steps and block length then follow it as they follow --gen-len (one block, one
// token per step: the reference setting the accuracy goals are stated for). A preset's blocks
// (FreeCache's 32) are fitted to each canvas, as the app fits them.
DecodeSettings settings_for_example(const DecodeSettings& base, const EvalExample& ex, const ParsedArgs& a) {
    DecodeSettings s = base;
    if (setting_given(a, "gen_length") || ex.gen_length <= 0) return s;
    s.gen_length = ex.gen_length;
    if (!setting_given(a, "steps")) s.steps = ex.gen_length;
    if (setting_given(a, "block_length")) return s;
    s.block_length = ex.gen_length;
    if (const StrategyPreset* preset = preset_from_args(a))
        if (const auto block = preset_block_length(*preset, ex.gen_length)) s.block_length = *block;
    return s;
}

// When an example's tokens were revealed, as a fraction of its run (0 = first step): the answer's
// digits (after the last "####") against the other response tokens. A model that reasons settles
// the worked formula early and the result late; this measures it.
struct RevealTimes {
    double answer_digits = -1, other_tokens = -1;  // means; -1 = none in this example
};

class RevealTracker {
public:
    explicit RevealTracker(const Tokenizer& tok) : tok_(tok) {}
    void on_step(const StepTrace& st) {
        timeline_.append(st);
        if (token_.size() < st.positions.size()) {
            token_.resize(st.positions.size(), -1);
            text_.resize(st.positions.size());
        }
        for (const PositionTrace& p : st.positions) {
            const auto i = static_cast<std::size_t>(p.pos);
            token_[i] = p.token;
            text_[i] = p.text;
        }
    }
    RevealTimes times() const {
        RevealTimes r;
        double a = 0, o = 0;
        int na = 0, no = 0;
        std::string so_far;
        bool after_marker = false;
        for (std::size_t i = 0; i < token_.size(); ++i) {
            if (token_[i] < 0 || tok_.is_special(token_[i])) {
                if (after_marker) break;  // the answer ends at EOT / EOS
                continue;
            }
            so_far += text_[i];
            const bool digit = std::any_of(text_[i].begin(), text_[i].end(), [](char c) { return c >= '0' && c <= '9'; });
            const int steps = timeline_.steps(), revealed = timeline_.reveal_step(static_cast<int>(i));
            const double f = steps > 0 && revealed >= 0 ? double(revealed) / steps : 0.0;
            if (after_marker && digit) a += f, ++na;
            else if (!after_marker) o += f, ++no;
            after_marker = after_marker || so_far.find("####") != std::string::npos;
        }
        if (na > 0) r.answer_digits = a / na;
        if (no > 0) r.other_tokens = o / no;
        return r;
    }

private:
    const Tokenizer& tok_;
    PositionTimeline timeline_;
    std::vector<int32_t> token_;
    std::vector<std::string> text_;
};

}  // namespace

int eval_main(std::span<const std::string> args) {
    const CommandSpec& spec = eval_spec();
    const ParsedArgs a = parse_args(spec, args);
    if (a.help_requested()) {
        std::cout << format_help(spec);
        return kExitOk;
    }
    const std::string model_dir = a.get_or("model", embedded_model_dir().string());
    const std::optional<std::string> split = a.get("split");
    if (split && *split != "test" && *split != "heldout" && *split != "paraphrase" && *split != "examples")
        throw UsageError("--split must be test, heldout, paraphrase or examples, got '" + *split + "'");
    if (!split && !a.has("data")) throw UsageError("missing --split (or --data FILE)");
    const long long limit = a.get_int("limit", 1, 1'000'000'000).value_or(0);
    settings_from_args(a);  // checked before the load; made again with the model's defaults below
    const int threads = static_cast<int>(a.get_int("threads", 0, 4096).value_or(0));
    const BackendKind backend = backend_from_args(a);
    const std::optional<long long> jobs_asked = a.get_int("jobs", 1, 1024);

    const std::filesystem::path data =
        a.has("data") ? std::filesystem::path(*a.get("data")) : find_eval_split(*split, model_dir);
    const std::vector<EvalExample> examples = take_balanced(read_eval_jsonl(data), limit);

    std::optional<std::ofstream> predictions;
    if (auto path = a.get("predictions")) {
        predictions.emplace(*path);
        if (!*predictions) throw Error("cannot write predictions file '" + *path + "'");
    }

    LoadedModel model = load_model(model_dir, {.backend = backend, .cpu_threads = threads});
    const Checkpoint& ckpt = *model.checkpoint;
    const DecodeSettings settings = settings_from_args(a, model.generation);
    const bool chat = ckpt.chat_template.recognised();

    // A causal model (the Guided Diffusion guider) is scored by greedy decoding through the same
    // backend: the yardstick it must beat to judge the diffusion model's drafts.
    const bool causal = !ckpt.config().is_diffusion();
    const std::string method = causal ? std::string("greedy (autoregressive)") : settings.strategy;
    std::vector<int32_t> stop_ids;
    for (const int id : {ckpt.config().eos_token_id, ckpt.config().eot_token_id})
        if (id >= 0) stop_ids.push_back(id);

    // Every example is checked before any decodes: a bad setting fails in milliseconds.
    std::set<std::string> warned;
    std::vector<std::vector<int32_t>> prompts;
    std::vector<DecodeSettings> example_settings;
    for (const EvalExample& ex : examples) {
        prompts.push_back(build_prompt(ckpt, ex.prompt, chat));
        example_settings.push_back(settings_for_example(settings, ex, a));
        if (causal) {
            if (example_settings.back().gen_length <= 0)
                throw UsageError("invalid settings: gen_length must be positive");
        } else {
            check_settings(example_settings.back(), ckpt.config(), static_cast<int>(prompts.back().size()), &warned);
        }
    }
    print_backend_note(model);

    // A small model keeps one core busy per example far better than it spreads one example over
    // all cores, so examples run side by side, each on its own one-thread CPU backend. The
    // results are identical to one-at-a-time decoding (each example's arithmetic is unchanged).
    const bool on_cpu = model.backend->name() == "cpu";
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    int jobs = static_cast<int>(jobs_asked.value_or(
        on_cpu && parameter_count(ckpt.config()) < 200'000'000LL ? (threads > 0 ? threads : cores) : 1));
    jobs = std::max(1, std::min<int>(jobs, static_cast<int>(examples.size())));
    if (jobs > 1 && !on_cpu)
        throw UsageError("--jobs > 1 runs one CPU backend per job; with --backend " + model.backend->name() +
                         " use --jobs 1");

    std::vector<TraceSummary> sums(examples.size());
    std::vector<RevealTimes> reveals(examples.size());
    std::mutex progress_mutex;
    int done = 0, done_correct = 0;
    Progress progress(static_cast<int>(examples.size()));
    std::atomic<std::size_t> next{0};
    std::vector<std::string> errors(static_cast<std::size_t>(jobs));
    auto worker = [&](int job) {
        try {
            std::unique_ptr<Backend> own;
            Backend* b = model.backend.get();
            if (jobs > 1) {
                CpuBackendOptions o;
                o.threads = 1;
                own = make_cpu_backend(ckpt.weights, o);
                b = own.get();
            }
            for (std::size_t i = next++; i < examples.size(); i = next++) {
                if (causal) {
                    const ArGeneration g = ar_generate_greedy(*b, prompts[i], example_settings[i].gen_length, stop_ids);
                    TraceSummary& sum = sums[i];
                    sum.text = ckpt.tokenizer->decode(g.ids, /*skip_special=*/true);
                    sum.steps = g.forwards;
                    sum.wall_s = g.wall_s;
                    sum.paper_flops = sum.paper_flops_dense = g.flops;
                    sum.tokens_unmasked = static_cast<int>(g.ids.size());
                    const bool ok = answer_matches(extract_answer(sum.text), examples[i].answer);
                    std::lock_guard lock(progress_mutex);
                    ++done;
                    done_correct += ok;
                    progress.update(done, done_correct);
                    continue;
                }
                DecodeSession session(*b, *ckpt.tokenizer, ckpt.config(), prompts[i], example_settings[i],
                                      model.run_labels(examples[i].prompt), model.guiders.get());
                RevealTracker reveal(*ckpt.tokenizer);
                session.run([&](const StepTrace& st) {
                    reveal.on_step(st);
                    return true;
                });
                sums[i] = session.summary();
                reveals[i] = reveal.times();
                const bool ok = answer_matches(extract_answer(sums[i].text), examples[i].answer);
                std::lock_guard lock(progress_mutex);
                ++done;
                done_correct += ok;
                progress.update(done, done_correct);
            }
        } catch (const std::exception& e) {
            errors[static_cast<std::size_t>(job)] = e.what();
            next = examples.size();  // the others stop after their current example
        }
    };
    const auto t_start = std::chrono::steady_clock::now();
    if (jobs == 1) {
        worker(0);
    } else {
        std::vector<std::thread> pool;
        for (int j = 0; j < jobs; ++j) pool.emplace_back(worker, j);
        for (auto& t : pool) t.join();
    }
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    for (const auto& e : errors)
        if (!e.empty()) throw Error(e);

    std::map<std::string, FamilyScore> families;
    int correct = 0;
    long long total_steps = 0;
    // total_dense: dense forwards over each run's own steps (what row skipping and caches save);
    // total_baseline: the baseline sampler's cost (baseline_sampler_flops), the yardstick of
    // docs/benchmarks.md's FLOPs ratio.
    double total_wall = 0.0, total_flops = 0.0, total_guider = 0.0, total_dense = 0.0, total_baseline = 0.0;
    long long total_tokens = 0;
    std::map<std::string, double> total_counters;  // strategy counters (remasks, flipflops, ...) over the run
    int stopped_with_masks = 0;                    // runs that ended at their step budget with masks left
    for (std::size_t i = 0; i < examples.size(); ++i) {
        const EvalExample& ex = examples[i];
        const TraceSummary& sum = sums[i];
        const std::string predicted = extract_answer(sum.text);
        const bool ok = answer_matches(predicted, ex.answer);

        FamilyScore& f = families[ex.family];
        ++f.n;
        f.correct += ok;
        correct += ok;
        total_steps += sum.steps;
        total_wall += sum.wall_s;
        total_flops += sum.paper_flops;
        total_guider += sum.guider_flops;
        total_dense += sum.paper_flops_dense;
        if (sum.steps > 0)
            total_baseline += baseline_sampler_flops(sum.paper_flops_dense / sum.steps, example_settings[i].gen_length);
        total_tokens += sum.tokens_unmasked;
        for (const auto& [key, value] : sum.counters) total_counters[key] += value;
        stopped_with_masks += sum.masks_left > 0;
        if (predictions) {
            nlohmann::json p = {{"line", ex.line},       {"family", ex.family},  {"prompt", ex.prompt},
                                {"answer", ex.answer},   {"output", sum.text},   {"predicted", predicted},
                                {"correct", ok},         {"steps", sum.steps},   {"wall_s", sum.wall_s},
                                {"masks_left", sum.masks_left},
                                {"flops_ratio", sum.flops_ratio()},
                                {"gen_length", example_settings[i].gen_length},
                                {"block_length", example_settings[i].block_length}};
            *predictions << p.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        }
    }

    if (predictions) {
        // Lost output is a failure, not a success with nothing written (a full disk, /dev/full).
        predictions->flush();
        if (!*predictions) throw Error("writing the predictions file '" + *a.get("predictions") + "' failed (disk full?)");
    }

    // Mean over the examples that have both kinds of tokens.
    double reveal_answer = 0, reveal_other = 0;
    int reveal_n = 0;
    for (const RevealTimes& r : reveals)
        if (r.answer_digits >= 0 && r.other_tokens >= 0) {
            reveal_answer += r.answer_digits;
            reveal_other += r.other_tokens;
            ++reveal_n;
        }
    if (reveal_n > 0) reveal_answer /= reveal_n, reveal_other /= reveal_n;

    const int n = static_cast<int>(examples.size());
    double macro = 0.0;
    for (const auto& [name, f] : families) macro += f.accuracy();
    macro /= static_cast<double>(families.size());
    const double micro = double(correct) / n;
    // A guider's forwards are what fewer steps cost, so both ratios count them.
    const double spent = total_flops + total_guider;
    const double ratio = total_dense > 0 ? spent / total_dense : 0.0;
    const double ratio_to_baseline = total_baseline > 0 ? spent / total_baseline : 0.0;

    if (a.flag("json")) {
        nlohmann::json fams = nlohmann::json::object();
        for (const auto& [name, f] : families)
            fams[name] = {{"n", f.n}, {"correct", f.correct}, {"accuracy", f.accuracy()}};
        nlohmann::json j = {
            {"split", split.value_or("custom")},
            {"data", data.string()},
            {"n", n},
            {"correct", correct},
            {"accuracy", micro},
            {"macro_accuracy", macro},
            {"families", fams},
            {"avg_steps", double(total_steps) / n},
            {"avg_wall_s", total_wall / n},
            {"total_wall_s", total_wall},
            {"elapsed_s", elapsed_s},
            {"jobs", jobs},
            {"e2e_tps", total_wall > 0 ? total_tokens / total_wall : 0.0},
            {"paper_flops", total_flops},
            {"guider_flops", total_guider},
            {"paper_flops_dense", total_dense},
            {"flops_ratio", ratio},
            // A causal model has no diffusion baseline to compare with.
            {"flops_ratio_to_baseline", causal ? nlohmann::json() : nlohmann::json(ratio_to_baseline)},
            {"counters", total_counters},
            {"stopped_with_masks", stopped_with_masks},
            {"reveal", {{"answer_digits", reveal_answer}, {"other_tokens", reveal_other}, {"examples", reveal_n}}},
            {"model", model.name},
            {"backend", model.backend->name()},
            {"strategy", method},
            {"chat", chat},
            {"chat_template", ckpt.chat_template.describe()},
            {"settings", settings.to_map()},
        };
        std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return kExitOk;
    }

    std::cout << "model " << model.name << " (" << model.backend->name() << "), "
              << (causal ? method
                         : run_label_with_kind(settings.strategy, settings.to_map(), family_name(ckpt.config().family),
                                               model_setting_changes(model.generation)))
              << ", "
              << data.string() << " (" << n << " examples)\n\n";
    std::size_t width = 6;
    for (const auto& [name, f] : families) width = std::max(width, name.size());
    auto row = [&](const std::string& name, const std::string& count, const std::string& acc) {
        std::cout << "  " << name << std::string(width - name.size() + 2, ' ') << count
                  << std::string(count.size() < 12 ? 12 - count.size() : 1, ' ') << acc << '\n';
    };
    row("family", "correct", "accuracy");
    for (const auto& [name, f] : families)
        row(name, std::to_string(f.correct) + "/" + std::to_string(f.n), format_fixed(f.accuracy(), 3));
    std::cout << '\n'
              << "micro accuracy  " << format_fixed(micro, 3) << " (" << correct << "/" << n << ")\n"
              << "macro accuracy  " << format_fixed(macro, 3) << " (mean over " << families.size() << " families)\n"
              << "avg steps       " << format_fixed(double(total_steps) / n, 1) << '\n'
              << "wall time       " << format_fixed(total_wall, 2) << " s of decoding (" << format_fixed(total_wall / n, 3)
              << " s per example), " << format_fixed(elapsed_s, 2) << " s elapsed with " << jobs << " job(s)\n"
              << "FLOPs ratio     " << format_fixed(ratio, 4) << " of dense forwards over the same steps\n";
    if (!causal)
        std::cout << "                " << format_fixed(ratio_to_baseline, 4)
                  << " of the baseline sampler (one dense forward per generated position)\n";
    if (stopped_with_masks > 0)
        std::cout << "step budget     " << stopped_with_masks << " of " << n
                  << " runs stopped at it with positions still masked (left out of their text; "
                     "masks_left in --predictions)\n";
    if (reveal_n > 0)
        std::cout << "reveal step     answer digits at " << format_fixed(reveal_answer, 2)
                  << " of the run, other response tokens at " << format_fixed(reveal_other, 2) << " (mean over "
                  << reveal_n << " examples with a #### answer)\n";
    return kExitOk;
}

}  // namespace dlm::cli
