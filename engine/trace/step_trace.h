#pragma once
// The step trace: the contract between engine, CLI, UI and tests (design.md §4, §5).
// Self-contained values: a StepTrace can be queued to another thread and outlive the session.
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dlm {

// A position's state after the step (design.md §4).
enum class PosState : uint8_t { Prompt, Masked, Active, Locked, Frozen, Seed };
// At most one event per position per step.
enum class PosEvent : uint8_t { None, Unmask, Remask, Replace, FlipFlop, Lock, Unlock, Keep };

std::string_view pos_state_name(PosState s);  // "prompt", "masked", ...
std::string_view pos_event_name(PosEvent e);  // "none", "unmask", ..., "flipflop", ...
PosState parse_pos_state(std::string_view s);  // throws dlm::Error on an unknown name
PosEvent parse_pos_event(std::string_view s);

struct Candidate {
    int32_t id = -1;
    float p = 0.f;
    std::string text;
};

// One generated position in one step. Statistics are NaN where the position's row was not
// computed this step (locked, frozen, or no head row).
struct PositionTrace {
    int32_t pos = 0;  // index into the generated region (0 = first generated position)
    PosState state = PosState::Masked;
    PosEvent event = PosEvent::None;
    int32_t token = -1;  // current token id (the mask id while masked)
    std::string text;    // display text of `token`
    float confidence = std::numeric_limits<float>::quiet_NaN();  // max p of the raw posterior
    float entropy = std::numeric_limits<float>::quiet_NaN();
    float kl = std::numeric_limits<float>::quiet_NaN();  // KL(p_t || p_{t-1}), raw posterior
    std::vector<Candidate> top;
};

struct StepTrace {
    int step = 0;   // 0-based
    int block = 0;  // semi-autoregressive block index
    std::string strategy;
    double wall_ms = 0.0;          // this step, forward + sampling + bookkeeping
    int rows_computed = 0;         // M_t, summed over the batch
    int rows_total = 0;            // N, summed over the batch
    double paper_flops = 0.0;      // design.md §6 at M_t
    double paper_flops_dense = 0.0;  // the same step with M = N
    double lm_head_flops = 0.0;
    double guider_flops = 0.0;
    int newly_unmasked = 0;
    // What the step cost its strategy: Guided Diffusion's fewer steps are paid for with its
    // guider's forwards, so eval, bench and the app's charts count them.
    double strategy_flops() const { return paper_flops + guider_flops; }
    std::map<std::string, double> counters;  // strategy counters, e.g. "remasks", "locks"
    std::vector<PositionTrace> positions;    // every generated position
};

// The trace file's first line: everything needed to replay or compare a run.
struct TraceHeader {
    std::string format = "dlmscope-trace";
    int version = 1;
    std::string engine_version;
    std::string model;   // checkpoint folder name
    std::string family;  // "llada", "dream", "qwen2"
    int d_model = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, d_ff = 0, vocab_size = 0;
    std::string tokenizer;  // "sentencepiece" / "hf-bpe"
    std::string backend;
    std::string prompt;                      // the user's text
    std::vector<int32_t> prompt_ids;         // the canvas prefix after the chat template
    std::vector<std::string> prompt_pieces;  // display text per prompt id
    int mask_id = -1;
    // Tokens that end the answer (end of text, end of turn): what a run shows as its answer stops at
    // the first one committed, as the summary's text does. Empty in traces written before it existed.
    std::vector<int32_t> end_ids;
    int gen_length = 0;
    int block_length = 0;
    int steps = 0;
    uint64_t seed = 0;
    std::string strategy;
    std::map<std::string, std::string> settings;  // every setting as it ran ("auto" resolved), key=value text
    // The settings as they were asked for ("auto" kept): what the app's panel restores, so that a
    // run again under another model resolves them for that model. Empty in older traces.
    std::map<std::string, std::string> requested;
    // `requested`, or in an older trace without it `settings`: what a run's name and the app's
    // panel are read from.
    const std::map<std::string, std::string>& settings_as_asked() const {
        return requested.empty() ? settings : requested;
    }
    // The settings the model starts from where they are not the schema's defaults (its
    // generation_config.json): a run's preset name is matched against them. Empty in older traces.
    std::map<std::string, std::string> model_defaults;
};

struct TraceSummary {
    std::string text;  // the decoded answer
    int steps = 0;
    double wall_s = 0.0;
    double paper_flops = 0.0;
    double paper_flops_dense = 0.0;
    double lm_head_flops = 0.0;
    double guider_flops = 0.0;
    long long rows_computed = 0;
    long long rows_total = 0;
    int tokens_unmasked = 0;
    // Positions still masked when the run ended: > 0 when a strategy stopped at its step budget
    // (or the run was cancelled). The text leaves them out, so a reader must be told.
    int masks_left = 0;
    std::map<std::string, double> counters;
    // Adds one step's cost and counters to the totals (text is left to the caller).
    void add_step(const StepTrace& t);
    double strategy_flops() const { return paper_flops + guider_flops; }  // as StepTrace's
    // The strategy's cost (a guider's forwards included) over the dense forwards of the steps it took.
    double flops_ratio() const { return paper_flops_dense > 0 ? strategy_flops() / paper_flops_dense : 0.0; }
    // The same cost over the baseline sampler's run on this canvas (baseline_sampler_flops below).
    double flops_ratio_to_baseline(int gen_length) const;
    double e2e_tps() const { return wall_s > 0 ? tokens_unmasked / wall_s : 0.0; }
};

// The reference sampler's cost on the same canvas: LLaDA's low-confidence sampler, steps = gen
// length, one dense forward per generated position. A run's cost over it is what fewer steps save
// as well as skipped rows (eval's flops_ratio_to_baseline, the app's "to the baseline run"); the
// ratio to the dense forwards of the steps taken (flops_ratio) counts only the rows.
inline double baseline_sampler_flops(double dense_step_flops, int gen_length) {
    return dense_step_flops * gen_length;
}

// What `dlmscope-cli run` tells of a finished run with masks_left > 0: the strategy stopped at its
// step budget, and the text leaves the masked positions out. (eval counts such runs; the app says
// it in its own, translatable status line and marks the run Unfinished.)
std::string stopped_with_masks_note(const TraceSummary& s, int gen_length);

}  // namespace dlm
