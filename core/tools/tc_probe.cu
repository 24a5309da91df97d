// tcemu-tcprobe: how the Tensor Cores accumulate in FP32 (issue 4; the EGEMM-TC profiling idea). Single-warp kernels run
// inline-PTX mma.sync (m16n8k16 f16/bf16, m16n8k8 tf32) on crafted inputs; the host compares the results with exact sums and
// rounding models and prints markdown (optionally CSV); statistics also for cublasGemmEx. CUDA backend only; sm_80 or newer.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
namespace {
void fail(const char* what, const char* why) { throw std::runtime_error(std::string(what) + ": " + why); }
#define CK(x) do { if (cudaError_t e_ = (x); e_ != cudaSuccess) fail(#x, cudaGetErrorString(e_)); } while (0)
#define CB(x) do { if (cublasStatus_t s_ = (x); s_ != CUBLAS_STATUS_SUCCESS) fail(#x, cublasGetStatusName(s_)); } while (0)
enum Kind { F16, BF16, TF32 };
/// p: significand bits; emin/emax: normal exponents; kk: k per instruction; big: log2 of the crafted large term.
struct Fmt { const char *name, *instr; int p, emin, emax, kk, big; };
const Fmt FMT[3] = {{"f16", "m16n8k16 f32.f16.f16.f32", 11, -14, 15, 16, 16},
                    {"bf16", "m16n8k16 f32.bf16.bf16.f32", 8, -126, 127, 16, 0},
                    {"tf32", "m16n8k8 f32.tf32.tf32.f32", 11, -126, 127, 8, 0}};

// ---- device: block b (one warp) computes D_b = C_b + A_b B_b with K / kk dependent mma.sync in k order.
// A_b: 16 x K row-major; B_b: 8 rows of K (B[n*K + k]); C_b, D_b: 16 x 8 row-major. Fragments as in the PTX ISA.
template <int KIND>
__device__ uint32_t pack2(const float* x) {  // x[0] goes to the low half
  if constexpr (KIND == F16) { __half2 h = __floats2half2_rn(x[0], x[1]); return *reinterpret_cast<uint32_t*>(&h); }
  else { __nv_bfloat162 h = __floats2bfloat162_rn(x[0], x[1]); return *reinterpret_cast<uint32_t*>(&h); }
}
#define MMA(SHAPE, T)                                                                                                  \
  asm volatile("mma.sync.aligned." SHAPE ".row.col.f32." T "." T ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
template <int KIND>
__global__ void mma_chain(const float* A, const float* B, const float* C, float* D, int K) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int g = threadIdx.x >> 2, t = threadIdx.x & 3;
  A += size_t(blockIdx.x) * 16 * K, B += size_t(blockIdx.x) * 8 * K, C += blockIdx.x * 128, D += blockIdx.x * 128;
  float c[4];
  for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
  const float *a0 = A + size_t(g) * K, *a8 = A + size_t(g + 8) * K, *bg = B + size_t(g) * K;
  for (int k = 0; k < K; k += (KIND == TF32 ? 8 : 16)) {
    uint32_t a[4], b[2];
    if constexpr (KIND == TF32) {
      for (int r = 0; r < 4; ++r) a[r] = __float_as_uint(((r & 1) ? a8 : a0)[k + t + 4 * (r >> 1)]);
      for (int r = 0; r < 2; ++r) b[r] = __float_as_uint(bg[k + t + 4 * r]);
      MMA("m16n8k8", "tf32");
    } else {
      for (int r = 0; r < 4; ++r) a[r] = pack2<KIND>(((r & 1) ? a8 : a0) + k + 2 * t + 8 * (r >> 1));
      for (int r = 0; r < 2; ++r) b[r] = pack2<KIND>(bg + k + 2 * t + 8 * r);
      if constexpr (KIND == F16) MMA("m16n8k16", "f16");
      else MMA("m16n8k16", "bf16");
    }
  }
  for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = c[i];
#endif
}
struct DBuf {  // device buffer of n bytes, optionally filled from the host
  void* p = nullptr;
  explicit DBuf(size_t n, const void* h = nullptr) { CK(cudaMalloc(&p, n)); if (h) CK(cudaMemcpy(p, h, n, cudaMemcpyHostToDevice)); }
  ~DBuf() { cudaFree(p); }
  DBuf(const DBuf&) = delete;
  float* f() const { return static_cast<float*>(p); }
};
std::vector<float> run_mma(Kind kd, const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C,
                           int K, int blocks) {
  DBuf a(A.size() * 4, A.data()), b(B.size() * 4, B.data()), c(C.size() * 4, C.data()), d(C.size() * 4);
  if (kd == F16) mma_chain<F16><<<blocks, 32>>>(a.f(), b.f(), c.f(), d.f(), K);
  else if (kd == BF16) mma_chain<BF16><<<blocks, 32>>>(a.f(), b.f(), c.f(), d.f(), K);
  else mma_chain<TF32><<<blocks, 32>>>(a.f(), b.f(), c.f(), d.f(), K);
  std::vector<float> D(C.size());
  CK(cudaGetLastError());
  CK(cudaMemcpy(D.data(), d.p, D.size() * 4, cudaMemcpyDeviceToHost));  // synchronizes; reports kernel faults
  return D;
}

// ---- host: exact values as multiples of 2^-SB in __int128, FP32 rounding, accumulation models.
using I = __int128;  // exact values: multiples of 2^-SB
using U = unsigned __int128;
constexpr int SB = 80;
enum Mode { RN, RZ, RD, RU };  // rounding: to nearest even, toward zero, toward -inf, toward +inf
const char* MODE[4] = {"RN", "RZ", "RD", "RU"};
I toI(double x) {
  const double s = std::ldexp(x, SB);
  return s == std::floor(s) && std::fabs(s) < 0x1p125 ? static_cast<I>(s) : throw std::logic_error("value not in fixed point");
}
double toD(I v) { return std::ldexp(static_cast<double>(v), -SB); }
int bitlen(U a) { return a >> 64 ? 128 - __builtin_clzll(uint64_t(a >> 64)) : a ? 64 - __builtin_clzll(uint64_t(a)) : 0; }
int lead(I v) { return bitlen(v < 0 ? -U(v) : U(v)) - 1 - SB; }  // exponent of the leading bit
I round_i(I n, Mode md) {  // n rounded to 24 significant bits (FP32; its exponent limits are not reached here)
  const U a = n < 0 ? -U(n) : U(n);
  const int sh = bitlen(a) - 24;
  if (sh <= 0) return n;
  const U q = a >> sh, rem = a & ((U(1) << sh) - 1), half = U(1) << (sh - 1);
  const bool up = md == RN ? (rem > half || (rem == half && (q & 1))) : md == RZ ? false : (md == RD) == (n < 0) && rem;
  return n < 0 ? -I((q + up) << sh) : I((q + up) << sh);
}
I trunc_to(I t, int cut, bool floor_mode) {  // drops the bits below 2^(cut - SB), toward zero or toward -inf
  if (cut <= 0 || t == 0) return t;
  return floor_mode || t > 0 ? (t >> cut) * (I(1) << cut) : -(((-t) >> cut) * (I(1) << cut));
}
/// type 0: FP32 rounding after every product; 1: exact sum of one instruction's kk products and C, rounded once;
/// 2 (TC model): every term (C included) cut to the w bits below the largest term's exponent (the exponent sum
/// ea + eb for products when expsum, else the leading bit), the cut terms summed exactly, the sum rounded once.
struct Model { std::string name; int type; Mode md; int w = 0; bool expsum = true, floor_mode = false; };
I model_dot(const Model& m, const I* p, const int* ex, int K, int kk, I acc) {
  for (int k0 = 0; k0 < K; k0 += kk) {
    const int k1 = std::min(K, k0 + kk);
    if (m.type == 0) {
      for (int k = k0; k < k1; ++k) acc = round_i(acc + p[k], m.md);
    } else if (m.type == 1) {
      for (int k = k0; k < k1; ++k) acc += p[k];
      acc = round_i(acc, m.md);
    } else {
      int E = acc != 0 ? lead(acc) : INT_MIN;
      for (int k = k0; k < k1; ++k) E = p[k] == 0 ? E : std::max(E, m.expsum ? ex[k] : lead(p[k]));
      if (E == INT_MIN) continue;
      I s = trunc_to(acc, E - m.w + SB, m.floor_mode);
      for (int k = k0; k < k1; ++k) s += trunc_to(p[k], E - m.w + SB, m.floor_mode);
      acc = round_i(s, m.md);
    }
  }
  return acc;
}
template <class T>  // exact products p_k = a_k b_k and exponent sums ex_k of one dot product; returns their exact sum
I products(const T* a, long sa, const T* b, long sb, int K, I* p, int* ex) {
  I R = 0;
  for (int k = 0; k < K; ++k)
    R += (p[k] = toI(double(a[k * sa]) * b[k * sb])), ex[k] = p[k] ? std::ilogb(a[k * sa]) + std::ilogb(b[k * sb]) : 0;
  return R;
}
double round_fmt(double x, const Fmt& f) {
  const int e = x == 0 ? 0 : std::max(std::ilogb(x), f.emin);
  return std::ldexp(std::nearbyint(std::ldexp(x, f.p - 1 - e)), e - f.p + 1);
}
bool normal_in(double x, const Fmt& f) { return !x || (x == round_fmt(x, f) && std::ilogb(x) >= f.emin && std::ilogb(x) <= f.emax); }
/// One dot product c + sum_k a_k b_k (k < kk); tables show (D - ref) / unit.
struct Case { std::vector<double> a, b; double c = 0, ref = 0, unit = 1; };
/// Products p_k = a_k * b_k with b_k = 2^floor(E/2) (E: p_k's exponent).
Case from_products(const std::vector<double>& prods, double c, const Fmt& f, double ref = 0, double unit = 1) {
  Case cs{std::vector<double>(f.kk, 0.0), std::vector<double>(f.kk, 0.0), c, ref, unit};
  for (size_t k = 0; k < prods.size(); ++k)  // run_cases checks that the split is exact
    if (prods[k] != 0) cs.b[k] = std::ldexp(1.0, std::ilogb(prods[k]) >> 1), cs.a[k] = prods[k] / cs.b[k];
  return cs;
}
double model_case(const Model& m, const Case& cs, int kk) {
  std::vector<I> p(kk);
  std::vector<int> ex(kk);
  products(cs.a.data(), 1, cs.b.data(), 1, kk, p.data(), ex.data());
  return toD(model_dot(m, p.data(), ex.data(), kk, kk, toI(cs.c)));
}
/// Every case runs as one single-instruction block whose 128 outputs all compute it; they must agree.
std::vector<double> run_cases(Kind kd, const std::vector<Case>& cs) {
  const int n = int(cs.size()), kk = FMT[kd].kk;
  std::vector<float> A(size_t(n) * 16 * kk), B(size_t(n) * 8 * kk), C(size_t(n) * 128);
  for (int i = 0; i < n; ++i) {
    if (float(cs[i].c) != cs[i].c) throw std::logic_error("C is not a float");
    for (int k = 0; k < kk; ++k) {
      if (!normal_in(cs[i].a[k], FMT[kd]) || !normal_in(cs[i].b[k], FMT[kd])) throw std::logic_error("input not exact");
      for (int r = 0; r < 16; ++r) A[(size_t(i) * 16 + r) * kk + k] = float(cs[i].a[k]);
      for (int r = 0; r < 8; ++r) B[(size_t(i) * 8 + r) * kk + k] = float(cs[i].b[k]);
    }
    std::fill(C.begin() + i * 128, C.begin() + (i + 1) * 128, float(cs[i].c));
  }
  const std::vector<float> D = run_mma(kd, A, B, C, kk, n);
  std::vector<double> out(n);
  for (int j = 0; j < n * 128; ++j)  // the 128 outputs of a case must agree
    if ((out[j / 128] = D[j / 128 * 128]) != D[j] || std::signbit(D[j]) != std::signbit(out[j / 128])) fail("run_cases", "differ");
  return out;
}

// ---- output: markdown tables; each cell after the key columns is also a CSV row (table, key, column, value).
std::string S(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f), std::vsnprintf(buf, sizeof buf, f, ap), va_end(ap);
  return buf;
}
std::vector<std::vector<std::string>> csv_rows;
struct Table {
  std::string id;  // CSV table name; the first nkey cells of a row form its CSV key
  std::vector<std::string> head;
  size_t nkey;
  Table(std::string i, std::vector<std::string> h, size_t nk, const std::string& title) : id(i), head(h), nkey(nk) {
    std::printf("\n## %s\n\n", title.c_str());
    row(head, false), row(std::vector<std::string>(head.size(), "---"), false);
  }
  void row(const std::vector<std::string>& c, bool record = true) {
    std::string key, line = "|";
    for (size_t i = 0; i < c.size(); ++i) {
      line += " " + c[i] + " |", key += i < nkey ? (i ? " " : "") + c[i] : "";
      if (record && i >= nkey) csv_rows.push_back({id, key, head[i], c[i].substr(0, c[i].find(" ✓"))});
    }
    std::puts(line.c_str());
  }
};
void write_csv(const std::string& path) {  // to a temporary name, then renamed; no cell holds a double quote
  const std::string tmp = path + ".tmp";
  std::ofstream o(tmp);
  o << "table,key,column,value\n";
  for (auto& r : csv_rows) o << '"' << r[0] << "\",\"" << r[1] << "\",\"" << r[2] << "\",\"" << r[3] << "\"\n";
  if (o.close(), !o || std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot write " + path);
}

// ---- statistics of many outputs against their exact sums R.
struct Acc {
  double s = 0, stz = 0, s2 = 0, r2 = 0, n = 0, same = 0;
  void add(double d, double r, bool eq) { s += d, stz += r > 0 ? d : r < 0 ? -d : 0, s2 += d * d, r2 += r * r, ++n, same += eq; }
  void merge(const Acc& o) { s += o.s, stz += o.stz, s2 += o.s2, r2 += o.r2, n += o.n, same += o.same; }
  double btz() const { return stz / n / std::sqrt(r2 / n); }  // mean sign(R)(D-R) / rms(R)
  double bias() const { return s / n / std::sqrt(r2 / n); }  // mean (D-R) / rms(R)
  double rms() const { return std::sqrt(s2 / r2); }          // ||D-R|| / ||R||
};
/// get(o, a, sa, b, sb): output o's row of A and column of B (with strides); returns o's index in D.
template <class Get>
std::vector<Acc> evaluate(long nout, int K, int kk, const std::vector<float>& D, Get get, const std::vector<Model>& ms, int threads) {
  std::vector<std::vector<Acc>> part(threads, std::vector<Acc>(ms.size() + 1));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::vector<I> p(K);
      std::vector<int> ex(K);
      const float *a, *b;
      for (long o = t, sa, sb; o < nout; o += threads) {
        const long idx = get(o, a, sa, b, sb);
        const double r = toD(products(a, sa, b, sb, K, p.data(), ex.data())), dv = D[idx];
        part[t][0].add(dv - r, r, true);
        for (size_t m = 0; m < ms.size(); ++m) {
          const double mv = toD(model_dot(ms[m], p.data(), ex.data(), K, kk, 0));
          part[t][m + 1].add(mv - r, r, mv == dv);
        }
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 1; t < threads; ++t)
    for (size_t m = 0; m <= ms.size(); ++m) part[0][m].merge(part[t][m]);
  return part[0];
}
std::vector<float> gen(const Fmt& f, size_t n, std::mt19937_64& rng) {  // N(0,1) rounded to the format
  std::normal_distribution<double> N01;
  std::vector<float> v(n);
  for (auto& x : v) do x = float(round_fmt(N01(rng), f)); while (std::fabs(x) < 0x1p-12);  // products: multiples of 2^-44
  return v;
}
const std::vector<std::string> STAT_HEAD = {"source", "K", "device or model", "bias toward zero", "signed bias",
                                            "rel. RMS error", "bit-identical to device"};
/// Rows for the device and each model; the verdict: the model most often bit-identical to the device.
std::string stat_rows(Table& tb, const std::string& src, int K, const std::vector<Acc>& acc, const std::vector<Model>& ms) {
  size_t best = 1;
  for (size_t m = 0; m < acc.size(); ++m) {
    tb.row({src, std::to_string(K), m ? ms[m - 1].name : "**device**", S("%.3e", acc[m].btz()), S("%.3e", acc[m].bias()),
            S("%.3e", acc[m].rms()), m ? S("%.2f%%", 100.0 * acc[m].same / acc[m].n) : "-"});
    if (m && acc[m].same > acc[best].same) best = m;
  }
  return S("device bias %.2e, RMS %.2e; best model %s, bit-identical on %.2f%%", acc[0].btz(), acc[0].rms(),
           ms[best - 1].name.c_str(), 100.0 * acc[best].same / acc[0].n);
}

// ---- the probes: every case is one instruction; big = 2^FMT.big; values in the units the table names.
struct Findings {  // per instruction type; c1, d1: test 1's cases and device results, to fit the TC model's rounding
  std::vector<Case> c1;
  std::vector<double> d1;
  int w = 0, fit1 = -1;
  Model tc;
  std::string rounding, summed, order = "yes", c_align, stat;
};
const double ULP = 0x1p-23;  // ulp(1) in FP32
/// Runs crafted cases, one row each: key cells, then (D - ref) / unit for the device and each model (✓ = equal).
std::vector<int> case_rows(Kind kd, Table& tb, const std::vector<Case>& cs, const std::vector<std::vector<std::string>>& keys,
                           const std::vector<Model>& ms, std::vector<double>* dev = nullptr) {
  const std::vector<double> D = run_cases(kd, cs);
  std::vector<int> hit(ms.size());
  for (size_t i = 0; i < cs.size(); ++i) {
    std::vector<std::string> row = keys[i];
    row.push_back(S("%.4g", (D[i] - cs[i].ref) / cs[i].unit));
    for (size_t m = 0; m < ms.size(); ++m) {
      const double v = model_case(ms[m], cs[i], FMT[kd].kk);
      row.push_back(S("%.4g%s", (v - cs[i].ref) / cs[i].unit, v == D[i] ? " ✓" : "")), hit[m] += v == D[i];
    }
    tb.row(row);
  }
  if (dev) *dev = D;
  return hit;
}
void test1(Kind kd, Findings& F, Table& tb) {  // C = +-1 (or 1+ulp) plus one product r * ulp(1): rounded how?
  const std::pair<double, double> cases[] = {{1, .75},   {1, .5},   {1, .25},   {1, .125}, {1, -.25}, {1, -.75},     {1, 1.5},
                                             {-1, -.75}, {-1, -.5}, {-1, -.25}, {-1, .25}, {-1, .75}, {1 + ULP, .5}, {1 + ULP, -.5}};
  std::vector<std::vector<std::string>> keys;
  for (auto [c, r] : cases)
    F.c1.push_back(from_products({r * ULP}, c, FMT[kd], c, ULP)), keys.push_back({FMT[kd].name, S("%.9g", c), S("%g", r)});
  const std::vector<int> hit = case_rows(kd, tb, F.c1, keys, {{"", 1, RN}, {"", 1, RZ}, {"", 1, RD}, {"", 1, RU}}, &F.d1);
  for (int m = 0; m < 4; ++m) F.rounding += hit[m] == int(F.c1.size()) ? (F.rounding.empty() ? "" : "/") + std::string(MODE[m]) : "";
  if (F.rounding.empty()) F.rounding = "none of RN/RZ/RD/RU";
}
/// {+big, -big, +-2^-e big}, C = 0, e = 20..44: D / small (run-length coded) for +small, -small and big = 1.5 x 1.5.
void test2a(Kind kd, Findings& F, Table& tb) {
  const Fmt& f = FMT[kd];
  const double big = std::ldexp(1.0, f.big), h = 1.5 * std::ldexp(1.0, f.big / 2);
  std::vector<Case> cs;
  for (int v = 0; v < 3; ++v)
    for (int e = 20; e <= 44; ++e) {
      cs.push_back(from_products({big, -big, std::ldexp(v == 1 ? -1.0 : 1.0, f.big - e)}, 0, f));
      if (v == 2) cs.back().a[0] = cs.back().b[0] = cs.back().b[1] = h, cs.back().a[1] = -h;  // exponent sum < lead bit
    }
  const std::vector<double> D = run_cases(kd, cs);
  auto ratio = [&](int v, int e) { return D[v * 25 + e - 20] / std::ldexp(v == 1 ? -1.0 : 1.0, f.big - e) + 0.0; };  // no -0
  int w[3];
  for (int v = 0; v < 3; ++v) {
    std::string runs;
    for (w[v] = 19; w[v] < 44 && ratio(v, w[v] + 1) == 1;) ++w[v];
    for (int e = 20, e0 = 20; e <= 44; ++e)
      if (e == 44 || ratio(v, e + 1) != ratio(v, e))
        runs += S("%se %d%s: %.6g", runs.empty() ? "" : "; ", e0, e > e0 ? S("-%d", e).c_str() : "", ratio(v, e)), e0 = e + 1;
    tb.row({f.name, v == 0 ? "+small" : v == 1 ? "-small" : "+small, big = 1.5 x 1.5", runs, std::to_string(w[v])});
  }
  Model t{"", 2, RZ, F.w = w[0], w[2] == w[0], w[1] < 44 && ratio(1, w[1] + 1) != 0};
  for (Mode m : {RZ, RN, RD, RU}) {  // the final rounding that, with this alignment, explains most of test 1
    int hit = 0;
    for (size_t i = 0; i < F.c1.size(); ++i) hit += model_case((t.md = m, t), F.c1[i], f.kk) == F.d1[i];
    if (hit > F.fit1) F.fit1 = hit, F.tc = t;
  }
  F.tc.name = S("TC model (w=%d, %s, align %s, cut %s)", F.w, MODE[F.tc.md], t.expsum ? "exp-sum" : "lead-bit",
                t.floor_mode ? "floor" : "to-zero");
}
void test2b(Kind kd, Findings& F, Table& tb) {  // big + (kk-1) x 2^-e big, C = 0
  const Fmt& f = FMT[kd];
  std::vector<Case> cs;
  std::vector<std::vector<std::string>> keys;  // the key cells of each case's row
  for (int e = 20; e <= 30; ++e) {
    std::vector<double> pr(f.kk, std::ldexp(1.0, f.big - e));
    pr[0] = std::ldexp(1.0, f.big);
    cs.push_back(from_products(pr, 0, f, pr[0], pr[1])), keys.push_back({f.name, std::to_string(e), std::to_string(f.kk - 1)});
  }
  const std::vector<int> hit = case_rows(kd, tb, cs, keys, {{"", 1, RZ}, {"", 1, RN}, {"", 0, RN}, F.tc});
  F.summed = S("exact sum then %s matches %d/11 rows, TC model %d/11", MODE[F.tc.md == RN ? RN : RZ], hit[F.tc.md == RN], hit[3]);
}
void test3(Kind kd, Findings& F, Table& tb) {  // the same terms at other k positions
  const Fmt& f = FMT[kd];
  const double big = std::ldexp(1.0, f.big);
  auto report = [&](const std::string& what, const std::vector<Case>& cs, double unit) {
    const std::vector<double> D = run_cases(kd, cs);
    const std::set<double> vals(D.begin(), D.end());
    std::string vs;
    int agree = 0;
    for (size_t i = 0; i < cs.size(); ++i) agree += model_case(F.tc, cs[i], f.kk) == D[i];
    for (double v : vals) vs += S("%s%.6g", vs.empty() ? "" : ", ", v / unit);
    if (vals.size() > 1) F.order = "no (table 3)";
    tb.row({f.name, what, std::to_string(cs.size()), std::to_string(vals.size()), vs.size() > 80 ? vs.substr(0, 77) + "..." : vs,
            S("%d/%zu", agree, cs.size())});
  };
  for (int e : std::set<int>{24, 25, 26, F.w, F.w + 1}) {
    std::vector<Case> cs;
    for (int j = 0; j < f.kk && f.big - e >= 2 * f.emin; ++j) {
      std::vector<double> pr(f.kk, std::ldexp(1.0, f.big - e));
      pr[j] = big, cs.push_back(from_products(pr, 0, f));
    }
    if (!cs.empty()) report(S("big at each k, 2^-%d big elsewhere (unit big)", e), cs, big);
  }
}
void test4(Kind kd, Findings& F, Table& tb) {  // C = +-(1 + ulp) next to products +2^t, -2^t (t = -5: no products)
  std::vector<Case> cs;
  std::vector<std::vector<std::string>> keys;  // the key cells of each case's row
  for (int t = -5; t <= 8; ++t)
    for (double c : {1 + ULP, -1 - ULP}) {
      cs.push_back(from_products({t < -4 ? 0 : std::ldexp(1., t), t < -4 ? 0 : -std::ldexp(1., t)}, c, FMT[kd], c, ULP));
      keys.push_back({FMT[kd].name, S("%.9g", c), t < -4 ? "none" : S("+-2^%d", t)});
    }
  std::vector<double> D;
  case_rows(kd, tb, cs, keys, {F.tc}, &D);
  int T = -5;  // the last t (from -4 up) where both signs of C come back intact
  while (T < 8 && D[2 * (T + 6)] == cs[2 * (T + 6)].c && D[2 * (T + 6) + 1] == cs[2 * (T + 6) + 1].c) ++T;
  F.c_align = T == -5 ? "last bit lost at 2^-4" : S("last bit kept up to products 2^%d (w-23 = %d)", T, F.w - 23);
}
void test5(Kind kd, Findings& F, Table& tb, int K, int trials, std::mt19937_64& rng, int threads) {
  const Fmt& f = FMT[kd];
  const std::vector<float> A = gen(f, size_t(trials) * 16 * K, rng), B = gen(f, size_t(trials) * 8 * K, rng);
  const std::vector<float> D = run_mma(kd, A, B, std::vector<float>(size_t(trials) * 128, 0.f), K, trials);
  const std::vector<Model> ms = {{"RN per product", 0, RN}, {"RZ per product", 0, RZ}, {"RN per instruction", 1, RN},
                                 {"RZ per instruction", 1, RZ}, F.tc};
  const auto acc = evaluate(long(trials) * 128, K, f.kk, D, [&](long o, const float*& a, long& sa, const float*& b, long& sb) {
    return a = A.data() + (o / 8) * K, b = B.data() + ((o / 128) * 8 + o % 8) * K, sa = sb = 1, o;  // o = (blk*16 + i)*8 + j
  }, ms, threads);
  F.stat = stat_rows(tb, S("%s (%d instr.)", f.instr, K / f.kk), K, acc, ms);
}
/// 5b: cublasGemmEx, FP16 inputs, FP32 output and compute, n x n x k, against the exact sums.
std::string test5b(Table& tb, int k, const Model& tc, std::mt19937_64& rng, int threads, cublasHandle_t h) {
  const int n = 256;
  const std::vector<float> A = gen(FMT[F16], size_t(n) * k, rng), B = gen(FMT[F16], size_t(k) * n, rng);
  std::vector<__half> ha(A.begin(), A.end()), hb(B.begin(), B.end());  // exact: the values are FP16 numbers
  std::vector<float> D(size_t(n) * n);
  DBuf da(ha.size() * 2, ha.data()), db(hb.size() * 2, hb.data()), dc(D.size() * 4);
  const float one = 1, zero = 0;
  CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, k, &one, da.p, CUDA_R_16F, n, db.p, CUDA_R_16F, k, &zero, dc.p, CUDA_R_32F,
                  n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  CK(cudaMemcpy(D.data(), dc.p, D.size() * 4, cudaMemcpyDeviceToHost));
  const std::vector<Model> ms = {{"RN per product", 0, RN}, {"RN per instruction", 1, RN}, {"RZ per instruction", 1, RZ}, tc};
  const auto acc = evaluate(long(n) * n, k, 16, D, [&](long o, const float*& a, long& sa, const float*& b, long& sb) {
    return a = A.data() + o % n, sa = n, b = B.data() + (o / n) * k, sb = 1, o;  // column-major A (n x k), B (k x n), C
  }, ms, threads);
  return S("K=%d: %s. ", k, stat_rows(tb, "cublasGemmEx f16", k, acc, ms).c_str());
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tcemu-tcprobe: how the Tensor Cores accumulate FP32, from single-warp inline-PTX mma.sync (m16n8k16\n"
               "f32.f16.f16.f32, m16n8k16 f32.bf16.bf16.f32, m16n8k8 f32.tf32.tf32.f32); markdown on stdout. Probes:\n"
               "1 C = +-1 plus one product p = a fraction of ulp(1): rounded RN, RZ, RD or RU?\n"
               "2a {+big, -big, 2^-e big}: the small term survives while e <= w (alignment width); negative small term: cut\n"
               "   toward zero or -inf? big = 1.5 x 1.5: aligned by the exponent sum or the leading bit?\n"
               "2b big + (k-1) x 2^-e big: small terms summed before one rounding, or each cut? 3: the same terms at other k\n"
               "positions: one result? 4: C = +-(1+ulp) next to products +-2^t: where is C's last bit lost? 5: N(0,1) inputs\n"
               "rounded to the format, K / k chained mma per output (5b: cublasGemmEx FP16, 256 x 256 x K): bias and RMS against\n"
               "the exact sum, device vs models (RN/RZ per product or instruction; the TC model of 1, 2a). No device: exit 77\n"
               "(CTest's skip code: the GPU-labelled test GpuSelfTest.TensorCoreProbe skips)."};
  std::string csv;
  int K = 8192, trials = 64, threads = int(std::max(1u, std::thread::hardware_concurrency()));
  std::uint64_t seed = 1;
  std::vector<int> cublas_k = {8192, 1024, 128};
  bool no_cublas = false;
  app.add_option("--csv", csv, "also write every table cell as CSV (table,key,column,value)");
  app.add_option("--k", K, "test 5: K per output (a multiple of 16)")->capture_default_str();
  app.add_option("--trials", trials, "test 5: warps, 16 x 8 outputs each")->capture_default_str();
  app.add_option("--cublas-k", cublas_k, "test 5b: K values (multiples of 16)")->delimiter(',')->capture_default_str();
  app.add_flag("--no-cublas", no_cublas, "skip test 5b");
  app.add_option("--seed", seed, "random seed")->capture_default_str();
  app.add_option("--threads", threads, "host threads for the models")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  int ndev = 0;  // no device: one line, exit 77 (CTest SKIP_RETURN_CODE)
  cudaDeviceProp prop{};
  const cudaError_t de = cudaGetDeviceCount(&ndev);
  if (de != cudaSuccess || ndev == 0 || cudaGetDeviceProperties(&prop, 0) != cudaSuccess || prop.major < 8) {
    std::fprintf(stderr, "tcemu-tcprobe: no CUDA device of sm_80 or newer (%s); nothing probed\n",
                 de != cudaSuccess ? cudaGetErrorString(de) : ndev == 0 ? "0 devices" : prop.name);
    return 77;
  }
  try {
    for (int k : cublas_k) K = (k < 16 || k % 16) ? 0 : K;
    if (K < 16 || K % 16 || trials < 1 || threads < 1) throw std::invalid_argument("--k, --cublas-k: multiples of 16; --trials >= 1");
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> si(-3, 3);
    std::printf("# Tensor Core accumulation (tcemu-tcprobe)\n\ndevice: %s (sm_%d%d), seed %llu\n", prop.name, prop.major,
                prop.minor, (unsigned long long)seed);
    csv_rows.push_back({"device", "-", "name", S("%s sm_%d%d", prop.name, prop.major, prop.minor)});
    for (Kind kd : {F16, BF16, TF32}) {  // sanity: small integers are exact; a wrong fragment layout fails here
      std::vector<float> A(16 * 64), B(8 * 64), C(128), R(128);
      for (auto* v : {&A, &B, &C}) std::generate(v->begin(), v->end(), [&] { return float(si(rng)); });
      for (int o = 0; o < 128; ++o)
        for (int k = 0; k < 64; ++k) R[o] += A[(o / 8) * 64 + k] * B[(o % 8) * 64 + k] + (k ? 0.f : C[o]);
      if (run_mma(kd, A, B, C, 64, 1) != R) fail("sanity check (small integers, fragment layout)", FMT[kd].name);
    }
    Findings F[3];
    Table t1("1-rounding", {"instr", "C", "p (ulp)", "device", "RN", "RZ", "RD", "RU"}, 3,
             "1. Rounding of C + p, one product p (values: result - C in ulp(1) = 2^-23; ✓ = equals the device)");
    for (Kind kd : {F16, BF16, TF32}) test1(kd, F[kd], t1);
    Table t2a("2a-cancel", {"instr", "variant", "D / small for e = 20..44 (1 = kept, 0 = lost)", "w (last e kept)"}, 2,
              "2a. Alignment width: {+big, -big, small = +-2^-e big}, C = 0");
    for (Kind kd : {F16, BF16, TF32}) test2a(kd, F[kd], t2a);
    Table t2b("2b-many-small", {"instr", "e", "small terms", "device", "exact sum, RZ", "exact sum, RN", "RN one by one", "TC model"},
              3, "2b. big + (k-1) x small = 2^-e big, C = 0 (values: (D - big) / small; ✓ = equals the device)");
    for (Kind kd : {F16, BF16, TF32}) test2b(kd, F[kd], t2b);
    Table t3("3-order", {"instr", "case", "runs", "distinct results", "results", "TC model agrees"}, 2,
             "3. Order of the terms in one instruction");
    for (Kind kd : {F16, BF16, TF32}) test3(kd, F[kd], t3);
    Table t4("4-C-bits", {"instr", "C", "products", "device", "TC model"}, 3,
             "4. C's own bits: C = +-(1 + ulp) next to products +2^t, -2^t (values: D - C in ulp; 0 = C intact)");
    for (Kind kd : {F16, BF16, TF32}) test4(kd, F[kd], t4);
    Table t5("5-stat", STAT_HEAD, 3, S("5. Statistics: N(0,1) inputs rounded to the format, C = 0, %d outputs of K = %d, chained "
                                       "instructions in k order; models sum the same products in the same order", trials * 128, K));
    for (Kind kd : {F16, BF16, TF32}) test5(kd, F[kd], t5, K, trials, rng, threads);
    std::string cublas_verdict;
    if (!no_cublas && !cublas_k.empty()) {
      Table t5b("5b-cublas", STAT_HEAD, 3, "5b. cublasGemmEx: FP16 inputs, FP32 output, CUBLAS_COMPUTE_32F, 256 x 256 x K (models "
                                             "with 16-term instructions in ascending k; cuBLAS's own order and split-K are unknown)");
      cublasHandle_t h = nullptr;  // left to process exit if a call throws
      CB(cublasCreate(&h));
      for (int k : cublas_k) cublas_verdict += test5b(t5b, k, F[F16].tc, rng, threads, h);
      CB(cublasDestroy(h));
    }
    Table ts("summary", {"instr", "rounding of C + p (1)", "w and the TC model (2a; fit to 1)", "small terms (2b)",
                         "order-independent (3)", "C (4)", S("statistics, K = %d (5)", K)}, 1, "Summary");
    for (Kind kd : {F16, BF16, TF32})
      ts.row({FMT[kd].instr, F[kd].rounding, S("%d; %s, %d/14", F[kd].w, F[kd].tc.name.c_str(), F[kd].fit1), F[kd].summed,
              F[kd].order, F[kd].c_align, F[kd].stat});
    if (!cublas_verdict.empty()) std::printf("\ncuBLAS (FP16 in, FP32 compute): %s\n", cublas_verdict.c_str());
    if (!csv.empty()) write_csv(csv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tcemu-tcprobe: %s\n", e.what());
    return 1;
  }
  return 0;
}
