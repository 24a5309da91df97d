// Arithmetic paths of the CUDA backend: native cuBLAS, split-part products, Ozaki INT8 (paths.hpp).
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cmath>
#include <type_traits>
#include <string>
#include <vector>

#include "cuda/kernels/fused.hpp"
#include "cuda/dispatch/part_layout.hpp"
#include "cuda/dispatch/paths.hpp"
#include "tcemu/schemes/ozaki.hpp"

namespace tcemu::cuda::detail {
namespace {

std::int64_t round_up(std::int64_t v, std::int64_t q) { return (v + q - 1) / q * q; }

int blas_int(std::int64_t v, const char* what) {
  if (v > INT_MAX)
    throw InvalidArgument(std::string("tcemu cuda gemm: ") + what + " = " + std::to_string(v) +
                          " exceeds cuBLAS's 32-bit integer range");
  return static_cast<int>(v);
}

/// How cuBLAS reads an operand in place: pointer, leading dimension and transpose flag. For x
/// (the "A" of the column-major GEMM, m x k) and y (whose transpose is the "B", k x n).
struct BlasOperand {
  bool ok = false;
  cublasOperation_t op = CUBLAS_OP_N;
  std::int64_t ld = 0;
};

/// x as cuBLAS's A (m x k): op N needs line_stride 1 (column-major), op T needs k_stride 1.
template <class T>
BlasOperand blas_a(const Operand<T>& x, std::int64_t k) {
  if (x.line_stride == 1 && x.k_stride >= std::max<std::int64_t>(1, x.lines))
    return {true, CUBLAS_OP_N, x.k_stride};
  if (x.k_stride == 1 && x.line_stride >= std::max<std::int64_t>(1, k)) return {true, CUBLAS_OP_T, x.line_stride};
  return {};
}
/// y^T as cuBLAS's B (k x n): op N needs k_stride 1, op T needs line_stride 1.
template <class T>
BlasOperand blas_b(const Operand<T>& y, std::int64_t k) {
  if (y.k_stride == 1 && y.line_stride >= std::max<std::int64_t>(1, k)) return {true, CUBLAS_OP_N, y.line_stride};
  if (y.line_stride == 1 && y.k_stride >= std::max<std::int64_t>(1, y.lines))
    return {true, CUBLAS_OP_T, y.k_stride};
  return {};
}

Store store_of(PartType p) {
  const Store s = store_for(p);
  if (s == Store::none) throw InvalidArgument("tcemu cuda: no split storage for INT8 parts");
  return s;
}

std::size_t store_bytes(Store s) {
  switch (s) {
    case Store::f16:
    case Store::bf16: return 2;
    case Store::f32: return 4;
    case Store::f64: return 8;
    case Store::none: return 0;
  }
  return 0;
}

cudaDataType blas_type(PartType p) {
  switch (p) {
    case PartType::fp16: return CUDA_R_16F;
    case PartType::bf16: return CUDA_R_16BF;
    case PartType::fp64: return CUDA_R_64F;
    default: return CUDA_R_32F;
  }
}

SplitSpec spec_for(SchemeKind kind, Store store, const std::vector<int>& seq) {
  SplitSpec sp;
  sp.kind = kind;
  sp.store = store;
  sp.nseq = static_cast<int>(seq.size());
  if (sp.nseq > 16) throw InvalidArgument("tcemu cuda: more than 16 parts in a panel");
  for (int q = 0; q < sp.nseq; ++q) sp.seq[q] = static_cast<signed char>(seq[q]);
  return sp;
}

/// Split-panel row length: k padded to 16 elements (32-byte rows for 16-bit parts, INT8 alignment).
std::int64_t panel_k(std::int64_t k) { return round_up(std::max<std::int64_t>(k, 1), 16); }

/// Panel layout of the fused kernel: every part once, in its natural order, on both sides.
PartLayout natural_layout(const Scheme& s) {
  PartLayout L;
  for (int q = 0; q < s.parts; ++q) {
    L.seq_a.push_back(q);
    L.seq_b.push_back(q);
  }
  return L;
}

}  // namespace

bool has_fused_kernel(const Scheme& s) { return fused::supported(s); }

template <class T>
void run_native(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws) {
  const bool fp64 = s.part == PartType::fp64;
  cublasHandle_t h = ws.handle(p.stream);
  const int m = blas_int(p.m, "m"), n = blas_int(p.n, "n"), k = blas_int(p.k, "k");
  // Direct path: same precision as the data and every operand readable in place.
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    constexpr bool t_is_double = std::is_same_v<T, double>;
    const BlasOperand ba = blas_a(p.x, p.k), bb = blas_b(p.y, p.k);
    if (fp64 == t_is_double && ba.ok && bb.ok && p.c_rs == 1 && p.c_cs >= std::max<std::int64_t>(1, p.m)) {
      TCEMU_CUBLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
      if constexpr (t_is_double) {
        TCEMU_CUBLAS(cublasDgemm(h, ba.op, bb.op, m, n, k, &p.alpha, p.x.data, blas_int(ba.ld, "lda"),
                                 p.y.data, blas_int(bb.ld, "ldb"), &p.beta, p.c, blas_int(p.c_cs, "ldc")));
      } else {
        TCEMU_CUBLAS(cublasSgemm(h, ba.op, bb.op, m, n, k, &p.alpha, p.x.data, blas_int(ba.ld, "lda"),
                                 p.y.data, blas_int(bb.ld, "ldb"), &p.beta, p.c, blas_int(p.c_cs, "ldc")));
      }
      return;
    }
  }
  // Packed path: convert both operands to TN panels of the computing precision, GEMM, combine.
  const Store st = fp64 ? Store::f64 : Store::f32;
  const std::int64_t kp = round_up(std::max<std::int64_t>(p.k, 1), 4);
  const std::size_t eb = store_bytes(st);
  void* px = ws.get(kSlotPartsA, eb * p.m * kp, p.stream);
  void* py = ws.get(kSlotPartsB, eb * p.n * kp, p.stream);
  const SplitSpec spec = spec_for(schemes::native_kind(PartType::fp32), st, {0});  // plain copies
  split_operand<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride, spec, px, kp, ProfileArgs{}, p.stream);
  split_operand<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride, spec, py, kp, ProfileArgs{}, p.stream);
  const std::int64_t ldacc = round_up(p.m, 4);
  void* acc = ws.get(kSlotAccum, eb * ldacc * p.n, p.stream);
  const int ik = blas_int(kp, "k (padded)");
  const double one = 1.0;
  if (fp64) {
    const double zero = 0.0;
    TCEMU_CUBLAS(cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, ik, &one, static_cast<double*>(px), ik,
                             static_cast<double*>(py), ik, &zero, static_cast<double*>(acc),
                             blas_int(ldacc, "ldc")));
    combine_groups<double, T>(static_cast<double*>(acc), 0, ldacc, 1, 1, &one, p.m, p.n, p.alpha, p.beta,
                              p.c, p.c_rs, p.c_cs, p.stream);
  } else {
    const float onef = 1.f, zerof = 0.f;
    TCEMU_CUBLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    TCEMU_CUBLAS(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, ik, &onef, static_cast<float*>(px), ik,
                             static_cast<float*>(py), ik, &zerof, static_cast<float*>(acc),
                             blas_int(ldacc, "ldc")));
    combine_groups<float, T>(static_cast<float*>(acc), 0, ldacc, 1, 1, &one, p.m, p.n, p.alpha, p.beta,
                             p.c, p.c_rs, p.c_cs, p.stream);
  }
}

