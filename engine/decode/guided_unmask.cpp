#include "decode/guided_unmask.h"

#include "util/error.h"

namespace dlm {

GuidedUnmask::GuidedUnmask(std::unique_ptr<ArGuider> guider, GuidedUnmaskOptions o)
    : guider_(std::move(guider)), o_(o) {
    if (!guider_) throw Error("guided: no guider model");
    if (o_.gen_length < 1) throw Error("guided: gen_length must be positive");
}

std::vector<Commit> GuidedUnmask::choose(const StepContext& ctx) {
    const DecodeCanvas& cv = ctx.canvas;
    last_ = {};
    drafted_ = agreed_ = end_fill_ = 0;
    no_agreement_ = false;
    int first = -1;
    for (int p = cv.prompt_length(); p < cv.size(); ++p)
        if (cv.is_masked(p)) {
            first = p;
            break;
        }
    if (first < 0) return {};
    std::vector<Commit> draft;
    for (int p = first; p < cv.size() && cv.is_masked(p); ++p) {
        const RowStats* s = ctx.at(p);
        if (!s) break;
        draft.push_back({p, s->sampled});
    }
    if (draft.empty()) return {};
    drafted_ = static_cast<int>(draft.size());

    std::vector<int32_t> ids;
    ids.reserve(draft.size());
    for (const Commit& c : draft) ids.push_back(c.token);
    last_ = guider_->verify(cv.tokens().first(static_cast<std::size_t>(first)), ids);
    const std::size_t keep = static_cast<std::size_t>(std::max(1, last_.accepted));
    draft.resize(std::min(draft.size(), keep));
    no_agreement_ = last_.accepted == 0;
    agreed_ = no_agreement_ ? 0 : static_cast<int>(draft.size());

    if (o_.eos_fill) {
        for (std::size_t i = 0; i < draft.size(); ++i) {
            const int32_t t = draft[i].token;
            if (t != o_.eos && (o_.eot < 0 || t != o_.eot)) continue;
            // EOS committed: every remaining mask becomes EOS and the run ends.
            draft.resize(i + 1);
            if (!no_agreement_) agreed_ = static_cast<int>(draft.size());
            const int32_t fill = o_.eos >= 0 ? o_.eos : t;
            for (int p = draft.back().pos + 1; p < cv.size(); ++p)
                if (cv.is_masked(p)) {
                    draft.push_back({p, fill});
                    ++end_fill_;
                }
            break;
        }
    }
    return draft;
}

void GuidedUnmask::add_counters(std::map<std::string, double>& counters) const {
    counters["guider_drafted"] += drafted_;
    counters["guider_accepted"] += last_.accepted;
    counters["guider_rows"] += last_.rows;
    counters["guider_ms"] += last_.ms;
    counters["guider_agreed_commits"] += agreed_;
    counters["guider_no_agreement"] += no_agreement_ ? 1 : 0;
    counters["guider_end_fill"] += end_fill_;
}

std::optional<GuidedCommitReason> guided_commit_reason(const std::map<std::string, double>& step_counters, int index) {
    const auto agreed = step_counters.find("guider_agreed_commits");
    const auto none = step_counters.find("guider_no_agreement");
    const auto fill = step_counters.find("guider_end_fill");
    if (agreed == step_counters.end() || none == step_counters.end() || fill == step_counters.end() || index < 0)
        return std::nullopt;
    const int head = none->second > 0 ? 1 : static_cast<int>(agreed->second);
    if (index < head) return none->second > 0 ? GuidedCommitReason::NoAgreement : GuidedCommitReason::Agreed;
    if (index < head + static_cast<int>(fill->second)) return GuidedCommitReason::EndFill;
    return std::nullopt;
}

}  // namespace dlm
