#include "util/machine_memory.h"

#include <unistd.h>

namespace dlm {

double physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
}

}  // namespace dlm
