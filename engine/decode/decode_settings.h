#pragma once
// Every knob of a decode run. Plain values: the CLI fills
// them from `key=value` arguments, the app from its controls, and the trace header records them
// with to_map() so that a run can be replayed exactly.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/model_config.h"

namespace dlm {

// Which reference sampler drives the unmasking. Auto = the model family's own (llada -> llada,
// dream -> dream). Any diffusion model can run either one; Dream's logit shift is a property of
// the model (ModelConfig::shifted_logits), not of the sampler.
enum class SamplerFamily { Auto, Llada, Dream };
// LLaDA remasking rule: commit the most confident predictions, or uniformly random positions.
enum class Remasking { LowConfidence, Random };
// Dream's `alg`.
enum class DreamAlg { Origin, MaskgitPlus, TopkMargin, Entropy };
// none = the reference; logits_eos_inf = EOS can never be sampled; confidence_eos_eot_inf = EOS
// and EoT may be sampled but are committed last (the intended behaviour of LLaDA's flag, PR #139).
enum class EosPolicy { None, LogitsEosInf, ConfidenceEosEotInf };
// Which distribution a confidence is read from: raw = softmax(logits) at T = 1 (LLaDA,
// SureLock); processed = after temperature/top-k/top-p (Dream). Auto = the sampler's reference.
enum class ConfidenceSource { Auto, Raw, Processed };
// Keep each position's previous raw posterior to report KL(p_t || p_{t-1}). Auto = on when the
// store (vocab x canvas floats) fits kAutoKlBudgetBytes.
enum class TrackKl { Auto, On, Off };

std::string_view sampler_family_name(SamplerFamily v);  // "auto", "llada", "dream"
std::string_view remasking_name(Remasking v);           // "low_confidence", "random"
std::string_view dream_alg_name(DreamAlg v);            // "origin", "maskgit_plus", "topk_margin", "entropy"
std::string_view eos_policy_name(EosPolicy v);          // "none", "logits_eos_inf", "confidence_eos_eot_inf"
std::string_view confidence_source_name(ConfidenceSource v);  // "auto", "raw", "processed"
std::string_view track_kl_name(TrackKl v);              // "auto", "on", "off"

// The shortest text that reads back to the same double ("0.7", "1e-05"), as to_map() writes reals.
std::string format_real(double v);

inline constexpr double kAutoKlBudgetBytes = 256.0 * 1024 * 1024;

struct DecodeSettings {
    SamplerFamily sampler = SamplerFamily::Auto;
    int gen_length = 128;
    int steps = 128;
    int block_length = 0;  // 0 = one block over the whole generation (LLaDA); ignored by dream
    double temperature = 0.0;
    double top_p = 1.0;    // 1 = off
    int top_k = 0;         // 0 = off
    double cfg_scale = 0.0;  // 0 = off; > 0 runs a second, prompt-masked batch item
    Remasking remasking = Remasking::LowConfidence;
    DreamAlg alg = DreamAlg::Entropy;
    double alg_temp = 0.0;   // dream: 0 = top-k positions; > 0 = sample positions by softmax(conf/alg_temp)
    double eps = 1e-3;       // dream: timesteps = linspace(1, eps, steps + 1)
    EosPolicy eos = EosPolicy::None;
    ConfidenceSource confidence = ConfidenceSource::Auto;
    uint64_t seed = 0;
    std::string strategy = "baseline";
    TrackKl track_kl = TrackKl::Auto;
    int display_top_k = 5;   // candidates per position in the trace
    // Strategy parameters, keys of the form "<namespace>.<name>" (e.g. "surelock.epsilon";
    // settings_schema.h says which strategies read each namespace).
    // The strategy that reads them validates them.
    std::map<std::string, std::string> params;

    // Sets one setting from text, e.g. set("temperature", "0.2"), set("alg", "topk_margin").
    // Keys containing a '.' are stored in `params` as given. Throws dlm::Error naming the key and
    // the accepted values for an unknown key or a malformed value.
    void set(std::string_view key, std::string_view value);
    // Parses "key=value"; throws dlm::Error if there is no '='.
    void set(std::string_view key_equals_value);
    // Every setting as key -> value text (params included under their own keys); set() accepts
    // each pair back.
    std::map<std::string, std::string> to_map() const;
    // The keys set() knows (without params), for help texts and error messages.
    static std::vector<std::string> known_keys();
};

// A setting that was not given takes the value of the one it follows (the schema's `follows`:
// steps follows gen_length, one step per token) when that one was given.
void apply_follow_rules(DecodeSettings& s, const std::set<std::string>& given);

// Settings with Auto values resolved against a model and a prompt.
SamplerFamily effective_sampler(const DecodeSettings& s, const ModelConfig& config);
ConfidenceSource effective_confidence(const DecodeSettings& s, const ModelConfig& config);
int effective_block_length(const DecodeSettings& s, const ModelConfig& config);  // dream: gen_length
// The settings' block length, or the whole generation when it is 0 (one block).
int block_or_generation(const DecodeSettings& s);
// Blocks must tile the canvas: the largest block length not above `block_length` that divides
// `gen_length` (48 with 32: 24). 0 (one block) and lengths not yet positive come back unchanged.
int block_that_tiles(int gen_length, int block_length);
bool effective_track_kl(const DecodeSettings& s, const ModelConfig& config, int prompt_len);

struct SettingsIssue {
    enum class Severity { Error, Warning };
    Severity severity = Severity::Error;
    std::string key;      // the setting concerned ("block_length", ...), empty if several
    std::string message;  // a full sentence a user can act on
    bool is_error() const { return severity == Severity::Error; }
};

// Checks the settings against the model and the templated prompt length. Errors make a run
// impossible or meaningless (DecodeSession refuses them); warnings explain a legal but likely
// unintended choice (wasted zero-reveal steps, ignored knobs, another strategy's parameters, ...).
// Parameters the schema does not declare are errors.
std::vector<SettingsIssue> validate(const DecodeSettings& s, const ModelConfig& config, int prompt_len);
bool has_errors(const std::vector<SettingsIssue>& issues);
// "error: ...\nwarning: ..." one issue per line.
std::string format_issues(const std::vector<SettingsIssue>& issues);

}  // namespace dlm
