#pragma once
// The canvas of one decode: prompt + generated region, and every position's state machine
// (design.md §4). Policies read it; only the session (through these methods) changes it, so the
// events that reach the trace are exactly the changes that happened.
#include <cstdint>
#include <span>
#include <vector>

#include "trace/step_trace.h"

namespace dlm {

class DecodeCanvas {
public:
    DecodeCanvas(std::vector<int32_t> prompt, int gen_length, int32_t mask_id);

    int size() const { return static_cast<int>(tokens_.size()); }
    int prompt_length() const { return prompt_length_; }
    int gen_length() const { return size() - prompt_length_; }
    int32_t mask_id() const { return mask_id_; }
    std::span<const int32_t> tokens() const { return tokens_; }

    int32_t token(int pos) const { return tokens_[static_cast<std::size_t>(pos)]; }
    PosState state(int pos) const { return state_[static_cast<std::size_t>(pos)]; }
    PosEvent event(int pos) const { return event_[static_cast<std::size_t>(pos)]; }
    bool is_masked(int pos) const { return state(pos) == PosState::Masked; }
    bool is_generated(int pos) const { return pos >= prompt_length_ && pos < size(); }
    int masks_left() const { return masks_left_; }
    // Step at which the position was last unmasked, -1 while masked or for the prompt.
    int reveal_step(int pos) const { return reveal_step_[static_cast<std::size_t>(pos)]; }

    // Clears the events of the previous step.
    void begin_step();
    // Masked -> Active with `token`. Event: unmask, or flipflop when the position was remasked
    // earlier and now gets back the token it had then. Throws dlm::Error if not masked.
    void unmask(int pos, int32_t token, int step);
    // Active/Locked/Frozen -> Masked; the token is remembered for flip-flop detection.
    void remask(int pos);
    // Changes an unmasked position's token in place (event replace; no-op for the same token).
    void replace(int pos, int32_t token);
    // State change of an unmasked position without a token change (lock, unlock, freeze, seed,
    // keep...). `event` may be PosEvent::None.
    void set_state(int pos, PosState state, PosEvent event);

private:
    void check_generated(int pos, const char* what) const;
    std::vector<int32_t> tokens_;
    std::vector<PosState> state_;
    std::vector<PosEvent> event_;
    std::vector<int32_t> token_before_remask_;  // -1: never remasked
    std::vector<int> reveal_step_;
    int prompt_length_ = 0;
    int masks_left_ = 0;
    int32_t mask_id_ = -1;
};

}  // namespace dlm
