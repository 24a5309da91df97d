// Standalone device self-test and timing of the split / profile / Ozaki slicing pass (not part of the
// library: the build globs only *.cu and *.cpp). Built as tcemu-split-selftest (core/tools/
// split_selftest.cu) and run by CTest as GpuSelfTest.SplitPass (label GPU, `--no-timing`; without a
// device it exits 77, CTest's skip code).
// Checks, bit for bit against the host rules (split::split_element, split::ozaki_slices, the
// profile_host statistics), every storage type and split rule on operands of every stride pattern
// (k contiguous, lines contiguous, both strided; aligned and misaligned; sizes off the tile grid;
// zeros, subnormals, overflow, Inf and NaN), then times the pass at 8192 x 8192 against a device copy.
// Also proves, exhaustively on the device, that the hardware FP16 conversions used by device code
// (bits::fp16_bits_rn / fp16_bits_rz / to_fp16_rn / to_fp16_rz) give the bits of the bit-level
// reference (bits::*_bitlevel, the host's code) for all 2^32 FP32 bit patterns (check_fp16_exhaustive;
// one line "SELFTEST fp16 exhaustive ...", a "FAIL fp16 exhaustive ..." line and exit code 1 on any
// mismatch).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/kernels.hpp"
#include "tcemu/split.hpp"

using namespace tcemu;
using namespace tcemu::cuda::detail;

#define CK(x)                                                                               \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(2);                                                                         \
    }                                                                                       \
  } while (0)

namespace {

int g_fail = 0, g_checks = 0;

struct Layout {
  const char* name;
  std::int64_t lines, k, line_stride, k_stride, offset;  // offset: elements before element (0, 0)
};

std::vector<Layout> layouts() {
  std::vector<Layout> v;
  auto add = [&](const char* n, std::int64_t L, std::int64_t K, std::int64_t ls, std::int64_t ks,
                 std::int64_t off) { v.push_back({n, L, K, ls, ks, off}); };
  add("kcontig-vec", 300, 784, 784, 1, 0);
  add("kcontig-odd", 77, 53, 53, 1, 0);
  add("kcontig-pad", 130, 200, 203, 1, 0);
  add("kcontig-misal", 65, 256, 256, 1, 1);
  add("kcontig-small-k", 300, 5, 5, 1, 0);
  add("kcontig-long", 9, 3000, 3000, 1, 0);
  add("lcontig-vec", 200, 300, 1, 200, 0);
  add("lcontig-odd", 37, 129, 1, 37, 0);
  add("lcontig-ld", 130, 70, 1, 136, 0);
  add("lcontig-misal", 192, 100, 1, 192, 1);
  add("lcontig-big", 1000, 784, 1, 1000, 0);
  add("strided-re", 70, 90, 2, 140, 0);   // complex real part, column-major
  add("strided-k2", 50, 66, 132, 2, 0);   // complex real part, row-major
  add("one-line", 1, 777, 777, 1, 0);
  return v;
}

template <class T>
std::vector<T> make_data(std::size_t n, std::mt19937_64& rng, bool specials) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> ex(-20, 20), pick(0, 199);
  std::vector<T> d(n);
  for (auto& x : d) {
    x = static_cast<T>(std::ldexp(u(rng), ex(rng)));
    if (!specials) continue;
    switch (pick(rng)) {
      case 0: x = T(0); break;
      case 1: x = -T(0); break;
      case 2: x = static_cast<T>(1e-40); break;       // FP32 subnormal
      case 3: x = static_cast<T>(3e-6); break;        // FP16 subnormal range
      case 4: x = static_cast<T>(70000.0); break;     // FP16 overflow
      case 5: x = static_cast<T>(-1e30); break;
      case 6: x = std::numeric_limits<T>::infinity(); break;
      case 7: x = std::numeric_limits<T>::quiet_NaN(); break;
      case 8: x = static_cast<T>(std::ldexp(1.0, -1030)); break;  // FP64 subnormal (0 in float)
      case 9: x = static_cast<T>(65519.99); break;
      default: break;
    }
  }
  return d;
}

