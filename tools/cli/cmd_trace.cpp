// dlmscope-cli trace show FILE | trace compare A B
// `compare` is how determinism and record -> replay are checked: two runs with the same model,
// prompt, settings and seed must produce the same canvas at every step.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "args.h"
#include "decode/settings_schema.h"
#include "commands.h"
#include "output.h"
#include "trace/trace_io.h"

namespace dlm::cli {

namespace {

const CommandSpec& show_spec() {
    static const CommandSpec spec{
        "trace show",
        "FILE [--steps] [--json]",
        "Summarise a trace file: header, steps, final text and totals.",
        "",
        {
            {"steps", "", "also list every step (rows computed, unmasked, wall time, FLOPs)"},
            {"json", "", "print the summary as one JSON object"},
        },
        1,
        1,
        "a trace file FILE",
    };
    return spec;
}

const CommandSpec& compare_spec() {
    static const CommandSpec spec{
        "trace compare",
        "A B",
        "Compare two traces step by step: exit 0 if every step's canvas is identical, 1 otherwise.",
        "The canvas of a step is every generated position's token, state and event. The first\n"
        "difference is printed; differing headers (prompt, settings, seed) are listed as notes.",
        {},
        2,
        2,
        "two trace files A B",
    };
    return spec;
}

void print_trace_usage(std::ostream& out) {
    out << "usage: dlmscope-cli trace show FILE [--steps] [--json]\n"
           "       dlmscope-cli trace compare A B\n\n"
           "'dlmscope-cli trace show --help' and 'dlmscope-cli trace compare --help' describe them.\n";
}

// The generated text a step's canvas spells, masks as '·' (for traces cut short).
std::string canvas_text(const StepTrace& s) {
    std::string out;
    for (const auto& p : s.positions) out += p.state == PosState::Masked ? std::string("·") : p.text;
    return out;
}

// Totals from the steps, for traces without a summary line (a run that was cut short).
TraceSummary totals_from_steps(const TraceFile& t) {
    TraceSummary s;
    for (const auto& st : t.steps) s.add_step(st);
    if (!t.steps.empty()) s.text = canvas_text(t.steps.back());
    return s;
}

int show(std::span<const std::string> args) {
    const CommandSpec& spec = show_spec();
    const ParsedArgs a = parse_args(spec, args);
    if (a.help_requested()) {
        std::cout << format_help(spec);
        return kExitOk;
    }
    const std::string path = a.positionals()[0];
    const TraceFile t = read_trace(path);
    const TraceHeader& h = t.header;
    const bool complete = t.summary.has_value();
    const TraceSummary sum = complete ? *t.summary : totals_from_steps(t);

    if (a.flag("json")) {
        nlohmann::json j = {
            {"file", path},
            {"complete", complete},
            {"model", h.model},
            {"family", h.family},
            {"strategy", h.strategy},
            {"backend", h.backend},
            {"prompt", h.prompt},
            {"prompt_tokens", h.prompt_ids.size()},
            {"gen_length", h.gen_length},
            {"block_length", h.block_length},
            {"steps_planned", h.steps},
            {"seed", h.seed},
            {"settings", h.settings},
            {"steps", static_cast<int>(t.steps.size())},
            {"text", sum.text},
            {"wall_s", sum.wall_s},
            {"e2e_tps", sum.e2e_tps()},
            {"paper_flops", sum.paper_flops},
            {"paper_flops_dense", sum.paper_flops_dense},
            {"flops_ratio", sum.flops_ratio()},
            {"flops_ratio_to_baseline", sum.flops_ratio_to_baseline(h.gen_length)},
            {"guider_flops", sum.guider_flops},
            {"lm_head_flops", sum.lm_head_flops},
            {"rows_computed", sum.rows_computed},
            {"rows_total", sum.rows_total},
            {"tokens_unmasked", sum.tokens_unmasked},
            {"counters", sum.counters},
        };
        std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return kExitOk;
    }

    std::cout << "trace          " << path << (complete ? "" : "  (no summary line: the run was cut short)") << '\n'
              << "format         " << h.format << " v" << h.version << ", engine " << h.engine_version << '\n'
              << "model          " << h.model << " (" << h.family << ": d " << h.d_model << ", layers " << h.n_layers
              << ", heads " << h.n_heads << "/" << h.n_kv_heads << ", d_ff " << h.d_ff << ", V " << h.vocab_size
              << ")\n"
              << "tokenizer      " << h.tokenizer << ", backend " << h.backend << '\n'
              << "prompt         " << h.prompt << "  [" << h.prompt_ids.size() << " tokens after the template]\n"
              << "decode         " << run_label_with_kind(h) << ", gen " << h.gen_length << ", block " << h.block_length
              << ", steps " << h.steps << ", seed " << h.seed << '\n';
    if (!h.settings.empty()) {
        std::cout << "settings      ";
        for (const auto& [k, v] : h.settings) std::cout << ' ' << k << '=' << v;
        std::cout << '\n';
    }
    if (a.flag("steps")) {
        std::cout << "\n  step  block  rows/total  unmasked    wall ms   paper FLOPs  ratio\n";
        for (const auto& s : t.steps) {
            char line[160];
            std::snprintf(line, sizeof line, "  %4d  %5d  %5d/%-5d  %8d  %9.2f  %12.4e  %5.3f\n", s.step, s.block,
                          s.rows_computed, s.rows_total, s.newly_unmasked, s.wall_ms, s.paper_flops,
                          s.paper_flops_dense > 0 ? s.paper_flops / s.paper_flops_dense : 0.0);
            std::cout << line;
        }
        std::cout << '\n';
    }
    std::cout << "steps          " << t.steps.size() << '\n'
              << "text           " << sum.text << '\n'
              << "wall time      " << format_fixed(sum.wall_s, 3) << " s, E2E " << format_fixed(sum.e2e_tps(), 2)
              << " tokens/s\n"
              << cost_lines(sum, h.gen_length, 15);
    for (const auto& [k, v] : sum.counters) std::cout << "counter        " << k << " = " << v << '\n';
    return kExitOk;
}

std::string describe_position(const PositionTrace& p) {
    std::ostringstream s;
    s << "token " << p.token << " '" << p.text << "' (" << pos_state_name(p.state);
    if (p.event != PosEvent::None) s << ", " << pos_event_name(p.event);
    s << ')';
    return s.str();
}

// The first difference between two steps' canvases, or "" when they are the same.
std::string first_canvas_difference(const StepTrace& a, const StepTrace& b) {
    if (a.positions.size() != b.positions.size())
        return "canvas lengths differ (" + std::to_string(a.positions.size()) + " vs " +
               std::to_string(b.positions.size()) + " generated positions)";
    int differing = 0;
    std::string first;
    for (std::size_t i = 0; i < a.positions.size(); ++i) {
        const PositionTrace& pa = a.positions[i];
        const PositionTrace& pb = b.positions[i];
        if (pa.token == pb.token && pa.state == pb.state && pa.event == pb.event) continue;
        if (differing++ == 0)
            first = "position " + std::to_string(pa.pos) + ": " + describe_position(pa) + " vs " + describe_position(pb);
    }
    if (differing > 1) first += " (" + std::to_string(differing - 1) + " more positions differ)";
    return first;
}

// Header fields that make two runs different experiments; listed so a difference is explained.
void note_header_differences(const TraceHeader& a, const TraceHeader& b) {
    auto note = [](const std::string& what, const std::string& va, const std::string& vb) {
        if (va != vb) std::cout << "note: " << what << " differs: '" << va << "' vs '" << vb << "'\n";
    };
    note("model", a.model, b.model);
    note("strategy", a.strategy, b.strategy);
    note("prompt", a.prompt, b.prompt);
    note("seed", std::to_string(a.seed), std::to_string(b.seed));
    note("backend", a.backend, b.backend);
    if (a.prompt_ids != b.prompt_ids) std::cout << "note: the templated prompt tokens differ\n";
    // As the app's compare box lists them (the strategy and seed are noted above).
    for (const SettingDifference& d : differing_settings(a.settings, b.settings))
        if (d.key != "strategy" && d.key != "seed") note("setting " + d.key, d.a, d.b);
}

int compare(std::span<const std::string> args) {
    const CommandSpec& spec = compare_spec();
    const ParsedArgs a = parse_args(spec, args);
    if (a.help_requested()) {
        std::cout << format_help(spec);
        return kExitOk;
    }
    const std::string path_a = a.positionals()[0];
    const std::string path_b = a.positionals()[1];
    const TraceFile ta = read_trace(path_a);
    const TraceFile tb = read_trace(path_b);
    note_header_differences(ta.header, tb.header);

    if (ta.header.prompt_ids != tb.header.prompt_ids) {
        std::cout << "traces differ before step 0: the prompt canvases are not the same\n";
        return kExitFailure;
    }
    const std::size_t common = std::min(ta.steps.size(), tb.steps.size());
    for (std::size_t i = 0; i < common; ++i) {
        const std::string diff = first_canvas_difference(ta.steps[i], tb.steps[i]);
        if (!diff.empty()) {
            std::cout << "traces differ at step " << ta.steps[i].step << ": " << diff << '\n';
            return kExitFailure;
        }
    }
    if (ta.steps.size() != tb.steps.size()) {
        std::cout << "traces differ in length: the first " << common << " steps are identical, then "
                  << path_a << " has " << ta.steps.size() << " steps and " << path_b << " has "
                  << tb.steps.size() << '\n';
        return kExitFailure;
    }
    std::cout << "traces are identical: " << common << " steps, same canvas at every step\n";
    return kExitOk;
}

}  // namespace

int trace_main(std::span<const std::string> args) {
    if (args.empty()) throw UsageError("'trace' expects 'show FILE' or 'compare A B' (see dlmscope-cli trace --help)");
    const std::string& action = args[0];
    if (action == "--help" || action == "-h") {
        print_trace_usage(std::cout);
        return kExitOk;
    }
    if (action == "show") return show(args.subspan(1));
    if (action == "compare") return compare(args.subspan(1));
    throw UsageError("unknown trace action '" + action + "' (expected 'show' or 'compare')");
}

}  // namespace dlm::cli
