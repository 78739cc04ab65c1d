#pragma once
// Reading a strategy's "<namespace>.<name>" parameters (DecodeSettings::params). Defaults and
// accepted ranges come from the settings schema (settings_schema.h), so a reader cannot disagree
// with the CLI, the app or the docs. A strategy claims the namespaces it reads ("surelock",
// "threshold", ...): any key of a claimed namespace that no reader asked for is a typo and
// refused; keys of other namespaces are ignored (validate() warns about them, and refuses keys no
// strategy declares). One namespace can serve several
// strategies ("surelock.epsilon" configures "surelock", "surelock+selection" and
// "surelock+freecache" alike).
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "decode/decode_settings.h"

namespace dlm {

class StrategyParams {
public:
    StrategyParams(const std::map<std::string, std::string>& params, std::string strategy)
        : params_(params), strategy_(std::move(strategy)) {}

    // This strategy reads `ns.*` keys. Throws std::logic_error when the schema does not list the
    // strategy as a reader of `ns` (the schema and the builders must agree).
    void claim(std::string_view ns);
    bool has(const std::string& key) const { return params_.count(key) != 0; }

    // Typed readers with the schema's default and range; each marks the key as read. Throw
    // dlm::Error naming the key, the value and the accepted range for a malformed or out-of-range
    // value.
    double real(const std::string& key);
    long long integer(const std::string& key);
    bool flag(const std::string& key);  // on/off, true/false, 1/0, yes/no
    std::string choice(const std::string& key);
    std::string text(const std::string& key);  // free text ("" when not given)
    // Parameters whose default the schema describes as computed from other settings.
    double real_or(const std::string& key, double computed_default);
    long long integer_or(const std::string& key, long long computed_default);

    // A legal but probably unintended combination (reported with the strategy's issues).
    void warn(const std::string& key, const std::string& message);

    // Throws dlm::Error for a key of a claimed namespace that was never read, or one the schema
    // does not declare; returns the warn() calls.
    std::vector<SettingsIssue> finish() const;
    const std::set<std::string>& claimed() const { return claimed_; }

private:
    const std::string* find(const std::string& key);
    double parse_real(const std::string& key, const std::string& value) const;
    long long parse_integer(const std::string& key, const std::string& value) const;
    const std::map<std::string, std::string>& params_;
    std::string strategy_;
    std::set<std::string> claimed_;
    std::set<std::string> read_;
    std::vector<SettingsIssue> warnings_;
};

}  // namespace dlm
