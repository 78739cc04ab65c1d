#pragma once
// The least time a forward step can take on a device: the larger of its arithmetic at the
// device's measured matrix rate and its compulsory memory traffic at the measured copy
// bandwidth (the GPU benchmark's roofline). The device rates are measured elsewhere
// (kernels/device_roofline.h); this file only counts.
#include <string>

#include "model/model_config.h"

namespace dlm {

struct RooflineRates {
    double gemm_flops_per_s = 0;  // measured dense matrix rate (bf16 inputs, fp32 accumulation)
    double copy_bytes_per_s = 0;  // measured device-to-device copy, bytes read + written per second
    std::string how;              // what was measured, for reports
};

// One step over a batch of `batch` canvases of n positions each, with `rows` of each computed
// and `head_rows` of each through the LM head.
struct StepCost {
    double flops = 0;         // design.md §6 GEMM FLOPs (attention included) + the LM head
    double weight_bytes = 0;  // every weight read once per step (embedding: only the gathered rows)
    double kv_bytes = 0;      // K/V of all n positions read, and of the computed rows written, per layer
    double bytes() const { return weight_bytes + kv_bytes; }
};

// `weight_element_bytes` / `kv_element_bytes`: 2 for bf16 storage.
StepCost step_cost(const ModelConfig& c, int n, int rows, int head_rows, int batch, double weight_element_bytes = 2,
                   double kv_element_bytes = 2);

// max(flops / matrix rate, bytes / copy bandwidth); 0 when a rate is unknown (<= 0).
double roofline_seconds(const StepCost& cost, const RooflineRates& rates);

}  // namespace dlm