template <class T>
void split_panels(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws, const ProfileArgs& px,
                  const ProfileArgs& py) {
  const PartLayout L = p.fused ? natural_layout(s) : make_part_layout(s.groups, p.swapped);
  const Store st = store_of(s.part);
  const std::int64_t kp = panel_k(p.k);
  const std::size_t eb = store_bytes(st);
  void* ax = ws.get(kSlotPartsA, eb * p.m * L.seq_a.size() * kp, p.stream);
  void* ay = ws.get(kSlotPartsB, eb * p.n * L.seq_b.size() * kp, p.stream);
  SplitSpec sa = spec_for(s.kind, st, L.seq_a), sb = spec_for(s.kind, st, L.seq_b);
  if (s.is_line_aligned()) {
    if (!p.line_exp_x || !p.line_exp_y)
      throw InvalidArgument("tcemu cuda: " + s.name + " needs the line exponents of a profile pass");
    sa.line_exp = p.line_exp_x;
    sa.scale_exp = p.scale_exp_x;
    sb.line_exp = p.line_exp_y;
    sb.scale_exp = p.scale_exp_y;
  }
  split_operand<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride, sa, ax, kp, px, p.stream);
  split_operand<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride, sb, ay, kp, py, p.stream);
}

/// True when the group GEMMs can accumulate straight into C: FP32 data, C column-major in the
/// oriented problem with a leading dimension cuBLAS accepts.
template <class T>
bool direct_to_c(const Problem<T>& p) {
  return std::is_same_v<T, float> && p.exec->direct_to_c && p.c_rs == 1 && p.c_cs >= std::max<std::int64_t>(1, p.m) &&
         p.c_cs <= INT_MAX;
}

