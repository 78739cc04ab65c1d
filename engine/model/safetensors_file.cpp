#include "model/safetensors_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include "util/error.h"
#include "util/input_limits.h"
#include "util/json_depth.h"

namespace dlm {

namespace {

using nlohmann::json;

// The reference parser's limit; a larger "header" is a corrupt length field, not a real header.
constexpr uint64_t kMaxHeaderBytes = limits::kSafetensorsHeaderBytes;

// Finds a key repeated among the top-level object's keys (the format forbids it; a JSON object
// would silently keep the last). A SAX pass, linear in the header: the DOM parser's callback
// re-scans the parent object after every entry, which is quadratic in the tensor count.
struct TopLevelKeys : nlohmann::json_sax<json> {
    int depth = 0;
    std::set<std::string> seen;
    std::string duplicate;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return ++depth, true; }
    bool end_object() override { return --depth, true; }
    bool start_array(std::size_t) override { return ++depth, true; }
    bool end_array() override { return --depth, true; }
    bool key(string_t& k) override {
        if (depth == 1 && duplicate.empty() && !seen.insert(k).second) duplicate = k;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

std::optional<DType> parse_dtype(const std::string& s) {
    if (s == "F32") return DType::F32;
    if (s == "F16") return DType::F16;
    if (s == "BF16") return DType::BF16;
    return std::nullopt;
}

bool is_known_safetensors_dtype(const std::string& s) {
    static const std::set<std::string> known = {"BOOL", "U8",  "I8",  "F8_E5M2", "F8_E4M3", "F8_E8M0", "I16", "U16",
                                                "I32",  "U32", "F64", "I64",     "U64",     "F4",      "F6_E2M3",
                                                "F6_E3M2", "C64"};
    return known.count(s) != 0;
}

std::string shape_string(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// Owns the file descriptor / mapping until construction succeeds.
struct Mapping {
    int fd = -1;
    void* addr = nullptr;
    std::size_t size = 0;
    ~Mapping() {
        if (addr) munmap(addr, size);
        if (fd >= 0) close(fd);
    }
};

}  // namespace

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path) : path_(path) {
    const std::string file = path.string();
    auto fail = [&](const std::string& what) -> Error { return Error(file + ": " + what); };

    Mapping m;
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused as not regular below.
    m.fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (m.fd < 0) throw fail(std::string("cannot open (") + std::strerror(errno) + ")");
    struct stat st {};
    if (fstat(m.fd, &st) != 0) throw fail(std::string("cannot stat (") + std::strerror(errno) + ")");
    if (!S_ISREG(st.st_mode)) throw fail("not a regular file (a pipe, socket or device); weights must be a file");
    const uint64_t file_size = static_cast<uint64_t>(st.st_size);
    if (file_size < 8) {
        throw fail("not a safetensors file: " + std::to_string(file_size) +
                   " bytes, shorter than the 8-byte header length");
    }

    // Read-only private mapping: pages come from the page cache on demand, so a 16 GB checkpoint
    // costs no RAM until it is touched, and nothing can be written back to the file.
    m.size = static_cast<std::size_t>(file_size);
    m.addr = mmap(nullptr, m.size, PROT_READ, MAP_PRIVATE, m.fd, 0);
    if (m.addr == MAP_FAILED) {
        m.addr = nullptr;
        throw fail(std::string("cannot memory-map (") + std::strerror(errno) + ")");
    }
    const auto* base = static_cast<const unsigned char*>(m.addr);

    uint64_t header_len = 0;
    for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | base[i];  // little-endian
    if (header_len > file_size - 8) {
        // The length is the file's first 8 bytes: in a file that is not safetensors at all they are
        // text, so the number is not shown (it would spell out the file's first bytes).
        throw fail("not a safetensors file, or truncated: its 8-byte header length points past the end of the "
                   "file (" + std::to_string(file_size) + " bytes)");
    }
    if (header_len > kMaxHeaderBytes) {
        throw fail("header length is over the 100 MiB limit of the format (a corrupt length field, or not a "
                   "safetensors file)");
    }
    if (header_len < 2 || base[8] != '{') throw fail("header does not start with '{'; not a safetensors file");

    const char* header_begin = reinterpret_cast<const char*>(base + 8);
    const char* header_end = header_begin + header_len;
    // The JSON parser stops at a NUL as if the input ended, so NUL padding (invalid: only spaces
    // may pad the header) must be caught here. JSON text never contains a raw NUL.
    if (std::memchr(header_begin, '\0', header_len) != nullptr) {
        throw fail("header is not well-formed JSON (it contains a NUL byte; only spaces may pad the header)");
    }
    check_json_depth(std::string_view(header_begin, header_len), file + " (header)");
    json header;
    try {
        header = json::parse(header_begin, header_end);
    } catch (const json::exception& e) {
        throw fail(std::string("header is not well-formed JSON (") + e.what() + ")");
    }
    if (!header.is_object()) throw fail("header is not a JSON object");
    TopLevelKeys keys;
    json::sax_parse(header_begin, header_end, &keys);
    if (!keys.duplicate.empty()) throw fail("tensor \"" + keys.duplicate + "\" appears twice in the header");

    const uint64_t data_start = 8 + header_len;
    const uint64_t data_size = file_size - data_start;

    struct Extent {
        uint64_t begin, end;
        const std::string* name;
    };
    std::vector<Extent> extents;

    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object()) throw fail("__metadata__ must be an object of strings");
            for (const auto& [key, value] : entry.items()) {
                if (!value.is_string()) {
                    throw fail("__metadata__ value for \"" + key + "\" must be a string, found " + value.dump());
                }
                metadata_[key] = value.get<std::string>();
            }
            continue;
        }
        const std::string& tensor = name;  // a structured binding cannot be captured before C++20 compilers caught up
        auto bad = [&](const std::string& what) { return fail("tensor \"" + tensor + "\": " + what); };
        if (!entry.is_object()) throw bad("entry must be an object with dtype, shape and data_offsets");
        if (!entry.contains("dtype") || !entry.at("dtype").is_string()) throw bad("missing or non-string \"dtype\"");
        if (!entry.contains("shape") || !entry.at("shape").is_array()) throw bad("missing or non-list \"shape\"");
        if (!entry.contains("data_offsets") || !entry.at("data_offsets").is_array()) {
            throw bad("missing or non-list \"data_offsets\"");
        }

