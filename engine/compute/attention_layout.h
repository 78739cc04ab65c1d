#pragma once
// The attention layout of a forward item beyond the default (row i sits at RoPE position i and
// sees every column): explicit position ids and WINO's shadow block (ForwardItem::position_ids,
// ForwardItem::shadow). Every backend runs these checks, so that all of them accept and refuse
// the same requests with the same messages.
#include <string>

#include "compute/backend.h"
#include "model/model_config.h"

namespace dlm {

// True when the item sets position ids or a shadow block.
bool has_custom_attention_layout(const ForwardItem& item);

// Throws dlm::Error, prefixed with `where`, for a layout that no backend could honour on a
// canvas of item.tokens.size() columns: position ids of another length, negative or at/after the
// model's context (max_seq_len); a shadow block with a negative count, outside the canvas, or
// overlapping its twins; a shadow block on a causal model (its leave-one-out view presumes
// bidirectional attention) or together with a K/V override (two different column views).
// Returns the largest RoPE position the item uses (N - 1 without position ids).
int check_attention_layout(const ForwardItem& item, const ModelConfig& config, const std::string& where);

// For a backend that does not implement position ids or shadow blocks yet: throws dlm::Error
// naming the backend and the feature when the item asks for either; does nothing otherwise.
void refuse_custom_attention_layout(const ForwardItem& item, const std::string& backend, const std::string& where);

}  // namespace dlm
