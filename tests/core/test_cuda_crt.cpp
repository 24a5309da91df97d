// GPU tests of int8-crt (Ozaki scheme II): the CUDA path (dispatch/crt_path.cpp) equals the host
// reference bit for bit — same scaling exponents, same residues, exact INT32 products, the same
// fixed-order reconstruction — for the per-call N (certified on the GPU with the host's integers,
// crt::certify_int8, or with its FP64 sums beyond k = 2^16: the same N) and an explicit N, on ragged shapes, transposes, strided views, both C layouts (C row-major
// swaps the operands), float and double, alpha / beta, wide exponent spreads, zero rows and columns
// and k past the GPU's 2^16 chunk and the host's 2^17 chunk; NaN/Inf and spreads beyond 20 moduli
// fall back to native arithmetic on both backends.
// Compiles to nothing without the CUDA backend; skips cleanly when no GPU is present.
#if defined(TCEMU_HAVE_CUDA)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda/kernels/crt_wgmma_s8.hpp"
#include "cuda/passes/crt_passes.hpp"
#include "cuda_test_util.hpp"
#include "tcemu/crt_arith.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/random.hpp"

namespace tcemu::test {
namespace {

using Shape = GemmShape;

const Shape kShapes[] = {
    {37, 29, 53, Op::N, Op::N, Layout::row, Layout::row, Layout::row},
    {64, 40, 96, Op::T, Op::N, Layout::col, Layout::padded_row, Layout::col},
    {33, 65, 17, Op::N, Op::T, Layout::padded_col, Layout::col, Layout::padded_row},
    {200, 157, 700, Op::N, Op::N, Layout::row, Layout::col, Layout::col},
    {129, 130, 64, Op::T, Op::T, Layout::padded_row, Layout::padded_col, Layout::row},
};

/// The modulus count a report's certificate names ("N = <n> moduli ..."), or -1.
int moduli_of(const GemmReport& r) {
  const auto at = r.certificate.find("N = ");
  return at == std::string::npos ? -1 : std::atoi(r.certificate.c_str() + at + 4);
}

/// Operands filled from `dist`; `edit` may change the host copies before the upload; `products`
/// picks what computes the GPU's INT8 products (ExecutionPolicy::crt_products); `kernels`, when
/// given, receives the GPU report's kernel line (`certificate`: its certificate line).
template <class T, class Edit>
void expect_bit_identical(const std::string& scheme, Target target, const Shape& s, const char* dist,
                          std::uint64_t seed, T alpha, T beta, Edit edit, CrtProducts products = CrtProducts::automatic,
                          std::string* kernels = nullptr, std::int64_t accumulator_bytes = 0,
                          std::string* certificate = nullptr) {
  SCOPED_TRACE(scheme + " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
               " " + dist);
  const bool ta = s.opA == Op::T, tb = s.opB == Op::T;
  DualMatrix<T> A(ta ? s.k : s.m, ta ? s.m : s.k, s.la), B(tb ? s.n : s.k, tb ? s.k : s.n, s.lb), C(s.m, s.n, s.lc);
  fill_random(A.host(), Distribution::parse(dist), seed);
  fill_random(B.host(), Distribution::parse(dist), seed + 1);
  edit(A, B);
  fill_random(C.host(), Distribution::parse("uniform"), seed + 2);
  if (beta == T(0))
    for (auto& v : C.h) v = std::numeric_limits<T>::quiet_NaN();  // must not be read
  A.upload();
  B.upload();
  C.upload();
  GemmOptions o;
  o.scheme = parse_scheme(scheme, target);
  o.execution.crt_products = products;
  if (accumulator_bytes > 0) o.execution.ozaki_accumulator_bytes = accumulator_bytes;  // rows in blocks
  const GemmReport rd = cuda::gemm_device<T>(s.opA, s.opB, alpha, A.dev().as_const(), B.dev().as_const(), beta,
                                             C.dev(), o, nullptr, nullptr);
  if (kernels) *kernels = rd.kernels;
  if (certificate) *certificate = rd.certificate;
  const std::vector<T> cd = C.download();
  const GemmReport rh = gemm_host<T>(s.opA, s.opB, alpha, A.host().as_const(), B.host().as_const(), beta, C.host(), o);
  ASSERT_FALSE(rd.fell_back) << rd.note;
  ASSERT_FALSE(rh.fell_back) << rh.note;
  EXPECT_EQ(rd.used.name, rh.used.name);
  EXPECT_EQ(moduli_of(rd), moduli_of(rh)) << "GPU: " << rd.certificate << "\nhost: " << rh.certificate;
  EXPECT_GT(moduli_of(rd), 1);
  std::int64_t differ = 0;
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      const std::int64_t e = i * C.rs + j * C.cs;
      if (!(cd[e] == C.h[e])) ++differ;  // NaN (an unwritten entry) counts as different
    }
  EXPECT_EQ(differ, 0) << "of " << s.m * s.n;
}

template <class T>
void expect_bit_identical(const std::string& scheme, Target target, const Shape& s, const char* dist,
                          std::uint64_t seed, T alpha = T(1), T beta = T(0)) {
  expect_bit_identical<T>(scheme, target, s, dist, seed, alpha, beta, [](DualMatrix<T>&, DualMatrix<T>&) {});
}

}  // namespace

