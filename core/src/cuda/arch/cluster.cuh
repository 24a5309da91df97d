#pragma once
// Thread block clusters (sm_90): a CTA's rank in its cluster, the cluster's index in the grid, the
// cluster-wide barrier, and the shared-memory address of the same variable in another CTA of the
// cluster (for remote mbarrier arrivals). Defined only where the kernels that use them compile.

namespace tcemu::cuda::detail::arch {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ unsigned cluster_ctarank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned cluster_id_x() {
  unsigned r;
  asm volatile("mov.u32 %0, %%clusterid.x;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned cluster_count_x() {
  unsigned r;
  asm volatile("mov.u32 %0, %%nclusterid.x;\n" : "=r"(r));
  return r;
}
/// Every thread of every CTA of the cluster arrives, then waits for all (release / acquire: shared
/// memory written before is visible to the cluster after). All threads of each warp must call it.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
/// The shared::cluster address of `local` (a shared::cta address of this CTA) in CTA `rank` of the cluster.
__device__ __forceinline__ unsigned map_to_rank(unsigned local, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(local), "r"(rank));
  return r;
}
#endif

}  // namespace tcemu::cuda::detail::arch
