#pragma once
// cp.async (sm_80 and later): global -> shared copies that bypass the registers, in commit groups.

namespace tcemu::cuda::detail::arch {

/// 16 bytes, L2 only (.cg): an 8-byte .ca copy would hold an L1 line per request in flight
/// (docs/perf-notes.md 8.3). `dst` is a shared-space address.
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}

/// As cp_async16, but `valid` false copies nothing and zero-fills the 16 bytes (source size 0).
__device__ __forceinline__ void cp_async16_zfill(unsigned dst, const void* src, bool valid) {
  const int bytes = valid ? 16 : 0;  // 0: zero-fill (rows past m/n, k past the padded part)
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}

/// Closes the group of the copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

/// Waits until at most N committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

}  // namespace tcemu::cuda::detail::arch
