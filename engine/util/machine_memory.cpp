#include "util/machine_memory.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace dlm {

namespace {

// First number in `file` (0 when absent or not a number, e.g. cgroup v2's "max").
double read_number(const std::string& file) {
    std::ifstream in(file);
    double v = 0;
    return (in >> v) ? v : 0.0;
}

// The value of `key` in a "key value" file such as memory.stat (-1 when absent).
double stat_value(const std::string& file, const std::string& key) {
    std::ifstream in(file);
    std::string k;
    double v = 0;
    while (in >> k >> v)
        if (k == key) return v;
    return -1.0;
}

// This process's memory cgroup folder: cgroup v2 ("0::/path") or v1 ("N:memory:/path"), found
// under /sys/fs/cgroup as the process sees it (inside a container its own group is the root).
struct CgroupFiles {
    std::string limit, stat, anon_key;
};

bool exists(const std::string& f) { return std::ifstream(f).good(); }

CgroupFiles memory_cgroup() {
    std::ifstream in("/proc/self/cgroup");
    std::string v1_path, v2_path;
    for (std::string line; std::getline(in, line);) {
        const auto a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (line.compare(0, a, "0") == 0 && controllers.empty()) v2_path = path;
        std::stringstream list(controllers);
        for (std::string c; std::getline(list, c, ',');)
            if (c == "memory") v1_path = path;
    }
    for (const std::string& dir : {"/sys/fs/cgroup" + v2_path, std::string("/sys/fs/cgroup")})
        if (!v2_path.empty() && exists(dir + "/memory.max")) return {dir + "/memory.max", dir + "/memory.stat", "anon"};
    for (const std::string& dir : {"/sys/fs/cgroup/memory" + v1_path, std::string("/sys/fs/cgroup/memory")})
        if (!v1_path.empty() && exists(dir + "/memory.limit_in_bytes"))
            return {dir + "/memory.limit_in_bytes", dir + "/memory.stat", "total_rss"};
    return {};
}

// What the group may still take: its limit less its anonymous memory (page cache it can drop),
// or 0 when it has no limit the machine does not already impose.
double cgroup_headroom_bytes() {
    const CgroupFiles g = memory_cgroup();
    if (g.limit.empty()) return 0.0;
    const double limit = read_number(g.limit), anon = stat_value(g.stat, g.anon_key);
    if (limit <= 0 || anon < 0 || limit >= physical_memory_bytes()) return 0.0;
    return std::max(0.0, limit - anon);
}

}  // namespace

double physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
}

double available_memory_bytes() {
    double available = 0;
    std::ifstream in("/proc/meminfo");
    std::string key, rest;
    double value = 0;
    while (in >> key >> value) {
        std::getline(in, rest);
        if (key == "MemAvailable:") {
            available = value * 1024.0;  // the file counts in kB
            break;
        }
    }
    // In a container /proc/meminfo shows the host; the group's limit is what the process gets.
    const double headroom = cgroup_headroom_bytes();
    if (headroom > 0) available = available > 0 ? std::min(available, headroom) : headroom;
    return available;
}

}  // namespace dlm
