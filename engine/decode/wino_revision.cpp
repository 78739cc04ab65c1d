#include "decode/wino_revision.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "util/error.h"

namespace dlm {

WinoRevision::WinoRevision(WinoOptions o) : o_(o) {
    if (!(o_.threshold_back >= 0 && o_.threshold_back <= 1)) throw Error("wino: threshold_back must lie in [0, 1]");
    if (o_.blocks.block_length < 1) throw Error("wino: the block length must be at least 1");
}

void WinoRevision::adjust_forward(int, const DecodeCanvas& canvas, std::span<const int32_t>, ForwardAdjustment& adjust) {
    const int block = o_.blocks.current_block(canvas);
    if (block != block_) {
        block_ = block;
        last_accept_ = kInitialLastAccept;
    }
    const int begin = o_.blocks.begin(block), end = std::min(o_.blocks.end(block), canvas.size());
    decoded_.clear();
    for (int p = begin; p < end; ++p)
        if (!canvas.is_masked(p)) decoded_.push_back(p);
    adjust.shadow = ShadowRequest{begin, end - begin};
}

std::vector<int32_t> WinoRevision::narrow_out(std::vector<std::pair<int32_t, double>> verified, double threshold_back,
                                              int accepted, int last_accept) {
    if (accepted <= 1) return {};
    std::vector<std::pair<int32_t, double>> low;
    for (const auto& v : verified)
        if (v.second < threshold_back) low.push_back(v);  // NaN (not verified) never passes
    if (static_cast<int>(low.size()) >= last_accept) {
        const std::size_t keep = static_cast<std::size_t>(std::max(0, last_accept - 1));
        std::partial_sort(low.begin(), low.begin() + static_cast<std::ptrdiff_t>(keep), low.end(),
                          [](const auto& a, const auto& b) { return a.second != b.second ? a.second < b.second : a.first < b.first; });
        low.resize(keep);
    }
    std::vector<int32_t> out;
    for (const auto& v : low) out.push_back(v.first);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<Revision> WinoRevision::revise(const StepContext& ctx) {
    const DecodeCanvas& cv = ctx.canvas;
    int accepted = 0;
    for (int p = cv.prompt_length(); p < cv.size(); ++p) {
        const PosEvent e = cv.event(p);
        accepted += e == PosEvent::Unmask || e == PosEvent::FlipFlop ? 1 : 0;
    }
    std::vector<std::pair<int32_t, double>> verified;
    for (int32_t p : decoded_) {
        const RowStats* s = ctx.shadow_at(p);
        if (!s || cv.is_masked(p)) continue;  // no shadow row: nothing to verify with
        verified.emplace_back(p, static_cast<double>(s->query_p));
    }
    std::vector<Revision> out;
    for (int32_t p : narrow_out(std::move(verified), o_.threshold_back, accepted, last_accept_))
        out.push_back({Revision::Kind::Remask, p, -1});
    last_accept_ = accepted;
    return out;
}

}  // namespace dlm
