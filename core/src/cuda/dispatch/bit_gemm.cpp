// Host side of the bit-indexed GEMM (tcemu/cuda/bit_gemm.hpp): argument checks, the index tables,
// U's real embedding and its fp16x2-aligned split (the dense path's code: split::split_aligned with
// U's operand-wide scale and per-line exponents), the launch and the range flag.
#include "tcemu/cuda/bit_gemm.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "cuda/arch/device_query.hpp"
#include "cuda/kernels/bit_gemm_plan.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/error.hpp"
#include "tcemu/float_bits.hpp"
#include "tcemu/matrix.hpp"
#include "tcemu/range_profile.hpp"
#include "tcemu/split.hpp"
#include "tcemu/schemes/aligned.hpp"

namespace tcemu::cuda {

namespace bg = detail::bitgemm;

struct BitGemm::Impl {
  DeviceBuffer<bg::Tables> tables{1};
  DeviceBuffer<std::uint16_t> b_parts{2 * 128 * 128};
  DeviceBuffer<unsigned> flags{2};
  bg::Tables host_tables{};
  std::vector<std::uint16_t> host_b;
  std::vector<float> embedded;  // U's real embedding, lines (columns of op(B)) contiguous
  unsigned host_flags[2] = {0, 0};
};

BitGemm::BitGemm() : impl_(std::make_unique<Impl>()) {}
BitGemm::~BitGemm() = default;

namespace {

/// The tables of bit_gemm_plan.hpp for positions Q (ascending) on n bits, tile rows of 2^row_bits,
/// staging rows of row_stride bytes or (index bit 0 a row bit) row pairs of pair_stride bytes.
/// Returns the staging distance of adjacent columns (Params::stage_col_bytes).
int build_tables(bg::Tables& t, int n, const std::vector<int>& q, int row_bits, int row_stride, int pair_stride) {
  t = bg::Tables{};
  std::vector<int> others;  // positions outside Q, ascending
  for (int p = 0; p < n; ++p)
    if (std::find(q.begin(), q.end(), p) == q.end()) others.push_back(p);
  const std::vector<int> r(others.begin(), others.begin() + row_bits);
  const std::vector<int> rest(others.begin() + row_bits, others.end());
  std::vector<int> tbits(q);
  tbits.insert(tbits.end(), r.begin(), r.end());
  std::sort(tbits.begin(), tbits.end());
  // Contribution of T bit i to the index and to the staging byte offset (row r * stride + column c * 8).
  const bool pairs = q[0] != 0;  // index bit 0 is a row bit: stage rows in interleaved pairs
  const int col_bytes = pairs ? 16 : 8;
  auto row_bytes = [&](int a) -> std::uint32_t {  // staging offset of row bit a
    if (!pairs) return std::uint32_t(row_stride) << a;
    return a == 0 ? 8u : std::uint32_t(pair_stride) << (a - 1);
  };
  std::vector<std::uint32_t> idx(tbits.size()), off(tbits.size());
  for (std::size_t i = 0; i < tbits.size(); ++i) {
    idx[i] = std::uint32_t(1) << tbits[i];
    const auto qi = std::find(q.begin(), q.end(), tbits[i]);
    if (qi != q.end())
      off[i] = std::uint32_t(col_bytes) << (qi - q.begin());
    else
      off[i] = row_bytes(static_cast<int>(std::find(r.begin(), r.end(), tbits[i]) - r.begin()));
  }
  for (int half = 0; half < 2; ++half)
    for (std::uint32_t v = 0; v < 64; ++v)
      for (int b = 0; b < 6; ++b) {
        const std::size_t i = std::size_t(6 * half + b);
        if (((v >> b) & 1u) && i < tbits.size()) {
          t.gather_index[half][v] |= idx[i];
          t.gather_smem[half][v] += off[i];
        }
      }
  for (std::uint32_t v = 0; v < (1u << row_bits); ++v)
    for (int b = 0; b < row_bits; ++b)
      if ((v >> b) & 1u) {
        t.row_off[v] |= std::uint32_t(1) << r[b];
        t.row_stage[v] += row_bytes(b);
      }
  for (std::uint32_t v = 0; v < (1u << q.size()); ++v)
    for (std::size_t b = 0; b < q.size(); ++b)
      if ((v >> b) & 1u) t.col_off[v] |= std::uint32_t(1) << q[b];
  for (int k = 0; k < 4; ++k)
    for (std::uint32_t v = 0; v < 256; ++v)
      for (int b = 0; b < 8; ++b) {
        const std::size_t i = std::size_t(8 * k + b);
        if (((v >> b) & 1u) && i < rest.size()) t.base[k][v] |= std::uint32_t(1) << rest[i];
      }
  return col_bytes;
}

template <int D>
void launch_for(int d, const bg::Params& p, cudaStream_t s) {
  if constexpr (D <= BitGemm::kMaxBits) {
    if (d == D) return bg::launch<D>(p, s);
    return launch_for<D + 1>(d, p, s);
  }
}

}  // namespace

bool BitGemm::supports(const Scheme& scheme, int d, int n) {
  if (!(scheme.is_line_aligned() && scheme.part == PartType::fp16) || d < kMinBits || d > kMaxBits || n > 32 || n < d + bg::row_bits_for(d))
    return false;
  static const int cc = detail::arch::compute_capability();
  return cc >= 80;
}

BitGemmReport BitGemm::apply(const std::complex<float>* x, std::complex<float>* y, int n, const std::vector<int>& positions,
                             const std::complex<float>* U, const Scheme& scheme, CUstream_st* stream) {
  const int d = static_cast<int>(positions.size());
  if (!supports(scheme, d, n))
    throw InvalidArgument("bit-indexed GEMM: no kernel for scheme " + scheme.name + " on " + std::to_string(d) + " of " +
                          std::to_string(n) + " index bits (" + schemes::Fp16x2Aligned::desc.name + ", " + std::to_string(kMinBits) + " to " +
                          std::to_string(kMaxBits) + " bits, n from d + 7, d + 6, d + 5 for d = 4, 5, 6 to 32, compute capability 8.0 "
                          "or newer)");
  const int row_bits = bg::row_bits_for(d);
  for (int i = 0; i < d; ++i)
    if (positions[i] < 0 || positions[i] >= n || (i > 0 && positions[i] <= positions[i - 1]))
      throw InvalidArgument("bit-indexed GEMM: positions must be ascending, distinct and in [0, " + std::to_string(n) + ")");
  if (!x || !y || !U) throw InvalidArgument("bit-indexed GEMM: null pointer argument");
  const std::uint64_t size = std::uint64_t(1) << n;
  // y == x is the in-place case (the header: a tile reads every element it writes before writing it);
  // any other overlap would let one tile read what another has written.
  if (x != y && !(x + size <= y || y + size <= x))
    throw InvalidArgument("bit-indexed GEMM: x and y overlap without being the same vector");
  Impl& im = *impl_;

  // U's real embedding as op(B) (k = 2j + t, n = 2i + s): column 2i = (Re U(i, j), -Im U(i, j))_j,
  // column 2i+1 = (Im U(i, j), Re U(i, j))_j; the dense path's expansion (complex_gemm_device).
  const int cols = 1 << d, kk = 2 * cols;
  im.embedded.assign(std::size_t(kk) * kk, 0.f);
  for (int i = 0; i < cols; ++i)
    for (int j = 0; j < cols; ++j) {
      const std::complex<float> u = U[std::size_t(i) * cols + j];
      float* c0 = &im.embedded[std::size_t(2 * i) * kk];
      float* c1 = &im.embedded[std::size_t(2 * i + 1) * kk];
      c0[2 * j] = u.real();
      c0[2 * j + 1] = -u.imag();
      c1[2 * j] = u.imag();
      c1[2 * j + 1] = u.real();
    }
  const auto opB = col_major<const float>(im.embedded.data(), kk, kk);
  const RangeProfile prof = profile_host<float>(opB, Side::B);
  if (const std::string why = range_violation(scheme, prof); !why.empty()) return {false, false, "gate matrix U: " + why};
  const int b_sigma = split::aligned_scale_exp(prof.max_abs);
  im.host_b.assign(std::size_t(2) * kk * kk, 0);
  for (int line = 0; line < kk; ++line) {
    const float* c = &im.embedded[std::size_t(line) * kk];
    float mx = 0.f;
    for (int k = 0; k < kk; ++k) mx = std::max(mx, std::fabs(c[k]));
    const int e = split::ozaki_line_exponent(mx);
    for (int k = 0; k < kk; ++k) {
      const split::Parts parts = split::split_aligned(c[k], b_sigma, e);
      im.host_b[std::size_t(line) * kk + k] = bits::fp16_bits_rn(parts.p[0]);
      im.host_b[std::size_t(kk + line) * kk + k] = bits::fp16_bits_rn(parts.p[1]);
    }
  }

  const int col_bytes = build_tables(im.host_tables, n, positions, row_bits, 4 * kk + 16, 8 * kk + 16);
  const cudaStream_t s = stream;
  TCEMU_CUDA(cudaMemcpyAsync(im.tables.get(), &im.host_tables, sizeof(bg::Tables), cudaMemcpyHostToDevice, s));
  TCEMU_CUDA(cudaMemcpyAsync(im.b_parts.get(), im.host_b.data(), im.host_b.size() * 2, cudaMemcpyHostToDevice, s));
  TCEMU_CUDA(cudaMemsetAsync(im.flags.get(), 0, 2 * sizeof(unsigned), s));
  bg::Params p;
  p.x = x;
  p.y = y;
  p.tables = im.tables.get();
  p.b_parts = im.b_parts.get();
  p.b_sigma = b_sigma;
  // Rows are scaled on their own, so only 2^-(sigma_row + sigma_U) must stay a normal FP32 (>= 2^-125
  // here, with a margin): tiny rows (rounding noise of exact zeros) keep their split down to ~2^-112.
  p.row_sigma_max = std::min(kMaxRowScaleExp, 125 - std::max(b_sigma, 0));
  p.stage_col_bytes = col_bytes;
  p.tiles = size >> (d + row_bits);
  p.flags = im.flags.get();
  launch_for<kMinBits>(d, p, s);
  TCEMU_CUDA(cudaMemcpyAsync(im.host_flags, im.flags.get(), 2 * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
  TCEMU_CUDA(cudaStreamSynchronize(s));

  const unsigned rule = im.host_flags[0];
  if (rule == 0) return {true, true, ""};
  char buf[256];
  if (rule & bg::kFlagNonFinite)
    std::snprintf(buf, sizeof buf, "a row of the state view has a non-finite value (Inf/NaN); only native arithmetic propagates them");
  else if (rule & bg::kFlagScale)
    std::snprintf(buf, sizeof buf, "a row of the state view has its max |x| outside [2^-%d, 2^75), beyond the per-row scaling of %s",
                  p.row_sigma_max + 2, scheme.name.c_str());
  else {
    float spread = 0.f;
    std::memcpy(&spread, &im.host_flags[1], sizeof spread);
    std::snprintf(buf, sizeof buf,
                  "a row of the state view has its max |x| 2^%.1f times the mean of its nonzero |x| (more than 2^%.0f): the "
                  "row's grid leaves its small elements too few bits",
                  spread, split::kAlignedMaxSpreadBits);
  }
  return {false, true, buf};
}

}  // namespace tcemu::cuda
