#pragma once
// Warp-level tensor-core building blocks (sm_80 and later) as inline PTX: ldmatrix fragment
// loads from shared memory, the bf16 m16n8k16 MMA with fp32 accumulation, and 16-byte cp.async
// copies from global to shared memory. Fragment layouts are the PTX ISA's for m16n8k16:
//   A (16x16, row-major): a0 = (row g, k 2c..2c+1), a1 = (row g+8, same k), a2/a3 = the same rows, k+8;
//   B (16x8, "col"):      b0 = (k 2c..2c+1, col g), b1 = (k+8, col g);
//   C (16x8 fp32):        c0,c1 = (row g, cols 2c, 2c+1), c2,c3 = (row g+8, same cols);
// with g = lane / 4 and c = lane % 4.
#include <cuda_bf16.h>

#include <cstdint>

namespace dlm::cuda::mma {

__device__ __forceinline__ uint32_t shared_address(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Four 8x8 bf16 matrices; lanes 8k..8k+7 give the 16-byte row addresses of matrix k, and
// register k receives matrix k in the A/B fragment layout.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* row_address) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(row_address))
                 : "memory");
}

// The same, each matrix transposed on the way (for a row-major B operand such as V).
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row_address) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(row_address))
                 : "memory");
}

// d += a · b for one 16x8x16 tile, bf16 inputs, fp32 accumulators.
__device__ __forceinline__ void mma_bf16_16x8x16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Two fp32 values as one bf16x2 register (lo in the low half, as the fragments expect).
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return (static_cast<uint32_t>(__bfloat16_as_ushort(v.y)) << 16) | __bfloat16_as_ushort(v.x);
}

// Asynchronous 16-byte global -> shared copy (both addresses 16-byte aligned), bypassing L1.
__device__ __forceinline__ void cp_async_16(void* shared_dst, const void* global_src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address(shared_dst)), "l"(global_src)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most `Pending` of this thread's committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

}  // namespace dlm::cuda::mma
