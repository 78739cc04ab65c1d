#pragma once
// The machine's physical memory, for checks that refuse a run the system would otherwise kill.
namespace dlm {

// Bytes of physical memory, or 0 when the system does not say.
double physical_memory_bytes();

// Bytes the system can give without swapping (Linux's MemAvailable: free memory plus page cache it
// can drop, which includes a mapped checkpoint's cached pages), capped by the memory cgroup's limit
// less its anonymous memory when the process runs in a limited group (a container); 0 when the
// system does not say.
double available_memory_bytes();

}  // namespace dlm