        const std::string dtype_str = entry.at("dtype").get<std::string>();
        const std::optional<DType> dtype = parse_dtype(dtype_str);
        if (!dtype) {
            if (is_known_safetensors_dtype(dtype_str)) {
                throw bad("unsupported dtype " + dtype_str + " (dlmscope reads F32, F16 and BF16 weights)");
            }
            throw bad("unknown dtype \"" + dtype_str + "\"");
        }

        TensorView view;
        view.name = name;
        view.dtype = *dtype;
        view.file = file;
        uint64_t numel = 1;
        for (const json& d : entry.at("shape")) {
            if (!d.is_number_integer() || (!d.is_number_unsigned() && d.get<int64_t>() < 0)) {
                throw bad("shape " + entry.at("shape").dump() + " must be a list of non-negative integers");
            }
            const uint64_t dim = d.get<uint64_t>();
            if (dim > static_cast<uint64_t>(INT64_MAX) || __builtin_mul_overflow(numel, dim, &numel)) {
                throw bad("shape " + entry.at("shape").dump() + " is too large");
            }
            view.shape.push_back(static_cast<int64_t>(dim));
        }

        const json& offsets = entry.at("data_offsets");
        if (offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) {
            throw bad("data_offsets " + offsets.dump() + " must be [begin, end] with non-negative integers");
        }
        const uint64_t begin = offsets[0].get<uint64_t>();
        const uint64_t end = offsets[1].get<uint64_t>();
        if (begin > end) throw bad("data_offsets " + offsets.dump() + " has begin after end");
        if (end > data_size) {
            throw bad("data_offsets " + offsets.dump() + " run past the data section (" + std::to_string(data_size) +
                      " bytes); the file is truncated or corrupt");
        }
        uint64_t expected_bytes = 0;
        if (__builtin_mul_overflow(numel, static_cast<uint64_t>(dtype_size(*dtype)), &expected_bytes) ||
            expected_bytes != end - begin) {
            throw bad("shape " + shape_string(view.shape) + " x " + dtype_str + " needs " +
                      std::to_string(numel * dtype_size(*dtype)) + " bytes but data_offsets " + offsets.dump() +
                      " span " + std::to_string(end - begin));
        }
        view.data = reinterpret_cast<const std::byte*>(base + data_start + begin);
        view.nbytes = static_cast<std::size_t>(end - begin);
        auto [it, inserted] = tensors_.emplace(name, std::move(view));
        extents.push_back({begin, end, &it->first});
    }

    // Header order need not be data order: sort by offset, then require the regions to tile the
    // data section exactly. The reference implementation rejects holes too, so a hole means a
    // corrupt or hand-made file rather than a layout choice worth tolerating.
    std::sort(extents.begin(), extents.end(), [](const Extent& a, const Extent& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    uint64_t covered = 0;
    const std::string* previous = nullptr;
    for (const Extent& e : extents) {
        if (e.begin < covered) {
            throw fail("tensor \"" + *e.name + "\" overlaps tensor \"" + (previous ? *previous : std::string()) +
                       "\" in the data section (bytes " + std::to_string(e.begin) + ".." + std::to_string(covered) +
                       ")");
        }
        if (e.begin > covered) {
            throw fail("gap of " + std::to_string(e.begin - covered) + " unused bytes before tensor \"" + *e.name +
                       "\" (data offset " + std::to_string(covered) + "); safetensors data must be contiguous");
        }
        covered = e.end;
        if (e.end > e.begin) previous = e.name;
    }
    if (covered != data_size) {
        throw fail(std::to_string(data_size - covered) + " trailing bytes after the last tensor (data section is " +
                   std::to_string(data_size) + " bytes, tensors cover " + std::to_string(covered) + ")");
    }

    // No madvise: F32 weights are read in place every step (MADV_SEQUENTIAL would let the kernel
    // drop them after each pass), and MADV_WILLNEED would pull a 16 GB file in at once.

    mapping_ = m.addr;
    mapping_size_ = m.size;
    m.addr = nullptr;  // ownership moves to *this; the descriptor is not needed once mapped
}

SafetensorsFile::~SafetensorsFile() {
    if (mapping_) munmap(mapping_, mapping_size_);
}

}  // namespace dlm
