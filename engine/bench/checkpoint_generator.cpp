#include "bench/checkpoint_generator.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "compute/cpu/cpu_thread_pool.h"
#include "model/model_config_writer.h"
#include "model/safetensors_writer.h"
#include "util/error.h"

namespace dlm {

namespace {

namespace fs = std::filesystem;

constexpr const char* kIndexName = "model.safetensors.index.json";
constexpr const char* kSingleName = "model.safetensors";

std::string gb(std::size_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(bytes) / 1e9);
    return buf;
}

// Files this generator writes (or an earlier checkpoint left): refused or removed up front.
std::vector<fs::path> checkpoint_files_in(const fs::path& dir) {
    std::vector<fs::path> found;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return found;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const fs::path& p = e.path();
        if (p.extension() == ".safetensors" || p.filename() == kIndexName || p.filename() == "config.json")
            found.push_back(p);
    }
    return found;
}

// Converts floats to the storage dtype's little-endian bytes.
void store(DType dtype, const float* src, std::size_t n, std::byte* dst) {
    if (dtype == DType::F32) {
        std::memcpy(dst, src, n * sizeof(float));
        return;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const uint16_t h = dtype == DType::BF16 ? float_to_bf16(src[i]) : float_to_f16(src[i]);
        std::memcpy(dst + 2 * i, &h, 2);
    }
}

struct Shard {
    std::string file;
    std::vector<const RandomTensor*> tensors;
    std::size_t bytes = 0;
};

}  // namespace

GeneratedCheckpoint generate_random_checkpoint(const fs::path& dir, const CheckpointGeneratorOptions& o) {
    const auto t_start = std::chrono::steady_clock::now();
    if (o.shard_bytes == 0) throw Error("make-checkpoint: the shard size must be positive");
    if (o.chunk_elements == 0) throw Error("make-checkpoint: the chunk size must be positive");
    GeneratedCheckpoint out;
    out.dir = dir;
    out.config = random_llada_config(o.model);
    const std::vector<RandomTensor> tensors = random_llada_tensors(o.model);
    const std::size_t elem = dtype_size(o.dtype);

    // Plan the shards: tensors in order, a new shard whenever the next tensor would pass the size.
    std::vector<Shard> shards(1);
    for (const RandomTensor& t : tensors) {
        const std::size_t bytes = static_cast<std::size_t>(t.numel()) * elem;
        if (!shards.back().tensors.empty() && shards.back().bytes + bytes > o.shard_bytes) shards.emplace_back();
        shards.back().tensors.push_back(&t);
        shards.back().bytes += bytes;
        out.tensor_bytes += bytes;
        out.parameters += t.numel();
    }
    for (std::size_t i = 0; i < shards.size(); ++i) {
        char name[64];
        std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", i + 1, shards.size());
        shards[i].file = shards.size() == 1 ? kSingleName : name;
    }
    out.shards = shards.size();

    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir)) throw Error("make-checkpoint: cannot create the folder " + dir.string());
    const std::vector<fs::path> old = checkpoint_files_in(dir);
    if (!old.empty() && !o.overwrite)
        throw Error("make-checkpoint: " + dir.string() + " already holds a checkpoint (" + old.front().filename().string() +
                    "); choose an empty folder or overwrite it (--force)");
    for (const fs::path& p : old) fs::remove(p, ec);
    const fs::space_info space = fs::space(dir, ec);
    if (!ec && space.available < out.tensor_bytes + (std::size_t(64) << 20))
        throw Error("make-checkpoint: " + dir.string() + " has " + gb(space.available) + " free but the checkpoint needs " +
                    gb(out.tensor_bytes));

    cpu::ThreadPool pool(o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    std::vector<std::vector<float>> scratch(static_cast<std::size_t>(pool.size()), std::vector<float>(4096));
    std::vector<std::byte> buffers[2];
    int cur = 0;
    std::size_t done_bytes = 0, next_report = std::size_t(1) << 30;  // a line per GiB
    const std::map<std::string, std::string> metadata{
        {"format", "pt"}, {"dlmscope", "random weights (make-checkpoint), seed " + std::to_string(o.model.seed)}};

    for (std::size_t s = 0; s < shards.size(); ++s) {
        const Shard& shard = shards[s];
        std::vector<SafetensorsEntry> entries;
        for (const RandomTensor* t : shard.tensors) entries.push_back({t->name, o.dtype, t->shape});
        SafetensorsWriter writer(dir / shard.file, entries, metadata);
        // One write in flight while the next chunk is generated; writes stay in order because a
        // chunk is handed to the writer only after the previous write finished.
        std::future<void> pending;
        for (const RandomTensor* t : shard.tensors) {
            const std::size_t numel = static_cast<std::size_t>(t->numel());
            for (std::size_t first = 0; first < numel; first += o.chunk_elements) {
                const std::size_t n = std::min(o.chunk_elements, numel - first);
                std::vector<std::byte>& buf = buffers[cur];
                buf.resize(n * elem);
                pool.parallel_for(n, 8192, [&](int thread, std::size_t b, std::size_t e) {
                    std::vector<float>& tmp = scratch[static_cast<std::size_t>(thread)];
                    for (std::size_t i = b; i < e; i += tmp.size()) {
                        const std::size_t len = std::min(tmp.size(), e - i);
                        fill_random_uniform(o.model.seed, t->rng_id, static_cast<int64_t>(first + i), t->center, t->spread,
                                            std::span<float>(tmp.data(), len));
                        store(o.dtype, tmp.data(), len, buf.data() + i * elem);
                    }
                });
                if (pending.valid()) pending.get();  // rethrows a failed write
                pending = std::async(std::launch::async, [&writer, &buf] { writer.write(buf); });
                cur ^= 1;
                done_bytes += n * elem;
                if (o.progress && done_bytes >= next_report) {
                    next_report = done_bytes + (std::size_t(1) << 30);
                    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
                    o.progress(shard.file + ": " + gb(done_bytes) + " of " + gb(out.tensor_bytes) + " written, " +
                               std::to_string(static_cast<int>(secs)) + " s");
                }
            }
        }
        if (pending.valid()) pending.get();
        writer.finish();
        out.files.push_back(dir / shard.file);
    }

    if (shards.size() > 1) {
        nlohmann::ordered_json index;
        index["metadata"] = {{"total_size", out.tensor_bytes}};
        nlohmann::ordered_json map = nlohmann::ordered_json::object();
        for (const Shard& shard : shards)
            for (const RandomTensor* t : shard.tensors) map[t->name] = shard.file;
        index["weight_map"] = map;
        const fs::path p = dir / kIndexName;
        std::ofstream f(p, std::ios::trunc);
        f << index.dump(2) << '\n';
        if (!f) throw Error("cannot write " + p.string());
        out.files.push_back(p);
    }
    {
        const fs::path p = dir / "config.json";
        std::ofstream f(p, std::ios::trunc);
        f << model_config_json(out.config);
        if (!f) throw Error("cannot write " + p.string());
        out.files.push_back(p);
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    return out;
}

}  // namespace dlm
