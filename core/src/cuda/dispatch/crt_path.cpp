// int8-crt on the GPU (crt_path.hpp): the stages of Ozaki scheme II around cuBLAS's INT8 GEMMs.
#include "cuda/dispatch/crt_path.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "cuda/kernels/crt_wgmma_s8.hpp"
#include "cuda/passes/crt_passes.hpp"
#include "tcemu/schemes/crt.hpp"

namespace tcemu::cuda::detail {
namespace {

// The host's chunk is 2^17 (its sums may wrap for p = 256, harmlessly); the GPU's kCrtGpuChunk.
constexpr std::int64_t kGpuChunk = kCrtGpuChunk;

std::int64_t round_up(std::int64_t v, std::int64_t q) { return (v + q - 1) / q * q; }

int blas_int(std::int64_t v, const char* what) {
  if (v > INT_MAX)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name + ": " + what + " = " + std::to_string(v) +
                          " exceeds cuBLAS's 32-bit integer range");
  return static_cast<int>(v);
}

/// Carves the small per-line arrays out of one workspace slot (256-byte aligned pieces).
struct Carver {
  char* base;
  std::size_t at = 0;
  template <class U>
  U* take(std::int64_t count) {
    U* r = reinterpret_cast<U*>(base + at);
    at += (static_cast<std::size_t>(count) * sizeof(U) + 255) / 256 * 256;
    return r;
  }
};

/// `what` followed by the operands whose line rule ran fused ("op(A)", "op(B)" or both; op(A) is x
/// unless the C layout swapped the operands), or "" when neither did.
std::string fused_operands(const std::string& what, bool x, bool y, bool swapped) {
  if (!x && !y) return "";
  const bool a = swapped ? y : x, b = swapped ? x : y;
  return what + (a && b ? "op(A) and op(B)" : a ? "op(A)" : "op(B)");
}

std::size_t line_bytes(std::int64_t m, std::int64_t n) {
  auto a = [](std::int64_t c, std::size_t s) { return (static_cast<std::size_t>(c) * s + 255) / 256 * 256; };
  return 3 * a(64, 8) + 4 * (a(m, 4) + a(n, 4)) + a(3 * m, 8) + a(3 * n, 8) + a(m, 8) + a(n, 8);
}

}  // namespace

CrtCallLines carve_crt_lines(Workspace::Impl& ws, std::int64_t m, std::int64_t n, cudaStream_t st) {
  Carver cv{static_cast<char*>(ws.get(kSlotProfile, line_bytes(m, n), st))};
  CrtCallLines r;
  r.nonfinite = cv.take<unsigned long long>(64);
  r.split = r.nonfinite + 2;
  r.fail = cv.take<int>(64);
  r.ratio_bits = cv.take<unsigned long long>(64);
  TCEMU_CUDA(cudaMemsetAsync(cv.base, 0, cv.at, st));  // the counters above
  r.lx = CrtLines{cv.take<int>(m), cv.take<int>(m), cv.take<int>(m), r.nonfinite, cv.take<unsigned long long>(3 * m),
                  cv.take<unsigned long long>(m)};
  r.ly = CrtLines{cv.take<int>(n), cv.take<int>(n), cv.take<int>(n), r.nonfinite + 1,
                  cv.take<unsigned long long>(3 * n), cv.take<unsigned long long>(n)};
  r.ex = cv.take<int>(m);
  r.ey = cv.take<int>(n);
  return r;
}

CrtMagnitudePanels crt_magnitude_panels(Workspace::Impl& ws, std::int64_t m, std::int64_t n, std::int64_t k,
                                        cudaStream_t st) {
  CrtMagnitudePanels mp;
  mp.k = k;
  mp.kp = round_up(k, 16);
  mp.x = static_cast<std::int8_t*>(ws.get(kSlotPartsA, static_cast<std::size_t>(2 * mp.kp * m), st));
  mp.y = static_cast<std::int8_t*>(ws.get(kSlotPartsB, static_cast<std::size_t>(3 * mp.kp * n), st));
  return mp;
}

