// dlmscope-cli settings: every decode setting and strategy parameter from the engine's schema,
// with type, default, range and meaning; --markdown prints the tables docs/strategies.md carries.
#include <iostream>

#include "args.h"
#include "commands.h"
#include "decode/settings_schema.h"

namespace dlm::cli {

namespace {

const CommandSpec& settings_spec() {
    static const CommandSpec spec{
        "settings",
        "[KEY] [--markdown] [--presets]",
        "List every decode setting and strategy parameter (type, default, range, meaning).",
        "With KEY, only that setting; with a strategy or a namespace (fast-dllm, surelock), the\n"
        "parameters it reads. The same table drives --set, the app's controls and docs/strategies.md.",
        {{"markdown", "", "print the markdown tables of docs/strategies.md"},
         {"presets", "", "list the strategy presets (run and eval take them as --preset NAME)"}},
        0,
        1,
        "KEY",
    };
    return spec;
}

void print_one(const SettingSpec& s) {
    std::cout << s.key << "  (" << setting_type_name(s.type) << ", " << setting_range_text(s) << ")\n"
              << "    default: " << (s.default_value.empty() ? s.computed_default : s.default_value);
    if (!s.follows.empty()) std::cout << " (follows " << s.follows << " when not given)";
    if (!s.only_when_key.empty()) std::cout << "; read only while " << s.only_when_key << "=" << s.only_when_value;
    std::cout << '\n' << "    " << s.help;
    if (!s.unit.empty()) std::cout << " [" << s.unit << "]";
    std::cout << '\n';
    if (!s.strategies.empty()) {
        std::cout << "    read by:";
        for (const auto& r : s.strategies) std::cout << ' ' << r;
        std::cout << '\n';
    }
}

}  // namespace

int settings_main(std::span<const std::string> args) {
    const CommandSpec& spec = settings_spec();
    const ParsedArgs a = parse_args(spec, args);
    if (a.help_requested()) {
        std::cout << format_help(spec);
        return kExitOk;
    }
    if (a.flag("presets")) {
        for (const auto& p : strategy_presets()) {
            std::cout << p.name << "\n    " << p.description << "\n    sets:";
            for (const auto& [key, value] : p.settings) std::cout << ' ' << key << '=' << value;
            std::cout << '\n';
        }
        return kExitOk;
    }
    if (a.flag("markdown")) {
        std::cout << settings_markdown();
        return kExitOk;
    }
    if (!a.positionals().empty()) {
        const std::string& key = a.positionals()[0];
        if (const SettingSpec* s = find_setting_spec(key)) {
            print_one(*s);
            return kExitOk;
        }
        // A strategy or a namespace: the parameters it reads, or has.
        if (!namespaces_of(key).empty() || !strategies_reading(key).empty()) {
            const auto parameters = parameters_of(key);
            for (const SettingSpec* s : parameters) print_one(*s);
            if (parameters.empty()) std::cout << "'" << key << "' reads no strategy parameters\n";
            return kExitOk;
        }
        throw UsageError(unknown_setting_message(key) + "; dlmscope-cli settings lists every key");
    }
    for (const auto& s : settings_schema()) print_one(s);
    return kExitOk;
}

}  // namespace dlm::cli
