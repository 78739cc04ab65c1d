#pragma once
// Attention of the computed query rows against all N canvas columns (design.md §3), flash-style:
// keys are streamed in tiles with an online softmax, bf16 K/V, fp32 accumulation, GQA (query head
// h reads K/V head h / (n_heads / n_kv_heads)), optional per-row-and-head log-sum-exp.
//
// Column sources: column j is read from the item's cache (which already holds the K/V just
// written for the computed rows) unless overridden[j], in which case it is read from the
// override source (COVER's previous-step K/V) — except that, when self_sees_fresh, the query row
// at position p reads column p + verifier_offset from the cache if that column is overridden
// (the leave-one-out view of the seed it verifies; compute/backend.h KvOverride).
//
// Column visibility: every row sees every column unless `causal` or a shadow block hides some
// (AttentionArgs below); hidden columns get zero weight, exactly as the CPU backend's -inf scores.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace dlm::cuda {

struct AttentionArgs {
    const float* q = nullptr;       // fp32 [m][q_stride]; head h at q + h * head_dim (after RoPE)
    int q_stride = 0;
    const __nv_bfloat16* k_cache = nullptr;  // this layer, [>= n][kv_dim]
    const __nv_bfloat16* v_cache = nullptr;
    const __nv_bfloat16* k_override = nullptr;  // this layer of the override source, or null
    const __nv_bfloat16* v_override = nullptr;
    const uint8_t* overridden = nullptr;        // device [n], or null when there is no override
    bool self_sees_fresh = true;
    int verifier_offset = 0;                    // 0: a row verifies its own column; 1: the next one
    const int32_t* row_pos = nullptr;           // device [m]: the canvas position of each query row
    int m = 0;             // query rows
    int n = 0;             // canvas columns (causal callers may stop after the last row's column)
    int n_heads = 0;
    int n_kv_heads = 0;
    int head_dim = 0;      // <= 256, even
    float scale = 0.f;     // 1 / sqrt(head_dim)
    __nv_bfloat16* out = nullptr;  // [m][out_stride]; head h at out + h * head_dim
    int out_stride = 0;
    // Optional fp32 copy of out (same layout), before its rounding to bf16: COVER's closed-form
    // correction subtracts most of a seed row's output when its overridden diagonal dominates, and
    // from the bf16 output that amplifies the rounding past bf16 accuracy.
    float* out_f32 = nullptr;
    float* lse = nullptr;  // [m][n_heads] natural-log log-sum-exp of the scaled scores, or null
    // Causal models (qwen2): the query row at canvas position p sees columns 0..p only. Columns
    // after the largest row position are never read, so a causal cache need not hold them.
    // (Other hidden columns may be read and given weight 0: their K/V must be finite.)
    bool causal = false;
    // WINO's shadow block (compute/backend.h ShadowBlock): columns [shadow_first, + shadow_count)
    // are shadow columns, twins of [shadow_twin_first, + shadow_count). A query row outside the
    // block never sees a shadow column; shadow row s sees every shadow column and every other
    // column except its twin shadow_twin_first + (s - shadow_first). shadow_count = 0: none.
    // Both rules only hide columns; where a column's K/V comes from is decided as above.
    int shadow_first = -1;
    int shadow_twin_first = 0;
    int shadow_count = 0;
    // Optional fp32 scratch for splitting the columns over several blocks when there are too few
    // query rows to fill the device (SureLock steps, decode-like shapes); a combine pass merges the
    // parts. Without it (or when it is too small) the kernel simply runs unsplit.
    float* split_workspace = nullptr;
    std::size_t split_workspace_floats = 0;
};

// The flash kernel's tilings (attention.cu says what each trades). DLM_CUDA_ATTENTION_TILING =
// wide | narrow | narrow4 picks one for the process (read once; anything else is refused with the
// reason); unset: narrow4, the fastest measured. All compute the same scores; wide and the narrow
// ones may differ in the last bits of the output, as they sum the columns in tiles of another width.
enum class AttentionTiling { wide, narrow, narrow4 };
AttentionTiling attention_tiling();
const char* attention_tiling_name(AttentionTiling tiling);

// Scores are formed from q rounded to bf16 (the tensor-core input type), the probabilities are
// rounded to bf16 for the P·V product; softmax statistics and accumulators are fp32.
void launch_attention(const AttentionArgs& args, cudaStream_t stream);

// The split_workspace size (in floats) launch_attention would use for these shapes on the current
// device; 0 when it would not split. Only m, n, n_heads, n_kv_heads and head_dim are read.
std::size_t attention_split_workspace_floats(const AttentionArgs& args);

}  // namespace dlm::cuda
