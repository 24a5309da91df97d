// Bit-indexed fp16x2-aligned GEMM (tcemu/cuda/bit_gemm.hpp) against FP64, against native FP32 on the
// host, and against the dense GPU path (permute on the host, complex_gemm_device) on random vectors.
#if defined(TCEMU_HAVE_CUDA)
#include "tcemu/cuda/bit_gemm.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/error.hpp"

namespace tcemu {
namespace {

using Z = std::complex<float>;
using ZD = std::complex<double>;

/// Index of (row r, column c): r's bits at the positions outside `pos`, c's bits at `pos` (ascending).
std::uint64_t index_of(std::uint64_t r, std::uint64_t c, int n, const std::vector<int>& pos) {
  std::uint64_t i = 0;
  int rb = 0;
  for (int p = 0; p < n; ++p) {
    const auto q = std::find(pos.begin(), pos.end(), p);
    const std::uint64_t bit = q != pos.end() ? (c >> (q - pos.begin())) & 1u : (r >> rb++) & 1u;
    i |= bit << p;
  }
  return i;
}

struct Device {
  Z* x = nullptr;
  Z* y = nullptr;
  explicit Device(std::size_t size) {
    if (cudaMalloc(&x, size * sizeof(Z)) != cudaSuccess || cudaMalloc(&y, size * sizeof(Z)) != cudaSuccess)
      throw std::runtime_error("cudaMalloc failed");
  }
  ~Device() {
    cudaFree(x);
    cudaFree(y);
  }
};

std::vector<Z> random_vector(std::size_t size, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<Z> v(size);
  for (auto& z : v) z = Z(u(g), u(g));
  return v;
}

/// Relative Frobenius error of `y` against `ref` over the rows in `rows` (all when empty).
double rel_err(const std::vector<Z>& y, const std::vector<ZD>& ref, int n, const std::vector<int>& pos,
               const std::vector<std::uint64_t>& rows) {
  double d2 = 0, r2 = 0;
  const std::uint64_t cols = std::uint64_t(1) << pos.size();
  auto add_row = [&](std::uint64_t r) {
    for (std::uint64_t c = 0; c < cols; ++c) {
      const std::uint64_t i = index_of(r, c, n, pos);
      d2 += std::norm(ZD(y[i]) - ref[i]);
      r2 += std::norm(ref[i]);
    }
  };
  if (rows.empty())
    for (std::uint64_t r = 0; r < (std::uint64_t(1) << (n - pos.size())); ++r) add_row(r);
  else
    for (auto r : rows) add_row(r);
  return std::sqrt(d2 / r2);
}

class CudaBitGemm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  }
  const Scheme aligned = parse_scheme("fp16x2-aligned", Target::fp32);
};

