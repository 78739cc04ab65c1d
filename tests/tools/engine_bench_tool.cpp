// The engine's side of the tools/bench checks, on the CPU backend (no GPU needed):
//   engine_bench_tool logits --model DIR --tokens 1,2,3 --out FILE
//       logits of every position of one canvas, as JSON {"tokens": [...], "logits": [[...], ...]}
//       (compared with tools/bench/torch_llada_reference.py --logits-out);
//   engine_bench_tool bind --model DIR
//       load config.json and bind every tensor (what every command does first), print a count;
//   engine_bench_tool steps --model DIR --json FILE [--lengths L] [--prompt-len P] [--batch B]
//                           [--fractions F] [--reps R]
//       the step bench of `bench --section forward-cuda` on the CPU backend, with fixed roofline
//       rates, in the same JSON schema (fed to tools/bench/summarize_gpu_bench.py).
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/cpu/cpu_backend.h"
#include "bench/step_bench.h"
#include "model/model_weights.h"
#include "model/weight_store.h"

namespace {

std::vector<double> numbers(const std::string& text) {
    std::vector<double> out;
    std::stringstream ss(text);
    for (std::string w; std::getline(ss, w, ',');) out.push_back(std::stod(w));
    return out;
}

std::vector<int> ints(const std::string& text) {
    std::vector<int> out;
    for (double v : numbers(text)) out.push_back(static_cast<int>(v));
    return out;
}

int run(int argc, char** argv) {
    if (argc < 2) throw std::runtime_error("usage: engine_bench_tool bind|logits|steps --model DIR ...");
    const std::string mode = argv[1];
    std::map<std::string, std::string> opt;
    for (int i = 2; i + 1 < argc; i += 2) {
        std::string key = argv[i];
        if (key.rfind("--", 0) != 0) throw std::runtime_error("expected an option, got " + key);
        opt[key.substr(2)] = argv[i + 1];
    }
    if (!opt.count("model")) throw std::runtime_error("missing --model");
    const std::filesystem::path dir = opt["model"];
    // The loader every command uses, minus the tokenizer (random checkpoints have none).
    const dlm::ModelWeights weights = dlm::bind_weights(dlm::load_model_config(dir / "config.json"), dlm::WeightStore::open(dir));
    if (mode == "bind") {  // the loader alone (no backend): a model of any size, mapped not read
        std::cout << weights.store->all().size() << " tensors, " << dlm::parameter_count(weights.config)
                  << " parameters, " << weights.store->total_bytes() << " bytes, " << weights.unexpected.size()
                  << " unexpected\n";
        return 0;
    }
    auto backend = dlm::make_cpu_backend(weights);

    if (mode == "logits") {
        const std::vector<int> t = ints(opt.at("tokens"));
        const std::vector<int32_t> tokens(t.begin(), t.end());
        std::vector<int32_t> rows(tokens.size());
        std::iota(rows.begin(), rows.end(), 0);
        auto cache = backend->make_cache(static_cast<int>(tokens.size()));
        dlm::ForwardItem item;
        item.tokens = tokens;
        item.rows = rows;
        item.head_rows = rows;
        item.cache = cache.get();
        backend->forward(std::span<const dlm::ForwardItem>(&item, 1));
        nlohmann::json j = {{"tokens", t}, {"logits", nlohmann::json::array()}};
        for (std::size_t i = 0; i < rows.size(); ++i) j["logits"].push_back(backend->logits(0, static_cast<int>(i)));
        std::ofstream(opt.at("out")) << j.dump() << '\n';
        return 0;
    }
    if (mode == "steps") {
        dlm::StepBenchOptions o;
        if (opt.count("lengths")) o.lengths = ints(opt["lengths"]);
        if (opt.count("prompt-len")) o.prompt_len = std::stoi(opt["prompt-len"]);
        if (opt.count("batch")) o.batches = ints(opt["batch"]);
        if (opt.count("fractions")) o.fractions = numbers(opt["fractions"]);
        if (opt.count("reps")) o.reps = std::stoi(opt["reps"]);
        o.warmup = 1;
        dlm::RooflineRates rates;
        rates.gemm_flops_per_s = 1e11;  // fixed: this run checks the plumbing, not a device
        rates.copy_bytes_per_s = 1e10;
        rates.how = "fixed test rates (CPU run of the step bench)";
        const dlm::StepBenchReport r = dlm::run_step_bench(*backend, rates, "CPU (test)", o);
        std::ofstream(opt.at("json")) << dlm::step_bench_json(r);
        return 0;
    }
    throw std::runtime_error("unknown mode " + mode);
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "engine_bench_tool: " << e.what() << std::endl;
        return 1;
    }
}
