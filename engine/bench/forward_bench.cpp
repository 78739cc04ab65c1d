#include "bench/forward_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>

#include "compute/cpu/cpu_backend.h"
#include "decode/flops.h"
#include "util/counter_rng.h"
#include "util/error.h"
#include "util/median.h"

namespace dlm {

ForwardBenchResult run_forward_bench(const ForwardBenchOptions& o) {
    if (o.lengths.empty()) throw Error("forward bench: no canvas lengths given");
    if (o.reps < 1) throw Error("forward bench: reps must be >= 1, got " + std::to_string(o.reps));
    for (double f : o.fractions)
        if (!(f > 0.0 && f <= 1.0)) throw Error("forward bench: row fraction " + std::to_string(f) + " is not in (0, 1]");
    for (int n : o.lengths)
        if (n < 1 || n > o.model.max_seq_len)
            throw Error("forward bench: length " + std::to_string(n) + " is outside 1.." +
                        std::to_string(o.model.max_seq_len));

    auto model = make_random_llada_weights(o.model);
    CpuBackendOptions bo;
    bo.threads = o.threads;
    auto backend = make_cpu_backend(model->weights, bo);
    const ModelConfig& c = backend->config();

    ForwardBenchResult result;
    result.backend = backend->name();
    result.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    result.model = o.model;
    result.reps = o.reps;

    const CounterRng rng(o.seed, rng_stream::kStrategy);
    for (int n : o.lengths) {
        std::vector<int32_t> tokens(static_cast<std::size_t>(n)), all(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) tokens[i] = static_cast<int32_t>(rng.bits(0, static_cast<uint64_t>(i)) % (c.vocab_size - 1));
        std::iota(all.begin(), all.end(), 0);
        auto cache = backend->make_cache(n);

        // Times `reps` forwards of `rows` (after one untimed warm-up) and returns the median.
        auto time_forward = [&](const std::vector<int32_t>& rows) {
            ForwardItem item;
            item.tokens = tokens;
            item.rows = rows;
            item.head_rows = rows;
            item.cache = cache.get();
            std::vector<double> secs;
            for (int r = 0; r <= o.reps; ++r) {
                const auto t0 = std::chrono::steady_clock::now();
                backend->forward(std::span<const ForwardItem>(&item, 1));
                const auto t1 = std::chrono::steady_clock::now();
                if (r > 0) secs.push_back(std::chrono::duration<double>(t1 - t0).count());
            }
            return median(secs);
        };

        if (o.progress) o.progress("dense forward, N = " + std::to_string(n));
        LengthPoint p;
        p.n = n;
        p.dense_seconds = time_forward(all);  // also fills the cache for the sparse runs
        p.dense_rows_per_s = n / p.dense_seconds;
        p.dense_gflops = (paper_flops_dense(c, n) + lm_head_flops(c, n)) / p.dense_seconds / 1e9;
        for (double f : o.fractions) {
            const int m = std::max(1, static_cast<int>(std::lround(f * n)));
            // A random subset (fixed by the seed): skipped rows read their K/V from the cache.
            std::vector<int32_t> order = all;
            for (int i = n - 1; i > 0; --i) {
                const int j = static_cast<int>(rng.bits(1 + static_cast<uint64_t>(n), static_cast<uint64_t>(i)) %
                                               static_cast<uint64_t>(i + 1));
                std::swap(order[i], order[j]);
            }
            std::vector<int32_t> rows(order.begin(), order.begin() + m);
            std::sort(rows.begin(), rows.end());
            if (o.progress)
                o.progress("sparse forward, N = " + std::to_string(n) + ", " + std::to_string(m) + " rows");
            SparsePoint s;
            s.fraction = f;
            s.rows = m;
            s.seconds = time_forward(rows);
            s.ratio = s.seconds / p.dense_seconds;
            p.sparse.push_back(s);
        }
        result.points.push_back(std::move(p));
    }
    return result;
}

}  // namespace dlm