// Every kernel (d = 4, 5, 6) on low, high and scattered positions; some rows scaled by 2^-20 (the
// per-row scale keeps them at full accuracy); error against FP64 within 4x the host's native FP32
// product, on all rows and on the scaled rows alone; and the same numbers as the dense GPU path
// (state permuted on the host, complex_gemm_device with fp16x2-aligned) on unscaled data, within
// FP32's own error of it (an index or scale mistake would be O(1)).
TEST_F(CudaBitGemm, MatchesFp64AndTheDensePathOnEveryPlacement) {
  const int n = 14;
  const std::uint64_t size = std::uint64_t(1) << n;
  Device dev(size);
  std::mt19937 g(11);
  for (int d = cuda::BitGemm::kMinBits; d <= cuda::BitGemm::kMaxBits; ++d) {
    std::vector<int> scattered(n);
    for (int p = 0; p < n; ++p) scattered[p] = p;
    std::shuffle(scattered.begin(), scattered.end(), g);
    scattered.resize(d);
    std::sort(scattered.begin(), scattered.end());
    std::vector<std::vector<int>> placements{{}, {}, scattered};
    for (int b = 0; b < d; ++b) {
      placements[0].push_back(b);
      placements[1].push_back(n - d + b);
    }
    for (const auto& pos : placements) {
      for (bool scale_rows : {false, true}) {
        SCOPED_TRACE("d = " + std::to_string(d) + ", first position " + std::to_string(pos[0]) + ", last " +
                     std::to_string(pos.back()) + (scale_rows ? ", scaled rows" : ""));
        const std::uint64_t cols = std::uint64_t(1) << d, rows = size >> d;
        std::vector<std::uint64_t> at(size);  // at[r * cols + c] = index of (r, c)
        for (std::uint64_t r = 0; r < rows; ++r)
          for (std::uint64_t c = 0; c < cols; ++c) at[r * cols + c] = index_of(r, c, n, pos);
        std::vector<Z> x = random_vector(size, 100 + d), U = random_vector(cols * cols, 200 + d);
        std::vector<std::uint64_t> scaled;
        if (scale_rows)
          for (std::uint64_t r = 3; r < rows; r += 7) {
            scaled.push_back(r);
            for (std::uint64_t c = 0; c < cols; ++c) x[at[r * cols + c]] *= std::ldexp(1.f, -20);
          }
        std::vector<ZD> ref(size);
        std::vector<Z> native(size);
        for (std::uint64_t r = 0; r < rows; ++r)
          for (std::uint64_t c = 0; c < cols; ++c) {
            ZD acc = 0;
            Z accf = 0;
            for (std::uint64_t j = 0; j < cols; ++j) {
              const Z xv = x[at[r * cols + j]], uv = U[c * cols + j];
              acc += ZD(uv) * ZD(xv);
              accf += uv * xv;
            }
            ref[at[r * cols + c]] = acc;
            native[at[r * cols + c]] = accf;
          }
        cudaMemcpy(dev.x, x.data(), size * sizeof(Z), cudaMemcpyHostToDevice);
        cuda::BitGemm bg;
        const cuda::BitGemmReport rep = bg.apply(dev.x, dev.y, n, pos, U.data(), aligned, nullptr);
        ASSERT_TRUE(rep.applied) << rep.note;
        std::vector<Z> y(size);
        cudaMemcpy(y.data(), dev.y, size * sizeof(Z), cudaMemcpyDeviceToHost);
        const double e = rel_err(y, ref, n, pos, {}), e32 = rel_err(native, ref, n, pos, {});
        EXPECT_LE(e, 4 * e32) << "fp16x2-aligned " << e << " vs native FP32 " << e32;
        if (scale_rows) {
          const double es = rel_err(y, ref, n, pos, scaled), es32 = rel_err(native, ref, n, pos, scaled);
          EXPECT_LE(es, 4 * es32) << "scaled rows: " << es << " vs native FP32 " << es32;
          continue;
        }
        // Dense path: X(r, c) row-major, Y = X U^T through complex_gemm_device.
        std::vector<Z> xd(size), yd(size);
        for (std::uint64_t r = 0; r < rows; ++r)
          for (std::uint64_t c = 0; c < cols; ++c) xd[r * cols + c] = x[at[r * cols + c]];
        Z *dx = nullptr, *du = nullptr, *dy = nullptr;
        ASSERT_EQ(cudaMalloc(&dx, size * sizeof(Z)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dy, size * sizeof(Z)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&du, cols * cols * sizeof(Z)), cudaSuccess);
        cudaMemcpy(dx, xd.data(), size * sizeof(Z), cudaMemcpyHostToDevice);
        cudaMemcpy(du, U.data(), cols * cols * sizeof(Z), cudaMemcpyHostToDevice);
        GemmOptions opt;
        opt.scheme = aligned;
        const auto r = cuda::complex_gemm_device<float>(Op::N, Op::T, Z(1), row_major<const Z>(dx, rows, cols),
                                                        row_major<const Z>(du, cols, cols), Z(0), row_major<Z>(dy, rows, cols),
                                                        opt, nullptr, nullptr);
        EXPECT_FALSE(r.fell_back) << r.note;
        cudaMemcpy(yd.data(), dy, size * sizeof(Z), cudaMemcpyDeviceToHost);
        cudaFree(dx);
        cudaFree(dy);
        cudaFree(du);
        double d2 = 0, r2 = 0;
        for (std::uint64_t rr = 0; rr < rows; ++rr)
          for (std::uint64_t c = 0; c < cols; ++c) {
            d2 += std::norm(ZD(y[at[rr * cols + c]]) - ZD(yd[rr * cols + c]));
            r2 += std::norm(ZD(yd[rr * cols + c]));
          }
        // Both paths are exact in hi x hi; they differ in where the FP32 additions round (promotion
        // every 16 elements here, every 64 in the wgmma kernel), so by about FP32's own error.
        EXPECT_LE(std::sqrt(d2 / r2), 2 * e32) << "bit-indexed vs dense fp16x2-aligned";
      }
    }
  }
}

