#include "util/text_file.h"

#include <fstream>
#include <system_error>

#include "util/error.h"

namespace dlm {

namespace fs = std::filesystem;

namespace {

std::string mib(uint64_t bytes) {
    return bytes % (1024 * 1024) == 0 ? std::to_string(bytes / (1024 * 1024)) + " MiB" : std::to_string(bytes) + " bytes";
}

}  // namespace

void require_regular_file(const fs::path& path, std::string_view what) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec == std::errc::no_such_file_or_directory || (!ec && st.type() == fs::file_type::not_found)) {
        throw Error(path.string() + ": cannot open the " + std::string(what) + " (no such file)");
    }
    if (ec) {
        // A symlink loop or an unreadable folder: say so in words, not as a filesystem exception.
        const bool loop = ec == std::errc::too_many_symbolic_link_levels;
        throw Error(path.string() + ": cannot open the " + std::string(what) + " (" +
                    (loop ? std::string("a loop of symbolic links") : ec.message()) + ")");
    }
    if (st.type() == fs::file_type::directory) {
        throw Error(path.string() + ": is a folder, not the " + std::string(what) + " file");
    }
    if (st.type() != fs::file_type::regular) {
        throw Error(path.string() + ": not a regular file (a pipe, socket or device); the " + std::string(what) +
                    " must be a file");
    }
}

std::string read_text_file(const fs::path& path, uint64_t max_bytes, std::string_view what) {
    require_regular_file(path, what);
    std::error_code ec;
    const uint64_t size = fs::file_size(path, ec);
    if (ec) throw Error(path.string() + ": cannot read the " + std::string(what) + " (" + ec.message() + ")");
    if (size > max_bytes) {
        throw Error(path.string() + ": the " + std::string(what) + " is " + std::to_string(size) +
                    " bytes, over the limit of " + mib(max_bytes) + " for such a file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path.string() + ": cannot open the " + std::string(what));
    std::string text(static_cast<size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    text.resize(static_cast<size_t>(in.gcount()));
    if (in.bad()) throw Error(path.string() + ": read error in the " + std::string(what));
    // A file that grew while we read is cut at the size we checked; one more byte tells.
    if (in.peek() != std::char_traits<char>::eof()) {
        throw Error(path.string() + ": the " + std::string(what) + " changed size while being read");
    }
    return text;
}

}  // namespace dlm
