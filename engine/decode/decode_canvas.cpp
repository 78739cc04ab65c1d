#include "decode/decode_canvas.h"

#include <algorithm>
#include <string>

#include "util/error.h"

namespace dlm {

DecodeCanvas::DecodeCanvas(std::vector<int32_t> prompt, int gen_length, int32_t mask_id)
    : tokens_(std::move(prompt)), prompt_length_(static_cast<int>(tokens_.size())), mask_id_(mask_id) {
    if (gen_length < 0) throw Error("gen_length must be >= 0");
    tokens_.resize(tokens_.size() + static_cast<std::size_t>(gen_length), mask_id);
    const std::size_t n = tokens_.size();
    state_.assign(n, PosState::Masked);
    std::fill(state_.begin(), state_.begin() + prompt_length_, PosState::Prompt);
    event_.assign(n, PosEvent::None);
    token_before_remask_.assign(n, -1);
    reveal_step_.assign(n, -1);
    masks_left_ = gen_length;
}

void DecodeCanvas::check_generated(int pos, const char* what) const {
    if (!is_generated(pos))
        throw Error(std::string(what) + ": position " + std::to_string(pos) + " is outside the generated region [" +
                    std::to_string(prompt_length_) + ", " + std::to_string(size()) + ")");
}

void DecodeCanvas::begin_step() { std::fill(event_.begin(), event_.end(), PosEvent::None); }

void DecodeCanvas::unmask(int pos, int32_t token, int step) {
    check_generated(pos, "unmask");
    const auto i = static_cast<std::size_t>(pos);
    if (state_[i] != PosState::Masked)
        throw Error("unmask: position " + std::to_string(pos) + " is not masked");
    if (token == mask_id_) throw Error("unmask: position " + std::to_string(pos) + " would get the mask token");
    tokens_[i] = token;
    state_[i] = PosState::Active;
    event_[i] = token_before_remask_[i] == token ? PosEvent::FlipFlop : PosEvent::Unmask;
    reveal_step_[i] = step;
    --masks_left_;
}

void DecodeCanvas::remask(int pos) {
    check_generated(pos, "remask");
    const auto i = static_cast<std::size_t>(pos);
    if (state_[i] == PosState::Masked) throw Error("remask: position " + std::to_string(pos) + " is already masked");
    token_before_remask_[i] = tokens_[i];
    tokens_[i] = mask_id_;
    state_[i] = PosState::Masked;
    event_[i] = PosEvent::Remask;
    reveal_step_[i] = -1;
    ++masks_left_;
}

void DecodeCanvas::replace(int pos, int32_t token) {
    check_generated(pos, "replace");
    const auto i = static_cast<std::size_t>(pos);
    if (state_[i] == PosState::Masked) throw Error("replace: position " + std::to_string(pos) + " is masked");
    if (token == mask_id_) throw Error("replace: use remask to mask position " + std::to_string(pos));
    if (tokens_[i] == token) return;
    tokens_[i] = token;
    event_[i] = PosEvent::Replace;
}

void DecodeCanvas::set_state(int pos, PosState state, PosEvent event) {
    check_generated(pos, "set_state");
    const auto i = static_cast<std::size_t>(pos);
    if (state_[i] == PosState::Masked || state == PosState::Masked || state == PosState::Prompt)
        throw Error("set_state: use unmask/remask to change position " + std::to_string(pos) + " to or from masked");
    state_[i] = state;
    if (event != PosEvent::None) event_[i] = event;
}

}  // namespace dlm
