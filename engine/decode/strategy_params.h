#pragma once
// Reading a strategy's "<namespace>.<name>" parameters (DecodeSettings::params) with range checks.
// A preset claims the namespaces it reads ("surelock", "threshold", ...): any key of a claimed
// namespace that no reader asked for is a typo and refused; keys of other namespaces are ignored
// with a warning. One namespace can serve several presets ("surelock.epsilon" configures
// "surelock", "surelock+selection" and "surelock+freecache" alike).
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "decode/decode_settings.h"

namespace dlm {

class StrategyParams {
public:
    explicit StrategyParams(const std::map<std::string, std::string>& params) : params_(params) {}

    // This strategy reads `ns.*` keys.
    void claim(std::string_view ns) { claimed_.insert(std::string(ns)); }
    bool has(const std::string& key) const { return params_.count(key) != 0; }

    // Typed readers; each marks the key as read. Throw dlm::Error naming the key, the value and the
    // accepted range for a malformed or out-of-range value.
    double real(const std::string& key, double fallback, double lo, double hi);
    long long integer(const std::string& key, long long fallback, long long lo, long long hi);
    bool flag(const std::string& key, bool fallback);  // on/off, true/false, 1/0, yes/no
    std::string choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& allowed);

    // A legal but probably unintended combination (reported with the strategy's issues).
    void warn(const std::string& key, const std::string& message);

    // Throws dlm::Error for a key of a claimed namespace that was never read; returns the warnings
    // (keys of other namespaces, warn() calls).
    std::vector<SettingsIssue> finish(const std::string& strategy) const;

private:
    const std::string* find(const std::string& key);
    const std::map<std::string, std::string>& params_;
    std::set<std::string> claimed_;
    std::set<std::string> read_;
    std::vector<SettingsIssue> warnings_;
};

}  // namespace dlm
