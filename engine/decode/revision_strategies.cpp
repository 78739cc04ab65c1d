#include "decode/revision_strategies.h"

#include <limits>

#include "decode/ar_guider.h"
#include "decode/cover_revision.h"
#include "decode/draft_unmask.h"
#include "decode/guided_unmask.h"
#include "decode/guider_cache.h"
#include "decode/saber_revision.h"
#include "decode/wino_revision.h"
#include "util/error.h"

namespace dlm {

namespace {

void refuse_cfg(const DecodeSettings& s, const char* who, const char* why) {
    if (s.cfg_scale > 0)
        throw Error(std::string(who) + " cannot run with classifier-free guidance (" + why + "); set cfg_scale=0");
}

bool make_cover(const DecodeSettings& s, const ModelConfig& config, int prompt_len, StrategyParams& p, Strategy& out) {
    p.claim("cover");
    refuse_cfg(s, "cover", "the unconditional item would need its own seed snapshot");
    const int default_block = s.block_length > 0 ? s.block_length : (s.gen_length % 64 == 0 ? 64 : s.gen_length);  // COVER's published block
    const int block = static_cast<int>(p.integer_or("cover.block_length", default_block));
    CoverOptions co;
    co.tau_draft = p.real("cover.tau_draft");
    co.closed_form = p.choice("cover.correction") == "closed_form";
    co.max_seeds = static_cast<int>(p.integer("cover.max_seeds"));
    co.shifted_logits = config.shifted_logits;
    DraftUnmaskOptions d;
    d.blocks = BlockLayout::make(prompt_len, s.gen_length, block, "cover");
    d.tau = co.tau_draft;
    d.cap = static_cast<int>(p.integer("cover.budget"));
    d.max_steps = static_cast<int>(p.integer_or("cover.max_steps", 2LL * s.gen_length));
    d.eos = eos_deferral(s, config);
    d.name = "cover-draft";
    out.unmask = std::make_unique<DraftUnmask>(d);
    out.compute = std::make_unique<FullCompute>();
    out.revision = std::make_unique<CoverRevision>(co);
    return true;
}

bool make_saber(const DecodeSettings& s, const ModelConfig& config, int prompt_len, StrategyParams& p, Strategy& out) {
    p.claim("saber");
    (void)config;
    SaberOptions o;
    const int default_block = block_or_generation(s);
    o.blocks = BlockLayout::make(prompt_len, s.gen_length,
                                 static_cast<int>(p.integer_or("saber.block_length", default_block)), "saber");
    o.n = static_cast<int>(p.integer("saber.n"));
    o.max_steps_per_block = static_cast<int>(p.integer("saber.max_steps_per_block"));
    auto state = std::make_shared<SaberState>(o);
    out.unmask = std::make_unique<SaberUnmask>(state);
    out.compute = std::make_unique<FullCompute>();
    out.revision = std::make_unique<SaberRevision>(state);
    return true;
}

bool make_wino(const DecodeSettings& s, const ModelConfig& config, int prompt_len, StrategyParams& p, Strategy& out) {
    p.claim("wino");
    refuse_cfg(s, "wino", "the unconditional item would need a shadow block of its own, which the reference does not define");
    if (config.shifted_logits)
        throw Error("wino is not supported on shifted-logit models (" + std::string(family_name(config.family)) +
                    "): the token at position j is predicted by row j-1, which sees j, so a shadow copy of j "
                    "cannot give the leave-one-out prediction the verification relies on");
    // WINO's published configs: block 128 (of 256), capped to the generation.
    const int default_block = s.block_length > 0 ? s.block_length : (s.gen_length % 128 == 0 ? 128 : s.gen_length);
    const int block = static_cast<int>(p.integer_or("wino.block_length", default_block));
    DraftUnmaskOptions d;
    d.blocks = BlockLayout::make(prompt_len, s.gen_length, block, "wino");
    if (config.max_seq_len > 0 && prompt_len + s.gen_length + block > config.max_seq_len)
        throw Error("wino: prompt (" + std::to_string(prompt_len) + ") + gen_length (" + std::to_string(s.gen_length) +
                    ") + the shadow block (" + std::to_string(block) + " = wino.block_length) exceeds the model's context of " +
                    std::to_string(config.max_seq_len) + " positions; use a smaller wino.block_length");
    d.tau = p.real("wino.threshold");
    d.cap_rule = DraftUnmaskOptions::Cap::Wino;
    // Net progress over a block is at least (steps - 29) tokens (WinoRevision), so this default never cuts a run.
    const long long bound = s.gen_length + 29LL * d.blocks.num_blocks();
    d.max_steps = static_cast<int>(p.integer_or("wino.max_steps", bound));
    d.eos = eos_deferral(s, config);
    d.name = "wino-draft";
    WinoOptions w;
    w.blocks = d.blocks;
    w.threshold_back = p.real("wino.threshold_back");
    out.unmask = std::make_unique<DraftUnmask>(d);
    out.compute = std::make_unique<FullCompute>();
    out.revision = std::make_unique<WinoRevision>(w);
    return true;
}

bool make_guided(const DecodeSettings& s, const ModelConfig& config, const StrategyEnv& env, StrategyParams& p,
                 Strategy& out) {
    p.claim("guided");
    refuse_cfg(s, "guided", "the guider verifies one draft");
    ArGuiderOptions o;
    const std::string match = p.choice("guided.match");
    o.match = match == "topk" ? GuideMatch::TopK : match == "ratio" ? GuideMatch::Ratio : GuideMatch::Argmax;
    o.top_k = static_cast<int>(p.integer("guided.k"));
    o.ratio = p.real("guided.ratio");
    o.chunk = static_cast<int>(p.integer("guided.chunk"));
    o.threads = static_cast<int>(p.integer("guided.threads"));
    GuidedUnmaskOptions g;
    g.gen_length = s.gen_length;
    g.eos_fill = p.flag("guided.eos_fill");
    g.eos = config.eos_token_id;
    g.eot = config.eot_token_id;
    std::filesystem::path dir;  // empty: the loaded model's default guider
    if (p.has("guided.guider")) {
        const std::string path = p.text("guided.guider");
        if (path.empty()) throw Error("parameter guided.guider is empty; give the folder of a qwen2-family checkpoint");
        dir = path;
    }
    GuiderCache none;  // a session without a loaded model's cache reads the folder itself
    GuiderCache& guiders = env.guiders ? *env.guiders : none;
    // A guider picked among the user's own folders is named, so that the choice can be changed.
    if (dir.empty() && !guiders.default_dir().empty() && guiders.default_dir().filename() != kEmbeddedGuider)
        p.warn("guided.guider", "guided: no guider given; using " + guiders.default_dir().string() +
                                    ", the smallest qwen2-family checkpoint found where the model lies");
    auto guider = std::make_unique<ArGuider>(guiders.get(dir), env.tokenizer, o);
    if (!guider->bridge_warning().empty()) p.warn("guided.guider", "guided: " + guider->bridge_warning());
    out.unmask = std::make_unique<GuidedUnmask>(std::move(guider), g);
    out.compute = std::make_unique<FullCompute>();
    out.revision = std::make_unique<NoRevision>();
    return true;
}

}  // namespace

std::vector<std::string> revision_strategy_names() { return {"cover", "saber", "wino", "guided"}; }

bool make_revision_strategy(const DecodeSettings& s, const ModelConfig& config, int prompt_len, const StrategyEnv& env,
                            StrategyParams& params, Strategy& out) {
    if (s.strategy == "cover") return make_cover(s, config, prompt_len, params, out);
    if (s.strategy == "saber") return make_saber(s, config, prompt_len, params, out);
    if (s.strategy == "wino") return make_wino(s, config, prompt_len, params, out);
    if (s.strategy == "guided") return make_guided(s, config, env, params, out);
    return false;
}

}  // namespace dlm
