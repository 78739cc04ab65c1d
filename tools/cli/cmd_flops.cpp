// dlmscope-cli flops: the algorithmic FLOPs of design.md §6 for any config.json, without
// loading weights (e.g. to reproduce the SureLock paper's tables for LLaDA-8B).
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "decode/flops.h"
#include "model/model_config.h"
#include "output.h"

namespace dlm::cli {

namespace {

const CommandSpec& flops_spec() {
    static const CommandSpec spec{
        "flops",
        "--config FILE --n N [--m M] [--steps S] [--json]",
        "Algorithmic FLOPs per denoising step (GEMMs only, SureLock §2.4) for a model config.",
        "N positions (prompt + generation) of which M rows are computed (default M = N, the dense\n"
        "baseline). The LM head (2*M*d*V) is reported separately, as in the paper.",
        {
            {"config", "FILE", "config.json of the model (or its checkpoint folder)"},
            {"n", "N", "positions in the canvas (prompt + generated)"},
            {"m", "M", "rows computed per step (default N)"},
            {"steps", "S", "denoising steps for the totals (default 1)"},
            {"json", "", "print one JSON object"},
        },
        0,
        0,
        "",
    };
    return spec;
}

}  // namespace

int flops_main(std::span<const std::string> args) {
    const CommandSpec& spec = flops_spec();
    const ParsedArgs a = parse_args(spec, args);
    if (a.help_requested()) {
        std::cout << format_help(spec);
        return kExitOk;
    }
    std::filesystem::path config_path = a.require("config");
    const auto n_given = a.get_int("n", 1, 1'000'000'000);
    if (!n_given) throw UsageError("missing --n");
    const long long n = *n_given;
    const long long m = a.get_int("m", 0, n).value_or(n);
    const long long steps = a.get_int("steps", 1, 1'000'000'000).value_or(1);

    if (std::filesystem::is_directory(config_path)) config_path /= "config.json";
    const ModelConfig config = load_model_config(config_path);
    if (config.max_seq_len > 0 && n > config.max_seq_len)
        print_warning("N = " + std::to_string(n) + " exceeds the model's context of " +
                      std::to_string(config.max_seq_len) + " positions");

    const double per_step = paper_flops(config, static_cast<int>(n), static_cast<int>(m));
    const double dense = paper_flops_dense(config, static_cast<int>(n));
    const double head = lm_head_flops(config, static_cast<int>(m));
    const double s = static_cast<double>(steps);

    if (a.flag("json")) {
        nlohmann::json j = {
            {"family", std::string(family_name(config.family))},
            {"n", n},
            {"m", m},
            {"paper_flops_per_step", per_step},
            {"paper_flops_dense_per_step", dense},
            {"lm_head_flops_per_step", head},
            {"steps", steps},
            {"paper_flops_total", per_step * s},
            {"paper_flops_dense_total", dense * s},
            {"lm_head_flops_total", head * s},
            {"flops_ratio", dense > 0 ? per_step / dense : 0.0},
        };
        std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return kExitOk;
    }

    std::cout << "model:   " << family_name(config.family) << " (" << config.architecture << "), L="
              << config.n_layers << " d=" << config.d_model << " H=" << config.n_heads
              << " H_kv=" << config.n_kv_heads << " d_h=" << config.head_dim << " d_ff=" << config.d_ff
              << " V=" << config.vocab_size << '\n'
              << "canvas:  N = " << n << " positions, M = " << m << " rows computed, " << steps
              << (steps == 1 ? " step\n" : " steps\n")
              << "per step\n"
              << "  paper FLOPs          " << format_flops(per_step) << '\n'
              << "  dense baseline (M=N) " << format_flops(dense) << '\n'
              << "  ratio                " << format_fixed(dense > 0 ? per_step / dense : 0.0, 4) << '\n'
              << "  LM head (M rows)     " << format_flops(head) << '\n';
    if (steps > 1)
        std::cout << "total over " << steps << " steps\n"
                  << "  paper FLOPs          " << format_flops(per_step * s) << '\n'
                  << "  dense baseline       " << format_flops(dense * s) << '\n'
                  << "  LM head              " << format_flops(head * s) << '\n';
    return kExitOk;
}

}  // namespace dlm::cli
