#pragma once
// `dlmscope-cli bench --section decode`: whole decodes, end to end, of a synthetic prompt on any
// checkpoint (a random-weight one from make-checkpoint included: it needs no tokenizer), one per
// strategy preset in the same run: tokens/s, forwards, tokens per forward, ms per forward, and
// where the step's time goes (forward call, row statistics, the strategy's own host work). The
// speed a user sees on a large model, measured, next to the baseline.
#include <string>
#include <vector>

#include "args.h"
#include "bench_report.h"
#include "backends/backend_factory.h"
#include "decode/decode_settings.h"
#include "decode/settings_schema.h"

namespace dlm::cli {

// A configuration of the benchmarks is a preset of the engine's table, the one the app's preset
// box and `run --preset` offer, under its name (or a variant of one: the SureLock sweep's ε and m).
// `name` is a preset's name, case and spaces aside, or an engine strategy key, which stands for
// the first preset that runs it ("fast-dllm": "Fast-dLLM dual cache"). Throws UsageError naming
// `option` and the presets.
const StrategyPreset& bench_preset(std::string_view name, std::string_view option);

// The decode settings of a preset on a canvas of `gen_length`: steps = gen_length (dynamic
// strategies may stop earlier), one block unless the preset names its block length (fitted to
// the canvas), no KL tracking or display top-k (a benchmark pays for neither). The strategies
// and decode bench sections share it.
DecodeSettings preset_settings(const StrategyPreset& preset, int gen_length);

struct DecodeBenchOptions {
    std::string model;                 // checkpoint folder; required
    std::vector<StrategyPreset> presets;  // in the order reported; the first is the baseline of the ratios
    std::vector<int> gen_lens{256};
    int prompt_len = 64;
    int reps = 1;                      // timed decodes per preset and length, median reported
    int threads = 0;                   // CPU backend threads
    BackendKind backend = BackendKind::Auto;
    // Tokens per forward at which ms/forward is projected to tokens/s (Fast-dLLM's published rate
    // on GSM8K at gen 256 with LLaDA-8B, arXiv 2505.22618), because random weights rarely pass a
    // confidence threshold.
    double projected_tokens_per_forward = 2.77;
    std::string json_out;  // raw results; empty: none
    std::string command;   // the command line, for the report
};

// Adds the section's own options (--strategies, --prompt-len is shared with forward-cuda).
CommandSpec with_decode_options(CommandSpec bench_spec);

// Measures and renders. Throws dlm::Error when the model folder is missing, a preset cannot run
// on it, or the canvas does not fit the model.
MarkdownSection decode_section(const DecodeBenchOptions& options);

}  // namespace dlm::cli
