#include "decode/strategy_params.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "decode/settings_schema.h"
#include "util/error.h"

namespace dlm {

namespace {

bool in_range(const SettingSpec& s, double x) {
    if (s.exclusive_min ? !(x > s.min) : !(x >= s.min)) return false;
    if (s.exclusive_max ? !(x < s.max) : !(x <= s.max)) return false;
    return true;
}

std::string namespace_of(const std::string& key) {
    const auto dot = key.find('.');
    return dot == std::string::npos ? key : key.substr(0, dot);
}

// The schema's entry for a key a builder reads, of the type it reads it as.
const SettingSpec& spec_of(const std::string& key, SettingType type) {
    const SettingSpec& s = setting_spec(key);
    if (s.type != type)
        throw std::logic_error("parameter '" + key + "' is read as " + std::string(setting_type_name(type)) +
                               " but declared as " + std::string(setting_type_name(s.type)));
    return s;
}

}  // namespace

void StrategyParams::claim(std::string_view ns) {
    const auto& readers = strategies_reading(ns);
    if (std::find(readers.begin(), readers.end(), strategy_) == readers.end())
        throw std::logic_error("strategy '" + strategy_ + "' reads '" + std::string(ns) +
                               ".*' but the settings schema does not list it as a reader");
    claimed_.insert(std::string(ns));
}

const std::string* StrategyParams::find(const std::string& key) {
    read_.insert(key);
    auto it = params_.find(key);
    return it == params_.end() ? nullptr : &it->second;
}

double StrategyParams::parse_real(const std::string& key, const std::string& v) const {
    const SettingSpec& s = spec_of(key, SettingType::Real);
    errno = 0;
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || std::isnan(x))
        throw Error("parameter " + key + "='" + v + "' is not a number");
    // "inf" passes strtod; no parameter means infinity (an open range is "no upper bound", not a value).
    if (std::isinf(x)) throw Error("parameter " + key + "='" + v + "' is not a finite number");
    if (!in_range(s, x)) throw Error("parameter " + key + "=" + v + " is outside " + setting_range_text(s));
    return x;
}

long long StrategyParams::parse_integer(const std::string& key, const std::string& v) const {
    const SettingSpec& s = spec_of(key, SettingType::Integer);
    errno = 0;
    char* end = nullptr;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE)
        throw Error("parameter " + key + "='" + v + "' is not an integer");
    if (!in_range(s, static_cast<double>(x))) throw Error("parameter " + key + "=" + v + " is outside " + setting_range_text(s));
    return x;
}

double StrategyParams::real(const std::string& key) {
    const std::string* v = find(key);
    return parse_real(key, v ? *v : setting_spec(key).default_value);
}

long long StrategyParams::integer(const std::string& key) {
    const std::string* v = find(key);
    return parse_integer(key, v ? *v : setting_spec(key).default_value);
}

double StrategyParams::real_or(const std::string& key, double computed_default) {
    spec_of(key, SettingType::Real);  // a declared key, even when it is not given
    const std::string* v = find(key);
    return v ? parse_real(key, *v) : computed_default;
}

long long StrategyParams::integer_or(const std::string& key, long long computed_default) {
    spec_of(key, SettingType::Integer);
    const std::string* v = find(key);
    return v ? parse_integer(key, *v) : computed_default;
}

bool StrategyParams::flag(const std::string& key) {
    const SettingSpec& s = spec_of(key, SettingType::Flag);
    const std::string* given = find(key);
    const std::string& v = given ? *given : s.default_value;
    if (const auto on = switch_value(v)) return *on;
    throw Error("parameter " + key + "='" + v + "' is not a switch (use on or off)");
}

std::string StrategyParams::choice(const std::string& key) {
    const SettingSpec& s = spec_of(key, SettingType::Choice);
    const std::string* given = find(key);
    const std::string& v = given ? *given : s.default_value;
    std::string list;
    for (const auto& a : s.choices) {
        if (a == v) return a;
        list += (list.empty() ? "" : ", ") + a;
    }
    throw Error("parameter " + key + "='" + v + "' is not one of: " + list);
}

std::string StrategyParams::text(const std::string& key) {
    spec_of(key, SettingType::Text);
    const std::string* v = find(key);
    return v ? *v : std::string();
}

void StrategyParams::warn(const std::string& key, const std::string& message) {
    warnings_.push_back({SettingsIssue::Severity::Warning, key, message});
}

std::vector<SettingsIssue> StrategyParams::finish() const {
    std::vector<SettingsIssue> out = warnings_;
    for (const auto& [key, value] : params_) {
        if (read_.count(key)) {
            // Given, but its condition does not hold: it changes nothing, which may be unintended.
            const std::string unmet = only_when_unmet(setting_spec(key), params_);
            if (!unmet.empty()) out.push_back({SettingsIssue::Severity::Warning, key, key + " has no effect: " + unmet});
            continue;
        }
        // Keys set straight into the map (not through DecodeSettings::set) meet the same check.
        if (!find_setting_spec(key)) throw Error(unknown_setting_message(key));
        if (claimed_.count(namespace_of(key)))
            throw Error("strategy '" + strategy_ + "' has no parameter '" + key + "'");
        // Another strategy's parameter: validate() warns about it, with the settings' other issues.
    }
    return out;
}

}  // namespace dlm
