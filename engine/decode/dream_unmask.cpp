#include "decode/dream_unmask.h"

#include <cmath>
#include <string>

#include "decode/transfer_schedule.h"
#include "util/counter_rng.h"
#include "util/error.h"

namespace dlm {

DreamUnmask::DreamUnmask(DreamUnmaskOptions o) : o_(o) {
    if (o_.gen_length <= 0 || o_.steps <= 0) throw Error("dream sampler: gen_length and steps must be positive");
    if (!(o_.eps > 0 && o_.eps < 1)) throw Error("dream sampler: eps must be in (0, 1)");
    if (!(o_.alg_temp >= 0)) throw Error("dream sampler: alg_temp must be >= 0");
    timesteps_ = dream_timesteps(o_.steps, o_.eps);
}

ConfidenceMeasure DreamUnmask::measure() const {
    switch (o_.alg) {
        case DreamAlg::TopkMargin: return ConfidenceMeasure::Margin;
        case DreamAlg::Entropy: return ConfidenceMeasure::NegEntropy;
        default: return ConfidenceMeasure::SampledProb;
    }
}

std::vector<Commit> DreamUnmask::choose(const StepContext& ctx) {
    const int begin = o_.prompt_length, end = o_.prompt_length + o_.gen_length;
    const bool last = ctx.step >= o_.steps - 1;
    const CounterRng random(ctx.seed, rng_stream::kTransfer);
    std::vector<Commit> out;

    if (o_.alg == DreamAlg::Origin) {
        // Each mask independently with p = 1 - s/t. Deferred EOS/EoT wait for the last step,
        // which reveals everything (the only meaning "revealed last" can have here).
        const double p_transfer = dream_transfer_fraction(timesteps_, std::min(ctx.step, o_.steps - 1));
        for (int p = begin; p < end; ++p) {
            if (!ctx.canvas.is_masked(p)) continue;
            const RowStats* s = ctx.at(p);
            if (!s) continue;
            if (!last && o_.eos.defers(s->sampled)) continue;
            const double u = random.uniform(static_cast<uint64_t>(ctx.step), static_cast<uint64_t>(p));
            if (last || u < p_transfer) out.push_back({p, s->sampled});
        }
        return out;
    }

    int masks = 0;
    for (int p = begin; p < end; ++p) masks += ctx.canvas.is_masked(p) ? 1 : 0;
    const int k = dream_transfer_count(timesteps_, std::min(ctx.step, o_.steps - 1), masks);
    if (k == 0) return out;

    const ConfidenceMeasure m = measure();
    scratch_.clear();
    collect_candidates(ctx, begin, end, o_.eos, [&](const RowStats& s, int p) {
        const double conf = confidence_value(s, m, o_.source);
        if (o_.alg_temp <= 0) return conf;
        // Gumbel-top-k: the k largest of conf/alg_temp + Gumbel noise are an exact draw of k
        // positions without replacement from softmax(conf / alg_temp), like torch.multinomial.
        const double u = random.uniform(static_cast<uint64_t>(ctx.step), static_cast<uint64_t>(p));
        return conf / o_.alg_temp - std::log(-std::log(u));
    }, scratch_);
    return take_best(scratch_, k);
}

}  // namespace dlm
