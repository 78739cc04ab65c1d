#include "args.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace dlm::cli {

namespace {

const OptionSpec* find_option(const CommandSpec& spec, const std::string& name) {
    for (const auto& o : spec.options)
        if (o.name == name) return &o;
    return nullptr;
}

std::string command_label(const CommandSpec& spec) { return "'" + spec.name + "'"; }

}  // namespace

std::optional<std::string> ParsedArgs::get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
}

std::string ParsedArgs::get_or(const std::string& name, const std::string& fallback) const {
    auto v = get(name);
    return v ? *v : fallback;
}

const std::vector<std::string>& ParsedArgs::all(const std::string& name) const {
    static const std::vector<std::string> none;
    auto it = values_.find(name);
    return it == values_.end() ? none : it->second;
}

std::string ParsedArgs::require(const std::string& name) const {
    auto v = get(name);
    if (!v) throw UsageError("missing --" + name);
    return *v;
}

long long parse_int(const std::string& text, const std::string& what) {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
        throw UsageError(what + " expects an integer, got '" + text + "'");
    return v;
}

double parse_double(const std::string& text, const std::string& what) {
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
        throw UsageError(what + " expects a number, got '" + text + "'");
    return v;
}

std::optional<long long> ParsedArgs::get_int(const std::string& name, long long min, long long max) const {
    auto text = get(name);
    if (!text) return std::nullopt;
    const long long v = parse_int(*text, "--" + name);
    if (v < min || v > max) {
        std::ostringstream msg;
        msg << "--" << name << " must be in [" << min << ", " << max << "], got " << v;
        throw UsageError(msg.str());
    }
    return v;
}

std::optional<double> ParsedArgs::get_double(const std::string& name, double min, double max) const {
    auto text = get(name);
    if (!text) return std::nullopt;
    const double v = parse_double(*text, "--" + name);
    if (v < min || v > max) {
        std::ostringstream msg;
        msg << "--" << name << " must be in [" << min << ", " << max << "], got " << *text;
        throw UsageError(msg.str());
    }
    return v;
}

std::optional<uint64_t> ParsedArgs::get_u64(const std::string& name) const {
    auto text = get(name);
    if (!text) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    // strtoull accepts "-1" (wrapping it); a seed written with a sign is a mistake.
    const bool digits_only = !text->empty() && text->find_first_not_of("0123456789") == std::string::npos;
    const unsigned long long v = std::strtoull(text->c_str(), &end, 10);
    if (!digits_only || end != text->c_str() + text->size() || errno == ERANGE)
        throw UsageError("--" + name + " expects a non-negative integer, got '" + *text + "'");
    return static_cast<uint64_t>(v);
}

ParsedArgs parse_args(const CommandSpec& spec, std::span<const std::string> args) {
    ParsedArgs out;
    for (const auto& a : args) {
        if (a == "--") break;
        if (a == "--help" || a == "-h") {
            out.help_ = true;
            return out;
        }
    }

    bool options_done = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& word = args[i];
        if (options_done) {
            out.positionals_.push_back(word);
            continue;
        }
        if (word == "--") {
            options_done = true;
            continue;
        }
        if (word.rfind("--", 0) != 0) {
            // "-x" is a mistyped option; "-5" or "-" are values a positional may legitimately have.
            const bool looks_like_option = word.size() > 1 && word[0] == '-' &&
                                           !std::isdigit(static_cast<unsigned char>(word[1])) && word[1] != '.';
            if (looks_like_option)
                throw UsageError("unknown option '" + word + "' for " + command_label(spec) +
                                 " (see dlmscope-cli " + spec.name + " --help)");
            out.positionals_.push_back(word);
            continue;
        }
        std::string name = word.substr(2);
        std::optional<std::string> inline_value;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inline_value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        const OptionSpec* opt = find_option(spec, name);
        if (!opt)
            throw UsageError("unknown option '--" + name + "' for " + command_label(spec) +
                             " (see dlmscope-cli " + spec.name + " --help)");
        if (out.values_.count(name) && !opt->repeatable)
            throw UsageError("option --" + name + " given more than once");
        if (opt->is_flag()) {
            if (inline_value) throw UsageError("option --" + name + " does not take a value");
            out.values_[name].push_back("");
            continue;
        }
        if (!inline_value) {
            // The value is the next word, whatever it looks like ("--prompt -5" is a prompt),
            // except that a missing value at the end is an error.
            if (i + 1 >= args.size())
                throw UsageError("option --" + name + " requires a value (" + opt->value_name + ")");
            inline_value = args[++i];
        }
        out.values_[name].push_back(*inline_value);
    }

    const int n = static_cast<int>(out.positionals_.size());
    if (n < spec.min_positionals)
        throw UsageError("'" + spec.name + "' expects " + spec.positional_names + " (see dlmscope-cli " +
                         spec.name + " --help)");
    if (n > spec.max_positionals)
        throw UsageError("unexpected argument '" + out.positionals_[spec.max_positionals] + "' for " +
                         command_label(spec));
    return out;
}

std::string format_help(const CommandSpec& spec) {
    std::ostringstream s;
    s << "usage: dlmscope-cli " << spec.name;
    if (!spec.synopsis.empty()) s << ' ' << spec.synopsis;
    s << "\n\n" << spec.summary << "\n";
    if (!spec.description.empty()) s << '\n' << spec.description << '\n';
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto& o : spec.options) {
        std::string left = "--" + o.name + (o.is_flag() ? "" : " " + o.value_name);
        std::string help = o.help + (o.repeatable ? " (repeatable)" : "");
        rows.emplace_back(std::move(left), std::move(help));
    }
    rows.emplace_back("-h, --help", "show this help");
    std::size_t width = 0;
    for (const auto& r : rows) width = std::max(width, r.first.size());
    s << "\noptions:\n";
    for (const auto& [left, help] : rows)
        s << "  " << left << std::string(width - left.size() + 2, ' ') << help << '\n';
    return s.str();
}

std::pair<std::string, std::string> split_key_value(const std::string& text, const std::string& option) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw UsageError(option + " expects key=value, got '" + text + "'");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace dlm::cli
