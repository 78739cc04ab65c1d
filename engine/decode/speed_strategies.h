#pragma once
// The compute-saving presets (SureLock, FreeCache, Fast-dLLM, selection and their compositions)
// for make_strategy (strategy.cpp). Parameters by namespace:
//   surelock.epsilon (5e-3), surelock.m (20, percent; 0 = no position passes the gate, 100 = gate
//   off), surelock.gate_set (candidates|active), surelock.unlock (off), surelock.unlock.period (8),
//   surelock.unlock.epsilon (5e-2), surelock.unlock.interval (4), surelock.unlock.cooldown (4),
//   surelock.unlock.rho (0.5);
//   freecache.block_length (0 = the settings' block_length, or gen_length);
//   cache.refresh_every (0 = refresh only at block boundaries);
//   threshold.tau (0.9), threshold.factor (off; exclusive with tau);
//   selection.k (0.8), selection.refresh_every (0).
// Fast-dLLM's blocks are the settings' block_length (0 = one block over the whole generation).
#include <string>
#include <vector>

#include "decode/strategy.h"
#include "decode/strategy_params.h"

namespace dlm {

// "surelock", "freecache", "threshold", "fast-dllm", "fast-dllm-prefix", "selection",
// "surelock+selection", "surelock+freecache".
std::vector<std::string> speed_strategy_names();

// Fills `out` (unmask, compute, revision) when s.strategy is one of the names above and returns
// true; false for other names. Throws dlm::Error for an invalid parameter or combination.
bool make_speed_strategy(const DecodeSettings& s, const ModelConfig& config, int prompt_len, StrategyParams& params,
                         Strategy& out);

}  // namespace dlm
