#pragma once
// The machine's physical memory, for checks that refuse a run the system would otherwise kill.
namespace dlm {

// Bytes of physical memory, or 0 when the system does not say.
double physical_memory_bytes();

}  // namespace dlm
