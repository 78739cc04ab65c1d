// dlmscope-cli make-checkpoint: writes a random-weight LLaDA checkpoint folder (config.json +
// safetensors shards + index) with a preset's dimensions, e.g. LLaDA-8B's for the GPU benchmark
// on a machine that holds no real weights. The folder loads like any published checkpoint.
#include <iostream>

#include "args.h"
#include "commands.h"
#include "bench/checkpoint_generator.h"
#include "output.h"

namespace dlm::cli {

namespace {

const CommandSpec& make_checkpoint_spec() {
    static const CommandSpec spec{
        "make-checkpoint",
        "--dims PRESET --out DIR [--seed S] [--dtype bf16|f16|f32] [--shard-gb X] [--threads N] [--force]",
        "Write a random-weight LLaDA checkpoint folder (benchmarks without real weights).",
        "Presets: llada-8b (LLaDA-8B's shapes: d_model 4096, 32 layers, 32 heads, d_ff 12288, 126464\n"
        "embedding rows, context 4096, untied head; ~16 GB in bf16), medium (d 2048, 16 layers, ~1B\n"
        "parameters), small (d 512, 4 layers) and tiny (d 64, 2 layers). Weights are uniform with a\n"
        "fan-in scaled spread from the counter RNG (the same seed gives the same bytes), generated on all\n"
        "cores and streamed to disk; LLaDA's tensor names; no tokenizer (benchmarks need none).",
        {
            {"dims", "PRESET", "model dimensions: llada-8b, medium, small or tiny"},
            {"out", "DIR", "folder to write (created if needed)"},
            {"seed", "S", "random seed (default 1)"},
            {"dtype", "TYPE", "storage dtype bf16 (default), f16 or f32"},
            {"shard-gb", "X", "start a new shard before one passes X GB (default 4)"},
            {"threads", "N", "generator threads (default: all cores)"},
            {"force", "", "replace a checkpoint already in DIR"},
        },
        0,
        0,
        "",
    };
    return spec;
}

DType parse_dtype_option(const std::string& text) {
    if (text == "bf16" || text == "bfloat16") return DType::BF16;
    if (text == "f16" || text == "fp16" || text == "float16") return DType::F16;
    if (text == "f32" || text == "fp32" || text == "float32") return DType::F32;
    throw UsageError("--dtype: '" + text + "' is not a storage dtype (bf16, f16, f32)");
}

}  // namespace

int make_checkpoint_main(std::span<const std::string> args) {
    const CommandSpec& spec = make_checkpoint_spec();
    const ParsedArgs a = parse_args(spec, args);
    if (a.help_requested()) {
        std::cout << format_help(spec);
        return kExitOk;
    }
    const std::string dims = a.require("dims");
    const std::string out = a.require("out");
    CheckpointGeneratorOptions o;
    try {
        o.model = random_llada_preset(dims);
    } catch (const Error& e) {
        throw UsageError(std::string("--dims: ") + e.what());
    }
    if (auto seed = a.get_u64("seed")) o.model.seed = *seed;
    o.dtype = parse_dtype_option(a.get_or("dtype", "bf16"));
    o.shard_bytes = static_cast<std::size_t>(a.get_double("shard-gb", 1e-6, 1e6).value_or(4.0) * 1e9);
    o.threads = static_cast<int>(a.get_int("threads", 0, 4096).value_or(0));
    o.overwrite = a.flag("force");
    o.progress = [](const std::string& line) { std::cerr << "make-checkpoint: " << line << std::endl; };

    const GeneratedCheckpoint g = generate_random_checkpoint(out, o);
    const ModelConfig& c = g.config;
    std::cout << "wrote " << g.dir.string() << ": random llada (" << dims << "), L=" << c.n_layers << " d=" << c.d_model
              << " H=" << c.n_heads << " d_ff=" << c.d_ff << " V=" << c.vocab_size << ", "
              << format_grouped(g.parameters) << " parameters, " << format_bytes(g.tensor_bytes) << " of "
              << a.get_or("dtype", "bf16") << " in " << g.shards << " shard(s), "
              << format_fixed(g.seconds, 1) << " s\n";
    return kExitOk;
}

}  // namespace dlm::cli