/// The magnitude panels of crt::certify_int8 (detail::crt_magnitudes) against the definition computed
/// here, for layouts 0, 1 and 2, lines read along k (residue_lines_kernel) and contiguous lines
/// (residue_columns_kernel), and through the plain per-byte kernel (an output not 16-byte aligned
/// takes it): k = 70 (kp = 80: padding), an inactive line, line exponents from the data.
template <class T>
void expect_magnitude_panels(int layout, bool lines_contiguous, bool aligned_output) {
  SCOPED_TRACE("layout " + std::to_string(layout) + (lines_contiguous ? " contiguous lines" : " lines along k") +
               (aligned_output ? "" : " unaligned output"));
  const std::int64_t out_lines = 38, k = 70, kp = 80;
  const std::int64_t src_lines = layout == 2 ? out_lines / 2 : out_lines;
  // Source: lines along k with a padded stride, or contiguous lines (k strided); layout 2 reads along k.
  const bool contiguous = lines_contiguous && layout != 2;
  const std::int64_t ls = contiguous ? 1 : k + 3, ks = contiguous ? src_lines + 2 : 1;
  std::vector<T> x(static_cast<std::size_t>((src_lines - 1) * ls + (k - 1) * ks + 1), T(0));
  fill_random(MatrixView<T>{x.data(), static_cast<std::int64_t>(x.size()), 1, 1, 1}, Distribution::parse("phi=1"), 91);
  const auto at = [&](std::int64_t line, std::int64_t j) { return static_cast<double>(x[line * ls + j * ks]); };
  std::vector<int> base(static_cast<std::size_t>(out_lines)), active(static_cast<std::size_t>(out_lines), 1);
  for (std::int64_t l = 0; l < out_lines; ++l) {
    double mx = 0;
    for (std::int64_t j = 0; j < k; ++j) mx = std::max(mx, std::fabs(at(layout == 2 ? l / 2 : l, j)));
    base[l] = 16 - crt::arith::line_exponent_of_max(mx);
  }
  active[5] = 0;
  const std::int64_t pitch = (layout == 0 ? 2 : 3) * kp;
  std::vector<std::int8_t> want(static_cast<std::size_t>(out_lines * pitch), 0);
  for (std::int64_t l = 0; l < out_lines; ++l)
    for (std::int64_t j = 0; j < k && active[l]; ++j) {
      const double v = layout == 2 ? at(l / 2, j ^ (l & 1)) : at(l, j);
      int hi = 0, lo = 0;
      crt::arith::magnitude_levels(v, 16 - base[l], hi, lo);
      want[l * pitch + j] = static_cast<std::int8_t>(hi);
      want[l * pitch + kp + j] = static_cast<std::int8_t>(lo);
      if (layout != 0) want[l * pitch + 2 * kp + j] = static_cast<std::int8_t>(hi);
    }
  T* dx = nullptr;
  int *dbase = nullptr, *dactive = nullptr;
  std::int8_t* dout = nullptr;
  ASSERT_EQ(cudaMalloc(&dx, sizeof(T) * x.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dbase, sizeof(int) * base.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dactive, sizeof(int) * active.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dout, want.size() + 16), cudaSuccess);
  cudaMemcpy(dx, x.data(), sizeof(T) * x.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(dbase, base.data(), sizeof(int) * base.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(dactive, active.data(), sizeof(int) * active.size(), cudaMemcpyHostToDevice);
  cudaMemset(dout, 0x55, want.size() + 16);  // every byte must be written
  cuda::detail::CrtLines in;
  in.base = dbase;
  in.active = dactive;
  std::int8_t* const out = dout + (aligned_output ? 0 : 1);
  cuda::detail::crt_magnitudes<T>(dx, out_lines, k, ls, ks, in, kp, layout, out, nullptr);
  std::vector<std::int8_t> got(want.size());
  ASSERT_EQ(cudaMemcpy(got.data(), out, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(dx);
  cudaFree(dbase);
  cudaFree(dactive);
  cudaFree(dout);
  std::size_t wrong = 0, first = got.size();
  for (std::size_t b = 0; b < got.size(); ++b)
    if (got[b] != want[b]) {
      ++wrong;
      first = std::min(first, b);
    }
  EXPECT_EQ(wrong, 0u) << "first at line " << first / pitch << ", byte " << first % pitch;
}

// The fused reduction's residue layout (host arithmetic, no device needed): every entry of an m x n
// product gets its own byte inside the panel, the byte a lane's 8-byte granule holds at the entry's
// fragment position (r % 8), and the n128 panel fits the n256 one (the callers size for n256).
TEST(CudaCrtLayout, ResidueOffsetsAreOneToOneInsideThePanel) {
  namespace s8 = cuda::detail::crt_s8;
  const std::int64_t shapes[][2] = {{1, 1}, {16, 256}, {17, 257}, {37, 29}, {128, 128}, {129, 300}, {200, 157}, {300, 513}};
  for (const auto& mn : shapes)
    for (s8::TileN tile : {s8::TileN::n256, s8::TileN::n128}) {
      const std::int64_t m = mn[0], n = mn[1], panel = s8::residue_panel_bytes(m, n, tile);
      ASSERT_LE(panel, s8::residue_panel_bytes(m, n)) << m << " x " << n;
      std::vector<int> hits(static_cast<std::size_t>(panel), 0);
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          const std::int64_t at = s8::residue_offset(i, j, m, n, tile);
          ASSERT_GE(at, 0);
          ASSERT_LT(at, panel) << "entry (" << i << ", " << j << ") of " << m << " x " << n;
          ++hits[static_cast<std::size_t>(at)];
          // m64nN fragment: column offset 8 (r >> 2) + (r & 1), row offset 8 ((r >> 1) & 1)
          const std::int64_t bn = static_cast<std::int64_t>(tile), tj = j % bn, half = (i % 16) / 8;
          EXPECT_EQ(at % 8, ((tj / 8) * 4 + half * 2 + tj % 2) % 8) << i << ", " << j;
        }
      std::int64_t twice = 0;
      for (int h : hits) twice += h > 1;
      EXPECT_EQ(twice, 0) << m << " x " << n << " tile " << static_cast<int>(tile);
    }
}

// The line rule of lines read along k (crt_line_rule: a thread per line up to k = 16, a warp per line
// up to k = 1024 with 4, 8, 16 or 32 elements per lane, a block per line beyond) against its
// definition, for k at each bucket's edges and past the warp kernel: max |x| -> E, c =
// ceil_log2(sum ceil_mag^2), base = 16 - E, s1 = sum ceil_mag; a zero line and a line of subnormals (zero high words); a line with a NaN and one with an
// Inf inactive and counted; padded line stride.
TEST(CudaCrt, LineRuleOfLinesAlongKEqualsItsDefinition) {
  TCEMU_REQUIRE_GPU();
  const std::int64_t lines = 21;
  for (std::int64_t k : {1, 8, 16, 17, 100, 128, 129, 256, 257, 512, 513, 1000, 1024, 1025, 3000}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    const std::int64_t ls = k + 3;
    std::vector<double> x(static_cast<std::size_t>(lines * ls), 0.0);
    fill_random(MatrixView<double>{x.data(), static_cast<std::int64_t>(x.size()), 1, 1, 1}, Distribution::parse("phi=1"),
                600 + static_cast<std::uint64_t>(k));
    for (std::int64_t j = 0; j < k; ++j) {
      x[3 * ls + j] = 0;
      x[5 * ls + j] *= 0x1p-1060;
    }
    x[7 * ls + k / 2] = std::numeric_limits<double>::quiet_NaN();
    x[9 * ls + k - 1] = -std::numeric_limits<double>::infinity();
    std::vector<int> want_c(lines, 0), want_base(lines, 0), want_active(lines, 0);
    std::vector<unsigned long long> want_s1(lines, 0);
    for (std::int64_t l = 0; l < lines; ++l) {
      double mx = 0;
      bool finite = true;
      for (std::int64_t j = 0; j < k; ++j) {
        finite = finite && std::isfinite(x[l * ls + j]);
        mx = std::max(mx, std::fabs(x[l * ls + j]));
      }
      if (!finite || mx == 0) continue;
      const int E = crt::arith::line_exponent_of_max(mx);
      std::uint64_t s2 = 0, s1 = 0;
      for (std::int64_t j = 0; j < k; ++j) {
        const std::uint64_t q = crt::arith::ceil_mag(x[l * ls + j], 16 - E);
        s2 += q * q;
        s1 += q;
      }
      want_c[l] = crt::arith::ceil_log2_u64(s2);
      want_base[l] = 16 - E;
      want_active[l] = 1;
      want_s1[l] = s1;
    }
    cuda::DeviceBuffer<double> dx(x.size());
    cuda::DeviceBuffer<int> di(3 * lines);                    // c, base, active
    cuda::DeviceBuffer<unsigned long long> du(lines + 1);  // s1, then the NaN/Inf count
    cudaMemcpy(dx.get(), x.data(), sizeof(double) * x.size(), cudaMemcpyHostToDevice);
    cudaMemset(di.get(), 0x55, sizeof(int) * 3 * lines);  // every line's entries must be written
    cudaMemset(du.get(), 0, sizeof(unsigned long long) * (lines + 1));
    cuda::detail::CrtLines out;
    out.c = di.get();
    out.base = di.get() + lines;
    out.active = di.get() + 2 * lines;
    out.nonfinite = du.get() + lines;
    out.s1 = du.get();
    cuda::detail::crt_line_rule<double>(dx.get(), lines, k, ls, 1, out, nullptr);
    std::vector<int> got(3 * lines);
    std::vector<unsigned long long> got_u(lines + 1);
    ASSERT_EQ(cudaMemcpy(got.data(), di.get(), sizeof(int) * got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(got_u.data(), du.get(), sizeof(unsigned long long) * got_u.size(), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(got_u[lines], 2u) << "NaN/Inf count";
    for (std::int64_t l = 0; l < lines; ++l) {
      EXPECT_EQ(got[2 * lines + l] != 0, want_active[l] != 0) << "line " << l;
      if (!want_active[l]) continue;
      EXPECT_EQ(got[l], want_c[l]) << "line " << l;
      EXPECT_EQ(got[lines + l], want_base[l]) << "line " << l;
      EXPECT_EQ(got_u[l], want_s1[l]) << "line " << l;
    }
  }
}

// Row blocks within the workspace budget (host arithmetic): every block but a 16-row minimum keeps
// its row-proportional bytes within the budget, is the largest multiple of 16 that does, or is all m
// rows when they fit. The qsim case that asked for 512 GiB before the rule counted the residues'
// padding to the tile width (complex 3M, m = 2^26 rows, n = k = 4, N = 15, 8 GiB) now fits.
TEST(CudaCrtLayout, RowBlocksKeepTheRowBytesWithinTheBudget) {
  namespace s8 = cuda::detail::crt_s8;
  const std::int64_t ms[] = {1, 15, 16, 17, 1000, 4097, std::int64_t(1) << 26};
  const std::int64_t per_rows[] = {1, 37, 13056, 45 * (16 + 256)};
  const std::int64_t budgets[] = {1, 1000, std::int64_t(1) << 20, std::int64_t(8) << 30};
  for (std::int64_t m : ms)
    for (std::int64_t per_row : per_rows)
      for (std::int64_t budget : budgets) {
        const std::int64_t mb = s8::crt_row_block(m, per_row, budget);
        SCOPED_TRACE(std::to_string(m) + " rows of " + std::to_string(per_row) + " bytes, budget " + std::to_string(budget));
        ASSERT_GE(mb, 1);
        ASSERT_LE(mb, m);
        const std::int64_t m16 = (m + 15) / 16 * 16;
        if (mb == m) {
          EXPECT_TRUE(m16 * per_row <= budget || m <= 16 || 16 * per_row > budget);
        } else {
          EXPECT_EQ(mb % 16, 0);
          EXPECT_TRUE(mb * per_row <= budget || mb == 16);
          EXPECT_GT((mb + 16) * per_row, budget);
        }
      }
  const std::int64_t m = std::int64_t(1) << 26, n = 4, kcp = 16, parts = 3 * 15, budget = std::int64_t(8) << 30;
  const std::int64_t mb = s8::crt_row_block(m, parts * (kcp + s8::residue_row_bytes(n)), budget);
  EXPECT_LE(parts * (s8::residue_panel_bytes(mb, n) + mb * kcp), budget);
  EXPECT_GT(mb, 0);
}

// The fused reduction's rule: int8 residues padded to the 256-column tile against 4-byte INT32 sums
// per row and product; fewer bytes exactly when n > 64.
TEST(CudaCrtLayout, FusedReductionPaysAboveSixtyFourColumns) {
  namespace s8 = cuda::detail::crt_s8;
  for (std::int64_t n = 1; n <= 1024; ++n) {
    const std::int64_t padded = (n + 255) / 256 * 256;
    EXPECT_EQ(s8::fused_reduction_pays(n), padded < 4 * n) << n;
    EXPECT_EQ(s8::fused_reduction_pays(n), n > 64) << n;
  }
}

/// Lines and magnitude products for the certificate passes, uploaded (c, base, s1 per line; hh and
/// cross column-major with ld = m), and the host's test of one entry at N (crt_arith, as host/crt.cpp).
struct CertCase {
  std::int64_t m = 0, n = 0, k = 8192;  // k: the product's length (the bound's k/4 term)
  cuda::detail::CrtSplit split;         // the budget's split between x's and y's exponents
  std::vector<int> cx, bx, cy, by;
  std::vector<unsigned long long> sx, sy;
  std::vector<std::int32_t> hh, cross;
  double tol = 0;

  double bound(std::int64_t i, std::int64_t j, int N) const {
    const int Lb = crt::constants(N).bits - 1;
    return crt::arith::entry_bound(crt::arith::norm1_bound(sy[j], 16 - by[j]), crt::arith::norm1_bound(sx[i], 16 - bx[i]),
                                   crt::arith::scale_exponent(Lb + split.shift_x(Lb), cx[i], bx[i]),
                                   crt::arith::scale_exponent(Lb + split.shift_y(Lb), cy[j], by[j]),
                                   crt::arith::entry_fixed_error(crt::constants(N).recon_error, k));
  }
  double rhs(std::int64_t i, std::int64_t j) const {
    return crt::arith::int8_certificate_rhs(hh[j * m + i], cross[j * m + i], 32 - bx[i] - by[j], tol);
  }
  bool fails(std::int64_t i, std::int64_t j, int N) const { return !(bound(i, j, N) <= rhs(i, j)); }

  /// Runs the search over [2, 20], the mask test over [2, 20] and the ratio pass at `at` on the GPU.
  void run(int at, unsigned& candidate, unsigned& mask, unsigned& at_mask) const {
    std::vector<int> active_x(m, 1), active_y(n, 1);
    std::vector<void*> allocs;
    auto up = [&](const auto& v) {
      void* d = nullptr;
      EXPECT_EQ(cudaMalloc(&d, sizeof(v[0]) * v.size()), cudaSuccess);
      cudaMemcpy(d, v.data(), sizeof(v[0]) * v.size(), cudaMemcpyHostToDevice);
      allocs.push_back(d);
      return d;
    };
    cuda::detail::CrtLines lx, ly;
    lx.c = static_cast<int*>(up(cx));
    lx.base = static_cast<int*>(up(bx));
    lx.active = static_cast<int*>(up(active_x));
    lx.s1 = static_cast<unsigned long long*>(up(sx));
    ly.c = static_cast<int*>(up(cy));
    ly.base = static_cast<int*>(up(by));
    ly.active = static_cast<int*>(up(active_y));
    ly.s1 = static_cast<unsigned long long*>(up(sy));
    const auto* dh = static_cast<const std::int32_t*>(up(hh));
    const auto* dc = static_cast<const std::int32_t*>(up(cross));
    const std::vector<unsigned long long> zeros(4, 0);
    auto* counters = static_cast<unsigned long long*>(up(zeros));
    auto* flags = reinterpret_cast<unsigned*>(counters);  // [0] candidate, [1] mask, [2] mask at `at`
    cuda::detail::crt_certificate_int8_search(dh, dc, m, m, n, k, split, lx, ly, tol, crt::kMinModuli, crt::kMaxModuli,
                                              flags, nullptr);
    cuda::detail::crt_certificate_int8(dh, dc, m, m, n, k, split, lx, ly, tol, crt::kMinModuli, crt::kMaxModuli,
                                       flags + 1, nullptr, nullptr);
    cuda::detail::crt_certificate_int8(dh, dc, m, m, n, k, split, lx, ly, tol, at, at, flags + 2, counters + 3, nullptr);
    unsigned got[3] = {};
    EXPECT_EQ(cudaMemcpy(got, flags, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
    for (void* d : allocs) cudaFree(d);
    candidate = got[0];
    mask = got[1];
    at_mask = got[2];
  }
};

// The certificate's search (crt_certificate_int8_search) finds the smallest N that no entry fails,
// as the mask test of every N does, on lines and products of realistic size (k = 8192: 1-norms near
// 2^27, 2-norm exponents 38-42, products of 2^23-2^26): 300 x 150 entries, two row blocks and three
// column steps, both partial. The host's own test of every entry and N gives the expected N.
TEST(CudaCrt, CertificateSearchFindsTheSmallestNThatNoEntryFails) {
  TCEMU_REQUIRE_GPU();
  CertCase t;
  t.m = 300;
  t.n = 150;
  t.tol = std::ldexp(1.0, -53);
  t.split.odd = t.split.active = 150;  // every source line odd: d = 1 where Lb is odd
  t.split.x_is_source = false;         // as the host splits 300 rows against 150 columns
  std::mt19937_64 g(25);
  std::uniform_int_distribution<int> c(38, 42), base(14, 18), hh(1 << 23, 1 << 25), cross(1 << 24, 1 << 26);
  std::uniform_int_distribution<unsigned long long> s1(1ull << 26, 1ull << 28);
  for (std::int64_t i = 0; i < t.m; ++i) {
    t.cx.push_back(c(g));
    t.bx.push_back(base(g));
    t.sx.push_back(s1(g));
  }
  for (std::int64_t j = 0; j < t.n; ++j) {
    t.cy.push_back(c(g));
    t.by.push_back(base(g));
    t.sy.push_back(s1(g));
  }
  for (std::int64_t e = 0; e < t.m * t.n; ++e) {
    t.hh.push_back(hh(g));
    t.cross.push_back(cross(g));
  }
  unsigned want_mask = 0;
  for (std::int64_t i = 0; i < t.m; ++i)
    for (std::int64_t j = 0; j < t.n; ++j)
      for (int N = crt::kMinModuli; N <= crt::kMaxModuli; ++N)
        if (t.fails(i, j, N)) want_mask |= 1u << N;
  int want = 0;
  for (int N = crt::kMinModuli; N <= crt::kMaxModuli && want == 0; ++N)
    if (!(want_mask & (1u << N))) want = N;
  ASSERT_GT(want, crt::kMinModuli + 8) << "the case must make the search climb";
  ASSERT_LT(want, crt::kMaxModuli);
  unsigned candidate = 0, mask = 0, at_mask = 0;
  t.run(want, candidate, mask, at_mask);
  EXPECT_EQ(candidate, static_cast<unsigned>(want));
  EXPECT_EQ(mask & ~3u, want_mask & ~3u);
  EXPECT_EQ(at_mask & (1u << want), 0u);  // the ratio pass finds no entry failing at the searched N
}

// An entry whose bound is not monotone in N (row: c = 10, base = -20, s1 = 1; column: c = 14, base
// = -20, s1 = 1: the bound at N = 20 exceeds that at 19), its right-hand side between the two, then in
// the same row an entry that fails at 19 and passes at 20. The search, one test per entry at its
// warp's candidate, stops at 20; the ratio pass at 20 finds the first entry failing there (what sends
// crt_certify_int8 to the test of every N), and that test certifies no N, as the host does.
TEST(CudaCrt, CertificateSearchOfANonMonotoneBoundIsCaughtAtItsN) {
  TCEMU_REQUIRE_GPU();
  CertCase t;
  t.m = 1;
  t.n = 2;
  t.cx = {10};
  t.bx = {-20};
  t.sx = {1};
  t.cy = {14, 0};
  t.by = {-20, -20};
  t.sy = {1, 1};
  t.hh = {0, 0};
  t.cross = {0, 0};
  // Entry (0, 0): rhs between bound(19) and bound(20) with G = 128 cross near 10^6.
  const double lo0 = t.bound(0, 0, 19), hi0 = t.bound(0, 0, 20);
  ASSERT_LT(lo0, hi0) << "the row and column 0 must give a bound that rises from N = 19 to 20";
  t.tol = 0.5 * (lo0 + hi0) / (std::ldexp(1.0, 32 - t.bx[0] - t.by[0] - 28) * 1e6);
  t.cross[0] = static_cast<std::int32_t>(1e6 / 128);
  // Entry (0, 1): rhs between bound(20) and bound(19).
  const double lo1 = t.bound(0, 1, 20), hi1 = t.bound(0, 1, 19);
  t.cross[1] = static_cast<std::int32_t>(0.5 * (lo1 + hi1) / (t.tol * std::ldexp(1.0, 32 - t.bx[0] - t.by[1] - 28)) / 128);
  ASSERT_FALSE(t.fails(0, 0, 19));
  ASSERT_TRUE(t.fails(0, 0, 20));
  ASSERT_TRUE(t.fails(0, 1, 19));
  ASSERT_FALSE(t.fails(0, 1, 20));
  for (int N = crt::kMinModuli; N < 19; ++N) ASSERT_TRUE(t.fails(0, 0, N)) << "N = " << N;
  unsigned candidate = 0, mask = 0, at_mask = 0;
  t.run(20, candidate, mask, at_mask);
  EXPECT_EQ(candidate, 20u);
  EXPECT_NE(at_mask & (1u << 20), 0u);
  EXPECT_EQ(mask & ~3u, ((2u << crt::kMaxModuli) - 1) & ~3u);  // every N fails somewhere: none certified
}

TEST(CudaCrt, MagnitudePanelsEqualTheirDefinitionOnEveryPath) {
  TCEMU_REQUIRE_GPU();
  for (int layout : {0, 1, 2})
    for (bool contiguous : {false, true})
      for (bool aligned : {true, false}) {
        expect_magnitude_panels<double>(layout, contiguous, aligned);
        expect_magnitude_panels<float>(layout, contiguous, aligned);
      }
}

TEST(CudaCrt, PerCallAndGivenNMatchTheHostBitForBit) {
  TCEMU_REQUIRE_GPU();
  std::uint64_t seed = 70;
  for (const Shape& s : kShapes) {
    expect_bit_identical<double>("int8-crt", Target::fp64, s, "uniform(-1,1)", seed++);
    expect_bit_identical<double>("int8-crt", Target::fp64, s, "phi=1", seed++, 0.75, -0.5);
    expect_bit_identical<double>("int8-crt:12", Target::fp64, s, "phi=0.1", seed++);
    expect_bit_identical<float>("int8-crt", Target::fp32, s, "uniform(-1,1)", seed++);
    expect_bit_identical<float>("int8-crt:7", Target::fp32, s, "phi=1", seed++, 2.0f, 0.25f);
    // N per call on phi = 0.1 too (the certificate's host tests' distributions; phi = 4, which
    // certifies nothing, is in NonfiniteAndTooWideSpreadsFallBackLikeTheHost)
    expect_bit_identical<double>("int8-crt", Target::fp64, s, "phi=0.1", seed + 1000);
  }
}

// Given N up to 20 on wide distributions: scaled integers from below 2^53 to about 2^77, so both
// branches of the GPU residue pass (the sign-free limbs where every lane of a warp is below 2^63, the
// five-limb residue_wide for the whole warp where one lane is above, so for small values too) in both
// of its kernels (kShapes has operands read along k and operands with contiguous lines), and
// the reconstruction's ragged last rows.
TEST(CudaCrt, ManyModuliTakeEveryResidueBranchLikeTheHost) {
  TCEMU_REQUIRE_GPU();
  std::uint64_t seed = 300;
  for (const Shape& s : kShapes) {
    expect_bit_identical<double>("int8-crt:20", Target::fp64, s, "phi=4", seed++, 1.5, 0.5);
    expect_bit_identical<double>("int8-crt:18", Target::fp64, s, "phi=1", seed++);
    expect_bit_identical<double>("int8-crt:17", Target::fp64, s, "uniform(-1,1)", seed++);
    expect_bit_identical<float>("int8-crt:19", Target::fp32, s, "phi=2", seed++);
  }
}

// Every way of computing the INT8 products (ExecutionPolicy::crt_products: the wgmma kernel with its
// mod-p epilogue and the residue reconstruction, the wgmma kernel writing INT32, cuBLAS) gives the
// host's bits, with one k chunk and with two (where the automatic choice writes INT32 products).
TEST(CudaCrt, EveryProductsChoiceMatchesTheHostBitForBit) {
  TCEMU_REQUIRE_GPU();
  const auto none = [](DualMatrix<double>&, DualMatrix<double>&) {};
  const Shape one_chunk{300, 270, 333, Op::N, Op::T, Layout::row, Layout::padded_col, Layout::col};
  const Shape two_chunks{20, 24, (1 << 16) + 100, Op::N, Op::N, Layout::row, Layout::col, Layout::col};
  // An sm_90a build on a compute 9.0 GPU must run the wgmma kernel where the choice allows it.
  bool expect_wgmma = false;
#if defined(TCEMU_TEST_BUILT_FOR_SM90A)
  int dev = 0, major = 0, minor = 0;
  ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev), cudaSuccess);
  expect_wgmma = major == 9 && minor == 0;
#endif
  for (CrtProducts products : {CrtProducts::automatic, CrtProducts::wgmma_int32, CrtProducts::cublas}) {
    SCOPED_TRACE(static_cast<int>(products));
    std::string k1, k2;
    expect_bit_identical<double>("int8-crt:15", Target::fp64, one_chunk, "phi=1", 400, 1.0, 0.0, none, products, &k1);
    expect_bit_identical<double>("int8-crt", Target::fp64, two_chunks, "uniform(-1,1)", 401, 0.5, 2.0, none, products,
                                 &k2);
    expect_bit_identical<float>("int8-crt:8", Target::fp32, one_chunk, "uniform(-1,1)", 402, 1.0f, 0.0f,
                                [](DualMatrix<float>&, DualMatrix<float>&) {}, products);
    if (products == CrtProducts::cublas) {
      EXPECT_NE(k1.find("cuBLAS INT8"), std::string::npos) << k1;
      EXPECT_NE(k2.find("cuBLAS INT8"), std::string::npos) << k2;
    }
    if (expect_wgmma && products != CrtProducts::cublas) {
      EXPECT_NE(k1.find("wgmma"), std::string::npos) << k1;
      EXPECT_NE(k2.find("wgmma"), std::string::npos) << k2;
    }
    // With the wgmma kernel (compute 9.0 and an sm_90a build): residues for one chunk under automatic,
    // INT32 products otherwise.
    if (k1.find("wgmma") != std::string::npos) {
      EXPECT_EQ(k1.find("reducing mod p") != std::string::npos, products == CrtProducts::automatic) << k1;
      EXPECT_EQ(k2.find("reducing mod p"), std::string::npos) << k2;
      EXPECT_NE(k2.find("wgmma"), std::string::npos) << k2;
    }
  }
}

// Products at most 64 columns wide keep INT32 sums under automatic (the fused reduction's residues
// would be mostly padding: fused_reduction_pays), 65 columns take the residues; both the host's bits.
TEST(CudaCrt, NarrowProductsKeepInt32SumsLikeTheHost) {
  TCEMU_REQUIRE_GPU();
  const auto none = [](DualMatrix<double>&, DualMatrix<double>&) {};
  for (std::int64_t n : {4, 40, 64, 65}) {
    const Shape s{300, n, 333, Op::N, Op::T, Layout::row, Layout::padded_col, Layout::col};  // C column-major: p.n = n
    std::string kernels;
    expect_bit_identical<double>("int8-crt:15", Target::fp64, s, "phi=1", 420, 1.0, 0.5, none, CrtProducts::automatic,
                                 &kernels);
    if (kernels.find("wgmma") != std::string::npos)
      EXPECT_EQ(kernels.find("reducing mod p") != std::string::npos, n > 64) << n << ": " << kernels;
  }
}

// The products in row blocks (an accumulator budget of 100 rows of INT32 products: blocks of 96, 96,
// 96 and 13 rows, so the block offsets m0 > 0 and a last block whose rows are not a multiple of 4), C
// read (beta 0.5), for every products choice: the host's bits.
TEST(CudaCrt, RowBlocksMatchTheHostBitForBit) {
  TCEMU_REQUIRE_GPU();
  const Shape s{301, 270, 333, Op::N, Op::T, Layout::row, Layout::padded_col, Layout::col};
  const std::int64_t hundred_rows = 100 * std::int64_t(sizeof(std::int32_t)) * 270 * 15;  // INT32 products, N = 15
  for (CrtProducts products : {CrtProducts::automatic, CrtProducts::wgmma_int32, CrtProducts::cublas}) {
    SCOPED_TRACE(static_cast<int>(products));
    expect_bit_identical<double>("int8-crt:15", Target::fp64, s, "phi=1", 410, 1.0, 0.5,
                                 [](DualMatrix<double>&, DualMatrix<double>&) {}, products, nullptr, hundred_rows);
  }
}

TEST(CudaCrt, AdversarialInputsMatchTheHostBitForBit) {
  TCEMU_REQUIRE_GPU();
  // Zero rows of op(A) and columns of op(B); a wide spread (phi = 2); tiny and huge magnitudes.
  const Shape s{48, 40, 130, Op::N, Op::N, Layout::row, Layout::row, Layout::col};
  expect_bit_identical<double>("int8-crt", Target::fp64, s, "phi=1", 90, 1.0, 0.0,
                               [](DualMatrix<double>& A, DualMatrix<double>& B) {
                                 for (std::int64_t l = 0; l < A.cols; ++l) A.h[7 * A.rs + l * A.cs] = 0;
                                 for (std::int64_t l = 0; l < B.rows; ++l) B.h[l * B.rs + 3 * B.cs] = 0;
                               });
  expect_bit_identical<double>("int8-crt", Target::fp64, s, "phi=2", 91);
  expect_bit_identical<double>("int8-crt", Target::fp64, s, "uniform(-1,1)", 92, 1.0, 0.0,
                               [](DualMatrix<double>& A, DualMatrix<double>& B) {
                                 for (double& v : A.h) v = std::ldexp(v, -900);
                                 for (double& v : B.h) v = std::ldexp(v, 600);
                               });
  // Within-line spread of 12 binades (every other element scaled down): more moduli, still certified
  // (30 binades at this k need more than 20: the first GPU run showed both backends fall back).
  expect_bit_identical<double>("int8-crt", Target::fp64, s, "uniform(0.5,1)", 93, 1.0, 0.0,
                               [](DualMatrix<double>& A, DualMatrix<double>& B) {
                                 for (std::int64_t i = 0; i < A.rows; ++i)
                                   for (std::int64_t l = 1; l < A.cols; l += 2) A.h[i * A.rs + l * A.cs] *= 0x1p-12;
                                 for (std::int64_t l = 0; l < B.rows; l += 2)
                                   for (std::int64_t j = 0; j < B.cols; ++j) B.h[l * B.rs + j * B.cs] *= 0x1p-12;
                               });
  // k past the GPU's chunk (2^16: two chunks there, one on the host) and past the host's (2^17).
  expect_bit_identical<double>("int8-crt", Target::fp64, Shape{6, 5, (1 << 16) + 37, Op::N, Op::N, Layout::row,
                                                               Layout::col, Layout::row},
                               "uniform(-1,1)", 94);
  expect_bit_identical<float>("int8-crt:9", Target::fp32, Shape{4, 3, (1 << 17) + 5, Op::T, Op::N, Layout::col,
                                                                Layout::row, Layout::col},
                              "phi=0.5", 95);
}

// An operand read along k with unit stride (k <= 8192, 16-byte aligned lines) gets its line rule from
// one kernel with the pass that reads it next: with N given its exponents and residues
// (crt_line_rule_and_residues), with N per call the INT8 certificate's magnitude panels
// (crt_line_rule_and_magnitudes). With N given the operand with fewer lines (op(A) on a tie) is the
// scaling split's source and keeps its separate rule, so the other one fuses. The host's bits (and N)
// for either operand (both with N per call), k with and without padding to 16 and at the 8192 limit,
// the wide residue branch (N = 20, phi = 4), zero lines, lines of subnormals (the rule's full-bits
// maximum), float, C read; past the limit, with lines of an odd stride or contiguous lines, the
// separate passes run, and the report says which.
TEST(CudaCrt, LineRuleFusedIntoTheNextPassMatchesTheHostBitForBit) {
  TCEMU_REQUIRE_GPU();
  struct Case {
    Shape shape;
    const char* scheme;
    const char* dist;
    const char* fused;  // the report's "fused into it for ..." or nullptr: not fused
  };
  const Case cases[] = {
      {{200, 157, 702, Op::N, Op::N, Layout::row, Layout::col, Layout::col}, "int8-crt:15", "phi=1", "op(A)"},
      {{48, 64, 8192, Op::N, Op::N, Layout::col, Layout::col, Layout::col}, "int8-crt:15", "phi=0.1", "op(B)"},
      {{72, 40, 8192, Op::N, Op::T, Layout::row, Layout::col, Layout::col}, "int8-crt:20", "phi=4", "op(A)"},
      {{33, 65, 96, Op::N, Op::N, Layout::row, Layout::col, Layout::row}, "int8-crt:17", "uniform(-1,1)",
       "op(B)"},  // C row-major: the operands swap; op(A) (33 lines) is the source
      {{64, 48, 8193, Op::N, Op::N, Layout::row, Layout::col, Layout::col}, "int8-crt:15", "phi=1", nullptr},
      {{37, 29, 54, Op::N, Op::N, Layout::padded_row, Layout::padded_col, Layout::col}, "int8-crt:15", "phi=1",
       nullptr},
  };
  std::uint64_t seed = 500;
  for (const Case& c : cases) {
    std::string kernels;
    expect_bit_identical<double>(c.scheme, Target::fp64, c.shape, c.dist, seed++, 0.75, -0.5,
                                 [](DualMatrix<double>& A, DualMatrix<double>& B) {
                                   for (std::int64_t l = 0; l < A.cols; ++l) {
                                     A.h[3 * A.rs + l * A.cs] = 0;
                                     A.h[5 * A.rs + l * A.cs] *= 0x1p-1060;  // subnormals, zero high words
                                   }
                                   for (std::int64_t l = 0; l < B.rows; ++l) {
                                     B.h[l * B.rs + 2 * B.cs] = 0;
                                     B.h[l * B.rs + 4 * B.cs] *= 0x1p-1050;
                                   }
                                 },
                                 CrtProducts::automatic, &kernels);
    if (c.fused)
      EXPECT_NE(kernels.find(std::string("line rule fused into it for ") + c.fused + ")"), std::string::npos)
          << kernels;
    else
      EXPECT_EQ(kernels.find("fused into it"), std::string::npos) << kernels;
  }
  std::string kernels;
  expect_bit_identical<float>("int8-crt:8", Target::fp32, Shape{70, 50, 1000, Op::N, Op::N, Layout::row, Layout::col,
                                                                Layout::col},
                              "phi=1", 520, 2.0f, 0.25f, [](DualMatrix<float>&, DualMatrix<float>&) {},
                              CrtProducts::automatic, &kernels);
  EXPECT_NE(kernels.find("fused into it for op(A))"), std::string::npos) << kernels;  // op(B) (50) the source
  // N per call (the INT8 certificate): the rule fused into the magnitude pass instead, the residue
  // pass separate; the same N and bits as the host.
  struct Certified {
    Shape shape;
    Target target;
    const char* fused;
  };
  const Certified certified[] = {
      {{200, 157, 702, Op::N, Op::N, Layout::row, Layout::col, Layout::col}, Target::fp64, "op(A) and op(B)"},
      {{64, 48, 8192, Op::N, Op::N, Layout::col, Layout::col, Layout::col}, Target::fp64, "op(B)"},
      {{33, 65, 96, Op::N, Op::N, Layout::row, Layout::col, Layout::row}, Target::fp32, "op(A) and op(B)"},
      {{64, 48, 8193, Op::N, Op::N, Layout::row, Layout::col, Layout::col}, Target::fp64, nullptr},
  };
  for (const Certified& c : certified) {
    std::string kern, cert;
    if (c.target == Target::fp64)
      expect_bit_identical<double>("int8-crt", c.target, c.shape, "phi=1", seed++, 1.0, 0.0,
                                   [](DualMatrix<double>&, DualMatrix<double>&) {}, CrtProducts::automatic, &kern, 0,
                                   &cert);
    else
      expect_bit_identical<float>("int8-crt", c.target, c.shape, "phi=1", seed++, 1.0f, 0.0f,
                                  [](DualMatrix<float>&, DualMatrix<float>&) {}, CrtProducts::automatic, &kern, 0,
                                  &cert);
    EXPECT_EQ(kern.find("fused into it"), std::string::npos) << kern;
    if (c.fused)
      EXPECT_NE(cert.find(std::string("line rule fused into the magnitude pass for ") + c.fused + ")"),
                std::string::npos) << cert;
    else
      EXPECT_EQ(cert.find("fused"), std::string::npos) << cert;
  }
}

TEST(CudaCrt, NonfiniteAndTooWideSpreadsFallBackLikeTheHost) {
  TCEMU_REQUIRE_GPU();
  const std::int64_t m = 48, n = 40, k = 256;
  // c = 2: N given, so the operands' line rules run fused into their residue passes (both read along k).
  for (int c = 0; c < 3; ++c) {
    DualMatrix<double> A(m, k, Layout::row), B(k, n, Layout::col), C(m, n, Layout::row);
    fill_random(A.host(), Distribution::parse(c == 0 ? "phi=4" : "uniform(-1,1)"), 2026);
    fill_random(B.host(), Distribution::parse(c == 0 ? "phi=4" : "uniform(-1,1)"), 2027);
    if (c == 1) B.h[5 * B.rs + 2 * B.cs] = std::numeric_limits<double>::infinity();
    if (c == 2) A.h[7 * A.rs + 9 * A.cs] = std::numeric_limits<double>::quiet_NaN();
    A.upload();
    B.upload();
    C.upload();
    GemmOptions o;
    o.scheme = parse_scheme(c == 2 ? "int8-crt:15" : "int8-crt", Target::fp64);
    const GemmReport rd = cuda::gemm_device<double>(Op::N, Op::N, 1.0, A.dev().as_const(), B.dev().as_const(), 0.0,
                                                    C.dev(), o, nullptr, nullptr);
    const GemmReport rh = gemm_host<double>(Op::N, Op::N, 1.0, A.host().as_const(), B.host().as_const(), 0.0,
                                            C.host(), o);
    SCOPED_TRACE(rd.note);
    EXPECT_TRUE(rh.fell_back);
    EXPECT_TRUE(rd.fell_back);
    EXPECT_EQ(rd.used.name, "fp64");
    EXPECT_NE(rd.note.find(c == 0 ? "more than 20 moduli" : "NaN or Inf"), std::string::npos);
    if (c == 2) EXPECT_NE(rd.note.find("operand A"), std::string::npos);
    o.range_policy = RangePolicy::error;
    EXPECT_THROW(cuda::gemm_device<double>(Op::N, Op::N, 1.0, A.dev().as_const(), B.dev().as_const(), 0.0, C.dev(),
                                           o, nullptr, nullptr),
                 InvalidArgument);
  }
}

}  // namespace tcemu::test
#endif