/// The split panels seen by cuBLAS, shared by both multi-pass product paths.
struct PanelGemm {
  const char* ax;
  const char* ay;
  std::size_t eb;       ///< bytes per part element
  std::int64_t kp;      ///< padded part length
  cublasHandle_t h;
  cudaDataType type;
  cublasComputeType_t compute;
  int m, n, lda, ldb;
  /// Start of group window `w` in the x / y panel, `off` elements further along k.
  const char* a(const GroupWindow& w, std::int64_t off = 0) const { return ax + eb * (w.off_a * kp + off); }
  const char* b(const GroupWindow& w, std::int64_t off = 0) const { return ay + eb * (w.off_b * kp + off); }
  /// C(m x n, ldc) = alpha * panel product over `k` elements from a / b + beta * C, FP32 output.
  void gemm(const char* a, const char* b, std::int64_t k, float alpha, float beta, float* c, std::int64_t ldc) const {
    TCEMU_CUBLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, blas_int(k, "k"), &alpha, a, type, lda, b, type, ldb,
                              &beta, c, CUDA_R_32F, blas_int(ldc, "ldc"), compute, CUBLAS_GEMM_DEFAULT));
  }
};

template <class T>
PanelGemm panel_gemm(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws, const PartLayout& L, std::int64_t kp) {
  const std::size_t eb = store_bytes(store_of(s.part));
  return PanelGemm{static_cast<const char*>(ws.get(kSlotPartsA, eb * p.m * L.seq_a.size() * kp, p.stream)),
                   static_cast<const char*>(ws.get(kSlotPartsB, eb * p.n * L.seq_b.size() * kp, p.stream)),
                   eb,
                   kp,
                   ws.handle(p.stream),
                   blas_type(s.part),
                   s.part == PartType::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                   blas_int(p.m, "m"),
                   blas_int(p.n, "n"),
                   blas_int(static_cast<std::int64_t>(L.seq_a.size()) * kp, "lda"),
                   blas_int(static_cast<std::int64_t>(L.seq_b.size()) * kp, "ldb")};
}

/// The multi-pass products accumulated into C by cuBLAS epilogues (see direct_to_c): alpha * 2^scale_g,
/// beta = 1 after the first GEMM, smallest group first, group 0 chunk by chunk.
template <class T>
void products_into_c(const Problem<T>& p, const PanelGemm& G, const PartLayout& L, std::int64_t kb,
                     std::int64_t nfull, std::int64_t rem, const std::vector<double>& scales) {
  if constexpr (std::is_same_v<T, float>) {
    float beta = p.beta;
    auto gemm = [&](const char* a, const char* b, std::int64_t k, float alpha) {
      G.gemm(a, b, k, alpha, beta, p.c, p.c_cs);
      beta = 1.f;
    };
    for (int g = static_cast<int>(L.windows.size()) - 1; g >= 0; --g) {
      const GroupWindow& w = L.windows[g];
      const float alpha = static_cast<float>(double(p.alpha) * scales[g]);
      if (g == 0 && nfull > 0) {
        for (std::int64_t c = 0; c < nfull; ++c) gemm(G.a(w, c * kb), G.b(w, c * kb), kb, alpha);
        if (rem > 0) gemm(G.a(w, nfull * kb), G.b(w, nfull * kb), rem, alpha);
      } else {
        gemm(G.a(w), G.b(w), w.len * G.kp, alpha);
      }
    }
  }
}

