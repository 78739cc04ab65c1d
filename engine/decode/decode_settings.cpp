#include "decode/decode_settings.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include "decode/settings_schema.h"
#include "decode/transfer_schedule.h"
#include "util/machine_memory.h"
#include "util/error.h"

namespace dlm {

namespace {

template <class E, std::size_t K>
using NameTable = std::array<std::pair<E, std::string_view>, K>;

constexpr NameTable<SamplerFamily, 3> kSamplerNames{{
    {SamplerFamily::Auto, "auto"}, {SamplerFamily::Llada, "llada"}, {SamplerFamily::Dream, "dream"}}};
constexpr NameTable<Remasking, 2> kRemaskingNames{{
    {Remasking::LowConfidence, "low_confidence"}, {Remasking::Random, "random"}}};
constexpr NameTable<DreamAlg, 4> kAlgNames{{{DreamAlg::Origin, "origin"},
                                            {DreamAlg::MaskgitPlus, "maskgit_plus"},
                                            {DreamAlg::TopkMargin, "topk_margin"},
                                            {DreamAlg::Entropy, "entropy"}}};
constexpr NameTable<EosPolicy, 3> kEosNames{{{EosPolicy::None, "none"},
                                             {EosPolicy::LogitsEosInf, "logits_eos_inf"},
                                             {EosPolicy::ConfidenceEosEotInf, "confidence_eos_eot_inf"}}};
constexpr NameTable<ConfidenceSource, 3> kConfidenceNames{{{ConfidenceSource::Auto, "auto"},
                                                           {ConfidenceSource::Raw, "raw"},
                                                           {ConfidenceSource::Processed, "processed"}}};
constexpr NameTable<TrackKl, 3> kTrackKlNames{{{TrackKl::Auto, "auto"}, {TrackKl::On, "on"}, {TrackKl::Off, "off"}}};

template <class E, std::size_t K>
std::string_view name_of(const NameTable<E, K>& table, E v) {
    for (const auto& [e, n] : table)
        if (e == v) return n;
    return "?";
}

template <class E, std::size_t K>
E parse_enum(const NameTable<E, K>& table, std::string_view key, std::string_view value) {
    for (const auto& [e, n] : table)
        if (n == value) return e;
    std::string accepted;
    for (const auto& [e, n] : table) accepted += (accepted.empty() ? "" : ", ") + std::string(n);
    throw Error("setting '" + std::string(key) + "': unknown value '" + std::string(value) +
                "' (accepted: " + accepted + ")");
}

std::string trim(std::string_view s) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return std::string(s.substr(b, e - b));
}

long long parse_integer(std::string_view key, std::string_view text, long long lo, long long hi) {
    long long v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
        throw Error("setting '" + std::string(key) + "': '" + std::string(text) + "' is not an integer");
    if (v < lo || v > hi)
        throw Error("setting '" + std::string(key) + "': " + std::string(text) + " is outside [" +
                    std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
}

uint64_t parse_seed(std::string_view key, std::string_view text) {
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
        throw Error("setting '" + std::string(key) + "': '" + std::string(text) +
                    "' is not a non-negative integer below 2^64");
    return v;
}

double parse_real(std::string_view key, std::string_view text) {
    // strtod accepts what users type ("1e-3", "0.95", ".5"); from_chars for double is not in every libstdc++.
    std::string s(text);
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
        throw Error("setting '" + std::string(key) + "': '" + s + "' is not a finite number");
    return v;
}


constexpr int kMaxLength = 1 << 20;

}  // namespace

std::string format_real(double v) {
    // Shortest text that reads back to the same double.
    for (int prec = 6; prec <= 17; ++prec) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (std::strtod(buf, nullptr) == v) return buf;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string_view sampler_family_name(SamplerFamily v) { return name_of(kSamplerNames, v); }
std::string_view remasking_name(Remasking v) { return name_of(kRemaskingNames, v); }
std::string_view dream_alg_name(DreamAlg v) { return name_of(kAlgNames, v); }
std::string_view eos_policy_name(EosPolicy v) { return name_of(kEosNames, v); }
std::string_view confidence_source_name(ConfidenceSource v) { return name_of(kConfidenceNames, v); }
std::string_view track_kl_name(TrackKl v) { return name_of(kTrackKlNames, v); }

std::vector<std::string> DecodeSettings::known_keys() {
    std::vector<std::string> keys;
    for (const auto& s : settings_schema())
        if (!s.is_parameter()) keys.push_back(s.key);
    return keys;
}

void DecodeSettings::set(std::string_view raw_key, std::string_view raw_value) {
    const std::string key = trim(raw_key);
    const std::string value = trim(raw_value);
    if (key.empty()) throw Error("setting with an empty name (expected key=value)");
    if (key.find('.') != std::string::npos) {
        if (key.front() == '.' || key.back() == '.')
            throw Error("strategy parameter '" + key + "': expected <namespace>.<name>");
        if (!find_setting_spec(key)) throw Error(unknown_setting_message(key));
        params[key] = value;
        return;
    }
    // Integer ranges are the schema's; real ranges are checked by validate(), which names the
    // setting under its control instead of refusing the text.
    const auto integer = [&](long long cap) {
        const SettingSpec& spec = setting_spec(key);
        return parse_integer(key, value, static_cast<long long>(spec.min), std::min<long long>(cap, static_cast<long long>(spec.max)));
    };
    if (key == "sampler") sampler = parse_enum(kSamplerNames, key, value);
    else if (key == "gen_length") gen_length = int(integer(kMaxLength));
    else if (key == "steps") steps = int(integer(kMaxLength));
    else if (key == "block_length") block_length = int(integer(kMaxLength));
    else if (key == "temperature") temperature = parse_real(key, value);
    else if (key == "top_p") top_p = parse_real(key, value);
    else if (key == "top_k") top_k = int(integer(std::numeric_limits<int>::max()));
    else if (key == "cfg_scale") cfg_scale = parse_real(key, value);
    else if (key == "remasking") remasking = parse_enum(kRemaskingNames, key, value);
    else if (key == "alg") alg = parse_enum(kAlgNames, key, value);
    else if (key == "alg_temp") alg_temp = parse_real(key, value);
    else if (key == "eps") eps = parse_real(key, value);
    else if (key == "eos") eos = parse_enum(kEosNames, key, value);
    else if (key == "confidence") confidence = parse_enum(kConfidenceNames, key, value);
    else if (key == "seed") seed = parse_seed(key, value);
    else if (key == "strategy") {
        if (value.empty()) throw Error("setting 'strategy': empty name");
        const auto& known = setting_spec("strategy").choices;
        if (std::find(known.begin(), known.end(), value) == known.end()) {
            std::string list;
            for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
            throw Error("unknown strategy '" + value + "' (known: " + list + ")");
        }
        strategy = value;
    } else if (key == "track_kl") track_kl = parse_enum(kTrackKlNames, key, value);
    else if (key == "display_top_k") display_top_k = int(integer(64));
    else throw Error(unknown_setting_message(key));
}

void DecodeSettings::set(std::string_view kv) {
    auto eq = kv.find('=');
    if (eq == std::string_view::npos)
        throw Error("setting '" + std::string(kv) + "': expected key=value");
    set(kv.substr(0, eq), kv.substr(eq + 1));
}

std::map<std::string, std::string> DecodeSettings::to_map() const {
    std::map<std::string, std::string> m = params;
    m["sampler"] = std::string(sampler_family_name(sampler));
    m["gen_length"] = std::to_string(gen_length);
    m["steps"] = std::to_string(steps);
    m["block_length"] = std::to_string(block_length);
    m["temperature"] = format_real(temperature);
    m["top_p"] = format_real(top_p);
    m["top_k"] = std::to_string(top_k);
    m["cfg_scale"] = format_real(cfg_scale);
    m["remasking"] = std::string(remasking_name(remasking));
    m["alg"] = std::string(dream_alg_name(alg));
    m["alg_temp"] = format_real(alg_temp);
    m["eps"] = format_real(eps);
    m["eos"] = std::string(eos_policy_name(eos));
    m["confidence"] = std::string(confidence_source_name(confidence));
    m["seed"] = std::to_string(seed);
    m["strategy"] = strategy;
    m["track_kl"] = std::string(track_kl_name(track_kl));
    m["display_top_k"] = std::to_string(display_top_k);
    return m;
}

void apply_follow_rules(DecodeSettings& s, const std::set<std::string>& given) {
    for (const auto& spec : settings_schema()) {
        if (spec.follows.empty() || given.count(spec.key) || !given.count(spec.follows)) continue;
        const auto values = s.to_map();
        s.set(spec.key, values.at(spec.follows));
    }
}

SamplerFamily effective_sampler(const DecodeSettings& s, const ModelConfig& config) {
    if (s.sampler != SamplerFamily::Auto) return s.sampler;
    return config.family == Family::Dream ? SamplerFamily::Dream : SamplerFamily::Llada;
}

ConfidenceSource effective_confidence(const DecodeSettings& s, const ModelConfig& config) {
    if (s.confidence != ConfidenceSource::Auto) return s.confidence;
    // LLaDA reads confidence from the un-tempered softmax; Dream from the processed distribution.
    return effective_sampler(s, config) == SamplerFamily::Dream ? ConfidenceSource::Processed
                                                                : ConfidenceSource::Raw;
}

int effective_block_length(const DecodeSettings& s, const ModelConfig& config) {
    if (effective_sampler(s, config) == SamplerFamily::Dream) return s.gen_length;
    return block_or_generation(s);
}

int block_or_generation(const DecodeSettings& s) { return s.block_length > 0 ? s.block_length : s.gen_length; }

int block_that_tiles(int gen_length, int block_length) {
    if (block_length <= 0 || gen_length <= 0) return block_length;
    int block = std::min(block_length, gen_length);
    while (gen_length % block != 0) --block;
    return block;
}

bool effective_track_kl(const DecodeSettings& s, const ModelConfig& config, int prompt_len) {
    if (s.track_kl != TrackKl::Auto) return s.track_kl == TrackKl::On;
    const double bytes = double(config.vocab_size) * double(prompt_len + s.gen_length) * sizeof(float);
    return bytes <= kAutoKlBudgetBytes;
}

// Classifier-free guidance scales past this only amplify float error (the usual range is 0-3).
constexpr double kMaxCfgScale = 1000.0;

std::vector<SettingsIssue> validate(const DecodeSettings& s, const ModelConfig& config, int prompt_len) {
    std::vector<SettingsIssue> out;
    auto error = [&](std::string key, std::string msg) {
        out.push_back({SettingsIssue::Severity::Error, std::move(key), std::move(msg)});
    };
    auto warning = [&](std::string key, std::string msg) {
        out.push_back({SettingsIssue::Severity::Warning, std::move(key), std::move(msg)});
    };
    const auto num = [](double v) { return format_real(v); };

    if (!config.is_diffusion())
        error("", "the model family '" + std::string(family_name(config.family)) +
                      "' is autoregressive; only masked diffusion models (llada, dream) can be decoded");
    if (config.mask_token_id < 0 || (config.vocab_size > 0 && config.mask_token_id >= config.vocab_size))
        error("", "the model has no valid mask token id (" + std::to_string(config.mask_token_id) + ")");
    if (prompt_len <= 0) error("", "the prompt is empty; a diffusion model needs at least one prompt token");

    const SamplerFamily sampler = effective_sampler(s, config);
    const bool dream = sampler == SamplerFamily::Dream;

    if (s.gen_length <= 0) error("gen_length", "gen_length must be positive (got " + std::to_string(s.gen_length) + ")");
    if (s.steps <= 0) error("steps", "steps must be positive (got " + std::to_string(s.steps) + ")");
    if (s.block_length < 0) error("block_length", "block_length must be 0 (whole generation) or positive");
    if (config.max_seq_len > 0 && prompt_len + s.gen_length > config.max_seq_len)
        error("gen_length", "prompt (" + std::to_string(prompt_len) + " tokens) + gen_length (" +
                                std::to_string(s.gen_length) + ") = " + std::to_string(prompt_len + s.gen_length) +
                                " exceeds the model's context of " + std::to_string(config.max_seq_len) + " tokens");
    else if (config.trained_seq_len > 0 && prompt_len + s.gen_length > config.trained_seq_len)
        warning("gen_length", "the model was trained on sequences of at most " + std::to_string(config.trained_seq_len) +
                                  " tokens (training.json); prompt (" + std::to_string(prompt_len) +
                                  " tokens) + gen_length (" + std::to_string(s.gen_length) + ") = " +
                                  std::to_string(prompt_len + s.gen_length) +
                                  " is past that, where its answers fall apart; gen_length " +
                                  std::to_string(std::max(0, config.trained_seq_len - prompt_len)) +
                                  " or less stays within it");
    // One step holds the logits of every masked row (x2 with CFG) over the whole vocabulary in fp32,
    // plus the KL store when it is kept. Past half the machine's memory the system would kill the
    // run (Linux overcommits; no allocation fails first), so it is refused here, with the numbers.
    if (s.gen_length > 0 && config.vocab_size > 0) {
        const double vocab = double(config.vocab_size);
        double bytes = double(s.gen_length) * (s.cfg_scale > 0 ? 2.0 : 1.0) * vocab * sizeof(float);
        if (prompt_len > 0 && effective_track_kl(s, config, prompt_len)) bytes += vocab * double(prompt_len + s.gen_length) * sizeof(float);
        const double ram = physical_memory_bytes();
        if (ram > 0 && bytes > 0.5 * ram) {
            char buf[256];
            std::snprintf(buf, sizeof buf,
                          "gen_length %d needs %.1f GB for one step's logits (%d rows x %d vocabulary x 4 bytes%s), "
                          "more than half of this machine's %.1f GB; use a shorter gen_length",
                          s.gen_length, bytes / 1e9, s.gen_length * (s.cfg_scale > 0 ? 2 : 1), config.vocab_size,
                          s.cfg_scale > 0 ? ", CFG doubles the rows" : "", ram / 1e9);
            error("gen_length", buf);
        }
    }
    if (config.family == Family::Dream && prompt_len + s.gen_length > 2048)
        warning("gen_length", "Dream is documented for a context (prompt + output) of at most 2048 tokens; "
                              "quality beyond that is untested");

    if (!(s.temperature >= 0)) error("temperature", "temperature must be >= 0 (got " + num(s.temperature) + ")");
    else if (!std::isfinite(s.temperature)) error("temperature", "temperature must be a finite number");
    else if (s.temperature > 10) warning("temperature", "temperature " + num(s.temperature) + " is very high; "
                                                        "samples will be close to uniform noise");
    if (!(s.top_p > 0 && s.top_p <= 1)) error("top_p", "top_p must be in (0, 1] (got " + num(s.top_p) + "; 1 = off)");
    if (s.top_k < 0) error("top_k", "top_k must be >= 0 (0 = off)");
    if (config.vocab_size > 0 && s.top_k > config.vocab_size)
        warning("top_k", "top_k " + std::to_string(s.top_k) + " is larger than the vocabulary (" +
                             std::to_string(config.vocab_size) + "); it has no effect");
    if (s.temperature == 0 && (s.top_p < 1 || s.top_k > 0))
        warning("temperature", "top_p / top_k have no effect on the sampled token at temperature 0 (argmax)");
    if (!(s.cfg_scale >= 0)) error("cfg_scale", "cfg_scale must be >= 0 (0 = off)");
    // (1 + w) * cond - w * uncond overflows float logits long before w reaches infinity.
    else if (!(s.cfg_scale <= kMaxCfgScale))
        error("cfg_scale", "cfg_scale " + num(s.cfg_scale) + " is over the limit of " + num(kMaxCfgScale));
    else if (s.cfg_scale > 0) {
        if (s.cfg_scale > 20) warning("cfg_scale", "cfg_scale " + num(s.cfg_scale) + " is far outside the usual 0-3 range");
    }
    if (s.display_top_k < 0 || s.display_top_k > 64)
        error("display_top_k", "display_top_k must be in [0, 64]");

    if (s.eos != EosPolicy::None && config.eos_token_id < 0)
        error("eos", "eos=" + std::string(eos_policy_name(s.eos)) + " needs an EOS token, and the model config has none");

    if (dream) {
        if (!(s.eps > 0 && s.eps < 1)) error("eps", "eps must be in (0, 1) (got " + num(s.eps) + ")");
        if (!(s.alg_temp >= 0)) error("alg_temp", "alg_temp must be >= 0 (0 = deterministic top-k positions)");
        else if (s.alg_temp > 0.2 && s.alg != DreamAlg::Origin)
            warning("alg_temp", "alg_temp above 0.2 is reported to break Dream's decoding (DreamLM/Dream #24)");
        if (s.alg_temp > 0 && s.alg == DreamAlg::Origin)
            warning("alg_temp", "alg_temp has no effect with alg=origin (positions are drawn independently)");
        if (s.block_length > 0 && s.block_length != s.gen_length)
            warning("block_length", "the dream sampler has no blocks; block_length is ignored");
        if (s.remasking != Remasking::LowConfidence)
            warning("remasking", "remasking is a llada sampler setting; the dream sampler ignores it");
        if (s.steps > s.gen_length && s.gen_length > 0) {
            const std::string head = std::to_string(s.steps) + " steps for " + std::to_string(s.gen_length) + " tokens: ";
            if (s.alg == DreamAlg::Origin || !(s.eps > 0 && s.eps < 1)) {
                warning("steps", head + "at least " + std::to_string(s.steps - s.gen_length) +
                                     " steps will reveal nothing (full forward passes that change nothing)");
            } else {
                // The count the schedule gives (at steps = gen_length only its first step is idle).
                const auto timesteps = dream_timesteps(s.steps, s.eps);
                int masks = s.gen_length, idle = 0;
                for (int i = 0; i < s.steps; ++i) {
                    const int k = dream_transfer_count(timesteps, i, masks);
                    idle += k == 0;
                    masks -= k;
                }
                warning("steps", head + "Dream's schedule reveals nothing at " + std::to_string(idle) +
                                     " of them (full forward passes that change nothing)");
            }
        }
    } else if (s.gen_length > 0 && s.steps > 0 && s.block_length >= 0) {
        const int block = block_or_generation(s);
        if (block > s.gen_length) {
            error("block_length", "block_length " + std::to_string(block) + " is larger than gen_length " +
                                      std::to_string(s.gen_length) + " (use 0 or gen_length for a single block)");
        } else if (s.gen_length % block != 0) {
            error("block_length", "gen_length " + std::to_string(s.gen_length) + " is not a multiple of block_length " +
                                      std::to_string(block) + " (LLaDA splits the generation into equal blocks)");
        } else {
            const int blocks = s.gen_length / block;
            if (s.steps % blocks != 0) {
                error("steps", "steps " + std::to_string(s.steps) + " is not a multiple of the number of blocks " +
                                   std::to_string(blocks) + " (gen_length / block_length); try steps = " +
                                   std::to_string(std::max(blocks, (s.steps / blocks) * blocks)));
            } else {
                const int per_block = s.steps / blocks;
                // Fewer steps than tokens is legal: the remainder is revealed in each block's first steps.
                if (per_block > block)
                    warning("steps", std::to_string(per_block) + " steps per block for " + std::to_string(block) +
                                         " tokens per block: the last " + std::to_string(per_block - block) +
                                         " steps of every block reveal nothing (full forward passes wasted)");
            }
        }
        if (s.alg != DreamAlg::Entropy || s.alg_temp != 0)
            warning("alg", "alg / alg_temp are dream sampler settings; the llada sampler ignores them");
        if (s.remasking == Remasking::Random && s.confidence != ConfidenceSource::Auto)
            warning("confidence", "remasking=random ignores the confidence source");
    }
    if (s.eos == EosPolicy::ConfidenceEosEotInf && config.eot_token_id < 0)
        warning("eos", "the model has no end-of-turn token; confidence_eos_eot_inf only defers EOS");
    // The parameters the strategy reads are checked by the strategy (their ranges); here, those
    // it would never look at: a key no strategy declares is a typo, another strategy's is ignored.
    const std::set<std::string> read = namespaces_of(s.strategy);
    for (const auto& [key, value] : s.params) {
        const SettingSpec* spec = find_setting_spec(key);
        if (!spec) error(key, unknown_setting_message(key));
        else if (!read.count(std::string(spec->name_space())))
            warning(key, "parameter '" + key + "' belongs to another strategy; '" + s.strategy + "' ignores it");
    }
    return out;
}

bool has_errors(const std::vector<SettingsIssue>& issues) {
    for (const auto& i : issues)
        if (i.is_error()) return true;
    return false;
}

std::string format_issues(const std::vector<SettingsIssue>& issues) {
    std::string out;
    for (const auto& i : issues) {
        if (!out.empty()) out += '\n';
        out += i.is_error() ? "error: " : "warning: ";
        out += i.message;
    }
    return out;
}

}  // namespace dlm
