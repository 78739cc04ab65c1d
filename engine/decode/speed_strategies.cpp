#include "decode/speed_strategies.h"

#include <cmath>

#include "decode/freecache_compute.h"
#include "decode/prefix_cache_compute.h"
#include "decode/selection_compute.h"
#include "decode/surelock_compute.h"
#include "decode/threshold_unmask.h"
#include "util/error.h"

namespace dlm {

namespace {

SureLockOptions read_surelock(StrategyParams& p, const ModelConfig& config) {
    p.claim("surelock");
    SureLockOptions o;
    o.epsilon = p.real("surelock.epsilon");
    o.gate_percent = p.real("surelock.m");
    o.gate_set = p.choice("surelock.gate_set") == "active"
                     ? SureLockGateSet::Active
                     : SureLockGateSet::Candidates;
    o.shifted_logits = config.shifted_logits;
    SureLockUnlockOptions& u = o.unlock;
    u.enabled = p.flag("surelock.unlock");
    u.period = static_cast<int>(p.integer("surelock.unlock.period"));
    u.epsilon = p.real("surelock.unlock.epsilon");
    u.interval = static_cast<int>(p.integer("surelock.unlock.interval"));
    u.cooldown = static_cast<int>(p.integer("surelock.unlock.cooldown"));
    u.rho = p.real("surelock.unlock.rho");
    if (o.epsilon == 0) p.warn("surelock.epsilon", "surelock.epsilon = 0 disables locking (the baseline's trace)");
    if (o.gate_percent == 0) p.warn("surelock.m", "surelock.m = 0 lets no position pass the gate: nothing locks");
    return o;
}

std::unique_ptr<ComputePolicy> read_selection(StrategyParams& p, const ModelConfig& config) {
    p.claim("selection");
    SelectionOptions o;
    o.k = p.real("selection.k");
    o.refresh_every = static_cast<int>(p.integer("selection.refresh_every"));
    o.shifted_logits = config.shifted_logits;
    if (o.k == 1) p.warn("selection.k", "selection.k = 1 computes every row: the same as full compute");
    return std::make_unique<SelectionCompute>(o);
}

std::unique_ptr<ComputePolicy> read_freecache(StrategyParams& p, const DecodeSettings& s, const ModelConfig& config,
                                              int prompt_len) {
    p.claim("freecache");
    const int block = static_cast<int>(p.integer("freecache.block_length"));
    const int b = block > 0 ? block : block_or_generation(s);
    if (b == s.gen_length)
        p.warn("freecache.block_length",
               "FreeCache with one block over the whole generation freezes only the prompt; set block_length "
               "(e.g. 32) to freeze completed blocks");
    return std::make_unique<FreeCacheCompute>(BlockLayout::make(prompt_len, s.gen_length, b, "freecache"),
                                              config.shifted_logits);
}

std::unique_ptr<UnmaskPolicy> read_threshold(StrategyParams& p, const DecodeSettings& s, const ModelConfig& config,
                                             int prompt_len) {
    p.claim("threshold");
    ThresholdUnmaskOptions o;
    o.blocks = BlockLayout::make(prompt_len, s.gen_length, block_or_generation(s), "fast-dllm");
    if (p.has("threshold.tau") && p.has("threshold.factor"))
        throw Error("threshold.tau and threshold.factor select two different rules; set only one of them");
    o.tau = p.real("threshold.tau");
    o.factor = p.real_or("threshold.factor", 0.0);  // 0: the tau rule
    o.remasking = s.remasking;
    o.source = effective_confidence(s, config);
    o.eos = eos_deferral(s, config);
    if (s.steps != s.gen_length)
        p.warn("steps", "the threshold rule decides its own step count (at most gen_length); steps = " +
                            std::to_string(s.steps) + " is not used");
    return std::make_unique<ThresholdUnmask>(o);
}

std::unique_ptr<ComputePolicy> read_kv_cache(StrategyParams& p, const DecodeSettings& s, const ModelConfig& config,
                                             int prompt_len, KvCacheMode mode) {
    p.claim("cache");
    const int refresh = static_cast<int>(p.integer("cache.refresh_every"));
    return std::make_unique<PrefixCacheCompute>(
        BlockLayout::make(prompt_len, s.gen_length, block_or_generation(s), "fast-dllm cache"), mode,
        config.shifted_logits, refresh);
}

}  // namespace

std::vector<std::string> speed_strategy_names() {
    return {"surelock",  "freecache", "threshold",          "fast-dllm", "fast-dllm-prefix",
            "selection", "surelock+selection", "surelock+freecache"};
}

bool make_speed_strategy(const DecodeSettings& s, const ModelConfig& config, int prompt_len, StrategyParams& params,
                         Strategy& out) {
    const std::string& name = s.strategy;
    bool known = false;
    for (const auto& n : speed_strategy_names()) known = known || n == name;
    if (!known) return false;

    out.revision = std::make_unique<NoRevision>();
    if (name == "threshold" || name == "fast-dllm" || name == "fast-dllm-prefix")
        out.unmask = read_threshold(params, s, config, prompt_len);
    else
        out.unmask = make_reference_unmask(s, config, prompt_len);

    if (name == "surelock") {
        out.compute = std::make_unique<SureLockCompute>(read_surelock(params, config), std::make_unique<FullCompute>());
    } else if (name == "surelock+selection") {
        const SureLockOptions o = read_surelock(params, config);
        out.compute = std::make_unique<SureLockCompute>(o, read_selection(params, config));
    } else if (name == "surelock+freecache") {
        const SureLockOptions o = read_surelock(params, config);
        out.compute = std::make_unique<SureLockCompute>(o, read_freecache(params, s, config, prompt_len));
    } else if (name == "freecache") {
        out.compute = read_freecache(params, s, config, prompt_len);
    } else if (name == "selection") {
        out.compute = read_selection(params, config);
    } else if (name == "threshold") {
        out.compute = std::make_unique<FullCompute>();
    } else {
        out.compute = read_kv_cache(params, s, config, prompt_len,
                                    name == "fast-dllm" ? KvCacheMode::Dual : KvCacheMode::Prefix);
    }
    return true;
}

}  // namespace dlm
