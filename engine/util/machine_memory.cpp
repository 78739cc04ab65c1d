#include "util/machine_memory.h"

#include <unistd.h>

#include <fstream>
#include <string>

namespace dlm {

double physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
}

double available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    double value = 0;
    while (in >> key >> value) {
        std::getline(in, unit);
        if (key == "MemAvailable:") return value * 1024.0;  // the file counts in kB
    }
    return 0.0;
}

}  // namespace dlm
