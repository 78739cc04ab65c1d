#pragma once
// The revocable presets (COVER, Saber, WINO) and Guided Diffusion for make_strategy (strategy.cpp).
// Parameters by namespace:
//   cover.tau_draft (0.8; the paper tunes 0.7/0.8/0.9), cover.budget (B = 15),
//   cover.block_length (default: the settings' block_length, else 64 when it divides gen_length,
//   else gen_length), cover.correction (closed_form | recompute), cover.max_steps (2·gen_length),
//   cover.max_seeds (0 = the adaptive rule only);
//   saber.n (2), saber.block_length (default: the settings' block_length, else gen_length),
//   saber.max_steps_per_block (1024);
//   wino.threshold (0.6, the GSM8K config; the paper uses 0.5-0.8 by task), wino.threshold_back
//   (0.9), wino.block_length (default: the settings' block_length, else 128 when it divides
//   gen_length, else gen_length), wino.max_steps (gen_length + 29 per block: never binding);
//   guided.guider (a qwen2-family folder; default: tiny-ar beside the model folder, else
//   the smallest qwen2-family checkpoint there),
//   guided.match (argmax | topk | ratio), guided.k (5), guided.ratio (0.1), guided.chunk (32),
//   guided.eos_fill (on), guided.threads (0 = all cores).
// WINO's shadow block makes each forward N + block_length long (ForwardItem::shadow); it is
// refused with CFG and on shifted-logit models (Dream), with the reason.
#include <string>
#include <vector>

#include "decode/strategy.h"
#include "decode/strategy_params.h"

namespace dlm {

// "cover", "saber", "wino", "guided".
std::vector<std::string> revision_strategy_names();

// Fills `out` when s.strategy is one of the names above and returns true; false for other
// names. Throws dlm::Error for an invalid parameter or an unsupported combination.
bool make_revision_strategy(const DecodeSettings& s, const ModelConfig& config, int prompt_len, const StrategyEnv& env,
                            StrategyParams& params, Strategy& out);

}  // namespace dlm
