// tcemu-crt-s8-selftest: the device self-test and timing probe of int8-crt's INT8 wgmma products
// (core/src/cuda/kernels/crt_wgmma_s8.hpp).
//   tcemu-crt-s8-selftest [--no-timing] [--repeat R]
// Checks, for both block-tile widths and both epilogues (INT32 products; their int8 symmetric
// residues mod p_l), the kernel bit for bit against a host INT64 reference (random int8 and the extremes -128 / 127, odd m, n and k, several moduli and k chunks,
// garbage in the padding that must not be read, a poisoned C whose untouched entries must stay) and
// against cuBLAS's INT8 GEMM at k = 2^16, at many short tiles per block (2^16 x 512 x 512, 15 moduli,
// the residue epilogue too) and at the timed shapes, k up to the INT32-exact limit
// (analytic reference), and that bad layouts are rejected with a message. Then (without
// --no-timing) times cublasGemmEx / cublasGemmStridedBatchedEx INT8 against the kernel (both tiles,
// and the 128 x 256 one with the residue epilogue), interleaved,
// median of R runs (default 15), at 8192^3, at m = n = 4096, k = 8192, and for 15 moduli at 8192^3
// (crt_path.cpp's strided batch), and prints TOPS. Exit 77 (CTest's skip) without a compute 9.0
// device or without the sm_90a kernel; 1 when a check fails.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/kernels/crt_wgmma_s8.hpp"
#include "tcemu/crt.hpp"
#include "tcemu/error.hpp"

