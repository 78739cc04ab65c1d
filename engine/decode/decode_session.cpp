#include "decode/decode_session.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "decode/decode_canvas.h"
#include "decode/flops.h"
#include "decode/revision_counters.h"
#include "decode/shadow_columns.h"
#include "decode/strategy.h"
#include "text/chat_template.h"
#include "util/error.h"

#ifndef DLM_VERSION
#define DLM_VERSION "dev"
#endif

namespace dlm {

// Buffers reused every step so that a step allocates nothing vocabulary-sized.
struct DecodeSession::Runtime {
    int items = 1;  // 2 with classifier-free guidance
    bool track_kl = false;
    bool user_kl = false;  // the settings track KL (shown for every position), not only the policy
    std::vector<uint8_t> kl_wanted;  // by position, when only the policy reads KL
    std::vector<std::unique_ptr<KvCache>> caches;
    std::unique_ptr<PosteriorStore> posteriors;
    std::vector<int32_t> suppress;
    std::vector<int32_t> uncond_tokens;  // CFG: the canvas with every prompt position masked
    std::vector<int32_t> rows, head_rows, head_index, stat_positions;
    std::vector<uint8_t> computed;
    std::vector<RowStats> stats;
    std::vector<const RowStats*> by_pos;
    // Revision policies: the forward's input when it differs from the canvas (COVER masks its
    // seeds), each position's current token for RowStats::query_p, and the run's revision counters.
    std::vector<int32_t> input_tokens, query_tokens;
    RevisionCounter revision_counter;
    std::vector<PosEvent> events;  // the canvas's events, as the revision counter observes them
    ShadowColumns shadow;          // WINO's shadow block
    std::unordered_map<int32_t, std::string> text_cache;

