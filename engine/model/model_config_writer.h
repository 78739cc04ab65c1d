#pragma once
// The inverse of parse_model_config: a config.json in the family's published schema (LLaDA's
// d_model / n_layers / mlp_hidden_size, or the Qwen2 names Dream shares), for checkpoints the
// project makes itself (random-weight benchmarks, test models) so that they load through the
// normal loader like any published folder.
#include <string>

#include "model/model_config.h"

namespace dlm {

// Pretty-printed JSON text. Special ids below 0 are written as null (the loader reads that as
// absent). parse_model_config(model_config_json(c)) gives back every field of `c` it reads.
std::string model_config_json(const ModelConfig& c);

}  // namespace dlm