namespace {

namespace s8 = tcemu::cuda::detail::crt_s8;

int g_checks = 0, g_fail = 0;

#define CK(call)                                                                                     \
  do {                                                                                               \
    cudaError_t e_ = (call);                                                                         \
    if (e_ != cudaSuccess) {                                                                         \
      std::printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #call); \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)
#define CB(call)                                                                   \
  do {                                                                             \
    cublasStatus_t s_ = (call);                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                             \
      std::printf("cuBLAS error %d at %s:%d: %s\n", int(s_), __FILE__, __LINE__, #call); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

void expect(bool ok, const std::string& what) {
  ++g_checks;
  if (!ok) {
    ++g_fail;
    std::printf("FAIL: %s\n", what.c_str());
  }
}

const s8::TileN kTiles[2] = {s8::TileN::n256, s8::TileN::n128};

/// The symmetric residue of v mod p in [-floor(p/2), p - 1 - floor(p/2)] (host reference).
__host__ __device__ int sym_mod(long long v, int p) {
  const int half = p / 2;
  long long t = (v + half) % p;
  if (t < 0) t += p;
  return static_cast<int>(t) - half;
}

/// Modulus l of a test batch: the int8-crt table's moduli (tcemu/crt.hpp), from p_0 = 256.
int modulus(int l) { return tcemu::crt::kModuli[l % tcemu::crt::kMaxModuli]; }
const char* tile_name(s8::TileN t) { return t == s8::TileN::n256 ? "128x256" : "128x128"; }

enum class Fill { random, extremes, all_min, all_max };

/// A batch of products laid out as crt_path.cpp's residue panels, with `pad` extra bytes per line
/// and chunk stride > k filled with garbage that the kernel must not read.
struct Case {
  std::string name;
  std::int64_t m, n, k;
  int moduli = 1, chunks = 1;
  std::int64_t chunk_stride = 0, x_ld = 0, y_ld = 0, ldc = 0;
  Fill fx = Fill::random, fy = Fill::random;
};

std::int8_t value(Fill f, std::mt19937_64& rng) {
  switch (f) {
    case Fill::random: return static_cast<std::int8_t>(static_cast<int>(rng() % 256) - 128);
    case Fill::extremes: return rng() & 1 ? std::int8_t(127) : std::int8_t(-128);
    case Fill::all_min: return std::int8_t(-128);
    case Fill::all_max: return std::int8_t(127);
  }
  return 0;
}

/// Runs one case on both tile widths against the host INT64 reference (or, with `analytic`, the
/// closed form for constant operands), entries of C outside m x n per product must keep the poison.
void check_case(const Case& c, std::mt19937_64& rng, bool host_reference) {
  const std::int64_t cs = c.chunk_stride ? c.chunk_stride : (c.k + 15) / 16 * 16;
  const std::int64_t x_ld = c.x_ld ? c.x_ld : c.chunks * cs, y_ld = c.y_ld ? c.y_ld : c.chunks * cs;
  const std::int64_t ldc = c.ldc ? c.ldc : c.m;
  const std::int64_t xms = x_ld * c.m, yms = y_ld * c.n, cchunk = ldc * c.n, cmod = cchunk * c.chunks;
  std::vector<std::int8_t> hx(static_cast<std::size_t>(xms * c.moduli)), hy(static_cast<std::size_t>(yms * c.moduli));
  // Everything random first (the padding included), then the k positions of each chunk by the fill.
  for (auto& v : hx) v = value(Fill::random, rng);
  for (auto& v : hy) v = value(Fill::random, rng);
  for (int l = 0; l < c.moduli; ++l)
    for (int ch = 0; ch < c.chunks; ++ch) {
      for (std::int64_t i = 0; i < c.m; ++i)
        for (std::int64_t kk = 0; kk < c.k; ++kk) hx[l * xms + i * x_ld + ch * cs + kk] = value(c.fx, rng);
      for (std::int64_t j = 0; j < c.n; ++j)
        for (std::int64_t kk = 0; kk < c.k; ++kk) hy[l * yms + j * y_ld + ch * cs + kk] = value(c.fy, rng);
    }
  const std::size_t cn = static_cast<std::size_t>(cmod * c.moduli);
  std::vector<std::int32_t> want(cn, 0x5A5A5A5A);
  for (int l = 0; l < c.moduli; ++l)
    for (int ch = 0; ch < c.chunks; ++ch)
      for (std::int64_t j = 0; j < c.n; ++j)
        for (std::int64_t i = 0; i < c.m; ++i) {
          std::int64_t s = 0;
          if (host_reference) {
            const std::int8_t* a = &hx[l * xms + i * x_ld + ch * cs];
            const std::int8_t* b = &hy[l * yms + j * y_ld + ch * cs];
            for (std::int64_t kk = 0; kk < c.k; ++kk) s += std::int64_t(a[kk]) * b[kk];
          } else {  // constant operands
            s = c.k * std::int64_t(hx[l * xms + i * x_ld + ch * cs]) * hy[l * yms + j * y_ld + ch * cs];
          }
          if (s > INT32_MAX || s < INT32_MIN) {
            std::printf("case %s: reference sum %lld outside INT32\n", c.name.c_str(), (long long)s);
            std::exit(1);
          }
          want[l * cmod + ch * cchunk + j * ldc + i] = static_cast<std::int32_t>(s);
        }
  std::int8_t *dx = nullptr, *dy = nullptr;
  std::int32_t* dc = nullptr;
  CK(cudaMalloc(&dx, hx.size()));
  CK(cudaMalloc(&dy, hy.size()));
  CK(cudaMalloc(&dc, cn * sizeof(std::int32_t)));
  CK(cudaMemcpy(dx, hx.data(), hx.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dy, hy.data(), hy.size(), cudaMemcpyHostToDevice));
  s8::Products p;
  p.x = dx;
  p.y = dy;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.x_ld = x_ld;
  p.y_ld = y_ld;
  p.x_mod_stride = xms;
  p.y_mod_stride = yms;
  p.moduli = c.moduli;
  p.chunks = c.chunks;
  p.chunk_stride = cs;
  p.c = dc;
  p.ldc = ldc;
  p.c_chunk_stride = cchunk;
  p.c_mod_stride = cmod;
  std::vector<std::int32_t> got(cn);
  for (s8::TileN t : kTiles) {
    CK(cudaMemset(dc, 0x5A, cn * sizeof(std::int32_t)));  // poison: 0x5A5A5A5A
    s8::run(p, nullptr, t);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), dc, cn * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
    std::size_t bad = 0, first = 0;
    for (std::size_t e = 0; e < cn; ++e)
      if (got[e] != want[e] && bad++ == 0) first = e;
    expect(bad == 0, "case " + c.name + " tile " + tile_name(t) + ": " + std::to_string(bad) +
                         " entries differ, first at " + std::to_string(first) + " (got " +
                         std::to_string(bad ? got[first] : 0) + ", want " + std::to_string(bad ? want[first] : 0) + ")");
  }
  // The fused reduction: the same products as int8 symmetric residues mod p_l, in the residue
  // layout (residue_offset; each tile width its own); the padding entries of partial tiles hold 0.
  const std::int64_t rpanel = s8::residue_panel_bytes(c.m, c.n), rchunk = rpanel, rmod = rchunk * c.chunks;
  const std::size_t rn = static_cast<std::size_t>(rmod * c.moduli);
  std::vector<std::int8_t> want_r(rn), got_r(rn);
  std::int8_t* dr = nullptr;
  CK(cudaMalloc(&dr, rn));
  s8::Products pr = p;
  pr.c = nullptr;
  pr.residues = dr;
  pr.c_chunk_stride = rchunk;
  pr.c_mod_stride = rmod;
  for (int l = 0; l < c.moduli; ++l) pr.p[l] = modulus(l);
  for (s8::TileN t : kTiles) {
    const std::int64_t used = s8::residue_panel_bytes(c.m, c.n, t);  // this width's panel
    std::fill(want_r.begin(), want_r.end(), std::int8_t(0x5A));
    for (int l = 0; l < c.moduli; ++l)
      for (int ch = 0; ch < c.chunks; ++ch) {
        std::int8_t* w = want_r.data() + l * rmod + ch * rchunk;
        std::fill(w, w + used, std::int8_t(0));
        for (std::int64_t j = 0; j < c.n; ++j)
          for (std::int64_t i = 0; i < c.m; ++i)
            w[s8::residue_offset(i, j, c.m, c.n, t)] =
                static_cast<std::int8_t>(sym_mod(want[l * cmod + ch * cchunk + j * ldc + i], modulus(l)));
      }
    CK(cudaMemset(dr, 0x5A, rn));
    s8::run(pr, nullptr, t);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got_r.data(), dr, rn, cudaMemcpyDeviceToHost));
    std::size_t bad = 0, first = 0;
    for (std::size_t e = 0; e < rn; ++e)
      if (got_r[e] != want_r[e] && bad++ == 0) first = e;
    expect(bad == 0, "case " + c.name + " residues tile " + tile_name(t) + ": " + std::to_string(bad) +
                         " entries differ, first at " + std::to_string(first) + " (got " +
                         std::to_string(bad ? int(got_r[first]) : 0) + ", want " +
                         std::to_string(bad ? int(want_r[first]) : 0) + ")");
  }
  CK(cudaFree(dr));
  CK(cudaFree(dx));
  CK(cudaFree(dy));
  CK(cudaFree(dc));
}

/// Fills n bytes with int8 values from a hash (device side: the timed operands are large).
__global__ void fill_kernel(std::int8_t* p, std::size_t n, unsigned seed, int extremes) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 0x9E3779B1u ^ seed ^ static_cast<unsigned>(i >> 32) * 0x85EBCA77u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    p[i] = extremes ? (h & 1 ? std::int8_t(127) : std::int8_t(-128)) : static_cast<std::int8_t>(h >> 24);
  }
}

