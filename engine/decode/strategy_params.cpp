#include "decode/strategy_params.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "util/error.h"

namespace dlm {

namespace {

std::string range_text(double lo, double hi) {
    auto num = [](double v) {
        if (std::isinf(v)) return std::string(v > 0 ? "inf" : "-inf");
        char buf[48];
        std::snprintf(buf, sizeof buf, "%g", v);
        return std::string(buf);
    };
    return "[" + num(lo) + ", " + num(hi) + "]";
}

std::string namespace_of(const std::string& key) {
    const auto dot = key.find('.');
    return dot == std::string::npos ? key : key.substr(0, dot);
}

}  // namespace

const std::string* StrategyParams::find(const std::string& key) {
    read_.insert(key);
    auto it = params_.find(key);
    return it == params_.end() ? nullptr : &it->second;
}

double StrategyParams::real(const std::string& key, double fallback, double lo, double hi) {
    const std::string* v = find(key);
    if (!v) return fallback;
    errno = 0;
    char* end = nullptr;
    const double x = std::strtod(v->c_str(), &end);
    if (v->empty() || end != v->c_str() + v->size() || errno == ERANGE || std::isnan(x))
        throw Error("parameter " + key + "='" + *v + "' is not a number");
    // "inf" passes strtod; no parameter means infinity (an open range is "no upper bound", not a value).
    if (std::isinf(x)) throw Error("parameter " + key + "='" + *v + "' is not a finite number");
    if (x < lo || x > hi) throw Error("parameter " + key + "=" + *v + " is outside " + range_text(lo, hi));
    return x;
}

long long StrategyParams::integer(const std::string& key, long long fallback, long long lo, long long hi) {
    const std::string* v = find(key);
    if (!v) return fallback;
    errno = 0;
    char* end = nullptr;
    const long long x = std::strtoll(v->c_str(), &end, 10);
    if (v->empty() || end != v->c_str() + v->size() || errno == ERANGE)
        throw Error("parameter " + key + "='" + *v + "' is not an integer");
    if (x < lo || x > hi)
        throw Error("parameter " + key + "=" + *v + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "]");
    return x;
}

bool StrategyParams::flag(const std::string& key, bool fallback) {
    const std::string* v = find(key);
    if (!v) return fallback;
    if (*v == "on" || *v == "true" || *v == "1" || *v == "yes") return true;
    if (*v == "off" || *v == "false" || *v == "0" || *v == "no") return false;
    throw Error("parameter " + key + "='" + *v + "' is not a switch (use on or off)");
}

std::string StrategyParams::choice(const std::string& key, const std::string& fallback,
                                   const std::vector<std::string>& allowed) {
    const std::string* v = find(key);
    if (!v) return fallback;
    std::string list;
    for (const auto& a : allowed) {
        if (a == *v) return a;
        list += (list.empty() ? "" : ", ") + a;
    }
    throw Error("parameter " + key + "='" + *v + "' is not one of: " + list);
}

void StrategyParams::warn(const std::string& key, const std::string& message) {
    warnings_.push_back({SettingsIssue::Severity::Warning, key, message});
}

std::vector<SettingsIssue> StrategyParams::finish(const std::string& strategy) const {
    std::vector<SettingsIssue> out = warnings_;
    for (const auto& [key, value] : params_) {
        if (read_.count(key)) continue;
        if (claimed_.count(namespace_of(key)))
            throw Error("strategy '" + strategy + "' has no parameter '" + key + "'");
        out.push_back({SettingsIssue::Severity::Warning, key,
                       "parameter '" + key + "' belongs to another strategy; '" + strategy + "' ignores it"});
    }
    return out;
}

}  // namespace dlm