    const std::string& text(const Tokenizer& tok, int32_t id) {
        auto it = text_cache.find(id);
        if (it == text_cache.end()) it = text_cache.emplace(id, tok.token_text(id)).first;
        return it->second;
    }
};

namespace {

std::vector<SettingsIssue> errors_only(const std::vector<SettingsIssue>& issues) {
    std::vector<SettingsIssue> out;
    for (const auto& i : issues)
        if (i.is_error()) out.push_back(i);
    return out;
}

}  // namespace

DecodeSession::DecodeSession(Backend& backend, const Tokenizer& tokenizer, const ModelConfig& config,
                             std::vector<int32_t> prompt_ids, DecodeSettings settings, DecodeLabels labels,
                             GuiderCache* guiders)
    : backend_(backend),
      tokenizer_(tokenizer),
      config_(config),
      settings_(std::move(settings)),
      labels_(std::move(labels)),
      rt_(std::make_unique<Runtime>()) {
    const int prompt_len = static_cast<int>(prompt_ids.size());
    auto issues = validate(settings_, config_, prompt_len);
    if (has_errors(issues)) throw Error("cannot decode with these settings:\n" + format_issues(errors_only(issues)));
    for (std::size_t i = 0; i < prompt_ids.size(); ++i) {
        const int32_t id = prompt_ids[i];
        if (id < 0 || id >= config_.vocab_size)
            throw Error("prompt token " + std::to_string(i) + " has id " + std::to_string(id) +
                        ", outside the model's vocabulary [0, " + std::to_string(config_.vocab_size) + ")");
        if (id == config_.mask_token_id)
            issues.push_back({SettingsIssue::Severity::Warning, "",
                              "the prompt contains the mask token at position " + std::to_string(i) +
                                  "; it stays fixed (prompt positions are never decoded)"});
    }
    if (backend_.config().vocab_size != config_.vocab_size || backend_.config().d_model != config_.d_model)
        throw Error("decode session: the backend runs a different model than the config given");

    strategy_ = std::make_unique<Strategy>(make_strategy(settings_, config_, prompt_len, StrategyEnv{&tokenizer_, guiders}));
    issues.insert(issues.end(), strategy_->issues.begin(), strategy_->issues.end());
    warnings_ = std::move(issues);

    canvas_ = std::make_unique<DecodeCanvas>(std::move(prompt_ids), settings_.gen_length, config_.mask_token_id);
    const int n = canvas_->size();

    Runtime& rt = *rt_;
    rt.items = settings_.cfg_scale > 0 ? 2 : 1;
    rt.shadow.reset(n, strategy_->revision->shadow_capacity());
    if (rt.shadow.capacity() > 0 && !backend_.supports_attention_layout())
        throw Error("strategy '" + settings_.strategy + "' verifies through a shadow block (explicit position ids and "
                    "a custom attention mask), which the " + backend_.name() +
                    " backend does not support yet; run it on the CPU backend");
    for (int i = 0; i < rt.items; ++i) rt.caches.push_back(backend_.make_cache(n + (i == 0 ? rt.shadow.capacity() : 0)));
    rt.user_kl = effective_track_kl(settings_, config_, prompt_len);
    rt.track_kl = rt.user_kl || strategy_->compute->needs_posteriors();
    if (rt.track_kl) rt.posteriors = backend_.make_posterior_store(n);
    // The mask token is never a candidate: committing [MASK] would reveal nothing (the reference
    // would silently leave such a position masked). Trained models give it ~0 probability anyway.
    rt.suppress.push_back(config_.mask_token_id);
    if (settings_.eos == EosPolicy::LogitsEosInf) rt.suppress.push_back(config_.eos_token_id);
    rt.computed.assign(static_cast<std::size_t>(n), 0);
    rt.query_tokens.assign(static_cast<std::size_t>(n), -1);
    rt.revision_counter.reset(n);
    strategy_->revision->attach(backend_, *rt.caches[0]);
    rt.by_pos.assign(static_cast<std::size_t>(n), nullptr);
    if (rt.items == 2) {
        rt.uncond_tokens.assign(canvas_->tokens().begin(), canvas_->tokens().end());
        std::fill(rt.uncond_tokens.begin(), rt.uncond_tokens.begin() + canvas_->prompt_length(), config_.mask_token_id);
    }
    totals_.steps = 0;
}

DecodeSession::~DecodeSession() = default;

bool DecodeSession::finished() const { return strategy_->unmask->done(step_, *canvas_); }
int DecodeSession::planned_steps() const { return strategy_->unmask->planned_steps(); }
int DecodeSession::prompt_length() const { return canvas_->prompt_length(); }
int DecodeSession::canvas_length() const { return canvas_->size(); }
int DecodeSession::masks_left() const { return canvas_->masks_left(); }

std::vector<int32_t> DecodeSession::canvas() const {
    return {canvas_->tokens().begin(), canvas_->tokens().end()};
}

struct DecodeSession::Changes {
    int unmasked = 0;            // positions the unmask policy committed
    RevisionCounts revisions;    // remasks, replacements, flip-flops... of this step
};

StepTrace DecodeSession::step() {
    if (finished()) throw Error("decode session: step() called after the run finished");
    const auto t0 = std::chrono::steady_clock::now();
    canvas_->begin_step();
    plan_rows();
    const int shadow = forward();
    row_statistics();
    const Changes changes = commit_and_revise();
    StepTrace t = make_trace(changes, shadow);
    t.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    totals_.add_step(t);
    ++step_;
    return t;
}

// 1. Which rows to compute, and which generated positions get statistics. A shifted-logit model
//    (Dream) predicts position p from output row p - 1.
void DecodeSession::plan_rows() {
    Runtime& rt = *rt_;
    const DecodeCanvas& cv = *canvas_;
    const int n = cv.size();
    strategy_->compute->plan_rows(step_, cv, rt.rows);
    std::fill(rt.computed.begin(), rt.computed.end(), 0);
    int32_t prev = -1;
    for (int32_t r : rt.rows) {
        if (r < 0 || r >= n || r <= prev)
            throw Error("compute policy '" + std::string(strategy_->compute->name()) +
                        "' planned rows that are not ascending, unique positions of the canvas");
        rt.computed[static_cast<std::size_t>(r)] = 1;
        prev = r;
    }
    rt.head_rows.clear();
    rt.head_index.clear();
    rt.stat_positions.clear();
    for (int p = 0; p < n; ++p) {
        // The compute policy decides which positions get statistics: by default the generated
        // region; SureLock adds the prompt and drops locked positions. Under shifted logits
        // a prompt position 0 has no row that predicts it.
        if (config_.shifted_logits && p == 0 && cv.prompt_length() > 0) continue;
        if (!strategy_->compute->wants_stats(p, cv)) continue;
        const int src = config_.shifted_logits ? std::max(p - 1, 0) : p;
        if (!rt.computed[static_cast<std::size_t>(src)]) continue;
        if (rt.head_rows.empty() || rt.head_rows.back() != src) rt.head_rows.push_back(src);
        rt.head_index.push_back(static_cast<int32_t>(rt.head_rows.size()) - 1);
        rt.stat_positions.push_back(p);
    }
}

// 2. The forward: the conditional canvas (as the revision policy wants it seen, plus its shadow
//    columns), and the prompt-masked canvas for CFG.
int DecodeSession::forward() {
    Runtime& rt = *rt_;
    const DecodeCanvas& cv = *canvas_;
    std::vector<ForwardItem> batch(static_cast<std::size_t>(rt.items));
    for (int i = 0; i < rt.items; ++i) {
        ForwardItem& it = batch[static_cast<std::size_t>(i)];
        it.tokens = i == 0 ? cv.tokens() : std::span<const int32_t>(rt.uncond_tokens);
        it.rows = rt.rows;
        it.head_rows = rt.head_rows;
        it.cache = rt.caches[static_cast<std::size_t>(i)].get();
    }
    ForwardAdjustment adjust;
    strategy_->revision->adjust_forward(step_, cv, rt.rows, adjust);
    const std::string who = "revision policy '" + std::string(strategy_->revision->name()) + "'";
    if (!adjust.masked_inputs.empty()) {
        rt.input_tokens.assign(cv.tokens().begin(), cv.tokens().end());
        for (int32_t p : adjust.masked_inputs) {
            if (!cv.is_generated(p))
                throw Error(who + " masked position " + std::to_string(p) + " outside the generated region");
            rt.input_tokens[static_cast<std::size_t>(p)] = config_.mask_token_id;
        }
        batch[0].tokens = rt.input_tokens;
    }
    batch[0].kv_override = adjust.kv_override;
    batch[0].want_attention = adjust.want_attention;
    const int shadow = rt.shadow.extend(adjust.shadow, who, cv, rt.items, config_.shifted_logits, batch[0]);
    backend_.forward(batch);
    return shadow;
}

// 3. Per-position statistics and sampled tokens, for the canvas rows and the shadow rows.
void DecodeSession::row_statistics() {
    Runtime& rt = *rt_;
    const DecodeCanvas& cv = *canvas_;
    const int n = cv.size();
    RowStatsRequest req;
    req.item = 0;
    req.head_row_index = rt.head_index;
    req.positions = rt.stat_positions;
    req.sampling = {settings_.temperature, settings_.top_p, settings_.top_k};
    req.seed = settings_.seed;
    req.step = step_;
    req.suppress_ids = rt.suppress;
    if (rt.items == 2) {
        req.cfg_uncond_item = 1;
        req.cfg_scale = settings_.cfg_scale;
    }
    req.posteriors = rt.posteriors.get();
    req.update_posteriors = true;
    if (rt.posteriors && !rt.user_kl) {
        rt.kl_wanted.resize(static_cast<std::size_t>(n));
        for (int p = 0; p < n; ++p)
            rt.kl_wanted[static_cast<std::size_t>(p)] = strategy_->compute->wants_kl(p, cv) ? 1 : 0;
        req.kl_wanted_at = rt.kl_wanted;
    }
    req.display_top_k = settings_.display_top_k;
    for (int p = 0; p < n; ++p) rt.query_tokens[static_cast<std::size_t>(p)] = cv.is_masked(p) ? -1 : cv.token(p);
    req.query_token_at = rt.query_tokens;
    rt.stats = backend_.row_stats(req);
    if (rt.stats.size() != rt.stat_positions.size())
        throw Error("backend '" + backend_.name() + "' returned " + std::to_string(rt.stats.size()) +
                    " statistics rows for " + std::to_string(rt.stat_positions.size()) + " requested");
    std::fill(rt.by_pos.begin(), rt.by_pos.end(), nullptr);
    for (std::size_t i = 0; i < rt.stats.size(); ++i)
        rt.by_pos[static_cast<std::size_t>(rt.stat_positions[i])] = &rt.stats[i];
    rt.shadow.score(backend_, req, static_cast<int>(rt.head_rows.size()), cv);
}

// 4. Commit, revise, and let the compute policy react (lock/freeze).
DecodeSession::Changes DecodeSession::commit_and_revise() {
    Runtime& rt = *rt_;
    DecodeCanvas& cv = *canvas_;
    const int n = cv.size();
    const StepContext ctx{step_, settings_.seed, cv, rt.by_pos, rt.shadow.by_position()};
    const std::vector<Commit> commits = strategy_->unmask->choose(ctx);
    for (const Commit& c : commits) cv.unmask(c.pos, c.token, step_);
    Changes changes;
    changes.unmasked = static_cast<int>(commits.size());
    // the COVER paper, §4, §6.1: re-unmasks are judged here, before a revision may remask them again.
    rt.events.resize(static_cast<std::size_t>(n));
    for (int p = 0; p < n; ++p) rt.events[static_cast<std::size_t>(p)] = cv.event(p);
    changes.revisions = rt.revision_counter.observe_commits(rt.events);
    for (const Revision& r : strategy_->revision->revise(ctx)) {
        switch (r.kind) {
            case Revision::Kind::Remask: cv.remask(r.pos); break;
            case Revision::Kind::Replace:
                cv.replace(r.pos, r.token);
                if (cv.state(r.pos) == PosState::Seed) cv.set_state(r.pos, PosState::Active, PosEvent::None);
                break;
            case Revision::Kind::Keep: cv.set_state(r.pos, PosState::Active, PosEvent::Keep); break;
            case Revision::Kind::Seed: cv.set_state(r.pos, PosState::Seed, PosEvent::None); break;
        }
    }
    for (const StateChange& ch : strategy_->compute->after_step(ctx)) cv.set_state(ch.pos, ch.state, ch.event);
    if (rt.items == 2) {
        // The unconditional canvas follows every change of the generated region.
        std::copy(cv.tokens().begin() + cv.prompt_length(), cv.tokens().end(), rt.uncond_tokens.begin() + cv.prompt_length());
    }
    for (int p = 0; p < n; ++p) rt.events[static_cast<std::size_t>(p)] = cv.event(p);
    changes.revisions += rt.revision_counter.observe_revisions(rt.events);
    return changes;
}

// 5. The trace of the step.
StepTrace DecodeSession::make_trace(const Changes& changes, int shadow) const {
    Runtime& rt = *rt_;
    const DecodeCanvas& cv = *canvas_;
    const int n = cv.size();
    const int prompt_len = cv.prompt_length();
    StepTrace t;
    t.step = step_;
    t.block = strategy_->unmask->block_of_step(step_);
    t.strategy = strategy_->name;
    // A shadow block makes the forward N + B long with B more rows; the dense baseline stays the
    // plain step over the N canvas positions, so WINO's extra cost shows as a ratio above 1.
    const int m = static_cast<int>(rt.rows.size());
    t.rows_computed = m * rt.items + shadow;
    t.rows_total = n * rt.items;
    t.paper_flops = rt.items * paper_flops(config_, n + shadow, m + shadow);
    t.paper_flops_dense = rt.items * paper_flops_dense(config_, n);
    t.lm_head_flops = rt.items * lm_head_flops(config_, static_cast<int>(rt.head_rows.size()) + shadow);
    t.newly_unmasked = changes.unmasked;
    t.guider_flops = strategy_->unmask->guider_flops();
    strategy_->unmask->add_counters(t.counters);
    changes.revisions.add_to(t.counters);
    strategy_->compute->add_counters(t.counters);
    t.positions.resize(static_cast<std::size_t>(n - prompt_len));
    for (int p = prompt_len; p < n; ++p) {
        PositionTrace& pt = t.positions[static_cast<std::size_t>(p - prompt_len)];
        pt.pos = p - prompt_len;
        pt.state = cv.state(p);
        pt.event = cv.event(p);
        pt.token = cv.token(p);
        pt.text = rt.text(tokenizer_, pt.token);
        if (const RowStats* s = rt.by_pos[static_cast<std::size_t>(p)]) {
            pt.confidence = s->p_max;
            pt.entropy = s->entropy;
            pt.kl = s->kl_prev;
            pt.top.reserve(s->top.size());
            for (const TokenProb& c : s->top) pt.top.push_back({c.id, c.p, rt.text(tokenizer_, c.id)});
        }
    }
    return t;
}

bool DecodeSession::run(const std::function<bool(const StepTrace&)>& on_step) {
    while (!finished() && !cancel_.load()) {
        StepTrace t = step();
        if (on_step && !on_step(t)) break;
    }
    return finished();
}

TraceHeader DecodeSession::header() const {
    TraceHeader h;
    h.engine_version = DLM_VERSION;
    h.model = labels_.model;
    h.family = std::string(family_name(config_.family));
    h.d_model = config_.d_model;
    h.n_layers = config_.n_layers;
    h.n_heads = config_.n_heads;
    h.n_kv_heads = config_.n_kv_heads;
    h.d_ff = config_.d_ff;
    h.vocab_size = config_.vocab_size;
    h.tokenizer = tokenizer_.kind();
    h.backend = backend_.name();
    h.prompt = labels_.prompt_text;
    h.prompt_ids.assign(canvas_->tokens().begin(), canvas_->tokens().begin() + canvas_->prompt_length());
    h.prompt_pieces.reserve(h.prompt_ids.size());
    for (int32_t id : h.prompt_ids) h.prompt_pieces.push_back(tokenizer_.token_text(id));
    h.mask_id = config_.mask_token_id;
    h.end_ids = answer_end_ids();
    h.gen_length = settings_.gen_length;
    h.block_length = effective_block_length(settings_, config_);
    h.steps = settings_.steps;
    h.seed = settings_.seed;
    h.strategy = strategy_->name;
    // Auto values resolved, so the header says what actually ran and replays it under any model.
    DecodeSettings resolved = settings_;
    resolved.sampler = effective_sampler(settings_, config_);
    resolved.confidence = effective_confidence(settings_, config_);
    resolved.track_kl = rt_->track_kl ? TrackKl::On : TrackKl::Off;
    h.settings = resolved.to_map();
    h.requested = settings_.to_map();
    h.model_defaults = labels_.model_defaults;
    return h;
}

std::vector<int32_t> DecodeSession::answer_end_ids() const {
    std::vector<int32_t> ids{config_.eos_token_id};
    if (config_.eot_token_id >= 0 && config_.eot_token_id != config_.eos_token_id) ids.push_back(config_.eot_token_id);
    return ids;
}

TraceSummary DecodeSession::summary() const {
    TraceSummary s = totals_;
    const std::vector<int32_t> ends = answer_end_ids();
    std::vector<int32_t> answer;
    for (int p = canvas_->prompt_length(); p < canvas_->size(); ++p) {
        const int32_t id = canvas_->token(p);
        if (std::find(ends.begin(), ends.end(), id) != ends.end()) break;
        if (id == config_.mask_token_id) continue;
        answer.push_back(id);
    }
    s.text = tokenizer_.decode(answer, /*skip_special=*/true);
    s.masks_left = canvas_->masks_left();
    return s;
}

std::vector<int32_t> build_prompt(const ModelConfig& config, const Tokenizer& tokenizer,
                                  const ChatTemplate& chat_template, const std::string& user_text, bool chat) {
    if (user_text.empty()) throw Error("the prompt is empty; type some text to decode from");
    ChatTemplate form = chat_template;
    if (!chat) form.kind = ChatTemplateKind::None;  // raw, with the checkpoint's BOS rule
    return apply_chat_template(form, config, tokenizer, {ChatMessage{"user", user_text}});
}

std::vector<int32_t> build_prompt(const Checkpoint& checkpoint, const std::string& user_text, bool chat) {
    if (!checkpoint.tokenizer) throw Error("checkpoint " + checkpoint.dir.string() + " has no tokenizer loaded");
    return build_prompt(checkpoint.config(), *checkpoint.tokenizer, checkpoint.chat_template, user_text, chat);
}

}  // namespace dlm