/// Entries where r (residues in the residue layout, panel bytes per modulus) differs from C's residue
/// mod p_l (C column-major m x n per modulus).
__global__ void count_residue_diff(const std::int8_t* r, const std::int32_t* c, std::int64_t m, std::int64_t n,
                                   std::int64_t panel, int moduli, const int* p, unsigned long long* out) {
  unsigned long long cnt = 0;
  const std::size_t per_mod = static_cast<std::size_t>(m * n), total = per_mod * moduli;
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < total; e += std::size_t(gridDim.x) * blockDim.x) {
    const std::int64_t l = static_cast<std::int64_t>(e / per_mod), ij = static_cast<std::int64_t>(e % per_mod);
    const std::int64_t j = ij / m, i = ij % m;
    cnt += r[l * panel + s8::residue_offset(i, j, m, n)] != sym_mod(c[e], p[l]);
  }
  if (cnt) atomicAdd(out, cnt);
}

__global__ void count_diff(const std::int32_t* a, const std::int32_t* b, std::size_t n, unsigned long long* out) {
  unsigned long long c = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    c += a[i] != b[i];
  if (c) atomicAdd(out, c);
}

/// One batched shape on the device: `moduli` products of m x n x k (single chunk), operands as the
/// residue pass writes them (line stride k), C column-major (ldc = m) per modulus.
struct Device {
  std::int64_t m, n, k;
  int moduli;
  std::int8_t *x = nullptr, *y = nullptr;
  std::int32_t *c_ref = nullptr, *c = nullptr;
  std::int8_t* r = nullptr;
  int* dp = nullptr;
  unsigned long long* diff = nullptr;
  Device(std::int64_t m_, std::int64_t n_, std::int64_t k_, int moduli_, bool extremes, unsigned seed)
      : m(m_), n(n_), k(k_), moduli(moduli_) {
    CK(cudaMalloc(&x, static_cast<std::size_t>(m * k * moduli)));
    CK(cudaMalloc(&y, static_cast<std::size_t>(n * k * moduli)));
    CK(cudaMalloc(&c_ref, cbytes()));
    CK(cudaMalloc(&c, cbytes()));
    CK(cudaMalloc(&diff, sizeof(unsigned long long)));
    CK(cudaMalloc(&r, static_cast<std::size_t>(s8::residue_panel_bytes(m, n) * moduli)));
    CK(cudaMalloc(&dp, sizeof(int) * s8::kMaxProducts));
    int hp[s8::kMaxProducts];
    for (int l = 0; l < s8::kMaxProducts; ++l) hp[l] = modulus(l);
    CK(cudaMemcpy(dp, hp, sizeof hp, cudaMemcpyHostToDevice));
    fill_kernel<<<1024, 256>>>(x, static_cast<std::size_t>(m * k * moduli), seed, extremes);
    fill_kernel<<<1024, 256>>>(y, static_cast<std::size_t>(n * k * moduli), seed * 7 + 1, extremes);
    CK(cudaGetLastError());
  }
  ~Device() {
    cudaFree(x);
    cudaFree(y);
    cudaFree(c_ref);
    cudaFree(c);
    cudaFree(diff);
    cudaFree(r);
    cudaFree(dp);
  }
  std::size_t cbytes() const { return static_cast<std::size_t>(m * n * moduli) * sizeof(std::int32_t); }
  s8::Products products() const {
    s8::Products p;
    p.x = x;
    p.y = y;
    p.m = m;
    p.n = n;
    p.k = k;
    p.x_ld = p.y_ld = k;
    p.x_mod_stride = m * k;
    p.y_mod_stride = n * k;
    p.moduli = moduli;
    p.c = c;
    p.ldc = m;
    p.c_mod_stride = m * n;
    return p;
  }
  /// The same products with the fused reduction: int8 residues mod p_l into r.
  s8::Products residue_products() const {
    s8::Products p = products();
    p.c = nullptr;
    p.residues = r;
    p.c_mod_stride = s8::residue_panel_bytes(m, n);
    for (int l = 0; l < moduli; ++l) p.p[l] = modulus(l);
    return p;
  }
  /// Entries where the kernel's residues differ from cuBLAS's C mod p_l.
  unsigned long long compare_residues() const {
    CK(cudaMemset(diff, 0, sizeof(unsigned long long)));
    count_residue_diff<<<1024, 256>>>(r, c_ref, m, n, s8::residue_panel_bytes(m, n), moduli, dp, diff);
    CK(cudaGetLastError());
    unsigned long long h = 0;
    CK(cudaMemcpy(&h, diff, sizeof h, cudaMemcpyDeviceToHost));
    return h;
  }
  void cublas(cublasHandle_t h, std::int32_t* out) const {
    const std::int32_t one = 1, zero = 0;
    if (moduli == 1)
      CB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, int(m), int(n), int(k), &one, x, CUDA_R_8I, int(k), y, CUDA_R_8I,
                      int(k), &zero, out, CUDA_R_32I, int(m), CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
    else
      CB(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, int(m), int(n), int(k), &one, x, CUDA_R_8I, int(k),
                                    m * k, y, CUDA_R_8I, int(k), n * k, &zero, out, CUDA_R_32I, int(m), m * n, moduli,
                                    CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
  }
  /// Entries where the kernel's C differs from cuBLAS's.
  unsigned long long compare() const {
    CK(cudaMemset(diff, 0, sizeof(unsigned long long)));
    count_diff<<<1024, 256>>>(c, c_ref, cbytes() / 4, diff);
    CK(cudaGetLastError());
    unsigned long long h = 0;
    CK(cudaMemcpy(&h, diff, sizeof h, cudaMemcpyDeviceToHost));
    return h;
  }
};

/// The kernel against cuBLAS bit for bit on device-filled operands of one shape and both tiles; with
/// `residues`, also the residue epilogue (128 x 256 tiles) against cuBLAS's C mod p_l.
void check_against_cublas(cublasHandle_t h, std::int64_t m, std::int64_t n, std::int64_t k, int moduli, bool extremes,
                          bool residues = false) {
  Device d(m, n, k, moduli, extremes, 1234u + unsigned(m + n + k));
  d.cublas(h, d.c_ref);
  for (s8::TileN t : kTiles) {
    CK(cudaMemset(d.c, 0x5A, d.cbytes()));
    s8::run(d.products(), nullptr, t);
    CK(cudaDeviceSynchronize());
    const unsigned long long bad = d.compare();
    expect(bad == 0, "cuBLAS comparison " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                         " x " + std::to_string(moduli) + (extremes ? " extremes" : " random") + " tile " +
                         tile_name(t) + ": " + std::to_string(bad) + " entries differ");
  }
  if (!residues) return;
  CK(cudaMemset(d.r, 0x5A, static_cast<std::size_t>(s8::residue_panel_bytes(m, n) * moduli)));
  s8::run(d.residue_products(), nullptr, s8::TileN::n256);
  CK(cudaDeviceSynchronize());
  const unsigned long long bad = d.compare_residues();
  expect(bad == 0, "cuBLAS comparison " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                       " x " + std::to_string(moduli) + ", residues: " + std::to_string(bad) +
                       " entries differ from C mod p");
}

void check_rejections() {
  std::int8_t* d = nullptr;
  std::int32_t* c = nullptr;
  CK(cudaMalloc(&d, 1 << 20));
  CK(cudaMalloc(&c, 1 << 20));
  s8::Products p;
  p.x = d;
  p.y = d;
  p.m = p.n = 64;
  p.k = 64;
  p.x_ld = p.y_ld = 64;
  p.c = c;
  p.ldc = 64;
  expect(s8::check(p).empty(), "a valid layout is accepted: " + s8::check(p));
  auto rejected = [&](s8::Products q, const char* what) {
    const std::string why = s8::check(q);
    expect(!why.empty(), std::string("rejected: ") + what);
    bool threw = false;
    try {
      s8::run(q, nullptr);
    } catch (const tcemu::InvalidArgument& e) {
      threw = std::string(e.what()).find(why) != std::string::npos;
    }
    expect(threw, std::string("run throws InvalidArgument with check's message: ") + what);
    if (!why.empty()) std::printf("  rejected (%s): %s\n", what, why.c_str());
  };
  s8::Products q = p;
  q.x_ld = 72;
  rejected(q, "line stride not a multiple of 16");
  q = p;
  q.x = d + 8;
  rejected(q, "X not 16-byte aligned");
  q = p;
  q.k = s8::kMaxK + 1;
  q.x_ld = q.y_ld = (q.k + 15) / 16 * 16;
  rejected(q, "k beyond the INT32-exact limit");
  q = p;
  q.ldc = 63;
  rejected(q, "ldc < m");
  q = p;
  q.moduli = 2;
  q.x_mod_stride = 100;
  q.y_mod_stride = 4096;
  rejected(q, "modulus stride not a multiple of 16");
  CK(cudaFree(d));
  CK(cudaFree(c));
}

float time_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// cuBLAS, the 128 x 256 kernel and the 128 x 128 kernel, interleaved, `repeat` rounds after two
/// warm-up rounds; prints each one's median, min, and TOPS at the median.
void time_shape(cublasHandle_t h, std::int64_t m, std::int64_t n, std::int64_t k, int moduli, int repeat) {
  Device d(m, n, k, moduli, false, 99u + unsigned(moduli));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  constexpr int kVariants = 4;
  const char* names[kVariants] = {"cuBLAS INT8", "wgmma 128x256", "wgmma 128x128", "wgmma256 mod p"};
  std::vector<float> t[kVariants];
  auto one = [&](int v) {
    CK(cudaEventRecord(e0));
    if (v == 0)
      d.cublas(h, d.c_ref);
    else if (v < 3)
      s8::run(d.products(), nullptr, kTiles[v - 1]);
    else
      s8::run(d.residue_products(), nullptr, s8::TileN::n256);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    return time_ms(e0, e1);
  };
  for (int w = 0; w < 2; ++w)
    for (int v = 0; v < kVariants; ++v) one(v);
  for (int r = 0; r < repeat; ++r)
    for (int v = 0; v < kVariants; ++v) t[v].push_back(one(v));
  // The timed outputs, bit for bit (the last run of each kernel is in d.c, cuBLAS's in d.c_ref).
  for (int v = 1; v < 3; ++v) {
    s8::run(d.products(), nullptr, kTiles[v - 1]);
    CK(cudaDeviceSynchronize());
    const unsigned long long bad = d.compare();
    expect(bad == 0, std::string("timed shape: ") + names[v] + " differs from cuBLAS in " + std::to_string(bad) +
                         " entries");
  }
  const unsigned long long bad_r = d.compare_residues();
  expect(bad_r == 0, "timed shape: the residues differ from cuBLAS's C mod p in " + std::to_string(bad_r) + " entries");
  const double ops = 2.0 * double(m) * double(n) * double(k) * moduli;
  for (int v = 0; v < kVariants; ++v) {
    const double med = median(t[v]);
    std::printf("TIMING m=%lld n=%lld k=%lld moduli=%d  %-14s median %8.3f ms  min %8.3f ms  %7.1f TOPS  (%d runs)\n",
                (long long)m, (long long)n, (long long)k, moduli, names[v], med,
                *std::min_element(t[v].begin(), t[v].end()), ops / (med * 1e-3) / 1e12, repeat);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
}

}  // namespace

int main(int argc, char** argv) {
  bool timing = true;
  int repeat = 15;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--no-timing") == 0) {
      timing = false;
    } else if (std::strcmp(argv[a], "--repeat") == 0 && a + 1 < argc) {
      repeat = std::atoi(argv[++a]);
      if (repeat < 1) {
        std::fprintf(stderr, "tcemu-crt-s8-selftest: --repeat must be a positive integer\n");
        return 2;
      }
    } else {
      std::fprintf(stderr, "tcemu-crt-s8-selftest: unknown option '%s' (use --no-timing, --repeat R)\n", argv[a]);
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SELFTEST SKIPPED: no CUDA device\n");
    return 77;
  }
  if (!s8::available()) {
#if defined(TCEMU_SELFTEST_BUILT_FOR_SM90A)
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess && major == 9 &&
        minor == 0) {
      std::printf("SELFTEST FAILED: an sm_90a build on a compute 9.0 device, but the INT8 wgmma kernel is not "
                  "available\n");
      return 1;
    }
#endif
    std::printf("SELFTEST SKIPPED: the INT8 wgmma kernel needs an sm_90a build on a compute 9.0 device\n");
    return 77;
  }
  std::mt19937_64 rng(20261124);
  std::vector<Case> cases = {
      {"one-tile", 128, 256, 128},
      {"1x1x1", 1, 1, 1},
      {"odd-3moduli-2chunks", 200, 300, 272, 3, 2, 288, 0, 0, 205},
      {"odd-padded-lines", 129, 257, 1000, 2, 1, 0, 1024, 1040, 130},
      {"narrow-extremes", 333, 77, 4096, 1, 1, 0, 0, 0, 0, Fill::extremes, Fill::extremes},
      {"k-not-16", 65, 130, 131, 2, 3, 144},
      {"many-tiles", 1000, 1100, 256, 2},
  };
  for (const Case& c : cases) check_case(c, rng, true);
  // k at the INT32-exact limit with constant operands: k (-128)(-128) = 2^31 - 2^14, k (-128)(127).
  check_case({"kmax-min-min", 130, 260, s8::kMaxK, 1, 1, 0, 0, 0, 0, Fill::all_min, Fill::all_min}, rng, false);
  check_case({"kmax-min-max", 64, 300, s8::kMaxK, 1, 1, 0, 0, 0, 0, Fill::all_min, Fill::all_max}, rng, false);
  check_rejections();
  cublasHandle_t h;
  CB(cublasCreate(&h));
  check_against_cublas(h, 384, 640, 65536, 1, true);
  check_against_cublas(h, 1000, 777, 65536, 2, false);
  check_against_cublas(h, 2048, 2048, 2048, 3, false);
  // Many tiles per block at short k (qsim's 9-qubit products, 15 moduli: about 116 tiles of four
  // k-tiles per block on 132 SMs), where the consumers and the producer drift furthest apart in the
  // ring. Session 30's reverted ping-pong schedule (a consumer could wait on a stage two phases ahead)
  // passed the small cases above and gave wrong qsim states; this is that regime.
  check_against_cublas(h, 65536, 512, 512, 15, false, true);
  // More short products, where the ring holds several tiles and the tile coordinates the producer
  // hands to the consumers (beside each tile's first stage) cycle fastest: one block column at k = 256
  // (qsim's 8-qubit blocks); k = 768, six k-tiles, which fill the 128 x 128 tile's six stages exactly;
  // five block columns at k = 384 with partial row groups.
  check_against_cublas(h, 40000, 256, 256, 15, false, true);
  check_against_cublas(h, 9000, 384, 768, 3, false, true);
  check_against_cublas(h, 20000, 1100, 384, 4, false, true);
  std::printf("SELFTEST %s: %d checks, %d failed\n", g_fail ? "FAILED" : "PASSED", g_checks, g_fail);
  if (timing && g_fail == 0) {
    time_shape(h, 8192, 8192, 8192, 1, repeat);
    time_shape(h, 4096, 4096, 8192, 1, repeat);
    time_shape(h, 8192, 8192, 8192, 15, repeat);
    std::printf("SELFTEST %s after timing: %d checks, %d failed\n", g_fail ? "FAILED" : "PASSED", g_checks, g_fail);
  }
  CB(cublasDestroy(h));
  return g_fail ? 1 : 0;
}
