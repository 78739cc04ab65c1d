// dlmscope-cli eval: exact-match accuracy of a model + strategy on an evaluation split, with the
// cost (steps, wall time, FLOPs ratio) next to it — the numbers a strategy trade-off is judged by.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "decode/decode_session.h"
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
            "--model DIR --split test|heldout [--data FILE] [options]",
            "Exact-match accuracy on an evaluation split: the answer is the text after the last '####'.",
            "The split is read from <model>/../../eval/<split>.jsonl, ./resources/eval/ or the source\n"
            "tree; --data reads any jsonl with {\"family\", \"prompt\", \"answer\"} lines instead.\n"
            "Prompts go through the chat template when the tokenizer has one.\n" +
                decode_options_description(),
            {
                {"model", "DIR", "checkpoint folder"},
                {"split", "NAME", "test or heldout"},
                {"data", "FILE", "jsonl file to evaluate instead of the split's file"},
                {"limit", "N", "evaluate N examples, taken round-robin over the families"},
                {"predictions", "FILE", "write every example with its output and prediction (jsonl)"},
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

// Progress on stderr: an in-place line on a terminal, a line every ~5% otherwise.
class Progress {
public:
    explicit Progress(int total) : total_(total), terminal_(::isatty(STDERR_FILENO) == 1) {}
    void update(int done, int correct, double wall_s) {
        const bool last = done == total_;
        const int every = std::max(1, total_ / 20);
        if (!terminal_ && !last && done % every != 0) return;
        char line[160];
        std::snprintf(line, sizeof line, "eval %d/%d  accuracy %.3f  %.1f s", done, total_,
                      done > 0 ? double(correct) / done : 0.0, wall_s);
        std::cerr << (terminal_ ? "\r\033[K" : "") << line << (terminal_ && !last ? "" : "\n");
        std::cerr.flush();
    }

private:
    int total_;
    bool terminal_;
};

// An example's own canvas length ("gen_length" in the data) applies unless the command line
// fixed one; steps and block length then follow it as they follow --gen-len (one block, one
// token per step: the reference setting the accuracy goals are stated for).
DecodeSettings settings_for_example(const DecodeSettings& base, const EvalExample& ex, const ParsedArgs& a) {
    bool fixed_len = a.has("gen-len"), fixed_steps = a.has("steps"), fixed_block = a.has("block-len");
    for (const auto& kv : a.all("set")) {
        const std::string key = kv.substr(0, kv.find('='));
        fixed_len |= key == "gen_length";
        fixed_steps |= key == "steps";
        fixed_block |= key == "block_length";
    }
    DecodeSettings s = base;
    if (fixed_len || ex.gen_length <= 0) return s;
    s.gen_length = ex.gen_length;
    if (!fixed_steps) s.steps = ex.gen_length;
    if (!fixed_block) s.block_length = ex.gen_length;
    return s;
}

}  // namespace

int eval_main(std::span<const std::string> args) {
    const CommandSpec& spec = eval_spec();
    const ParsedArgs a = parse_args(spec, args);
    if (a.help_requested()) {
        std::cout << format_help(spec);
        return kExitOk;
    }
    const std::string model_dir = a.require("model");
    const std::optional<std::string> split = a.get("split");
    if (split && *split != "test" && *split != "heldout")
        throw UsageError("--split must be 'test' or 'heldout', got '" + *split + "'");
    if (!split && !a.has("data")) throw UsageError("missing --split (or --data FILE)");
    const long long limit = a.get_int("limit", 1, 1'000'000'000).value_or(0);
    const DecodeSettings settings = settings_from_args(a);
    const int threads = static_cast<int>(a.get_int("threads", 0, 4096).value_or(0));
    const BackendKind backend = backend_from_args(a);

    const std::filesystem::path data =
        a.has("data") ? std::filesystem::path(*a.get("data")) : find_eval_split(*split, model_dir);
    const std::vector<EvalExample> examples = take_balanced(read_eval_jsonl(data), limit);

    std::optional<std::ofstream> predictions;
    if (auto path = a.get("predictions")) {
        predictions.emplace(*path);
        if (!*predictions) throw Error("cannot write predictions file '" + *path + "'");
    }

    LoadedModel model = load_model(model_dir, threads, backend);
    const Checkpoint& ckpt = *model.checkpoint;
    const bool chat = detect_chat_template(ckpt.config(), *ckpt.tokenizer) != ChatTemplateKind::None;

    std::map<std::string, FamilyScore> families;
    std::set<std::string> warned;
    int correct = 0;
    long long total_steps = 0;
    double total_wall = 0.0, total_flops = 0.0, total_dense = 0.0;
    long long total_tokens = 0;
    std::map<std::string, double> total_counters;  // strategy counters (remasks, flipflops, ...) over the run
    Progress progress(static_cast<int>(examples.size()));
    for (std::size_t i = 0; i < examples.size(); ++i) {
        const EvalExample& ex = examples[i];
        const std::vector<int32_t> prompt_ids = build_prompt(ckpt, ex.prompt, chat);
        const DecodeSettings example_settings = settings_for_example(settings, ex, a);
        check_settings(example_settings, ckpt.config(), static_cast<int>(prompt_ids.size()), &warned);
        print_backend_note(model);  // once, when the first example is accepted
        DecodeSession session(*model.backend, *ckpt.tokenizer, ckpt.config(), prompt_ids, example_settings,
                              DecodeLabels{model.name, ex.prompt, ckpt.dir});
        session.run();
        const TraceSummary sum = session.summary();
        const std::string predicted = extract_answer(sum.text);
        const bool ok = answer_matches(predicted, ex.answer);

        FamilyScore& f = families[ex.family];
        ++f.n;
        f.correct += ok;
        correct += ok;
        total_steps += sum.steps;
        total_wall += sum.wall_s;
        total_flops += sum.paper_flops;
        total_dense += sum.paper_flops_dense;
        total_tokens += sum.tokens_unmasked;
        for (const auto& [key, value] : sum.counters) total_counters[key] += value;
        if (predictions) {
            nlohmann::json p = {{"line", ex.line},       {"family", ex.family},  {"prompt", ex.prompt},
                                {"answer", ex.answer},   {"output", sum.text},   {"predicted", predicted},
                                {"correct", ok},         {"steps", sum.steps},   {"wall_s", sum.wall_s},
                                {"flops_ratio", sum.flops_ratio()}};
            *predictions << p.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        }
        progress.update(static_cast<int>(i + 1), correct, total_wall);
    }

    const int n = static_cast<int>(examples.size());
    double macro = 0.0;
    for (const auto& [name, f] : families) macro += f.accuracy();
    macro /= static_cast<double>(families.size());
    const double micro = double(correct) / n;
    const double ratio = total_dense > 0 ? total_flops / total_dense : 0.0;

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
            {"e2e_tps", total_wall > 0 ? total_tokens / total_wall : 0.0},
            {"paper_flops", total_flops},
            {"paper_flops_dense", total_dense},
            {"flops_ratio", ratio},
            {"counters", total_counters},
            {"model", model.name},
            {"backend", model.backend->name()},
            {"strategy", settings.strategy},
            {"chat", chat},
            {"settings", settings.to_map()},
        };
        std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return kExitOk;
    }

    std::cout << "model " << model.name << " (" << model.backend->name() << "), strategy " << settings.strategy << ", "
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
              << "wall time       " << format_fixed(total_wall, 2) << " s (" << format_fixed(total_wall / n, 3)
              << " s per example)\n"
              << "FLOPs ratio     " << format_fixed(ratio, 4) << " of the dense baseline\n";
    return kExitOk;
}

}  // namespace dlm::cli