/// The multi-pass accumulators of `s` on `p`: group 0 (the most significant) in k chunks of kb
/// (p.chunks.accumulation_chunk, planned by plan_chunking), one FP32 accumulator per group and per
/// chunk of group 0.
struct Accumulation {
  PartLayout L;
  int ngroups = 0, n0 = 0;
  std::int64_t kp = 0, kb = 0, nfull = 0, rem = 0, ldacc = 0, gstride = 0;
  std::vector<double> scales;
  std::size_t bytes() const { return sizeof(float) * gstride * (ngroups + n0 - 1); }
};

template <class T>
Accumulation accumulation(const Scheme& s, const Problem<T>& p) {
  Accumulation a;
  a.L = make_part_layout(s.groups, p.swapped);
  a.ngroups = static_cast<int>(a.L.windows.size());
  a.kp = panel_k(p.k);
  const std::int64_t k0 = a.L.windows[0].len * a.kp;
  a.kb = p.chunks.accumulation_chunk;  // planned (plan_chunking)
  a.nfull = a.kb > 0 && k0 > a.kb ? k0 / a.kb : 0;
  a.rem = a.nfull > 0 ? k0 - a.nfull * a.kb : k0;
  a.n0 = static_cast<int>(a.nfull + (a.rem > 0 ? 1 : 0));
  a.scales.resize(a.ngroups);
  for (int g = 0; g < a.ngroups; ++g) a.scales[g] = std::ldexp(1.0, a.L.windows[g].scale_exp);
  a.ldacc = round_up(p.m, 4);
  a.gstride = a.ldacc * p.n;
  return a;
}

template <class T>
bool products_write_c(const Problem<T>& p) {
  return p.fused || direct_to_c(p);
}

template <class T>
void run_parts_products(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws, cudaEvent_t after_products) {
  if (p.fused) {
    // One kernel does the products and the combine into C.
    const std::int64_t kp = panel_k(p.k);
    const std::size_t eb = store_bytes(store_of(s.part));
    const fused::Panels pn{ws.get(kSlotPartsA, eb * p.m * s.parts * kp, p.stream),
                           ws.get(kSlotPartsB, eb * p.n * s.parts * kp, p.stream), p.m, p.n, kp,
                           p.exec->fused_mma};
    fused::run<T>(s, pn, fused::Epilogue<T>{p.c, p.c_rs, p.c_cs, p.alpha, p.beta}, p.stream);
    TCEMU_CUDA(cudaEventRecord(after_products, p.stream));
    return;
  }
  const Accumulation A = accumulation(s, p);
  if (direct_to_c(p)) {
    // FP32 C that cuBLAS can write: every group GEMM adds into C through its epilogue; no
    // accumulators in device memory and no combine pass.
    products_into_c(p, panel_gemm(s, p, ws, A.L, A.kp), A.L, A.kb, A.nfull, A.rem, A.scales);
    TCEMU_CUDA(cudaEventRecord(after_products, p.stream));
    return;
  }
  // Otherwise one FP32 accumulator per group (group 0: one per chunk); run_parts_combine adds them.
  float* acc = static_cast<float*>(ws.get(kSlotAccum, A.bytes(), p.stream));
  const PanelGemm G = panel_gemm(s, p, ws, A.L, A.kp);
  const float one = 1.f, zero = 0.f;
  for (int g = 0; g < A.ngroups; ++g) {
    const GroupWindow& w = A.L.windows[g];
    if (g == 0 && A.nfull > 0) {
      TCEMU_CUBLAS(cublasGemmStridedBatchedEx(G.h, CUBLAS_OP_T, CUBLAS_OP_N, G.m, G.n, blas_int(A.kb, "k chunk"), &one,
                                              G.a(w), G.type, G.lda, A.kb, G.b(w), G.type, G.ldb, A.kb, &zero, acc,
                                              CUDA_R_32F, blas_int(A.ldacc, "ldc"), A.gstride,
                                              blas_int(A.nfull, "chunks"), G.compute, CUBLAS_GEMM_DEFAULT));
      if (A.rem > 0)
        G.gemm(G.a(w, A.nfull * A.kb), G.b(w, A.nfull * A.kb), A.rem, one, zero, acc + A.nfull * A.gstride, A.ldacc);
      continue;
    }
    G.gemm(G.a(w), G.b(w), w.len * A.kp, one, zero, acc + (g == 0 ? 0 : (A.n0 + g - 1) * A.gstride), A.ldacc);
  }
  TCEMU_CUDA(cudaEventRecord(after_products, p.stream));
}

