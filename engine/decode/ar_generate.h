#pragma once
// Greedy decoding with a causal (qwen2-family) model: the accuracy yardstick of the Guided
// Diffusion guider, measured through the same engine and backend as the diffusion models. The
// prompt is computed once; every later step computes one new row against the K/V cache.
#include <cstdint>
#include <span>
#include <vector>

#include "compute/backend.h"

namespace dlm {

struct ArGeneration {
    std::vector<int32_t> ids;  // generated tokens, the stop token excluded
    bool stopped = false;      // a stop token ended it (else max_new or the context did)
    int forwards = 0;
    double flops = 0.0;        // causal formula incl. LM head (decode/ar_guider.h's causal_flops)
    double wall_s = 0.0;
};

// Throws dlm::Error for a diffusion model, an empty prompt, or a prompt that fills the context.
ArGeneration ar_generate_greedy(Backend& backend, std::span<const int32_t> prompt, int max_new,
                                std::span<const int32_t> stop_ids);

}  // namespace dlm
