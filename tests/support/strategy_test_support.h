#pragma once
// Shared by the Strategy* tests: tiny random checkpoints on the real CPU backend, wrapped in a
// backend that records the rows every forward actually computed, and a decode helper that keeps
// every step's trace.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compute/cpu/cpu_backend.h"
#include "decode/decode_session.h"
#include "support/decode_fakes.h"
#include "support/random_checkpoint.h"

namespace dlm::test {

// Forwards everything to the CPU backend and records, per forward, the rows of item 0 and the
// backend's rows_computed() before and after.
class RecordingBackend final : public Backend {
public:
    explicit RecordingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
    std::string name() const override { return inner_->name(); }
    bool supports_attention_layout() const override { return inner_->supports_attention_layout(); }
    const ModelConfig& config() const override { return inner_->config(); }
    std::unique_ptr<KvCache> make_cache(int positions) override { return inner_->make_cache(positions); }
    std::unique_ptr<PosteriorStore> make_posterior_store(int positions) override {
        return inner_->make_posterior_store(positions);
    }
    void forward(std::span<const ForwardItem> batch) override {
        const uint64_t before = inner_->rows_computed();
        inner_->forward(batch);
        rows.emplace_back(batch[0].rows.begin(), batch[0].rows.end());
        head_rows.emplace_back(batch[0].head_rows.begin(), batch[0].head_rows.end());
        computed.push_back(inner_->rows_computed() - before);
    }
    std::vector<RowStats> row_stats(const RowStatsRequest& req) override { return inner_->row_stats(req); }
    std::vector<float> logits(int item, int head_row_index) const override {
        return inner_->logits(item, head_row_index);
    }
    std::vector<float> attention_lse(int item) const override { return inner_->attention_lse(item); }
    uint64_t rows_computed() const override { return inner_->rows_computed(); }

    std::vector<std::vector<int32_t>> rows;       // per forward: rows planned (item 0)
    std::vector<std::vector<int32_t>> head_rows;  // per forward: LM head rows (item 0)
    std::vector<uint64_t> computed;               // per forward: rows the backend counted

private:
    std::unique_ptr<Backend> inner_;
};

struct StrategyModel {
    ScratchDir dir{"dlm-strategy-test"};
    RandomCheckpoint ck;
    ModelWeights weights;
    std::unique_ptr<RecordingBackend> backend;
    std::unique_ptr<FakeTokenizer> tok;
    const ModelConfig& config() const { return weights.config; }
};

inline std::unique_ptr<StrategyModel> make_strategy_model(Family family, uint64_t seed = 3) {
    auto m = std::make_unique<StrategyModel>();
    RandomCheckpointOptions o;
    o.seed = seed;
    m->ck = write_random_checkpoint(m->dir.path(), family, o);
    m->weights = load_random_checkpoint(m->ck);
    m->backend = std::make_unique<RecordingBackend>(make_cpu_backend(m->weights, {std::size_t(1) << 30, 1}));
    m->tok = std::make_unique<FakeTokenizer>(m->weights.config);
    return m;
}

inline std::vector<int32_t> strategy_prompt(int n) {
    std::vector<int32_t> p;
    for (int i = 0; i < n; ++i) p.push_back((i * 13 + 2) % 50);
    return p;
}

struct StrategyRun {
    std::vector<StepTrace> steps;
    std::vector<int32_t> canvas;
    std::vector<std::vector<int32_t>> rows;  // per step, rows planned
    std::vector<std::vector<int32_t>> head_rows;
    std::vector<uint64_t> computed;          // per step, rows the backend computed
    int prompt_len = 0;
    int n = 0;
};

inline StrategyRun run_strategy(StrategyModel& m, const DecodeSettings& s, int prompt_len = 8) {
    m.backend->rows.clear();
    m.backend->head_rows.clear();
    m.backend->computed.clear();
    DecodeSession session(*m.backend, *m.tok, m.config(), strategy_prompt(prompt_len), s);
    StrategyRun r;
    session.run([&](const StepTrace& t) {
        r.steps.push_back(t);
        return true;
    });
    r.canvas = session.canvas();
    r.rows = m.backend->rows;
    r.head_rows = m.backend->head_rows;
    r.computed = m.backend->computed;
    r.prompt_len = prompt_len;
    r.n = session.canvas_length();
    return r;
}

inline DecodeSettings strategy_settings(const std::string& strategy, int gen, int steps, int block,
                                        double temperature = 0.0, uint64_t seed = 5) {
    DecodeSettings s;
    s.strategy = strategy;
    s.gen_length = gen;
    s.steps = steps;
    s.block_length = block;
    s.temperature = temperature;
    s.seed = seed;
    s.track_kl = TrackKl::On;
    return s;
}

}  // namespace dlm::test