// The per-row range rules decline the call (y unspecified) with a note naming the rule.
TEST_F(CudaBitGemm, DeclinesRowsThatBreakTheRangeRules) {
  const int n = 12, d = 5;
  const std::uint64_t size = std::uint64_t(1) << n;
  const std::vector<int> pos{1, 3, 4, 8, 10};
  Device dev(size);
  const std::vector<Z> U = random_vector(1u << (2 * d), 7);
  cuda::BitGemm bg;
  auto run = [&](const std::vector<Z>& x, const std::vector<Z>& u) {
    cudaMemcpy(dev.x, x.data(), size * sizeof(Z), cudaMemcpyHostToDevice);
    return bg.apply(dev.x, dev.y, n, pos, u.data(), aligned, nullptr);
  };
  std::vector<Z> x = random_vector(size, 8);
  EXPECT_TRUE(run(x, U).applied);
  auto bad = x;
  bad[index_of(17, 3, n, pos)] = Z(NAN, 0.f);
  auto rep = run(bad, U);
  EXPECT_FALSE(rep.applied);
  EXPECT_TRUE(rep.launched);  // a row of x: found while the kernel ran
  EXPECT_NE(rep.note.find("non-finite"), std::string::npos) << rep.note;
  bad = x;  // one row: one element of 1, the rest 2^-10: spread ~ log2(64 / (1 + 63 * 2^-10)) > 5
  for (std::uint64_t c = 0; c < 32; ++c) bad[index_of(40, c, n, pos)] = Z(c == 0 ? 1.f : 1.f / 1024, c == 0 ? 0.f : 1.f / 1024);
  rep = run(bad, U);
  EXPECT_FALSE(rep.applied);
  EXPECT_NE(rep.note.find("mean of its nonzero"), std::string::npos) << rep.note;
  auto bad_u = U;
  bad_u[5] = Z(INFINITY, 0.f);
  rep = run(x, bad_u);
  EXPECT_FALSE(rep.applied);
  EXPECT_FALSE(rep.launched);  // a line of U: found before the launch, y not written
  EXPECT_NE(rep.note.find("gate matrix"), std::string::npos) << rep.note;
  // A row 2^-80 below the rest keeps full accuracy relative to itself (its own scale; the dense
  // path would fall back to native FP32); one 2^-120 below the others is beyond the row scale.
  auto tiny = x;
  for (std::uint64_t c = 0; c < 32; ++c) tiny[index_of(21, c, n, pos)] *= std::ldexp(1.f, -80);
  rep = run(tiny, U);
  ASSERT_TRUE(rep.applied) << rep.note;
  std::vector<Z> y(size);
  cudaMemcpy(y.data(), dev.y, size * sizeof(Z), cudaMemcpyDeviceToHost);
  double d2 = 0, r2 = 0, d2f = 0;
  for (std::uint64_t c = 0; c < 32; ++c) {
    ZD ref = 0;
    Z native = 0;
    for (std::uint64_t j = 0; j < 32; ++j) {
      ref += ZD(U[c * 32 + j]) * ZD(tiny[index_of(21, j, n, pos)]);
      native += U[c * 32 + j] * tiny[index_of(21, j, n, pos)];
    }
    d2 += std::norm(ZD(y[index_of(21, c, n, pos)]) - ref);
    d2f += std::norm(ZD(native) - ref);
    r2 += std::norm(ref);
  }
  EXPECT_LE(std::sqrt(d2 / r2), 4 * std::sqrt(d2f / r2) + 1e-7) << "row 2^-80 below the others";
  for (std::uint64_t c = 0; c < 32; ++c) tiny[index_of(21, c, n, pos)] *= std::ldexp(1.f, -40);
  rep = run(tiny, U);
  EXPECT_FALSE(rep.applied);
  EXPECT_NE(rep.note.find("per-row scaling"), std::string::npos) << rep.note;
  // A row of zeros is fine (scale 0, output 0), and the next call starts from a clean flag.
  auto zero_row = x;
  for (std::uint64_t c = 0; c < 32; ++c) zero_row[index_of(9, c, n, pos)] = Z(0.f, 0.f);
  EXPECT_TRUE(run(zero_row, U).applied);
}

