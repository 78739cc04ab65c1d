#pragma once
// The CLI's argument parser: `--key value`, `--key=value`, repeatable options (`--set k=v`),
// flags and positionals. Every subcommand declares its options once (CommandSpec); the same
// declaration drives parsing, validation and the `--help` text, so they cannot drift apart.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "util/error.h"

namespace dlm::cli {

// A mistake in how the command was called (unknown option, missing value, bad number, invalid
// settings). main() reports it like any error but exits with status 2, the usual "usage" code.
class UsageError : public Error {
public:
    explicit UsageError(const std::string& message) : Error(message) {}
};

struct OptionSpec {
    std::string name;        // without the leading dashes: "gen-len"
    std::string value_name;  // "N", "FILE"; empty for a flag
    std::string help;
    bool repeatable = false;  // may be given several times (values kept in order)
    bool is_flag() const { return value_name.empty(); }
};

struct CommandSpec {
    std::string name;      // "run", "trace show"
    std::string synopsis;  // the usage line after the command name
    std::string summary;   // one line, for the top-level help
    std::string description;  // paragraphs after the usage line (may be empty)
    std::vector<OptionSpec> options;  // --help is implied
    int min_positionals = 0;
    int max_positionals = 0;
    std::string positional_names;  // for error messages: "DIR", "A B"
};

class ParsedArgs {
public:
    bool help_requested() const { return help_; }
    const std::vector<std::string>& positionals() const { return positionals_; }

    bool has(const std::string& name) const { return values_.count(name) > 0; }
    bool flag(const std::string& name) const { return has(name); }
    // The value given (the last one for a repeatable option).
    std::optional<std::string> get(const std::string& name) const;
    std::string get_or(const std::string& name, const std::string& fallback) const;
    const std::vector<std::string>& all(const std::string& name) const;
    // Value of a required option; UsageError "missing --name" when absent.
    std::string require(const std::string& name) const;

    // Numeric accessors: UsageError naming the option and the text when it does not parse or is
    // outside [min, max].
    std::optional<long long> get_int(const std::string& name, long long min, long long max) const;
    std::optional<double> get_double(const std::string& name, double min, double max) const;
    std::optional<uint64_t> get_u64(const std::string& name) const;

private:
    friend ParsedArgs parse_args(const CommandSpec& spec, std::span<const std::string> args);
    bool help_ = false;
    std::vector<std::string> positionals_;
    std::map<std::string, std::vector<std::string>> values_;  // flags hold one empty value
};

// Parses `args` (the words after the subcommand). Throws UsageError for an unknown option, an
// option missing its value, a flag given a value, a non-repeatable option given twice, or the
// wrong number of positionals. `--help`/`-h` anywhere short-circuits validation of the rest.
// A bare `--` ends option parsing (later words are positionals, e.g. a prompt starting with --).
ParsedArgs parse_args(const CommandSpec& spec, std::span<const std::string> args);

// The `--help` text of one subcommand.
std::string format_help(const CommandSpec& spec);

// Splits `key=value` (for --set); UsageError naming the option when there is no '=' or no key.
std::pair<std::string, std::string> split_key_value(const std::string& text, const std::string& option);

// Parses a number for messages that name where it came from; UsageError when it does not parse.
long long parse_int(const std::string& text, const std::string& what);
double parse_double(const std::string& text, const std::string& what);

}  // namespace dlm::cli
