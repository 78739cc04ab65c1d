#pragma once
// COVER's closed-form diagonal correction on the GPU (the COVER paper, §5.1, App. B; the CPU
// reference is compute/cover_correction.h). After launch_attention ran with self_sees_fresh =
// false (every row, the verifying rows too, read the overridden K'/V' at the seed columns), each
// row i verifying a seed column j (j = i's position + verifier_offset: its own column, or the next
// one under shifted logits) and head h is corrected to its leave-one-out view in place:
//   alpha = exp(s' - lse), s' = q·k'_j·scale, s = q·k_j·scale,
//   out = (out - alpha·v'_j + exp(s - lse)·v_j) / r,  r = 1 - alpha + exp(s - lse),  lse += log r.
// Computed in fp32 (the exponentials in a form that cannot overflow; 1 - alpha via expm1), with q
// rounded to bf16 as launch_attention rounds it. Rows that verify no seed are left alone.
// It reads the attention's fp32 output (args.out_f32, required) and writes the bf16 out: from the
// bf16 output, when alpha is close to 1 (r small) its rounding would come out amplified by 1/r.
// args.causal and the shadow block fields are not read: they only hide columns, and the verified
// column is never hidden (a causal row verifies only its own column, which it sees; a shadow
// block is never combined with an override), so the correction is the same under them.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "attention.cuh"

namespace dlm::cuda {

// args: the same AttentionArgs the override attention ran with (q, k_cache/v_cache = fresh K/V,
// k_override/v_override, head layout, out, out_f32, lse — out_f32 and lse must be non-null).
// seed_rows: device [n_seed_rows] indices into the m query rows of the rows verifying a seed.
void launch_cover_correction(const AttentionArgs& args, const int32_t* seed_rows, int n_seed_rows,
                             cudaStream_t stream);

}  // namespace dlm::cuda