std::uint64_t enc(Store st, float v) {
  switch (st) {
    case Store::f16: return bits::fp16_bits_rn(v);
    case Store::bf16: return bits::f2u(v) >> 16;
    case Store::f32: return bits::f2u(v);
    default: return 0;
  }
}

bool same_part(Store st, std::uint64_t a, std::uint64_t b) {
  if (a == b) return true;
  // NaN parts: the payload of x - hi for a NaN x differs between x86 and the GPU (as before).
  if (st == Store::f32) return std::isnan(bits::u2f(std::uint32_t(a))) && std::isnan(bits::u2f(std::uint32_t(b)));
  if (st == Store::bf16) return (a & 0x7f80) == 0x7f80 && (a & 0x7f) && (b & 0x7f80) == 0x7f80 && (b & 0x7f);
  if (st == Store::f16) return (a & 0x7c00) == 0x7c00 && (a & 0x3ff) && (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
  return false;
}

void report(bool ok, const std::string& what) {
  ++g_checks;
  if (!ok) {
    ++g_fail;
    std::printf("FAIL %s\n", what.c_str());
  }
}

template <class T>
struct DeviceOperand {
  std::vector<T> h;
  T* d = nullptr;
  const T* origin = nullptr;  // device address of element (0, 0)
  Layout L;
  DeviceOperand(const Layout& lay, std::mt19937_64& rng, bool specials) : L(lay) {
    const std::int64_t span = (L.lines - 1) * L.line_stride + (L.k - 1) * L.k_stride + 1 + L.offset;
    h = make_data<T>(static_cast<std::size_t>(span), rng, specials);
    CK(cudaMalloc(&d, sizeof(T) * span));
    CK(cudaMemcpy(d, h.data(), sizeof(T) * span, cudaMemcpyHostToDevice));
    origin = d + L.offset;
  }
  ~DeviceOperand() { cudaFree(d); }
  T at(std::int64_t l, std::int64_t kk) const { return h[L.offset + l * L.line_stride + kk * L.k_stride]; }
};

template <class T>
void check_profile(const DeviceOperand<T>& op, const ProfileArgs& pa, const std::string& tag) {
  const std::int64_t L = op.L.lines, K = op.L.k;
  ProfileTotals t{};
  CK(cudaMemcpy(&t, pa.totals, sizeof t, cudaMemcpyDeviceToHost));
  std::vector<unsigned long long> lmb(L);
  std::vector<double> lsum(L);
  std::vector<int> lexp(L);
  CK(cudaMemcpy(lmb.data(), pa.line_max_bits, 8 * L, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(lsum.data(), pa.line_sum, 8 * L, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(lexp.data(), pa.line_exp, 4 * L, cudaMemcpyDeviceToHost));
  double gmax = 0, gmin = INFINITY, minline = INFINITY;
  unsigned long long z = 0, sub = 0, nf = 0;
  bool lines_ok = true;
  for (std::int64_t l = 0; l < L; ++l) {
    double mx = 0, sm = 0;
    for (std::int64_t kk = 0; kk < K; ++kk) {
      const double a = std::fabs(static_cast<double>(op.at(l, kk)));
      if (!std::isfinite(a)) ++nf;
      else if (a == 0) ++z;
      else {
        if (a < static_cast<double>(std::numeric_limits<T>::min())) ++sub;
        mx = std::max(mx, a);
        sm += a;
        gmin = std::min(gmin, a);
      }
    }
    gmax = std::max(gmax, mx);
    if (mx > 0) minline = std::min(minline, mx);
    double dmx;
    std::memcpy(&dmx, &lmb[l], 8);
    if (dmx != mx || lexp[l] != split::ozaki_line_exponent(mx) ||
        std::fabs(lsum[l] - sm) > 1e-12 * sm) {
      if (lines_ok) std::printf("  line %lld: max %g/%g sum %.17g/%.17g exp %d\n", (long long)l, dmx, mx, lsum[l], sm, lexp[l]);
      lines_ok = false;
    }
  }
  auto d = [](unsigned long long b) { double x; std::memcpy(&x, &b, 8); return x; };
  report(lines_ok, tag + " profile lines");
  const bool tot = d(t.max_bits) == gmax && d(t.min_nonzero_bits) == gmin && d(t.min_line_max_bits) == minline &&
                   t.zeros == z && t.subnormals == sub && t.nonfinite == nf;
  if (!tot)
    std::printf("  totals: max %g/%g min %g/%g minline %g/%g zeros %llu/%llu sub %llu/%llu nonfinite %llu/%llu\n",
                d(t.max_bits), gmax, d(t.min_nonzero_bits), gmin, d(t.min_line_max_bits), minline, t.zeros, z,
                t.subnormals, sub, t.nonfinite, nf);
  report(tot, tag + " profile totals");
}

struct KindCase {
  SchemeKind kind;
  Store store;
  std::vector<int> seq;
};

template <class T>
void check_split(const DeviceOperand<T>& op, const KindCase& kc, std::int64_t kp, bool profile) {
  const std::int64_t L = op.L.lines, K = op.L.k;
  SplitSpec spec;
  spec.kind = kc.kind;
  spec.store = kc.store;
  spec.nseq = static_cast<int>(kc.seq.size());
  for (int q = 0; q < spec.nseq; ++q) spec.seq[q] = static_cast<signed char>(kc.seq[q]);
  const std::size_t eb = kc.store == Store::f64 ? 8 : (kc.store == Store::f32 ? 4 : (kc.store == Store::none ? 0 : 2));
  const std::size_t bytes = eb * L * spec.nseq * kp;
  void* out = nullptr;
  if (bytes) {
    CK(cudaMalloc(&out, bytes));
    CK(cudaMemset(out, 0xA5, bytes));  // poison: every position must be written
  }
  void* pbuf = nullptr;
  ProfileArgs pa;
  if (profile) {
    CK(cudaMalloc(&pbuf, profile_bytes(L)));
    pa = profile_layout(pbuf, L);
    profile_reset(pa, L, nullptr);
  }
  split_operand<T>(op.origin, L, K, op.L.line_stride, op.L.k_stride, spec, out, kp, pa, nullptr);
  if (profile) profile_finalize(pa, L, K, nullptr);
  CK(cudaDeviceSynchronize());
  const std::string tag = std::string(sizeof(T) == 4 ? "float " : "double ") + op.L.name + " kind " +
                          std::to_string(int(kc.kind)) + " store " + std::to_string(int(kc.store)) +
                          " nseq " + std::to_string(spec.nseq) + " kp " + std::to_string(kp);
  if (bytes) {
    std::vector<unsigned char> got(bytes);
    CK(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
    bool ok = true;
    std::int64_t bad = 0;
    for (std::int64_t l = 0; l < L && bad < 3; ++l)
      for (int q = 0; q < spec.nseq; ++q)
        for (std::int64_t kk = 0; kk < kp; ++kk) {
          const std::size_t idx = static_cast<std::size_t>(l * spec.nseq * kp + q * kp + kk);
          std::uint64_t g = 0, e = 0;
          std::memcpy(&g, got.data() + idx * eb, eb);
          if (kc.store == Store::f64) {
            const double v = kk < K ? static_cast<double>(op.at(l, kk)) : 0.0;
            std::memcpy(&e, &v, 8);
            if (g != e && !(std::isnan(v))) {
              ok = false;
            }
          } else {
            const float x = kk < K ? static_cast<float>(op.at(l, kk)) : 0.f;
            const split::Parts p = split::split_element(kc.kind, x);
            e = enc(kc.store, p.p[kc.seq[q]]);
            if (!same_part(kc.store, g, e)) {
              if (bad < 3)
                std::printf("  %s: line %lld pos %d/%lld x=%.9g got %llx want %llx\n", tag.c_str(), (long long)l, q,
                            (long long)kk, double(x), (unsigned long long)g, (unsigned long long)e);
              ++bad;
              ok = false;
            }
          }
        }
    report(ok, tag + " panel");
    CK(cudaFree(out));
  }
  if (profile) {
    check_profile(op, pa, tag);
    CK(cudaFree(pbuf));
  }
}

template <class T>
void check_ozaki(const DeviceOperand<T>& op, int s, bool reversed, std::int64_t kc) {
  const std::int64_t L = op.L.lines, K = op.L.k;
  const std::int64_t nchunks = (K + kc - 1) / kc;
  const std::int64_t kcp = (kc + 15) / 16 * 16;
  std::vector<int> lexp(L);
  for (std::int64_t l = 0; l < L; ++l) {
    double mx = 0;
    for (std::int64_t kk = 0; kk < K; ++kk) {
      const double a = std::fabs(double(op.at(l, kk)));
      if (std::isfinite(a)) mx = std::max(mx, a);
    }
    lexp[l] = split::ozaki_line_exponent(mx);
  }
  int* dexp = nullptr;
  CK(cudaMalloc(&dexp, 4 * L));
  CK(cudaMemcpy(dexp, lexp.data(), 4 * L, cudaMemcpyHostToDevice));
  const std::size_t bytes = static_cast<std::size_t>(L * nchunks * s * kcp);
  std::int8_t* out = nullptr;
  CK(cudaMalloc(&out, bytes));
  CK(cudaMemset(out, 0x5A, bytes));
  ozaki_slice_operand<T>(op.origin, L, K, op.L.line_stride, op.L.k_stride, dexp, s, reversed, kc, kcp, nchunks,
                         out, nullptr);
  CK(cudaDeviceSynchronize());
  std::vector<std::int8_t> got(bytes), want(bytes, 0);
  CK(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
  for (std::int64_t l = 0; l < L; ++l)
    for (std::int64_t c = 0; c < nchunks; ++c)
      for (std::int64_t i = 0; i < kcp; ++i) {
        const std::int64_t kk = c * kc + i;
        const double x = (i < kc && kk < K) ? double(op.at(l, kk)) : 0.0;
        const std::int64_t base = l * nchunks * s * kcp + c * s * kcp + i;
        if (!std::isfinite(x)) {  // no slices for Inf/NaN (the range check keeps them out; the
          for (int q = 0; q < s; ++q) want[base + q * kcp] = got[base + q * kcp];  // casts differ)
          continue;
        }
        std::int8_t* dst = want.data() + base;
        if (reversed) split::ozaki_slices(x, lexp[l], 7, s, dst + (s - 1) * kcp, -kcp);
        else split::ozaki_slices(x, lexp[l], 7, s, dst, kcp);
      }
  report(got == want, std::string(sizeof(T) == 4 ? "float " : "double ") + op.L.name + " ozaki s=" +
                          std::to_string(s) + (reversed ? " reversed" : "") + " kc=" + std::to_string(kc));
  CK(cudaFree(out));
  CK(cudaFree(dexp));
}

/// True when the element-wise split pass writes the parts of `d` (a stored part type, parts known in
/// advance, no line exponents from a profile first): the native copies, the one-pass schemes and the
/// split-part families.
bool element_split(const schemes::SchemeDescriptor& d) {
  return store_for(d.part) != Store::none && d.parts > 0 &&
         (d.family == ImplFamily::native || d.family == ImplFamily::one_pass || d.family == ImplFamily::parts);
}

/// The split specs checked, from the registry (no scheme named here): for every scheme the split pass
/// writes, its parts in natural and in reverse order, and the a- and b-side orders of its product
/// table (the multi-pass panels repeat parts that way, e.g. four products of two parts); then the
/// profile-only pass. The first case with more than one part comes first (the unprofiled re-split).
std::vector<KindCase> split_cases() {
  std::vector<KindCase> out;
  auto add = [&](SchemeKind kind, Store st, const std::vector<int>& seq) {
    for (const KindCase& c : out)
      if (c.kind == kind && c.seq == seq) return;
    if (seq.size() <= 16) out.push_back({kind, st, seq});
  };
  for (int i = 0; i < kSchemeCount; ++i) {
    const schemes::SchemeDescriptor& d = schemes::kDescriptors.d[i];
    if (!element_split(d)) continue;
    const SchemeKind kind = schemes::kAllKinds.k[i];
    const Store st = store_for(d.part);
    std::vector<int> natural, a_side, b_side;
    for (int q = 0; q < d.parts; ++q) natural.push_back(q);
    for (int q = 0; q < d.table.nproducts; ++q) {
      a_side.push_back(d.table.p[q].a);
      b_side.push_back(d.table.p[q].b);
    }
    add(kind, st, natural);
    add(kind, st, std::vector<int>(natural.rbegin(), natural.rend()));
    if (d.table.nproducts > 1) {
      add(kind, st, a_side);
      add(kind, st, b_side);
    }
  }
  std::stable_partition(out.begin(), out.end(), [](const KindCase& c) { return c.seq.size() > 1; });
  out.push_back({schemes::native_kind(PartType::fp32), Store::none, {}});
  return out;
}

template <class T>
void check_all(std::mt19937_64& rng) {
  const std::vector<KindCase> kinds = split_cases();
  for (const Layout& lay : layouts()) {
    for (bool specials : {false, true}) {
      DeviceOperand<T> op(lay, rng, specials);
      for (const KindCase& kc : kinds) {
        const std::int64_t kp = (lay.k + 15) / 16 * 16;
        check_split(op, kc, kc.store == Store::none ? lay.k : kp, true);
      }
      // Unprofiled (resolved-scheme re-split) and the packed native path (kp a multiple of 4 only).
      check_split(op, kinds[0], (lay.k + 15) / 16 * 16, false);
      check_split(op, {schemes::native_kind(PartType::fp32), Store::f32, {0}}, (lay.k + 3) / 4 * 4, false);
      for (bool rev : {false, true}) {
        check_ozaki(op, 8, rev, lay.k);
        if (lay.k > 8) check_ozaki(op, 3, rev, (lay.k + 2) / 3);  // several k chunks (possibly unaligned)
      }
    }
  }
}

// ---- Exhaustive check of the device FP16 conversions against the bit-level reference ----

/// The four FP16 conversions of float_bits.hpp whose device code is the hardware conversion.
constexpr int kFp16Fns = 4;
constexpr const char* kFp16FnNames[kFp16Fns] = {"fp16_bits_rn", "fp16_bits_rz", "to_fp16_rn", "to_fp16_rz"};
constexpr unsigned kFp16Block = 256;
constexpr unsigned kFp16Grid = 4096;  // 2^20 threads, 2^12 patterns each: every lane runs every iteration
static_assert(std::uint64_t{kFp16Block} * kFp16Grid * 4096 == (std::uint64_t{1} << 32), "covers 2^32");

/// Device result (fast path, as device code uses it) and bit-level reference of conversion `fn` for
/// the FP32 bit pattern u, both as raw bits (16 for the encoders, 32 for the to_fp16_* values).
__device__ __forceinline__ void fp16_pair(int fn, std::uint32_t u, std::uint32_t& fast, std::uint32_t& ref) {
  const float x = bits::u2f(u);
  switch (fn) {
    case 0: fast = bits::fp16_bits_rn(x); ref = bits::fp16_bits_rn_bitlevel(x); break;
    case 1: fast = bits::fp16_bits_rz(x); ref = bits::fp16_bits_rz_bitlevel(x); break;
    case 2: fast = bits::f2u(bits::to_fp16_rn(x)); ref = bits::f2u(bits::to_fp16_rn_bitlevel(x)); break;
    default: fast = bits::f2u(bits::to_fp16_rz(x)); ref = bits::f2u(bits::to_fp16_rz_bitlevel(x)); break;
  }
}

/// Pattern u = thread + i * 2^20 (consecutive patterns per warp, so the reference's branches are
/// warp-uniform); mismatches are aggregated per warp (ballot, min-reduce) and added atomically:
/// count[fn] += mismatches, first[fn] = min(first[fn], smallest mismatching pattern).
__global__ void __launch_bounds__(kFp16Block) fp16_exhaustive_kernel(unsigned long long* count, unsigned* first) {
  const std::uint32_t t = blockIdx.x * kFp16Block + threadIdx.x;
  const unsigned lane = threadIdx.x & 31u;
  for (std::uint32_t i = 0; i < 4096u; ++i) {
    const std::uint32_t u = t + (i << 20);
    unsigned bad = 0;
#pragma unroll
    for (int fn = 0; fn < kFp16Fns; ++fn) {
      std::uint32_t fast, ref;
      fp16_pair(fn, u, fast, ref);
      bad |= unsigned(fast != ref) << fn;
    }
    if (__ballot_sync(0xffffffffu, bad != 0) == 0) continue;  // the common case: one vote
#pragma unroll
    for (int fn = 0; fn < kFp16Fns; ++fn) {
      const bool b = (bad >> fn) & 1u;
      const unsigned m = __ballot_sync(0xffffffffu, b);
      if (m == 0) continue;
      const unsigned lo = __reduce_min_sync(0xffffffffu, b ? u : 0xffffffffu);
      if (lane == 0) {
        atomicAdd(count + fn, static_cast<unsigned long long>(__popc(m)));
        atomicMin(first + fn, lo);
      }
    }
  }
}

/// Fast and reference bits of every conversion for one pattern (to report a mismatch).
__global__ void fp16_pair_kernel(std::uint32_t u, std::uint32_t* out) {
  for (int fn = 0; fn < kFp16Fns; ++fn) fp16_pair(fn, u, out[2 * fn], out[2 * fn + 1]);
}

/// Runs fp16_exhaustive_kernel over all 2^32 FP32 bit patterns (NaN included: the device code keeps
/// the bit-level NaN) and reports one check per conversion; prints one summary line.
void check_fp16_exhaustive() {
  unsigned long long* dcount = nullptr;
  unsigned* dfirst = nullptr;
  std::uint32_t* dpair = nullptr;
  CK(cudaMalloc(&dcount, sizeof(unsigned long long) * kFp16Fns));
  CK(cudaMalloc(&dfirst, sizeof(unsigned) * kFp16Fns));
  CK(cudaMalloc(&dpair, sizeof(std::uint32_t) * 2 * kFp16Fns));
  CK(cudaMemset(dcount, 0, sizeof(unsigned long long) * kFp16Fns));
  CK(cudaMemset(dfirst, 0xff, sizeof(unsigned) * kFp16Fns));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  fp16_exhaustive_kernel<<<kFp16Grid, kFp16Block>>>(dcount, dfirst);
  CK(cudaGetLastError());
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  unsigned long long count[kFp16Fns];
  unsigned first[kFp16Fns];
  CK(cudaMemcpy(count, dcount, sizeof count, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(first, dfirst, sizeof first, cudaMemcpyDeviceToHost));
  std::string summary;
  for (int fn = 0; fn < kFp16Fns; ++fn) {
    summary += std::string(fn ? ", " : "") + kFp16FnNames[fn] + " " + std::to_string(count[fn]);
    std::string what = std::string("fp16 exhaustive ") + kFp16FnNames[fn];
    if (count[fn] != 0) {
      std::uint32_t pr[2 * kFp16Fns];
      fp16_pair_kernel<<<1, 1>>>(first[fn], dpair);
      CK(cudaGetLastError());
      CK(cudaMemcpy(pr, dpair, sizeof pr, cudaMemcpyDeviceToHost));
      char buf[256];
      std::snprintf(buf, sizeof buf, ": %llu mismatches of 2^32, first x = 0x%08x (%.9g): device 0x%x, bit-level 0x%x",
                    count[fn], first[fn], double(bits::u2f(first[fn])), pr[2 * fn], pr[2 * fn + 1]);
      what += buf;
    }
    report(count[fn] == 0, what);
  }
  std::printf("SELFTEST fp16 exhaustive (all 2^32 FP32 patterns, device fast path vs bit-level): %s mismatches, %.1f ms\n",
              summary.c_str(), ms);
  CK(cudaFree(dcount));
  CK(cudaFree(dfirst));
  CK(cudaFree(dpair));
}

template <class T>
double time_ms(int reps, T&& f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void timings() {
  const std::int64_t n = 8192;
  float* a = nullptr;
  double* ad = nullptr;
  void* out = nullptr;
  void* pbuf = nullptr;
  CK(cudaMalloc(&a, 4 * n * n));
  CK(cudaMalloc(&ad, 8 * n * n));
  CK(cudaMalloc(&out, 8 * n * n + 64));  // tf32x2: 2 parts of 4 bytes
  CK(cudaMalloc(&pbuf, profile_bytes(n)));
  {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> h(n * n);
    for (auto& x : h) x = u(rng);
    CK(cudaMemcpy(a, h.data(), 4 * n * n, cudaMemcpyHostToDevice));
    std::vector<double> hd(h.begin(), h.end());
    CK(cudaMemcpy(ad, hd.data(), 8 * n * n, cudaMemcpyHostToDevice));
  }
  const ProfileArgs pa = profile_layout(pbuf, n);
  const double copy = time_ms(10, [&] { CK(cudaMemcpyAsync(out, a, 4 * n * n, cudaMemcpyDeviceToDevice)); });
  std::printf("TIMING copy 256 MB: %.3f ms = %.2f TB/s (read + write)\n", copy, 2 * 4.0 * n * n / copy / 1e9);
  struct K {
    const char* name;
    SchemeKind kind;
    Store st;
    int nseq, bytes;
  };
  // The split-part schemes `auto` is calibrated on (their descriptors say so), then the profile-only pass.
  std::vector<K> ks;
  for (int i = 0; i < kSchemeCount; ++i) {
    const schemes::SchemeDescriptor& d = schemes::kDescriptors.d[i];
    if (d.family != ImplFamily::parts || !element_split(d) || d.calibrate_fp32[0] != 0) continue;
    const Store st = store_for(d.part);
    ks.push_back({d.name, schemes::kAllKinds.k[i], st, d.parts, st == Store::f32 ? 4 : 2});
  }
  ks.push_back({"profile-only", schemes::native_kind(PartType::fp32), Store::none, 0, 0});
  for (const K& k : ks) {
    SplitSpec spec;
    spec.kind = k.kind;
    spec.store = k.st;
    spec.nseq = k.nseq;
    for (int q = 0; q < k.nseq; ++q) spec.seq[q] = static_cast<signed char>(q);
    for (int lc = 0; lc < 2; ++lc) {  // lc = 1: lines contiguous (column-major A), else k contiguous (B)
      const double ms = time_ms(10, [&] {
        profile_reset(pa, n, nullptr);
        split_operand<float>(a, n, n, lc ? 1 : n, lc ? n : 1, spec, out, n, pa, nullptr);
      });
      const double gb = (4.0 + k.nseq * k.bytes) * n * n / 1e9;
      std::printf("TIMING split %-12s %s 8192^2 float: %.3f ms, %.2f GB -> %.2f TB/s (%.0f%% of copy)\n", k.name,
                  lc ? "lines-contig" : "k-contig    ", ms, gb, gb / ms, 100 * (gb / ms) / (2 * 4.0 * n * n / copy / 1e9));
    }
  }
  for (int lc = 0; lc < 2; ++lc) {
    int* dexp = pa.line_exp;
    const double ms = time_ms(5, [&] {
      ozaki_slice_operand<double>(ad, n, n, lc ? 1 : n, lc ? n : 1, dexp, 8, false, n, n, 1,
                                  static_cast<std::int8_t*>(out), nullptr);
    });
    const double gb = (8.0 + 8) * n * n / 1e9;
    std::printf("TIMING ozaki s=8 %s 8192^2 double: %.3f ms, %.2f GB -> %.2f TB/s\n", lc ? "lines-contig" : "k-contig    ",
                ms, gb, gb / ms);
  }
  CK(cudaFree(a));
  CK(cudaFree(ad));
  CK(cudaFree(out));
  CK(cudaFree(pbuf));
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SELFTEST SKIPPED: no CUDA device\n");
    return 77;  // CTest SKIP_RETURN_CODE
  }
  check_fp16_exhaustive();
  std::mt19937_64 rng(12345);
  check_all<float>(rng);
  check_all<double>(rng);
  std::printf("SELFTEST %s: %d checks, %d failed\n", g_fail ? "FAILED" : "PASSED", g_checks, g_fail);
  if (argc < 2 || std::strcmp(argv[1], "--no-timing") != 0) timings();
  return g_fail ? 1 : 0;
}
