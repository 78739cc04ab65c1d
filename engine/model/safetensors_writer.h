#pragma once
// Writes safetensors files (the format SafetensorsFile reads) without holding the tensors in
// memory: the header is fixed by the tensors' names, dtypes and shapes alone, so the data can be
// streamed behind it in any number of pieces (a 1 GB embedding never needs to exist at once).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "model/dtype.h"

namespace dlm {

struct SafetensorsEntry {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;

    std::size_t bytes() const;  // elements x dtype size
};

// The file's first bytes: the little-endian u64 header length, then the JSON header (metadata
// first, then the entries in the given order, contiguous from offset 0), padded with spaces to a
// multiple of 8 so that the data section stays aligned. Throws dlm::Error for an empty or
// duplicated name or a negative dimension.
std::string safetensors_preamble(const std::vector<SafetensorsEntry>& entries,
                                 const std::map<std::string, std::string>& metadata = {});

// One file being written: the preamble at construction, then exactly the entries' bytes, in
// order, through write(); finish() checks that every byte promised arrived and flushes. A writer
// that is destroyed unfinished removes its partial file, so a failed run leaves no file that
// looks like a checkpoint.
class SafetensorsWriter {
public:
    SafetensorsWriter(const std::filesystem::path& file, std::vector<SafetensorsEntry> entries,
                      const std::map<std::string, std::string>& metadata = {});
    ~SafetensorsWriter();
    SafetensorsWriter(const SafetensorsWriter&) = delete;
    SafetensorsWriter& operator=(const SafetensorsWriter&) = delete;

    // Appends the next bytes of the data section (they may span tensor boundaries). Throws
    // dlm::Error when more bytes arrive than the entries hold or the disk refuses them.
    void write(std::span<const std::byte> bytes);
    void finish();

    std::size_t data_bytes() const { return total_; }    // the whole data section
    std::size_t written_bytes() const { return written_; }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
    std::ofstream out_;
    std::size_t total_ = 0;
    std::size_t written_ = 0;
    bool finished_ = false;
};

}  // namespace dlm
