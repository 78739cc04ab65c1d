#include "decode/ar_generate.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "decode/ar_guider.h"
#include "util/error.h"

namespace dlm {

ArGeneration ar_generate_greedy(Backend& backend, std::span<const int32_t> prompt, int max_new,
                                std::span<const int32_t> stop_ids) {
    const ModelConfig& c = backend.config();
    if (c.is_diffusion()) throw Error("greedy generation needs a causal model; this one is a diffusion model");
    if (prompt.empty()) throw Error("greedy generation needs a non-empty prompt");
    const int plen = static_cast<int>(prompt.size());
    if (c.max_seq_len > 0 && plen >= c.max_seq_len) {
        throw Error("the prompt of " + std::to_string(plen) + " tokens fills the model's context of " +
                    std::to_string(c.max_seq_len));
    }
    const int capacity = c.max_seq_len > 0 ? std::min(plen + std::max(0, max_new), c.max_seq_len) : plen + max_new;

    const auto t0 = std::chrono::steady_clock::now();
    ArGeneration g;
    std::vector<int32_t> seq(prompt.begin(), prompt.end());
    seq.reserve(static_cast<std::size_t>(capacity));
    const std::unique_ptr<KvCache> cache = backend.make_cache(capacity);
    std::vector<int32_t> rows(static_cast<std::size_t>(plen));
    std::iota(rows.begin(), rows.end(), 0);
    while (static_cast<int>(seq.size()) < capacity) {
        const int32_t last = static_cast<int32_t>(seq.size()) - 1;
        const int32_t head[1] = {last};
        ForwardItem it;
        it.tokens = seq;
        it.rows = rows;
        it.head_rows = head;
        it.cache = cache.get();
        backend.forward(std::span<const ForwardItem>(&it, 1));
        ++g.forwards;
        g.flops += causal_flops(c, rows, 1);
        const std::vector<float> logits = backend.logits(0, 0);
        const int32_t next = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
        if (std::find(stop_ids.begin(), stop_ids.end(), next) != stop_ids.end()) {
            g.stopped = true;
            break;
        }
        g.ids.push_back(next);
        seq.push_back(next);
        rows.assign(1, static_cast<int32_t>(seq.size()) - 1);
    }
    g.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return g;
}

}  // namespace dlm