crt::Certificate crt_certify_int8(const CrtMagnitudePanels& mp, std::int64_t m, std::int64_t n, const CrtLines& lx,
                                  const CrtLines& ly, const CrtSplit& split, unsigned* mask,
                                  unsigned long long* ratio_bits, double tol, Workspace::Impl& ws, cudaStream_t st) {
  // Two INT8 GEMMs of the magnitude levels (hx . hy over kp, [hx lx] . [ly hy] over 2 kp), then the
  // per-entry test for every N and the worst ratio at the chosen one.
  const std::int64_t kp = mp.kp, ldg = round_up(m, 4);
  auto* g = static_cast<std::int32_t*>(
      ws.get(kSlotAccum, sizeof(std::int32_t) * static_cast<std::size_t>(2 * ldg * n), st));
  cublasHandle_t hb = ws.handle(st);
  const std::int32_t one = 1, zero = 0;
  const int gm = blas_int(m, "m"), gn = blas_int(n, "n"), gldc = blas_int(ldg, "ldc");
  TCEMU_CUBLAS(cublasGemmEx(hb, CUBLAS_OP_T, CUBLAS_OP_N, gm, gn, blas_int(kp, "k"), &one, mp.x, CUDA_R_8I,
                            blas_int(2 * kp, "lda"), mp.y, CUDA_R_8I, blas_int(3 * kp, "ldb"), &zero, g, CUDA_R_32I,
                            gldc, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
  TCEMU_CUBLAS(cublasGemmEx(hb, CUBLAS_OP_T, CUBLAS_OP_N, gm, gn, blas_int(2 * kp, "k"), &one, mp.x, CUDA_R_8I,
                            blas_int(2 * kp, "lda"), mp.y + kp, CUDA_R_8I, blas_int(3 * kp, "ldb"), &zero,
                            g + ldg * n, CUDA_R_32I, gldc, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
  // The smallest N that no entry fails: first the search (one test per entry at its warp's
  // candidate), then the ratio pass at its N, which also tests every entry there. Only when some entry
  // fails at the searched N (its bound not monotone in N) the full test of every N decides, as the
  // host does (docs/crt.md, "The GPU path"). mask[0]: the test of every N, [2]: the candidate, [1] and
  // [3]: the ratio passes'.
  auto* hm = static_cast<unsigned*>(ws.host(2 * sizeof(unsigned long long)));
  const auto ratio_at = [&](int at, unsigned* at_mask, unsigned long long* at_ratio, crt::Certificate& cert) {
    crt_certificate_int8(g, g + ldg * n, ldg, m, n, mp.k, split, lx, ly, tol, at, at, at_mask, at_ratio, st);
    TCEMU_CUDA(cudaMemcpyAsync(hm, at_ratio, sizeof(unsigned long long), cudaMemcpyDeviceToHost, st));
    TCEMU_CUDA(cudaMemcpyAsync(hm + 2, at_mask, sizeof(unsigned), cudaMemcpyDeviceToHost, st));
    TCEMU_CUDA(cudaStreamSynchronize(st));
    std::memcpy(&cert.worst_ratio, hm, sizeof(double));
    return (hm[2] & (1u << at)) == 0;  // every entry passes at `at`
  };
  crt_certificate_int8_search(g, g + ldg * n, ldg, m, n, mp.k, split, lx, ly, tol, crt::kMinModuli, crt::kMaxModuli,
                              mask + 2, st);
  TCEMU_CUDA(cudaMemcpyAsync(hm, mask + 2, sizeof(unsigned), cudaMemcpyDeviceToHost, st));
  TCEMU_CUDA(cudaStreamSynchronize(st));
  crt::Certificate cert;
  cert.tol = tol;
  cert.moduli = hm[0] <= static_cast<unsigned>(crt::kMaxModuli) ? static_cast<int>(hm[0]) : 0;
  if (ratio_at(cert.run_moduli(), mask + 1, ratio_bits, cert) || cert.moduli == 0) return cert;
  crt_certificate_int8(g, g + ldg * n, ldg, m, n, mp.k, split, lx, ly, tol, crt::kMinModuli, crt::kMaxModuli, mask,
                       nullptr, st);
  TCEMU_CUDA(cudaMemcpyAsync(hm, mask, sizeof(unsigned), cudaMemcpyDeviceToHost, st));
  TCEMU_CUDA(cudaStreamSynchronize(st));
  const unsigned fails = hm[0];
  cert.moduli = 0;
  for (int N = crt::kMinModuli; N <= crt::kMaxModuli && cert.moduli == 0; ++N)
    if (!(fails & (1u << N))) cert.moduli = N;
  ratio_at(cert.run_moduli(), mask + 3, ratio_bits + 1, cert);
  return cert;
}

template <class T>
std::string run_crt(const GemmOptions& options, const Problem<T>& p, Workspace::Impl& ws, bool record_timings,
                    GemmReport& report) {
  const Scheme& s = options.scheme;
  cudaStream_t st = p.stream;
  const CrtCallLines cl = carve_crt_lines(ws, p.m, p.n, st);
  const CrtLines &lx = cl.lx, &ly = cl.ly;
  unsigned long long* nonfinite = cl.nonfinite;  // [0]: x, [1]: y
  int* fail = cl.fail;
  unsigned long long* ratio_bits = cl.ratio_bits;
  int *ex = cl.ex, *ey = cl.ey;

  // The residue panels' k chunks (kc elements each, padded to kcp; span positions per line).
  const std::int64_t nchunks = std::max<std::int64_t>(1, (p.k + kGpuChunk - 1) / kGpuChunk);
  const std::int64_t kc = (p.k + nchunks - 1) / nchunks;
  const std::int64_t kcp = round_up(kc, 16), span = nchunks * kcp;
  std::int8_t *rx = nullptr, *ry = nullptr;
  const auto residue_panels = [&](int moduli) {
    rx = static_cast<std::int8_t*>(ws.get(kSlotPartsA, static_cast<std::size_t>(moduli * p.m * span), st));
    ry = static_cast<std::int8_t*>(ws.get(kSlotPartsB, static_cast<std::size_t>(moduli * p.n * span), st));
  };

  // Scaling, part 1: line maxima and 2-norm bounds; NaN/Inf go to the native path. An operand read
  // along k (k <= 8192) gets its rule from one pass with what reads it next: with N given its
  // exponents and residues, with the INT8 certificate its magnitude panels. The split of the budget
  // (crt_arith::split_d) reads the c of the operand with fewer lines (op(A) on a tie), so that
  // operand's rule is complete before any exponent: with N given it is never fused.
  int N = s.parts;
  const bool int8_certificate = N == 0 && p.k <= crt::kInt8CertificateMaxK;
  const bool a_is_x = !p.swapped;
  const bool x_is_source = crt::arith::split_source_is_a(a_is_x ? p.m : p.n, a_is_x ? p.n : p.m) == a_is_x;
  const bool fuse_x = (N > 0 ? !x_is_source : int8_certificate) &&
                      crt_line_rule_fuses<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride);
  const bool fuse_y = (N > 0 ? x_is_source : int8_certificate) &&
                      crt_line_rule_fuses<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride);
  if (!fuse_x) crt_line_rule<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride, lx, st);
  if (!fuse_y) crt_line_rule<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride, ly, st);
  CrtMagnitudePanels mp;
  if ((fuse_x || fuse_y) && N == 0) {
    mp = crt_magnitude_panels(ws, p.m, p.n, p.k, st);
    if (fuse_x)
      crt_line_rule_and_magnitudes<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride, lx, mp.kp, 0, mp.x, st);
    if (fuse_y)
      crt_line_rule_and_magnitudes<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride, ly, mp.kp, 1, mp.y, st);
  }
  crt_split_counts(x_is_source ? lx : ly, x_is_source ? p.m : p.n, cl.split, st);
  // One copy: the NaN/Inf counts [0] x, [1] y, then the split's counts [2], [3].
  auto* h = static_cast<unsigned long long*>(ws.host(4 * sizeof(unsigned long long)));
  const auto read_counters = [&] {
    TCEMU_CUDA(cudaMemcpyAsync(h, nonfinite, 4 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, st));
    TCEMU_CUDA(cudaStreamSynchronize(st));
    const bool a_bad = p.swapped ? h[1] > 0 : h[0] > 0;
    return h[0] + h[1] > 0 ? std::string("operand ") + (a_bad ? "A" : "B") + " holds NaN or Inf" : std::string();
  };
  if (std::string bad = read_counters(); !bad.empty()) return bad;
  const CrtSplit split = CrtSplit::of_counts(h + 2, x_is_source);
  // With N given, the other operand's rule, exponents and residues in one pass, now that the split is
  // known; its NaN/Inf count is read once more.
  const bool residues_x_fused = fuse_x && N > 0, residues_y_fused = fuse_y && N > 0;
  if (residues_x_fused || residues_y_fused) {
    residue_panels(N);
    if (residues_x_fused)
      crt_line_rule_and_residues<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride, lx, split.Lb_x(N), ex, N, rx,
                                    st);
    if (residues_y_fused)
      crt_line_rule_and_residues<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride, ly, split.Lb_y(N), ey, N, ry,
                                    st);
    if (std::string bad = read_counters(); !bad.empty()) return bad;
  }

  // N: given, or the smallest certified for the target (crt::certify's sums and bound).
  const double tol = crt::unit_roundoff(s.target == Target::fp64 ? crt::Target::fp64 : crt::Target::fp32);
  if (int8_certificate) {
    if (mp.x == nullptr) mp = crt_magnitude_panels(ws, p.m, p.n, p.k, st);
    if (!fuse_x) crt_magnitudes<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride, lx, mp.kp, 0, mp.x, st);
    if (!fuse_y) crt_magnitudes<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride, ly, mp.kp, 1, mp.y, st);
    const crt::Certificate cert =
        crt_certify_int8(mp, p.m, p.n, lx, ly, split, reinterpret_cast<unsigned*>(fail), ratio_bits, tol, ws, st);
    if (cert.moduli == 0 && options.range_policy != RangePolicy::ignore) return cert.too_wide();
    N = cert.run_moduli();
    report.certificate =
        cert.report() + " (certified on the GPU: INT8 magnitude products" +
        fused_operands("; line rule fused into the magnitude pass for ", fuse_x, fuse_y, p.swapped) + ")";
  } else if (N == 0) {
    crt_certificate<T>(p.x.data, p.m, p.x.line_stride, p.x.k_stride, p.y.data, p.n, p.y.line_stride,
                       p.y.k_stride, p.k, lx, ly, split, tol, fail, ratio_bits, st);
    auto* hf = static_cast<char*>(ws.host(64 * sizeof(int) + 64 * sizeof(unsigned long long)));
    TCEMU_CUDA(cudaMemcpyAsync(hf, fail, 64 * sizeof(int), cudaMemcpyDeviceToHost, st));
    TCEMU_CUDA(cudaMemcpyAsync(hf + 64 * sizeof(int), ratio_bits, 64 * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost, st));
    TCEMU_CUDA(cudaStreamSynchronize(st));
    const int* hfail = reinterpret_cast<const int*>(hf);
    const auto* hratio = reinterpret_cast<const unsigned long long*>(hf + 64 * sizeof(int));
    crt::Certificate cert;
    cert.tol = tol;
    for (int n = crt::kMinModuli; n <= crt::kMaxModuli && cert.moduli == 0; ++n)
      if (!hfail[n]) cert.moduli = n;
    std::memcpy(&cert.worst_ratio, hratio + cert.run_moduli(), sizeof(double));
    if (cert.moduli == 0 && options.range_policy != RangePolicy::ignore) return cert.too_wide();
    N = cert.run_moduli();
    report.certificate = cert.report() + " (certified on the GPU)";
  } else {
    report.certificate = "N = " + std::to_string(N) + " moduli (given)";
  }
  const crt::Constants& K = crt::constants(N);

  // Scaling, part 2, and the residue pass: one pass per operand writes its N residue panels.
  if (rx == nullptr) residue_panels(N);
  if (!residues_x_fused) {
    crt_line_exponents(lx, p.m, split.Lb_x(N), ex, st);
    crt_residues<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride, ex, N, kc, kcp, nchunks, rx, st);
  }
  if (!residues_y_fused) {
    crt_line_exponents(ly, p.n, split.Lb_y(N), ey, st);
    crt_residues<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride, ey, N, kc, kcp, nchunks, ry, st);
  }
  TCEMU_CUDA(cudaEventRecord(ws.ev[1], st));

  // The products: the INT8 wgmma kernel (all moduli and chunks in one launch, the same INT32 C as
  // cuBLAS's, bit for bit) where ExecutionPolicy::crt_products allows and the device has it, else
  // cuBLAS per chunk. With one k chunk, crt_products automatic and n > 64 (fused_reduction_pays), the
  // kernel's epilogue reduces mod p_l and writes int8 residues (into the same workspace slot), which
  // the reconstruction reads; narrower products keep INT32 sums, which their tiles do not pad.
  const bool wgmma = p.exec->crt_products != CrtProducts::cublas && crt_s8::available();
  const bool fused_residues = wgmma && p.exec->crt_products == CrtProducts::automatic && nchunks == 1 &&
                              crt_s8::fused_reduction_pays(p.n);
  // Then the reconstruction; rows in blocks whose products fit the accumulator budget. Per row: N x
  // nchunks INT32 sums, and with the fused reduction also N residues in the fragment layout (n
  // rounded up to the tile width), the larger of the two (INT32 stays the fallback of a block the
  // fused kernel declines).
  const std::int64_t int32_row = static_cast<std::int64_t>(sizeof(std::int32_t)) * p.n * N * nchunks;
  const std::int64_t per_row =
      fused_residues ? std::max<std::int64_t>(int32_row, N * crt_s8::residue_row_bytes(p.n)) : int32_row;
  const std::int64_t budget = std::max<std::int64_t>(p.exec->ozaki_accumulator_bytes, 1);
  const std::int64_t mb = crt_s8::crt_row_block(p.m, per_row, budget);
  const std::int64_t ldacc = round_up(mb, 4), bstride = ldacc * p.n;
  // The slot holds the INT32 products or, with the fused reduction, N residue panels.
  const std::int64_t panel = crt_s8::residue_panel_bytes(mb, p.n);
  const std::size_t int32_bytes = sizeof(std::int32_t) * static_cast<std::size_t>(bstride * N * nchunks);
  const std::size_t acc_bytes = fused_residues ? std::max(int32_bytes, static_cast<std::size_t>(N * panel)) : int32_bytes;
  auto* acc = static_cast<std::int32_t*>(ws.get(kSlotAccum, acc_bytes, st));
  cublasHandle_t hb = ws.handle(st);
  const std::int32_t one = 1, zero = 0;
  const int n = blas_int(p.n, "n"), ld = blas_int(span, "lda"), kk = blas_int(kcp, "k chunk");
  // INT32 sums of products at most 128 wide take the 128-column tiles (half the padded MMAs).
  const crt_s8::TileN int32_tile = p.n <= 128 ? crt_s8::TileN::n128 : crt_s8::TileN::n256;
  int wgmma_launches = 0, cublas_launches = 0, residue_launches = 0;
  for (std::int64_t m0 = 0; m0 < p.m; m0 += mb) {
    const std::int64_t rows = std::min(mb, p.m - m0);
    crt_s8::Products q;
    q.x = rx + m0 * span;
    q.y = ry;
    q.m = rows;
    q.n = p.n;
    q.k = kcp;
    q.x_ld = q.y_ld = span;
    q.x_mod_stride = p.m * span;
    q.y_mod_stride = p.n * span;
    q.moduli = N;
    q.chunks = static_cast<int>(nchunks);
    q.chunk_stride = kcp;
    q.c = acc;
    q.ldc = ldacc;
    q.c_chunk_stride = bstride;
    q.c_mod_stride = nchunks * bstride;
    bool residues = false;
    if (fused_residues) {
      crt_s8::Products r = q;
      r.c = nullptr;
      r.residues = reinterpret_cast<std::int8_t*>(acc);
      r.c_mod_stride = panel;
      r.c_chunk_stride = 0;
      for (int l = 0; l < N; ++l) r.p[l] = crt::kModuli[l];
      if (crt_s8::try_run(r, st)) {
        residues = true;
        ++residue_launches;
      }
    }
    if (!residues && wgmma && crt_s8::try_run(q, st, int32_tile)) {
      ++wgmma_launches;
    } else if (!residues) {
      for (std::int64_t c = 0; c < nchunks; ++c)
        TCEMU_CUBLAS(cublasGemmStridedBatchedEx(
            hb, CUBLAS_OP_T, CUBLAS_OP_N, blas_int(rows, "m"), n, kk, &one, rx + m0 * span + c * kcp, CUDA_R_8I, ld,
            p.m * span, ry + c * kcp, CUDA_R_8I, ld, p.n * span, &zero, acc + c * bstride, CUDA_R_32I,
            blas_int(ldacc, "ldc"), nchunks * bstride, N, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
      ++cublas_launches;
    }
    if (m0 + mb >= p.m) TCEMU_CUDA(cudaEventRecord(ws.ev[2], st));
    if (residues)
      crt_reconstruct_residues<T>(reinterpret_cast<const std::int8_t*>(acc), panel, K, ex + m0, ey, rows, p.n, p.alpha,
                                  p.beta, p.c + m0 * p.c_rs, p.c_rs, p.c_cs, st);
    else
      crt_reconstruct<T>(acc, bstride, ldacc, nchunks, K, ex + m0, ey, rows, p.n, p.alpha, p.beta,
                         p.c + m0 * p.c_rs, p.c_rs, p.c_cs, st);
  }
  TCEMU_CUDA(cudaEventRecord(ws.ev[3], st));
  std::string products;
  if (residue_launches > 0)
    products = "INT8 wgmma kernel reducing mod p in its epilogue (" + std::to_string(N) +
               " moduli per launch, int8 residues)";
  else if (wgmma_launches > 0)
    products = "INT8 wgmma kernel (" + std::to_string(N) + " moduli x " + std::to_string(nchunks) +
               " k chunks per launch, INT32 products)";
  else
    products = "cuBLAS INT8 (strided batch over " + std::to_string(N) + " moduli)";
  if (cublas_launches > 0 && (residue_launches > 0 || wgmma_launches > 0))
    products += ", cuBLAS for the row blocks the kernel cannot run";
  std::string residue_pass = "residue pass";
  if (residues_x_fused || residues_y_fused)
    residue_pass +=
        " (" + fused_operands("line rule fused into it for ", residues_x_fused, residues_y_fused, p.swapped) + ")";
  report.kernels =
      std::string(schemes::Int8Crt::desc.name) + ": " + residue_pass + ", " + products + ", reconstruction pass";
  if (record_timings) ws.read_stage_seconds(report);
  return "";
}

template std::string run_crt<float>(const GemmOptions&, const Problem<float>&, Workspace::Impl&, bool, GemmReport&);
template std::string run_crt<double>(const GemmOptions&, const Problem<double>&, Workspace::Impl&, bool,
                                     GemmReport&);

}  // namespace tcemu::cuda::detail
