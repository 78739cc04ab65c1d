#include "model/safetensors_writer.h"

#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "util/error.h"

namespace dlm {

std::size_t SafetensorsEntry::bytes() const {
    std::size_t n = 1;
    for (int64_t d : shape) n *= static_cast<std::size_t>(d);
    return n * dtype_size(dtype);
}

std::string safetensors_preamble(const std::vector<SafetensorsEntry>& entries,
                                 const std::map<std::string, std::string>& metadata) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::set<std::string> seen;
    std::size_t offset = 0;
    for (const SafetensorsEntry& e : entries) {
        if (e.name.empty() || e.name == "__metadata__") throw Error("safetensors writer: invalid tensor name '" + e.name + "'");
        if (!seen.insert(e.name).second) throw Error("safetensors writer: tensor " + e.name + " listed twice");
        for (int64_t d : e.shape)
            if (d < 0) throw Error("safetensors writer: tensor " + e.name + " has a negative dimension");
        const std::size_t end = offset + e.bytes();
        header[e.name] = {{"dtype", std::string(dtype_name(e.dtype))}, {"shape", e.shape}, {"data_offsets", {offset, end}}};
        offset = end;
    }
    std::string json = header.dump();
    while (json.size() % 8 != 0) json.push_back(' ');
    const uint64_t len = json.size();
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((len >> (8 * i)) & 0xffu);
    return out + json;
}

SafetensorsWriter::SafetensorsWriter(const std::filesystem::path& file, std::vector<SafetensorsEntry> entries,
                                     const std::map<std::string, std::string>& metadata)
    : path_(file) {
    const std::string preamble = safetensors_preamble(entries, metadata);
    for (const SafetensorsEntry& e : entries) total_ += e.bytes();
    out_.open(file, std::ios::binary | std::ios::trunc);
    if (!out_) throw Error("cannot create " + file.string());
    out_.write(preamble.data(), static_cast<std::streamsize>(preamble.size()));
    if (!out_) throw Error("cannot write " + file.string() + " (disk full?)");
}

SafetensorsWriter::~SafetensorsWriter() {
    if (finished_) return;
    out_.close();
    std::error_code ec;
    std::filesystem::remove(path_, ec);  // best effort: a partial file must not pass for a shard
}

void SafetensorsWriter::write(std::span<const std::byte> bytes) {
    if (finished_) throw Error("safetensors writer: " + path_.string() + " is already finished");
    if (bytes.size() > total_ - written_)
        throw Error("safetensors writer: " + path_.string() + " was given more bytes than its tensors hold");
    out_.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out_) throw Error("cannot write " + path_.string() + " (disk full?)");
    written_ += bytes.size();
}

void SafetensorsWriter::finish() {
    if (finished_) return;
    if (written_ != total_)
        throw Error("safetensors writer: " + path_.string() + " got " + std::to_string(written_) + " of " +
                    std::to_string(total_) + " data bytes");
    out_.flush();
    out_.close();
    if (!out_) throw Error("cannot write " + path_.string() + " (disk full?)");
    finished_ = true;
}

}  // namespace dlm
