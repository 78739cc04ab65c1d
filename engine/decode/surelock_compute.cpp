#include "decode/surelock_compute.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "decode/pool_compute.h"
#include "util/error.h"

namespace dlm {

double percentile_linear(std::vector<double>& values, double percent) {
    if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(values.begin(), values.end());
    const double h = (double(values.size()) - 1.0) * std::clamp(percent, 0.0, 100.0) / 100.0;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (h - double(lo)) * (values[hi] - values[lo]);
}

SureLockCompute::SureLockCompute(SureLockOptions options, std::unique_ptr<ComputePolicy> inner)
    : o_(options), inner_(std::move(inner)) {
    if (!inner_) throw Error("surelock: no inner compute policy");
    if (o_.epsilon < 0 || std::isnan(o_.epsilon)) throw Error("surelock: epsilon must be >= 0");
    if (o_.unlock.enabled && (o_.unlock.period < 1 || o_.unlock.rho <= 0 || o_.unlock.rho > 1))
        throw Error("surelock: unlock.period must be >= 1 and unlock.rho in (0, 1]");
    name_ = inner_->name() == "full" ? "surelock" : "surelock+" + std::string(inner_->name());
}

void SureLockCompute::ensure_size(int n) {
    if (static_cast<int>(locked_.size()) == n) return;
    const auto sz = static_cast<std::size_t>(n);
    locked_.assign(sz, 0);
    lock_step_.assign(sz, -1);
    cooldown_until_.assign(sz, 0);
    strict_.assign(sz, 0);
    eligible_.assign(sz, 1);
    locked_total_ = 0;
}

void SureLockCompute::plan_rows(int step, const DecodeCanvas& canvas, std::vector<int32_t>& rows) {
    const int n = canvas.size();
    ensure_size(n);
    step_locks_ = step_unlocks_ = step_probed_ = 0;
    // A revision policy may remask a locked position (SureLock itself never does): it is active
    // again, like any masked position.
    for (int p = canvas.prompt_length(); p < n; ++p)
        if (locked_[std::size_t(p)] && canvas.is_masked(p)) {
            locked_[std::size_t(p)] = 0;
            --locked_total_;
        }
    probing_ = o_.unlock.enabled && step > 0 && step % o_.unlock.period == 0 && locked_total_ > 0;
    for (int r = 0; r < n; ++r) {
        const auto i = std::size_t(r);
        // Under shifted logits row r also produces position r + 1's posterior.
        const bool skip = locked_[i] && (!o_.shifted_logits || r + 1 == n || locked_[i + 1]);
        eligible_[i] = skip && !probing_ ? 0 : 1;
        if (probing_ && skip) ++step_probed_;
    }
    if (auto* pool = dynamic_cast<PoolCompute*>(inner_.get())) {
        pool->plan_rows_within(step, canvas, eligible_, rows);
    } else {
        inner_->plan_rows(step, canvas, scratch_rows_);
        rows.clear();
        for (int32_t r : scratch_rows_)
            if (eligible_[std::size_t(r)]) rows.push_back(r);
    }
}

bool SureLockCompute::wants_stats(int pos, const DecodeCanvas& canvas) const {
    if (pos < 0 || pos >= canvas.size()) return false;
    if (locked(pos) && !probing_) return false;
    // Prompt posteriors serve only the lock test: with locking off the LM head skips them, so the
    // run is exactly the inner policy's.
    if (pos < canvas.prompt_length()) return o_.epsilon > 0 && o_.gate_percent > 0;
    return inner_->wants_stats(pos, canvas);
}

bool SureLockCompute::lockable_now(int pos, int step) const {
    const auto i = std::size_t(pos);
    if (locked_[i] || cooldown_until_[i] > step) return false;
    if (o_.shifted_logits && pos == 0) return false;  // no row predicts it: no posterior to test
    return true;
}

double SureLockCompute::threshold_theta(const StepContext& ctx, const std::vector<int32_t>& candidates) const {
    std::vector<double> u;
    if (o_.gate_set == SureLockGateSet::Candidates) {
        for (int32_t p : candidates) u.push_back(1.0 - double(ctx.at(p)->p_max));
    } else {
        for (int p = 0; p < ctx.canvas.size(); ++p)
            if (!locked_[std::size_t(p)])
                if (const RowStats* s = ctx.at(p)) u.push_back(1.0 - double(s->p_max));
    }
    if (u.empty()) return -std::numeric_limits<double>::infinity();
    return percentile_linear(u, o_.gate_percent);
}

std::vector<StateChange> SureLockCompute::after_step(const StepContext& ctx) {
    std::vector<StateChange> changes = inner_->after_step(ctx);
    const DecodeCanvas& cv = ctx.canvas;
    const int n = cv.size();
    const int step = ctx.step;
    std::vector<uint8_t> touched(std::size_t(n), 0);
    for (const StateChange& c : changes)
        if (c.pos >= 0 && c.pos < n) touched[std::size_t(c.pos)] = 1;

    // Z_t: active, unmasked, revealed before this step, with a posterior and a previous one.
    std::vector<int32_t> candidates;
    for (int p = 0; p < n; ++p) {
        if (touched[std::size_t(p)] || !lockable_now(p, step)) continue;
        if (cv.is_generated(p)) {
            if (cv.is_masked(p) || cv.state(p) != PosState::Active) continue;
            if (cv.reveal_step(p) < 0 || cv.reveal_step(p) >= step) continue;
        }
        const RowStats* s = ctx.at(p);
        if (!s || std::isnan(s->kl_prev)) continue;
        candidates.push_back(p);
    }

    // Optional unlocking (App. M) on probe steps, before this step's locks.
    if (probing_) {
        std::vector<double> u;
        for (int32_t p : candidates) u.push_back(1.0 - double(ctx.at(p)->p_max));
        const double theta = u.empty() ? -std::numeric_limits<double>::infinity()
                                       : percentile_linear(u, o_.gate_percent);
        for (int p = 0; p < n; ++p) {
            const auto i = std::size_t(p);
            if (!locked_[i]) continue;
            const RowStats* s = ctx.at(p);
            if (!s) continue;
            const double u_tilde = 1.0 - double(s->p_max);
            const double drift = std::isnan(s->kl_prev) ? 0.0 : double(s->kl_prev);
            if (u_tilde > theta && drift > o_.unlock.epsilon && step - lock_step_[i] > o_.unlock.interval) {
                locked_[i] = 0;
                --locked_total_;
                ++step_unlocks_;
                cooldown_until_[i] = step + 1 + o_.unlock.cooldown;
                strict_[i] = 1;
                if (cv.is_generated(p) && !touched[i]) changes.push_back({p, PosState::Active, PosEvent::Unlock});
            }
        }
    }

    if (o_.epsilon <= 0 || o_.gate_percent <= 0 || candidates.empty()) return changes;
    const double theta =
        o_.gate_percent >= 100 ? std::numeric_limits<double>::infinity() : threshold_theta(ctx, candidates);
    for (int32_t p : candidates) {
        const auto i = std::size_t(p);
        const RowStats* s = ctx.at(p);
        const double u = 1.0 - double(s->p_max);
        const double eps = strict_[i] ? o_.epsilon * o_.unlock.rho : o_.epsilon;
        if (!(u <= theta) || !(double(s->kl_prev) <= eps)) continue;
        locked_[i] = 1;
        lock_step_[i] = step;
        ++locked_total_;
        ++step_locks_;
        if (cv.is_generated(p)) changes.push_back({p, PosState::Locked, PosEvent::Lock});
    }
    return changes;
}

void SureLockCompute::add_counters(std::map<std::string, double>& counters) const {
    inner_->add_counters(counters);
    // Only non-zero values: a run that never locks has exactly the baseline's trace.
    if (step_locks_) counters["locks"] = step_locks_;
    if (step_unlocks_) counters["unlocks"] = step_unlocks_;
    if (locked_total_) counters["locked"] = locked_total_;
    if (step_probed_) counters["probe_rows"] = step_probed_;
}

}  // namespace dlm