template <class T>
void run_parts_combine(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws) {
  if (products_write_c(p)) return;  // the products' epilogues wrote C
  const Accumulation A = accumulation(s, p);
  float* acc = static_cast<float*>(ws.get(kSlotAccum, A.bytes(), p.stream));
  combine_groups<float, T>(acc, A.gstride, A.ldacc, A.ngroups, A.n0, A.scales.data(), p.m, p.n, p.alpha, p.beta, p.c,
                           p.c_rs, p.c_cs, p.stream);
}

template <class T>
void run_ozaki(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws, const int* ex, const int* ey,
               cudaEvent_t after_split, cudaEvent_t after_products) {
  const int sl = s.parts;
  constexpr std::int64_t kChunk = split::kOzakiMaxChunkK;
  // k in INT32-exact chunks of equal length, as planned (plan_chunking).
  const std::int64_t nchunks = std::max<std::int64_t>(1, p.chunks.k_chunks);
  const std::int64_t kc = std::max<std::int64_t>(1, p.chunks.k_chunk_length);
  const std::int64_t kcp = panel_k(kc);
  const std::int64_t per_line = nchunks * sl * kcp;  // bytes of one line's slices
  auto* sx = static_cast<std::int8_t*>(ws.get(kSlotPartsA, per_line * p.m, p.stream));
  auto* sy = static_cast<std::int8_t*>(ws.get(kSlotPartsB, per_line * p.n, p.stream));
  ozaki_slice_operand<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride, ex, sl, false, kc, kcp,
                         nchunks, sx, p.stream);
  ozaki_slice_operand<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride, ey, sl, true, kc, kcp,
                         nchunks, sy, p.stream);
  TCEMU_CUDA(cudaEventRecord(after_split, p.stream));

  // INT32 exactness: a GEMM over len slice pairs of a chunk sums len * kc products of |v| <= 127,
  // so len * kc <= 2^17 keeps it below 2^31.
  const std::int64_t lmax = std::max<std::int64_t>(1, kChunk / kc);
  struct Gemm {
    std::int64_t chunk;
    int g, off, len;
  };
  std::vector<Gemm> gemms;
  if (sl < 1 || sl > schemes::kOzakiMaxSlices)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Ozaki::desc.name + ": slice count " + std::to_string(sl) +
                          " is outside 1.." + std::to_string(schemes::kOzakiMaxSlices));
  // The product triangle (schemes/ozaki.hpp): groups g = i+j least significant first, the order of
  // the FP64 sum; a group's g - 1 slice pairs are contiguous windows of both panels.
  const schemes::OzakiTriangle& tri = schemes::kOzakiTriangles.t[sl];
  for (int gi = 0; gi < tri.groups(); ++gi) {
    const int g = tri.group_at(gi);
    for (std::int64_t c = 0; c < nchunks; ++c)
      for (int o = 0; o < tri.count(g); o += static_cast<int>(lmax))
        gemms.push_back({c, g, o, static_cast<int>(std::min<std::int64_t>(lmax, tri.count(g) - o))});
  }
  if (static_cast<int>(gemms.size()) > kMaxOzakiBuffers)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Ozaki::desc.name + ": k = " + std::to_string(p.k) + " with " +
                          std::to_string(sl) + " slices needs " + std::to_string(gemms.size()) +
                          " INT32 products per output (limit " + std::to_string(kMaxOzakiBuffers) + ")");
  // The INT32 accumulators (one m x n buffer per GEMM) can dwarf the operands (qsim at 30 qubits,
  // 2-qubit blocks: 2^28 x 8 outputs x 9 buffers x 4 bytes = 77 GB), so rows run in blocks whose
  // accumulators fit a budget: ExecutionPolicy::ozaki_accumulator_bytes, default 8 GiB.
  // Each block's sums are the same integers in the same order, so the result does not depend on it.
  const std::int64_t nbuf = static_cast<std::int64_t>(gemms.size());
  const std::int64_t budget = std::max<std::int64_t>(p.exec->ozaki_accumulator_bytes, 1);
  const std::int64_t per_row = static_cast<std::int64_t>(sizeof(std::int32_t)) * p.n * nbuf;
  std::int64_t mb = p.m;
  if (round_up(p.m, 4) * per_row > budget) mb = std::max<std::int64_t>(4, budget / per_row / 4 * 4);
  const std::int64_t ldacc = round_up(mb, 4);
  const std::int64_t bstride = ldacc * p.n;
  auto* acc = static_cast<std::int32_t*>(ws.get(kSlotAccum, sizeof(std::int32_t) * bstride * nbuf, p.stream));

  cublasHandle_t h = ws.handle(p.stream);
  const int n = blas_int(p.n, "n"), ld = blas_int(per_line, "lda");
  const std::int32_t one = 1, zero = 0;
  std::vector<unsigned char> g_of;
  for (const Gemm& G : gemms) g_of.push_back(static_cast<unsigned char>(G.g));
  for (std::int64_t m0 = 0; m0 < p.m; m0 += mb) {
    const std::int64_t rows = std::min(mb, p.m - m0);
    const int m = blas_int(rows, "m");
    for (std::size_t b = 0; b < gemms.size(); ++b) {
      const Gemm& G = gemms[b];
      const std::int8_t* a = sx + m0 * per_line + G.chunk * sl * kcp + std::int64_t{G.off} * kcp;
      const std::int8_t* bb = sy + G.chunk * sl * kcp + std::int64_t{sl - G.g + 1 + G.off} * kcp;
      TCEMU_CUBLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, blas_int(G.len * kcp, "k x slices"), &one,
                                a, CUDA_R_8I, ld, bb, CUDA_R_8I, ld, &zero, acc + b * bstride, CUDA_R_32I,
                                blas_int(ldacc, "ldc"), CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
    }
    // With several row blocks the accumulation of all but the last falls into the products' time.
    if (m0 + mb >= p.m) TCEMU_CUDA(cudaEventRecord(after_products, p.stream));
    ozaki_accumulate<T>(acc, bstride, ldacc, static_cast<int>(nbuf), g_of.data(), sl, ex + m0, ey, rows, p.n,
                        p.alpha, p.beta, p.c + m0 * p.c_rs, p.c_rs, p.c_cs, p.stream);
  }
}

#define TCEMU_PATHS(T)                                                                              \
  template void run_native<T>(const Scheme&, const Problem<T>&, Workspace::Impl&);                 \
  template void split_panels<T>(const Scheme&, const Problem<T>&, Workspace::Impl&,                \
                                const ProfileArgs&, const ProfileArgs&);                           \
  template void run_parts_products<T>(const Scheme&, const Problem<T>&, Workspace::Impl&,          \
                                      cudaEvent_t);                                                \
  template void run_parts_combine<T>(const Scheme&, const Problem<T>&, Workspace::Impl&);          \
  template bool products_write_c<T>(const Problem<T>&);                                            \
  template void run_ozaki<T>(const Scheme&, const Problem<T>&, Workspace::Impl&, const int*,       \
                             const int*, cudaEvent_t, cudaEvent_t);
TCEMU_PATHS(float)
TCEMU_PATHS(double)
#undef TCEMU_PATHS

}  // namespace tcemu::cuda::detail
