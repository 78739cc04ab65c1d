#pragma once
// The revocable presets (COVER, Saber) and Guided Diffusion for make_strategy (strategy.cpp).
// Parameters by namespace:
//   cover.tau_draft (0.8; the paper tunes 0.7/0.8/0.9), cover.budget (B = 15),
//   cover.block_length (default: the settings' block_length, else 64 when it divides gen_length,
//   else gen_length), cover.correction (closed_form | recompute), cover.max_steps (2·gen_length),
//   cover.max_seeds (0 = the adaptive rule only);
//   saber.n (2), saber.block_length (default: the settings' block_length, else gen_length),
//   saber.max_steps_per_block (1024);
//   guided.guider (a qwen2-family folder; default ../tiny-ar next to the model folder),
//   guided.match (argmax | topk | ratio), guided.k (5), guided.ratio (0.1), guided.chunk (32),
//   guided.eos_fill (on), guided.threads (0 = all cores).
// WINO is not registered: its shadow-block verification needs an extended canvas with explicit
// position ids and a custom attention mask that the decode session does not provide yet.
#include <string>
#include <vector>

#include "decode/strategy.h"
#include "decode/strategy_params.h"

namespace dlm {

// "cover", "saber", "guided".
std::vector<std::string> revision_strategy_names();

// Fills `out` when s.strategy is one of the names above and returns true; false for other
// names. Throws dlm::Error for an invalid parameter or an unsupported combination.
bool make_revision_strategy(const DecodeSettings& s, const ModelConfig& config, int prompt_len, const StrategyEnv& env,
                            StrategyParams& params, Strategy& out);

}  // namespace dlm
