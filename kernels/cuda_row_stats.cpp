#include "cuda_row_stats.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "compute/cpu/cpu_thread_pool.h"
#include "cuda_check.h"
#include "philox.cuh"
#include "util/counter_rng.h"
#include "util/error.h"

namespace dlm::cuda {

namespace {

// Rows per round trip of the CPU fallback: bounds the page-locked memory to 4 x 16 x V floats.
constexpr std::size_t kCpuChunkRows = 16;

// The same checks, with the same messages, compute_row_stats makes on the CPU.
void check_request(const RowStatsRequest& req, int vocab) {
    const SamplingParams& sp = req.sampling;
    if (!(sp.temperature >= 0.0) || !std::isfinite(sp.temperature))
        throw Error("sampling temperature must be >= 0, got " + std::to_string(sp.temperature));
    if (!(sp.top_p > 0.0 && sp.top_p <= 1.0)) throw Error("top_p must be in (0, 1], got " + std::to_string(sp.top_p));
    if (sp.top_k < 0) throw Error("top_k must be >= 0 (0 = off), got " + std::to_string(sp.top_k));
    for (int32_t id : req.suppress_ids)
        if (id < 0 || id >= vocab)
            throw Error("suppressed token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                        std::to_string(vocab - 1) + ")");
}

RowStats to_row_stats(const DeviceRowStats& d, int32_t position, int display_k) {
    RowStats s;
    s.position = position;
    s.argmax = d.argmax;
    s.p_max = d.p_max;
    s.p_second = d.p_second;
    s.entropy = d.entropy;
    s.lse = d.lse;
    s.sampled = d.sampled;
    s.sampled_p_raw = d.sampled_p_raw;
    s.sampled_p_proc = d.sampled_p_proc;
    s.p_max_proc = d.p_max_proc;
    s.p_second_proc = d.p_second_proc;
    s.entropy_proc = d.entropy_proc;
    s.kl_prev = d.kl_prev;
    s.query_p = d.query_p;
    s.top.reserve(static_cast<std::size_t>(display_k));
    for (int j = 0; j < display_k; ++j) s.top.push_back({d.top_ids[j], d.top_p[j]});
    return s;
}

}  // namespace

CudaRowStats::CudaRowStats(std::shared_ptr<const CudaStream> stream)
    : stream_(std::move(stream)), pack_(*stream_) {}

CudaRowStats::~CudaRowStats() = default;

bool CudaRowStats::needs_cpu(const RowStatsRequest& req) {
    const bool truncated = req.sampling.temperature > 0.0 && (req.sampling.top_p < 1.0 || req.sampling.top_k > 0);
    return truncated || req.display_top_k > kMaxDisplayTopK;
}

std::vector<RowStats> CudaRowStats::run(const RowStatsRequest& req, const float* logits, int vocab,
                                        int item_first_row, int uncond_first_row, CudaPosteriorStore* store) {
    if (req.positions.empty()) return {};
    check_request(req, vocab);
    stream_->activate();
    if (needs_cpu(req)) return on_cpu(req, logits, vocab, item_first_row, uncond_first_row, store);
    return on_device(req, logits, vocab, item_first_row, uncond_first_row, store);
}

std::vector<RowStats> CudaRowStats::on_device(const RowStatsRequest& req, const float* logits, int vocab,
                                              int item_first_row, int uncond_first_row, CudaPosteriorStore* store) {
    const std::size_t R = req.positions.size();
    const bool cfg = uncond_first_row >= 0;
    std::vector<int32_t> logits_row(R), uncond_row(cfg ? R : 0), query(req.query_token_at.empty() ? 0 : R);
    std::vector<uint8_t> has_prev(R, 0);
    for (std::size_t r = 0; r < R; ++r) {
        const int32_t pos = req.positions[r];
        logits_row[r] = item_first_row + req.head_row_index[r];
        if (cfg) uncond_row[r] = uncond_first_row + req.head_row_index[r];
        if (!query.empty()) {
            // As compute_row_stats: a query token outside the canvas table or the vocabulary is none.
            int32_t q = -1;
            if (pos >= 0 && static_cast<std::size_t>(pos) < req.query_token_at.size())
                q = req.query_token_at[static_cast<std::size_t>(pos)];
            query[r] = q >= 0 && q < vocab ? q : -1;
        }
        if (store) has_prev[r] = store->has(pos) && kl_wanted(req, pos) ? 1 : 0;
    }
    // Everything that can fail for lack of memory happens before anything is queued.
    float* posteriors = store ? store->device_rows() : nullptr;
    device_out_.reserve(R, "row statistics");
    host_out_.reserve(R, "row statistics");

    pack_.clear();
    const std::size_t at_logits_row = pack_.add(logits_row);
    const std::size_t at_uncond_row = pack_.add(uncond_row);
    const std::size_t at_query = pack_.add(query);
    const std::size_t at_has_prev = pack_.add(has_prev);
    const std::size_t at_positions = pack_.add(req.positions);
    const std::size_t at_suppress = pack_.add(req.suppress_ids);
    pack_.upload("row statistics upload");

    const int display_k = std::clamp(std::min(req.display_top_k, vocab), 0, kMaxDisplayTopK);
    RowStatsArgs a;
    a.rows = static_cast<int>(R);
    a.vocab = vocab;
    a.logits = logits;
    a.logits_row = pack_.device<int32_t>(at_logits_row);
    if (cfg) {
        a.uncond_logits = logits;
        a.uncond_row = pack_.device<int32_t>(at_uncond_row);
        a.cfg_scale = req.cfg_scale;
    }
    a.suppress_ids = req.suppress_ids.empty() ? nullptr : pack_.device<int32_t>(at_suppress);
    a.n_suppress = static_cast<int>(req.suppress_ids.size());
    a.positions = pack_.device<int32_t>(at_positions);
    a.query_token = query.empty() ? nullptr : pack_.device<int32_t>(at_query);
    a.posteriors = posteriors;
    a.has_prev = store ? pack_.device<uint8_t>(at_has_prev) : nullptr;
    a.update_posteriors = store && req.update_posteriors;
    a.temperature = req.sampling.temperature;
    a.rng_key = philox_key(req.seed, rng_stream::kSampling);
    a.step = req.step;
    a.display_k = display_k;
    a.out = device_out_.get();
    launch_row_stats(a, stream_->get());
    stream_->copy(host_out_.get(), device_out_.get(), R * sizeof(DeviceRowStats), cudaMemcpyDeviceToHost,
                  "row statistics download");
    stream_->synchronize("row statistics");

    std::vector<RowStats> result(R);
    const DeviceRowStats* out = host_out_.get();
    std::string error;
    for (std::size_t r = 0; r < R; ++r) {
        const int32_t pos = req.positions[r];
        switch (out[r].error) {
            case kRowStatsOk: break;
            case kRowStatsNonFinite:
                if (error.empty()) error = "logits of position " + std::to_string(pos) + " contain NaN or +inf";
                continue;
            case kRowStatsAllSuppressed:
                if (error.empty())
                    error = "every token of position " + std::to_string(pos) + " is suppressed; nothing to sample";
                continue;
            default:
                if (error.empty())
                    error = "row statistics of position " + std::to_string(pos) + " failed on the GPU (code " +
                            std::to_string(out[r].error) + ")";
                continue;
        }
        result[r] = to_row_stats(out[r], pos, display_k);
        if (a.update_posteriors) store->mark(pos);
    }
    if (!error.empty()) throw Error(error);
    return result;
}

std::vector<RowStats> CudaRowStats::on_cpu(const RowStatsRequest& req, const float* logits, int vocab,
                                           int item_first_row, int uncond_first_row, CudaPosteriorStore* store) {
    const std::size_t R = req.positions.size(), V = static_cast<std::size_t>(vocab);
    const bool cfg = uncond_first_row >= 0;
    const bool keep = store && req.update_posteriors;
    if (!pool_) {
        const unsigned hw = std::thread::hardware_concurrency();
        pool_ = std::make_unique<cpu::ThreadPool>(hw > 0 ? static_cast<int>(hw) : 1);
    }
    if (store) store->device_rows();  // allocate before anything is queued
    // Per chunk row: conditional logits, unconditional logits, previous posterior, new posterior.
    const std::size_t chunk = std::min(kCpuChunkRows, R);
    host_rows_.reserve(4 * chunk * V, "row statistics (CPU fallback)");
    float* cond_rows = host_rows_.get();
    float* uncond_rows = cond_rows + chunk * V;
    float* prev_rows = uncond_rows + chunk * V;
    float* post_rows = prev_rows + chunk * V;
    std::vector<std::vector<float>> cfg_scratch(static_cast<std::size_t>(pool_->size()));
    std::vector<RowStats> result(R);
    const std::size_t row_bytes = V * sizeof(float);

    for (std::size_t first = 0; first < R; first += chunk) {
        const std::size_t count = std::min(chunk, R - first);
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t r = first + i;
            const int32_t pos = req.positions[r];
            const std::size_t row = static_cast<std::size_t>(item_first_row + req.head_row_index[r]);
            stream_->copy(cond_rows + i * V, logits + row * V, row_bytes, cudaMemcpyDeviceToHost, "logits download");
            if (cfg) {
                const std::size_t urow = static_cast<std::size_t>(uncond_first_row + req.head_row_index[r]);
                stream_->copy(uncond_rows + i * V, logits + urow * V, row_bytes, cudaMemcpyDeviceToHost,
                              "logits download");
            }
            if (store && store->has(pos) && kl_wanted(req, pos))
                stream_->copy(prev_rows + i * V, store->device_row(pos), row_bytes, cudaMemcpyDeviceToHost,
                              "posterior download");
        }
        stream_->synchronize("row statistics (CPU fallback)");

        std::mutex error_mutex;
        std::exception_ptr error;
        pool_->parallel_for(count, 1, [&](int thread, std::size_t b, std::size_t e) {
            try {
                for (std::size_t i = b; i < e; ++i) {
                    const std::size_t r = first + i;
                    const int32_t pos = req.positions[r];
                    std::span<const float> row(cond_rows + i * V, V);
                    if (cfg) {
                        // Exactly as the CPU backend combines them.
                        std::vector<float>& combined = cfg_scratch[static_cast<std::size_t>(thread)];
                        combined.resize(V);
                        const float* u = uncond_rows + i * V;
                        const double s1 = req.cfg_scale + 1.0;
                        for (std::size_t t = 0; t < V; ++t)
                            combined[t] = static_cast<float>(u[t] + s1 * (static_cast<double>(row[t]) - u[t]));
                        row = combined;
                    }
                    std::span<const float> prev;
                    if (store && store->has(pos) && kl_wanted(req, pos))
                        prev = std::span<const float>(prev_rows + i * V, V);
                    std::span<float> post;
                    if (keep) post = std::span<float>(post_rows + i * V, V);
                    result[r] = compute_row_stats(row, pos, req, prev, post);
                }
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
            }
        });
        if (error) std::rethrow_exception(error);

        if (keep) {
            for (std::size_t i = 0; i < count; ++i)
                stream_->copy(store->device_row(req.positions[first + i]), post_rows + i * V, row_bytes,
                              cudaMemcpyHostToDevice, "posterior upload");
            // The page-locked rows are reused by the next chunk.
            stream_->synchronize("posterior upload");
            for (std::size_t i = 0; i < count; ++i) store->mark(req.positions[first + i]);
        }
    }
    return result;
}

}  // namespace dlm::cuda
