// int8-crt on complex operands on the GPU (complex_crt.hpp): 3M in the residue domain where the
// wgmma kernel runs (N given or certified on the embedding's lines, one k chunk), else the host's real embedding (common/complex_crt.hpp)
// as one real int8-crt gemm_device with the complex combine where needed. Both give the host's bits.
#include "cuda/dispatch/complex_crt.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "common/complex_crt.hpp"
#include "cuda/dispatch/crt_path.hpp"
#include "cuda/kernels.hpp"
#include "cuda/kernels/crt_wgmma_s8.hpp"
#include "cuda/passes/crt_passes.hpp"
#include "cuda/workspace_impl.hpp"
#include "tcemu/schemes/crt.hpp"

namespace tcemu::cuda::detail {
namespace {

/// Whether the bytes spanned by two strided views of Z intersect (strides of any sign).
template <class Z>
bool spans_overlap(const MatrixView<const Z>& u, const MatrixView<Z>& v) {
  auto extent = [](const Z* p, std::int64_t rows, std::int64_t cols, std::int64_t rs, std::int64_t cs) {
    const std::int64_t r = (rows - 1) * rs, c = (cols - 1) * cs;
    const auto base = reinterpret_cast<std::uintptr_t>(p);
    const auto lo = std::min<std::int64_t>(r, 0) + std::min<std::int64_t>(c, 0);
    const auto hi = std::max<std::int64_t>(r, 0) + std::max<std::int64_t>(c, 0);
    const auto sz = static_cast<std::int64_t>(sizeof(Z));
    return std::pair<std::uintptr_t, std::uintptr_t>{base + static_cast<std::uintptr_t>(lo * sz),
                                                     base + static_cast<std::uintptr_t>((hi + 1) * sz)};
  };
  const auto eu = extent(u.data, u.rows, u.cols, u.row_stride, u.col_stride);
  const auto ev = extent(v.data, v.rows, v.cols, v.row_stride, v.col_stride);
  return !(eu.second <= ev.first || ev.second <= eu.first);
}

std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

std::int64_t round16(std::int64_t v) { return (v + 15) / 16 * 16; }

/// The real embedding: Y (2k x 2n) built from b, X read in place or packed, one real gemm_device.
template <class T>
GemmReport complex_gemm_crt_embedding(MatrixView<const std::complex<T>> a, MatrixView<const std::complex<T>> b,
                                      std::complex<T> alpha, std::complex<T> beta, MatrixView<std::complex<T>> C,
                                      const GemmOptions& options, Stream stream, Workspace& ws) {
  const std::int64_t m = a.rows, k = a.cols, n = b.cols;
  const std::int64_t ld2k = std::max<std::int64_t>(2 * k, 1), ldt = (m + 3) / 4 * 4;
  const bool rows_as_is = (a.col_stride == 1 || a.cols <= 1) && k > 0 && !spans_overlap(a, C);
  const bool direct = tcemu::detail::complex_crt_writes_c(alpha, beta, C);
  const std::size_t x_bytes = rows_as_is ? 0 : aligned(sizeof(T) * static_cast<std::size_t>(m * ld2k));
  const std::size_t t_bytes = direct ? 0 : sizeof(T) * static_cast<std::size_t>(ldt * 2 * n);
  T* y = static_cast<T*>(ws.impl().get(kSlotComplexRe, sizeof(T) * static_cast<std::size_t>(ld2k * 2 * n), stream));
  char* scratch = x_bytes + t_bytes > 0 ? static_cast<char*>(ws.impl().get(kSlotComplexIm, x_bytes + t_bytes, stream))
                                        : nullptr;
  embed_complex_operand<T>(reinterpret_cast<const T*>(b.data), k, n, b.row_stride, b.col_stride, y, ld2k, stream);
  MatrixView<const T> X{reinterpret_cast<const T*>(a.data), m, 2 * k, 2 * a.row_stride, 1};
  if (!rows_as_is) {
    T* x = reinterpret_cast<T*>(scratch);
    embed_complex_rows<T>(reinterpret_cast<const T*>(a.data), m, k, a.row_stride, a.col_stride, x, ld2k, stream);
    X = MatrixView<const T>{x, m, 2 * k, ld2k, 1};
  }
  const MatrixView<const T> Y{y, 2 * k, 2 * n, 1, ld2k};
  if (direct) {
    const MatrixView<T> Cr{reinterpret_cast<T*>(C.data), m, 2 * n, 2 * C.row_stride, 1};
    return gemm_device<T>(Op::N, Op::N, alpha.real(), X, Y, beta.real(), Cr, options, stream, &ws);
  }
  T* t = reinterpret_cast<T*>(scratch + x_bytes);
  const GemmReport r =
      gemm_device<T>(Op::N, Op::N, T(1), X, Y, T(0), MatrixView<T>{t, m, 2 * n, 1, ldt}, options, stream, &ws);
  complex_combine<T>(t, t + ldt, 2 * ldt, m, n, alpha.real(), alpha.imag(), beta.real(), beta.imag(),
                     reinterpret_cast<T*>(C.data), C.row_stride, C.col_stride, stream);
  if (ws.record_timings) TCEMU_CUDA(cudaStreamSynchronize(stream));
  return r;
}

/// Whether 3M in the residue domain may take a product of k complex terms with these options: a given
/// N (1..kMaxModuli) or N per call within the INT8 certificate's k (2k <= 2^16), one k chunk, the wgmma
/// kernel's fused reduction available, and `method` not embed (which never takes it: the embedding
/// measured slower on qsim's blocks, small and large, docs/crt.md).
bool three_m_applies(const GemmOptions& options, std::int64_t k, ComplexMethod method) {
  const int parts = options.scheme.parts;
  return method != ComplexMethod::embed &&
         ((parts > 0 && parts <= crt::kMaxModuli) || (parts == 0 && 2 * k <= crt::kInt8CertificateMaxK)) && k >= 1 &&
         k <= kCrtGpuChunk && options.execution.crt_products == CrtProducts::automatic && crt_s8::available();
}

/// 3M in the residue domain (docs/crt.md, "Complex operands on the GPU: 3M"): the lines of X (op(A)'s
/// rows) and of Y^ (op(B)'s columns), each k complex elements as 2k interleaved reals, get the real
/// embedding's line rule and exponents (Y^'s line j holds the magnitudes of the embedding's columns 2j
/// and 2j + 1); their residue panels of Re, Im and Re + Im give, per modulus, P1 = xr.yr, P2 = xi.yi
/// and P3 = xs.ys on the INT8 wgmma kernel (residues, fused reduction; for n <= 8 and k <= 16 one
/// narrow pass on the CUDA cores from x itself instead, crt_narrow_complex3m), whence Re = P1 - P2
/// and Im = P3 - P1 - P2 mod p: the embedding's residues with 3N products instead of its 4N. The same
/// reconstruction and output rounding, so the host's bits. N per call (scheme.parts = 0): the host's
/// certificate of the embedding (crt::certify_int8 on X and Y) from the same lines before the
/// residues (no N certified under RangePolicy::ignore: N = 20, as the host). Returns false (C not
/// written) when the operands hold NaN or Inf, no N is certified (other policies; `declined` then
/// holds the certificate's reason, crt::Certificate::too_wide, for the caller's native fallback) or
/// the kernel cannot run the shapes: the caller runs the embedding, which falls back as usual.
/// With `gather` (complex_gemm_crt_gathered), a is the m x k row-major view of the gathered matrix's
/// 2^(row_bits + col_bits) elements and x is read through the map by the fused line rule and residue
/// pass; the call is taken only where that pass runs (N given, not narrow, beta = 0, C apart from a
/// and b, m > 2n so that Y is the split's source), else false before anything is launched.
template <class T>
bool complex_gemm_crt_3m(MatrixView<const std::complex<T>> a, MatrixView<const std::complex<T>> b,
                         std::complex<T> alpha, std::complex<T> beta, MatrixView<std::complex<T>> C,
                         const GemmOptions& options, Stream stream, Workspace& wso, GemmReport& report,
                         std::string& declined, const GatheredLines* gather = nullptr) {
  Workspace::Impl& ws = wso.impl();
  cudaStream_t st = stream;
  const std::int64_t m = a.rows, k = a.cols, n = b.cols;
  int N = options.scheme.parts;  // 0: certified below on the real embedding's lines
  // Narrow products (n <= 8, k <= 16: qsim's small blocks) take one pass on the CUDA cores from x
  // itself and y's panels: no panels of x or of the products (crt_narrow_complex3m).
  const bool narrow = crt_narrow_complex3m_runs(n, k);
  // With N given, x's line rule comes with its residues in one read (the fused pass), so its NaN / Inf
  // count is known only after C's blocks are written: taken where a fallback then rewrites all of C
  // from untouched operands (beta = 0, C overlapping neither). A gathered x is read by that pass only.
  const bool fusable = N > 0 && !narrow && beta == std::complex<T>(0) && !spans_overlap(a, C) && !spans_overlap(b, C);
  // The split of the budget (crt_arith::split_d) reads the c of the embedding's operand with fewer
  // lines (X: m, Y: 2n; X on a tie, as the host's real problem does), whose rule must be complete
  // first: x's rule is fused into its residue pass only where Y is the source (qsim's blocks: m >> 2n).
  // Y's columns 2j and 2j + 1 share y's line j statistics, so y's n lines give the same d.
  const bool x_is_source = crt::arith::split_source_is_a(m, 2 * n);
  if (gather && !(fusable && !x_is_source &&
                  crt_gathered_rule_and_residues_complex3m_runs(reinterpret_cast<const T*>(a.data), k)))
    return false;
  const std::int64_t ld2k = 2 * k, kcp = round16(k);
  ws.begin_call();
  TCEMU_CUDA(cudaEventRecord(ws.ev[0], st));
  // X: op(A)'s rows in place when each is contiguous (column stride 1), else packed (m x 2k).
  const bool x_in_place = a.col_stride == 1;
  const bool y_in_place = b.row_stride == 1;  // op(B)'s columns contiguous
  const std::size_t x_bytes = x_in_place ? 0 : aligned(sizeof(T) * static_cast<std::size_t>(m * ld2k));
  const std::size_t y_bytes = y_in_place ? 0 : aligned(sizeof(T) * static_cast<std::size_t>(n * ld2k));
  const T* x = reinterpret_cast<const T*>(a.data);
  std::int64_t x_ld = 2 * a.row_stride;
  const T* y = reinterpret_cast<const T*>(b.data);
  std::int64_t y_ld = 2 * b.col_stride;
  if (x_bytes + y_bytes > 0) {
    char* scratch = static_cast<char*>(ws.get(kSlotComplexIm, x_bytes + y_bytes, st));
    if (!x_in_place) {
      T* px = reinterpret_cast<T*>(scratch);
      embed_complex_rows<T>(reinterpret_cast<const T*>(a.data), m, k, a.row_stride, a.col_stride, px, ld2k, st);
      x = px;
      x_ld = ld2k;
    }
    if (!y_in_place) {  // op(B)^T's rows = op(B)'s columns
      T* py = reinterpret_cast<T*>(scratch + x_bytes);
      embed_complex_rows<T>(reinterpret_cast<const T*>(b.data), n, k, b.col_stride, b.row_stride, py, ld2k, st);
      y = py;
      y_ld = ld2k;
    }
  }
  if (m == 1) x_ld = std::max<std::int64_t>(x_ld, 2 * k);  // a single line's stride is never used
  if (n == 1) y_ld = std::max<std::int64_t>(y_ld, 2 * k);

  const bool fuse_x = fusable && !x_is_source &&
                      (gather != nullptr || crt_line_rule_and_residues_complex3m_runs(x, m, k, x_ld));
  // N per call: y's line arrays also hold the embedding's 2n column lines (entries n .. 3n).
  const CrtCallLines cl = carve_crt_lines(ws, m, N == 0 ? 3 * n : n, st);
  if (!fuse_x) crt_line_rule<T>(x, m, 2 * k, x_ld, 1, cl.lx, st);
  crt_line_rule<T>(y, n, 2 * k, y_ld, 1, cl.ly, st);
  crt_split_counts(x_is_source ? cl.lx : cl.ly, x_is_source ? m : n, cl.split, st);
  auto* h = static_cast<unsigned long long*>(ws.host(4 * sizeof(unsigned long long)));
  TCEMU_CUDA(cudaMemcpyAsync(h, cl.nonfinite, 4 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, st));
  TCEMU_CUDA(cudaStreamSynchronize(st));
  if (h[0] + h[1] > 0) return false;
  const CrtSplit split = CrtSplit::of_counts(h + 2, x_is_source);

  std::string certificate = "N = " + std::to_string(N) + " moduli (given)";
  if (N == 0) {
    // The host certifies the real embedding (X: m x 2k, Y: 2k x 2n): its columns 2j and 2j + 1 are
    // y's line j and the same with each (re, im) pair swapped, so the same statistics and magnitudes.
    const CrtLines ly2{cl.ly.c + n, cl.ly.base + n, cl.ly.active + n, cl.ly.nonfinite, nullptr, cl.ly.s1 + n};
    crt_pair_lines(cl.ly, n, ly2, st);
    const CrtMagnitudePanels mp = crt_magnitude_panels(ws, m, 2 * n, 2 * k, st);
    crt_magnitudes<T>(x, m, 2 * k, x_ld, 1, cl.lx, mp.kp, 0, mp.x, st);
    crt_magnitudes<T>(y, 2 * n, 2 * k, y_ld, 1, ly2, mp.kp, 2, mp.y, st);
    const double tol =
        crt::unit_roundoff(options.scheme.target == Target::fp64 ? crt::Target::fp64 : crt::Target::fp32);
    const crt::Certificate cert =
        crt_certify_int8(mp, m, 2 * n, cl.lx, ly2, split, reinterpret_cast<unsigned*>(cl.fail), cl.ratio_bits, tol, ws,
                         st);
    // None certified: the caller falls back as the host does, without certifying the embedding again.
    if (cert.moduli == 0 && options.range_policy != RangePolicy::ignore) {
      declined = cert.too_wide();
      return false;
    }
    N = cert.run_moduli();
    certificate = cert.report() + " (certified on the GPU on the real embedding: INT8 magnitude products)";
  }

  // Panels: 3 parts x N moduli x lines x kcp bytes per operand; the products' residues likewise, in
  // the fragment layout (n rounded up to the tile width). y's panels hold all n lines; x's and the
  // residues hold one block of mb rows, so that the call's row-proportional bytes stay within
  // ExecutionPolicy::ozaki_accumulator_bytes however small n and k are (their padding to 256 and 16
  // made a 2^26 x 4 x 4 product ask for 512 GiB: docs/crt.md, "Workspace").
  const std::int64_t panel_y = n * kcp;
  auto* ry = static_cast<std::int8_t*>(ws.get(kSlotPartsB, static_cast<std::size_t>(3 * N * panel_y), st));
  std::int64_t mb = m, panel_xb = 0, panel = 0;
  std::int8_t* rx = nullptr;
  std::int8_t* res = nullptr;
  auto products = [&](int part, std::int64_t rows) {
    crt_s8::Products q;
    q.x = rx + part * N * (rows * kcp);  // the block's panels: rows x kcp per modulus
    q.y = ry + part * N * panel_y;
    q.m = rows;
    q.n = n;
    q.k = kcp;
    q.x_ld = q.y_ld = kcp;
    q.x_mod_stride = rows * kcp;
    q.y_mod_stride = panel_y;
    q.moduli = N;
    q.chunks = 1;
    q.chunk_stride = kcp;
    q.residues = res + part * N * panel;
    q.c_mod_stride = panel;
    for (int l = 0; l < N; ++l) q.p[l] = crt::kModuli[l];
    return q;
  };
  if (!narrow) {
    const std::int64_t per_row = 3 * std::int64_t{N} * (kcp + crt_s8::residue_row_bytes(n));
    const std::int64_t budget = std::max<std::int64_t>(options.execution.ozaki_accumulator_bytes, 1);
    mb = crt_s8::crt_row_block(m, per_row, budget);
    panel_xb = mb * kcp;                          // one modulus' x panel of a block
    panel = crt_s8::residue_panel_bytes(mb, n);  // one product's residues (fragment layout)
    rx = static_cast<std::int8_t*>(ws.get(kSlotPartsA, static_cast<std::size_t>(3 * N * panel_xb), st));
    res = static_cast<std::int8_t*>(ws.get(kSlotAccum, static_cast<std::size_t>(3 * N * panel), st));
    if (!crt_s8::check(products(0, mb)).empty()) return false;
  }

  const crt::Constants& K = crt::constants(N);
  const int Lb_x = split.Lb_x(N), Lb_y = split.Lb_y(N);
  if (!fuse_x) crt_line_exponents(cl.lx, m, Lb_x, cl.ex, st);
  crt_line_exponents(cl.ly, n, Lb_y, cl.ey, st);
  crt_residues_complex3m<T>(y, n, k, y_ld, cl.ey, N, kcp, ry, st);
  ComplexOutput<T> out;
  out.c = reinterpret_cast<T*>(C.data);
  out.c_rs = C.row_stride;
  out.c_cs = C.col_stride;
  out.direct = tcemu::detail::complex_crt_writes_c(alpha, beta, C);
  out.ar = alpha.real();
  out.ai = alpha.imag();
  out.br = beta.real();
  out.bi = beta.imag();
  if (narrow) {  // the stage events: the split (lines, y's residues), then the one pass as products
    TCEMU_CUDA(cudaEventRecord(ws.ev[1], st));
    crt_narrow_complex3m<T>(x, m, k, x_ld, cl.ex, ry, kcp, cl.ey, n, K, out, st);
    TCEMU_CUDA(cudaEventRecord(ws.ev[2], st));
  }
  // Row blocks: x's residues, the 3 N products, the reconstruction. The stage events: ev[1] after
  // the first block's residues, ev[2] after the last block's products (one block: the stages).
  for (std::int64_t m0 = 0; !narrow && m0 < m; m0 += mb) {
    const std::int64_t rows = std::min(mb, m - m0);
    if (fuse_x) {
      const CrtLines lb{cl.lx.c + m0, cl.lx.base + m0, cl.lx.active + m0, cl.lx.nonfinite, nullptr,
                        cl.lx.s1 ? cl.lx.s1 + m0 : nullptr};
      if (gather) {
        GatheredLines g = *gather;
        g.row0 = m0;
        crt_gathered_rule_and_residues_complex3m<T>(x, g, rows, k, lb, Lb_x, cl.ex + m0, N, kcp, rx, st);
      } else {
        crt_line_rule_and_residues_complex3m<T>(x + m0 * x_ld, rows, k, x_ld, lb, Lb_x, cl.ex + m0, N, kcp, rx, st);
      }
    } else {
      crt_residues_complex3m<T>(x + m0 * x_ld, rows, k, x_ld, cl.ex + m0, N, kcp, rx, st);
    }
    if (m0 == 0) TCEMU_CUDA(cudaEventRecord(ws.ev[1], st));
    for (int part = 0; part < 3; ++part) crt_s8::run(products(part, rows), st);
    if (m0 + mb >= m) TCEMU_CUDA(cudaEventRecord(ws.ev[2], st));
    ComplexOutput<T> o = out;
    o.c = out.c + 2 * m0 * out.c_rs;
    crt_reconstruct_complex3m<T>(res, panel, K, cl.ex + m0, cl.ey, rows, n, o, st);
  }
  TCEMU_CUDA(cudaEventRecord(ws.ev[3], st));
  if (fuse_x) {  // x's NaN / Inf, counted by the fused pass: the caller's fallback rewrites C
    TCEMU_CUDA(cudaMemcpyAsync(h, cl.nonfinite, sizeof(unsigned long long), cudaMemcpyDeviceToHost, st));
    TCEMU_CUDA(cudaStreamSynchronize(st));
    if (h[0] > 0) return false;
  }

  report.requested = report.used = options.scheme;
  report.certificate = certificate;
  report.kernels =
      std::string(schemes::Int8Crt::desc.name) + " (complex, 3M in the residue domain): " +
      (narrow ? "y's residue pass (Re, Im, Re + Im), then one narrow pass on the CUDA cores (x's residues, 3 x " +
                    std::to_string(N) + " products, reconstruction)"
              : std::string(gather   ? "residue pass (Re, Im, Re + Im; x read through the bit map, its line rule fused into it)"
                            : fuse_x ? "residue pass (Re, Im, Re + Im; x's line rule fused into it)"
                                     : "residue pass (Re, Im, Re + Im)") +
                    ", INT8 wgmma kernel reducing mod p in its epilogue (3 x " + std::to_string(N) +
                    " products), reconstruction pass");
  ExecutionPlan& ep = report.plan.execution;
  ep.scheme = options.scheme.name;
  ep.implementation = Implementation::crt;
  ep.implementation_reason = "complex operands: 3M in the residue domain (3N INT8 products instead of 4N)";
  ep.overlap = options.execution.overlap;
  ep.stages = narrow ? std::vector<Stage>{Stage::split, Stage::products}
                     : std::vector<Stage>{Stage::split, Stage::products, Stage::combine};
  ep.workspace_bytes = static_cast<std::int64_t>(ws.call_bytes());
  if (wso.record_timings) ws.read_stage_seconds(report);
  return true;
}

}  // namespace

template <class T>
GemmReport complex_gemm_crt(MatrixView<const std::complex<T>> a, MatrixView<const std::complex<T>> b,
                            std::complex<T> alpha, std::complex<T> beta, MatrixView<std::complex<T>> C,
                            const GemmOptions& options, Stream stream, Workspace& ws, ComplexMethod method) {
  // 3M where three_m_applies; alpha = 0 keeps the embedding's handling.
  const bool three_m = three_m_applies(options, a.cols, method) && alpha != std::complex<T>(0);
  GemmReport report;
  std::string declined;
  if (three_m && complex_gemm_crt_3m<T>(a, b, alpha, beta, C, options, stream, ws, report, declined)) return report;
  if (!declined.empty())  // the embedding's certificate would find what 3M's found: its native fallback
    return ::tcemu::detail::scheme_fallback(options, declined, [&](const GemmOptions& o) {
      return complex_gemm_crt_embedding<T>(a, b, alpha, beta, C, o, stream, ws);
    });
  return complex_gemm_crt_embedding<T>(a, b, alpha, beta, C, options, stream, ws);
}

template <class T>
bool complex_gemm_crt_gathered(const std::complex<T>* x, const GatheredLines& gather, MatrixView<const std::complex<T>> b,
                               MatrixView<std::complex<T>> C, const GemmOptions& options, Stream stream, Workspace& ws,
                               ComplexMethod method, GemmReport& report) {
  const std::int64_t m = std::int64_t{1} << gather.row_bits, k = std::int64_t{1} << gather.col_bits;
  // 3M with N given (no certificate: x is read once, by the fused pass)
  if (options.scheme.parts <= 0 || !three_m_applies(options, k, method)) return false;
  const MatrixView<const std::complex<T>> a{x, m, k, k, 1};
  std::string declined;
  return complex_gemm_crt_3m<T>(a, b, std::complex<T>(1), std::complex<T>(0), C, options, stream, ws, report, declined,
                                &gather);
}

template GemmReport complex_gemm_crt<float>(MatrixView<const std::complex<float>>, MatrixView<const std::complex<float>>,
                                            std::complex<float>, std::complex<float>, MatrixView<std::complex<float>>,
                                            const GemmOptions&, Stream, Workspace&, ComplexMethod);
template GemmReport complex_gemm_crt<double>(MatrixView<const std::complex<double>>,
                                             MatrixView<const std::complex<double>>, std::complex<double>,
                                             std::complex<double>, MatrixView<std::complex<double>>,
                                             const GemmOptions&, Stream, Workspace&, ComplexMethod);
template bool complex_gemm_crt_gathered<float>(const std::complex<float>*, const GatheredLines&,
                                               MatrixView<const std::complex<float>>, MatrixView<std::complex<float>>,
                                               const GemmOptions&, Stream, Workspace&, ComplexMethod, GemmReport&);
template bool complex_gemm_crt_gathered<double>(const std::complex<double>*, const GatheredLines&,
                                                MatrixView<const std::complex<double>>, MatrixView<std::complex<double>>,
                                                const GemmOptions&, Stream, Workspace&, ComplexMethod, GemmReport&);

}  // namespace tcemu::cuda::detail
