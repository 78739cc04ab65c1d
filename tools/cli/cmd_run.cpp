// dlmscope-cli run: one prompt through a decoding strategy, headless. Prints the text and the
// speed / FLOPs summary (or one JSON object), optionally records the NDJSON step trace.
#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "decode/generation_defaults.h"
#include "model/embedded_models.h"
#include "args.h"
#include "decode/settings_schema.h"
#include "commands.h"
#include "decode/decode_session.h"
#include "decode_options.h"
#include "live_view.h"
#include "output.h"
#include "text/chat_template.h"
#include "trace/trace_io.h"
#include "util/input_limits.h"
#include "util/text_file.h"

namespace dlm::cli {

namespace {

const CommandSpec& run_spec() {
    static const CommandSpec spec = [] {
        CommandSpec s{
            "run",
            "[--model DIR] (--prompt TEXT | --prompt-file F) [options]",
            "Generate text from a prompt with a masked diffusion model and report speed and FLOPs.",
            "Chat formatting is on by default when the checkpoint publishes a chat template this engine\n"
            "recognises (dlmscope-cli inspect names it); any other template is not guessed: the prompt\n"
            "goes in raw, with a warning.\n" +
                decode_options_description(),
            {
                {"model", "DIR", "checkpoint folder (default: the embedded " + std::string(kDefaultEmbeddedModel) + ")"},
                {"prompt", "TEXT", "the user's prompt"},
                {"prompt-file", "F", "read the prompt from a file"},
                {"chat", "", "apply the chat template (the default when it is recognised)"},
                {"no-chat", "", "use the prompt as plain text"},
            },
            0,
            0,
            "",
        };
        for (auto& o : decode_option_specs()) s.options.push_back(std::move(o));
        s.options.push_back({"trace", "FILE", "write the NDJSON step trace to FILE"});
        s.options.push_back({"json", "", "print one JSON object instead of text and summary"});
        s.options.push_back({"live", "", "draw the canvas after every step on stderr"});
        return s;
    }();
    return spec;
}

std::string read_prompt(const ParsedArgs& a) {
    const bool has_text = a.has("prompt");
    const bool has_file = a.has("prompt-file");
    if (has_text && has_file) throw UsageError("give either --prompt or --prompt-file, not both");
    if (!has_text && !has_file) throw UsageError("missing --prompt (or --prompt-file)");
    if (has_text) return *a.get("prompt");
    const std::string path = *a.get("prompt-file");
    std::string prompt = dlm::read_text_file(path, dlm::limits::kPromptFileBytes, "prompt file");
    // Editors end files with a newline the user did not mean as part of the prompt.
    while (!prompt.empty() && (prompt.back() == '\n' || prompt.back() == '\r')) prompt.pop_back();
    return prompt;
}

// Ctrl-C stops the decode after the current step (the partial result and trace are kept);
// a second Ctrl-C kills the process as usual.
std::atomic<DecodeSession*> g_running_session{nullptr};

extern "C" void on_interrupt(int) {
    if (DecodeSession* s = g_running_session.load()) s->request_cancel();
    std::signal(SIGINT, SIG_DFL);
}

struct InterruptGuard {
    explicit InterruptGuard(DecodeSession& s) {
        g_running_session.store(&s);
        std::signal(SIGINT, on_interrupt);
    }
    ~InterruptGuard() {
        std::signal(SIGINT, SIG_DFL);
        g_running_session.store(nullptr);
    }
};

}  // namespace

int run_main(std::span<const std::string> args) {
    const CommandSpec& spec = run_spec();
    const ParsedArgs a = parse_args(spec, args);
    if (a.help_requested()) {
        std::cout << format_help(spec);
        return kExitOk;
    }
    // Everything that can be checked without the model is checked first: a typo should not
    // cost a multi-gigabyte load.
    const std::string model_dir = a.get_or("model", embedded_model_dir().string());
    const std::string prompt = read_prompt(a);
    if (a.has("chat") && a.has("no-chat")) throw UsageError("give either --chat or --no-chat, not both");
    settings_from_args(a);  // checked before the load; made again with the model's defaults below
    const int threads = static_cast<int>(a.get_int("threads", 0, 4096).value_or(0));
    const BackendKind backend = backend_from_args(a);
    const bool json = a.flag("json");

    // Opened before the model loads: an unwritable trace path fails in milliseconds.
    std::optional<TraceWriter> trace;
    if (auto path = a.get("trace")) trace.emplace(*path);
    // ...and removed again if the run fails before there is anything to record.
    struct RemoveUnusedTrace {
        std::optional<std::string> path;
        bool used = false;
        ~RemoveUnusedTrace() {
            std::error_code ec;
            if (path && !used) std::filesystem::remove(*path, ec);
        }
    } unused_trace{a.get("trace")};

    LoadedModel model = load_model(model_dir, {.backend = backend, .cpu_threads = threads});
    const Checkpoint& ckpt = *model.checkpoint;
    const DecodeSettings settings = settings_from_args(a, model.generation);
    // A template the engine does not render exactly is never guessed: the prompt goes in raw, said once.
    const bool chat = ckpt.chat_template.recognised() && !a.flag("no-chat");
    if (!ckpt.chat_template.recognised() && !a.flag("no-chat") && (a.flag("chat") || ckpt.chat_template.published))
        print_warning(ckpt.chat_template.note);
    const std::vector<int32_t> prompt_ids = build_prompt(ckpt, prompt, chat);
    std::set<std::string> warned;
    check_settings(settings, ckpt.config(), static_cast<int>(prompt_ids.size()), &warned);
    print_backend_note(model);

    DecodeSession session(*model.backend, *ckpt.tokenizer, ckpt.config(), prompt_ids, settings,
                          model.run_labels(prompt), model.guiders.get());
    print_session_warnings(session, warned);

    if (trace) trace->write_header(session.header());
    unused_trace.used = true;
    std::optional<LiveView> live;
    if (a.flag("live")) live.emplace(std::cerr);

    double tps_sum = 0.0;
    int tps_steps = 0;
    bool finished = false;
    {
        InterruptGuard guard(session);
        finished = session.run([&](const StepTrace& st) {
            if (trace) trace->write_step(st);
            if (live) live->update(st, session.planned_steps(), session.masks_left());
            if (st.wall_ms > 0) {
                tps_sum += st.newly_unmasked / (st.wall_ms / 1000.0);
                ++tps_steps;
            }
            return true;
        });
    }
    if (live) live->finish();
    const TraceSummary sum = session.summary();
    if (trace) {
        trace->write_summary(sum);
        trace->flush();
    }
    if (!finished)
        print_warning("cancelled after step " + std::to_string(session.steps_done()) + "; the result is partial");
    else if (sum.masks_left > 0)
        print_warning(stopped_with_masks_note(sum, settings.gen_length));
    const double tps = tps_steps > 0 ? tps_sum / tps_steps : 0.0;

    if (json) {
        nlohmann::json warnings = nlohmann::json::array();
        for (const auto& w : session.warnings()) warnings.push_back(w.message);
        nlohmann::json j = {
            {"text", sum.text},
            {"steps", sum.steps},
            {"finished", finished},
            {"wall_s", sum.wall_s},
            {"tps", tps},
            {"e2e_tps", sum.e2e_tps()},
            {"tokens_unmasked", sum.tokens_unmasked},
            {"masks_left", sum.masks_left},
            {"paper_flops", sum.paper_flops},
            {"paper_flops_dense", sum.paper_flops_dense},
            {"flops_ratio", sum.flops_ratio()},
            {"flops_ratio_to_baseline", sum.flops_ratio_to_baseline(settings.gen_length)},
            {"lm_head_flops", sum.lm_head_flops},
            {"guider_flops", sum.guider_flops},
            {"rows_computed", sum.rows_computed},
            {"rows_total", sum.rows_total},
            {"counters", sum.counters},
            {"model", model.name},
            {"family", std::string(family_name(ckpt.config().family))},
            {"backend", model.backend->name()},
            {"strategy", settings.strategy},
            {"settings", session.settings().to_map()},
            {"chat", chat},
            {"chat_template", ckpt.chat_template.describe()},
            {"prompt", prompt},
            {"prompt_tokens", prompt_ids.size()},
            {"warnings", warnings},
        };
        // The generated region as ids (masks included if the run stopped early): what backend
        // parity checks compare, since text can hide a different tokenisation of the same string.
        const std::vector<int32_t> canvas = session.canvas();
        j["generated_ids"] = std::vector<int32_t>(canvas.begin() + session.prompt_length(), canvas.end());
        if (auto path = a.get("trace")) j["trace"] = *path;
        std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
        std::cout << sum.text << "\n\n"
                  << "model        " << model.name << " (" << family_name(ckpt.config().family) << ", "
                  << model.backend->name() << "), "
                  << run_label_with_kind(session.header()) << ", prompt "
                  << prompt_ids.size() << " tokens" << (chat ? " (chat)" : "") << '\n'
                  << "steps        " << sum.steps << (finished ? "" : " (cancelled)") << ", " << sum.tokens_unmasked
                  << " tokens unmasked\n"
                  << "wall time    " << format_fixed(sum.wall_s, 3) << " s\n"
                  << "TPS          " << format_fixed(tps, 2) << " tokens/s (mean over steps), E2E "
                  << format_fixed(sum.e2e_tps(), 2) << " tokens/s\n"
                  << cost_lines(sum, settings.gen_length, 13);
        for (const auto& [k, v] : sum.counters) std::cout << "counter      " << k << " = " << v << '\n';
        if (auto path = a.get("trace")) std::cout << "trace        " << *path << '\n';
    }
    return finished ? kExitOk : 130;  // 130: the shell's convention for "interrupted"
}

}  // namespace dlm::cli
