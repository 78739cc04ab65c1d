#include "trace/step_trace.h"

#include <array>
#include <utility>

#include "util/error.h"

namespace dlm {

namespace {

constexpr std::array<std::pair<PosState, std::string_view>, 6> kStates{{{PosState::Prompt, "prompt"},
                                                                         {PosState::Masked, "masked"},
                                                                         {PosState::Active, "active"},
                                                                         {PosState::Locked, "locked"},
                                                                         {PosState::Frozen, "frozen"},
                                                                         {PosState::Seed, "seed"}}};
constexpr std::array<std::pair<PosEvent, std::string_view>, 8> kEvents{{{PosEvent::None, "none"},
                                                                         {PosEvent::Unmask, "unmask"},
                                                                         {PosEvent::Remask, "remask"},
                                                                         {PosEvent::Replace, "replace"},
                                                                         {PosEvent::FlipFlop, "flipflop"},
                                                                         {PosEvent::Lock, "lock"},
                                                                         {PosEvent::Unlock, "unlock"},
                                                                         {PosEvent::Keep, "keep"}}};

template <class Table>
std::string accepted(const Table& t) {
    std::string out;
    for (const auto& [v, n] : t) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

}  // namespace

std::string_view pos_state_name(PosState s) {
    for (const auto& [v, n] : kStates)
        if (v == s) return n;
    return "?";
}

std::string_view pos_event_name(PosEvent e) {
    for (const auto& [v, n] : kEvents)
        if (v == e) return n;
    return "?";
}

PosState parse_pos_state(std::string_view s) {
    for (const auto& [v, n] : kStates)
        if (n == s) return v;
    throw Error("unknown position state '" + std::string(s) + "' (known: " + accepted(kStates) + ")");
}

PosEvent parse_pos_event(std::string_view s) {
    for (const auto& [v, n] : kEvents)
        if (n == s) return v;
    throw Error("unknown position event '" + std::string(s) + "' (known: " + accepted(kEvents) + ")");
}

void TraceSummary::add_step(const StepTrace& t) {
    steps += 1;
    wall_s += t.wall_ms / 1000.0;
    paper_flops += t.paper_flops;
    paper_flops_dense += t.paper_flops_dense;
    lm_head_flops += t.lm_head_flops;
    guider_flops += t.guider_flops;
    rows_computed += t.rows_computed;
    rows_total += t.rows_total;
    tokens_unmasked += t.newly_unmasked;
    for (const auto& [k, v] : t.counters) counters[k] += v;
}

double TraceSummary::flops_ratio_to_baseline(int gen_length) const {
    if (steps <= 0 || paper_flops_dense <= 0) return 0.0;
    return strategy_flops() / baseline_sampler_flops(paper_flops_dense / steps, gen_length);
}

std::string stopped_with_masks_note(const TraceSummary& s, int gen_length) {
    return "the run stopped at its step budget (" + std::to_string(s.steps) + " steps) with " +
           std::to_string(s.masks_left) + " of " + std::to_string(gen_length) +
           " positions still masked; the text leaves them out";
}

}  // namespace dlm