// In place (y == x, qsim's single-buffer mode): the same bits as into a second vector, for every kernel
// on low, high and scattered positions (a tile that wrote before reading all of itself, or read
// another tile's output, would change them).
TEST_F(CudaBitGemm, InPlaceEqualsOutOfPlaceBitwise) {
  const int n = 15;
  const std::size_t size = std::size_t(1) << n;
  Device dev(size);
  for (int d = cuda::BitGemm::kMinBits; d <= cuda::BitGemm::kMaxBits; ++d) {
    std::vector<std::vector<int>> placements{{}, {}, {}};
    for (int b = 0; b < d; ++b) {
      placements[0].push_back(b);
      placements[1].push_back(n - d + b);
      placements[2].push_back(2 * b + 1);
    }
    for (const auto& pos : placements) {
      SCOPED_TRACE("d = " + std::to_string(d) + ", first position " + std::to_string(pos[0]));
      const std::vector<Z> x = random_vector(size, 300 + d), U = random_vector(std::size_t(1) << (2 * d), 400 + d);
      cuda::BitGemm bg;
      ASSERT_EQ(cudaMemcpy(dev.x, x.data(), size * sizeof(Z), cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_TRUE(bg.apply(dev.x, dev.y, n, pos, U.data(), aligned, nullptr).applied);
      ASSERT_TRUE(bg.apply(dev.x, dev.x, n, pos, U.data(), aligned, nullptr).applied);
      std::vector<Z> out(size), in_place(size);
      ASSERT_EQ(cudaMemcpy(out.data(), dev.y, size * sizeof(Z), cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(in_place.data(), dev.x, size * sizeof(Z), cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_NE(in_place, x);
      EXPECT_EQ(in_place, out);
    }
  }
}

TEST_F(CudaBitGemm, RejectsBadArguments) {
  const int n = 12;
  Device dev(std::size_t(1) << n);
  const std::vector<Z> U = random_vector(1u << 10, 1);
  cuda::BitGemm bg;
  EXPECT_THROW(bg.apply(dev.x, dev.y, n, {3, 1, 4, 5, 9}, U.data(), aligned, nullptr), InvalidArgument);
  EXPECT_THROW(bg.apply(dev.x, dev.y, n, {1, 3, 4, 5, 12}, U.data(), aligned, nullptr), InvalidArgument);
  EXPECT_THROW(bg.apply(dev.x, dev.x + 1, n, {1, 3, 4, 5, 9}, U.data(), aligned, nullptr), InvalidArgument);  // overlap, not equal
  EXPECT_THROW(bg.apply(dev.x, dev.y, n, {1, 3, 4}, U.data(), aligned, nullptr), InvalidArgument);
  EXPECT_THROW(bg.apply(dev.x, dev.y, n, {1, 3, 4, 5, 9}, U.data(), parse_scheme("fp16x2", Target::fp32), nullptr),
               InvalidArgument);
  EXPECT_FALSE(cuda::BitGemm::supports(aligned, 6, 10));  // d = 6 tiles are 32 rows: n >= 11
  EXPECT_TRUE(cuda::BitGemm::supports(aligned, 6, 11));
  EXPECT_FALSE(cuda::BitGemm::supports(aligned, 4, 10));  // d = 4: 128 rows
  EXPECT_TRUE(cuda::BitGemm::supports(aligned, 4, 11));
}

}  // namespace
}  // namespace tcemu
#endif
