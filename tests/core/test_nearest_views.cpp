// tcemu::nearest and tcemu::squared_norms on Kokkos Views (tcemu/nearest_views.hpp): on a host
// execution space against the raw host entries (bit for bit) in LayoutRight and padded LayoutStride
// Views, with and without precomputed norms and output distances, and the View errors; on Kokkos::Cuda
// (when Kokkos and tcemu have their CUDA backends; skipped without a device) against the same call on
// host Views holding the same data. Small-integer data: every scheme's GEMM is exact, so any
// difference is the selection's.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "nearest_test_util.hpp"
#include "tcemu/error.hpp"
#include "tcemu/nearest.hpp"
#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
#include "tcemu/cuda/gemm_cuda.hpp"  // cuda::device_available
#endif

namespace tcemu::test {
namespace {

using Host = Kokkos::DefaultHostExecutionSpace;
template <class T>
using HostRows = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>;

template <class T>
NearestOptions view_options(std::int64_t batch) {
  NearestOptions o;
  o.gemm.scheme = parse_scheme("auto", std::is_same_v<T, double> ? Target::fp64 : Target::fp32);
  o.batch = batch;
  return o;
}

template <class T>
HostRows<T> to_view(const std::vector<T>& v, std::int64_t rows, std::int64_t d) {
  HostRows<T> out("rows", rows, d);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t l = 0; l < d; ++l) out(i, l) = v[std::size_t(i * d + l)];
  return out;
}

template <class T>
class NearestViews : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(NearestViews, Types);

TYPED_TEST(NearestViews, HostSpaceEqualsTheRawHostEntry) {
  using T = TypeParam;
  const std::int64_t q = 37, n = 90, d = 5;
  const auto queries = small_integers<T>(q, d, 11), database = small_integers<T>(n, d, 12);
  const auto qv = to_view(queries, q, d);
  // The database as a padded LayoutStride View (row stride d + 3): only unit column strides matter.
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> padded("padded", n, d + 3);
  const auto dv = Kokkos::subview(padded, Kokkos::ALL(), std::make_pair(std::int64_t(0), d));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t l = 0; l < d; ++l) dv(j, l) = database[std::size_t(j * d + l)];
  for (int k : {1, 7}) {
    std::vector<std::int32_t> want_i(std::size_t(q * k));
    std::vector<double> want_d(std::size_t(q * k));
    nearest_host<T>(row_major(queries.data(), q, d), row_major(database.data(), n, d), k, want_i.data(),
                    want_d.data(), view_options<T>(8));
    HostRows<std::int32_t> idx("idx", q, k);
    HostRows<double> dist("dist", q, k);
    NearestLog log;
    nearest(Host(), qv, dv, k, idx, dist, view_options<T>(8), &log);
    EXPECT_EQ(std::vector<std::int32_t>(idx.data(), idx.data() + q * k), want_i) << "k = " << k;
    EXPECT_EQ(std::vector<double>(dist.data(), dist.data() + q * k), want_d) << "k = " << k;
    EXPECT_EQ(log.reports.size(), 5u);
    // Precomputed norms (squared_norms on Views) and no distance output.
    Kokkos::View<T*, Kokkos::HostSpace> qn("qn", q), dn("dn", n);
    squared_norms(Host(), qv, qn);
    squared_norms(Host(), dv, dn);
    for (std::int64_t i = 0; i < q; ++i) {
      double s = 0;
      for (std::int64_t l = 0; l < d; ++l) s += double(qv(i, l)) * double(qv(i, l));
      EXPECT_EQ(double(qn(i)), s);
    }
    HostRows<std::int32_t> idx2("idx2", q, k);
    nearest(Host(), qv, dv, k, idx2, HostRows<double>(), view_options<T>(8), nullptr, qn, dn);
    EXPECT_EQ(std::vector<std::int32_t>(idx2.data(), idx2.data() + q * k), want_i) << "k = " << k;
  }
}

TYPED_TEST(NearestViews, ViewErrorsNameTheView) {
  using T = TypeParam;
  const std::int64_t q = 3, n = 4, d = 2;
  const auto qv = to_view(small_integers<T>(q, d, 1), q, d);
  const auto dv = to_view(small_integers<T>(n, d, 2), n, d);
  const NearestOptions o = view_options<T>(4);
  const auto expect_error = [](const auto& call, const std::string& words) {
    try {
      call();
      ADD_FAILURE() << "no error, expected one naming " << words;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  HostRows<std::int32_t> idx("idx", q, 2);
  expect_error([&] { nearest(Host(), qv, dv, 2, HostRows<std::int32_t>("small", q, 1), HostRows<double>(), o); },
               "index is 3 x 1, expected 3 x 2");
  expect_error([&] { nearest(Host(), qv, dv, 2, idx, HostRows<double>("d", 2, 2), o); }, "distance is 2 x 2");
  Kokkos::View<T**, Kokkos::LayoutLeft, Kokkos::HostSpace> column_major("cm", q, d);
  expect_error([&] { nearest(Host(), column_major, dv, 2, idx, HostRows<double>(), o); },
               "queries must have a unit column stride");
  Kokkos::View<std::int32_t**, Kokkos::LayoutLeft, Kokkos::HostSpace> idx_left("il", q, 2);
  expect_error([&] { nearest(Host(), qv, dv, 2, idx_left, HostRows<double>(), o); }, "index must be contiguous");
  expect_error([&] { nearest(Host(), qv, dv, 2, idx, HostRows<double>(), o, nullptr,
                             Kokkos::View<T*, Kokkos::HostSpace>("qn", q + 1), Kokkos::View<T*, Kokkos::HostSpace>()); },
               "query_norms has 4 values, expected 3");
  expect_error([&] { nearest(Host(), qv, dv, 5, HostRows<std::int32_t>("i", q, 5), HostRows<double>(), o); },
               "k = 5");
  expect_error([&] { squared_norms(Host(), qv, Kokkos::View<T*, Kokkos::HostSpace>("out", q + 1)); },
               "out has 4 values");
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
template <class T>
using DeviceRows = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::CudaSpace>;

TYPED_TEST(NearestViews, CudaSpaceEqualsTheHostSpace) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  using T = TypeParam;
  const std::int64_t q = 300, n = 700, d = 9;
  const auto hq = to_view(small_integers<T>(q, d, 5), q, d), hdb = to_view(small_integers<T>(n, d, 6), n, d);
  const auto dq = Kokkos::create_mirror_view_and_copy(Kokkos::CudaSpace(), hq);
  const auto ddb = Kokkos::create_mirror_view_and_copy(Kokkos::CudaSpace(), hdb);
  Kokkos::Cuda space;
  for (int k : {1, 17, 128}) {
    HostRows<std::int32_t> hi("hi", q, k);
    HostRows<double> hd("hd", q, k);
    nearest(Host(), hq, hdb, k, hi, hd, view_options<T>(128));
    DeviceRows<std::int32_t> di("di", q, k);
    DeviceRows<double> dd("dd", q, k);
    NearestLog log;
    nearest(space, dq, ddb, k, di, dd, view_options<T>(128), &log);  // 300 = 2 x 128 + 44
    const auto gi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), di);
    const auto gd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dd);
    EXPECT_EQ(std::vector<std::int32_t>(gi.data(), gi.data() + q * k),
              std::vector<std::int32_t>(hi.data(), hi.data() + q * k)) << "k = " << k;
    EXPECT_EQ(std::vector<double>(gd.data(), gd.data() + q * k), std::vector<double>(hd.data(), hd.data() + q * k))
        << "k = " << k;
    EXPECT_EQ(log.reports.size(), 3u);
  }
  // Norms on the device: FP64 sums of small integers, exact in either order.
  Kokkos::View<T*, Kokkos::CudaSpace> dn("dn", n);
  squared_norms(space, ddb, dn);
  Kokkos::View<T*, Kokkos::HostSpace> hn("hn", n);
  squared_norms(Host(), hdb, hn);
  const auto gn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dn);
  EXPECT_EQ(std::vector<T>(gn.data(), gn.data() + n), std::vector<T>(hn.data(), hn.data() + n));
  // The k = 1 near-tie re-ranking with an FP64 database in device memory, precomputed norms.
  NearestOptions o = view_options<T>(64);
  o.near_tie_margin = 1.0 / 65536;
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> exact("exact", n, d);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t l = 0; l < d; ++l) exact(j, l) = double(hdb(j, l)) + 1e-7 * double((j * 7 + l) % 5);
  const auto dexact = Kokkos::create_mirror_view_and_copy(Kokkos::CudaSpace(), exact);
  HostRows<std::int32_t> hi("hi", q, 1);
  DeviceRows<std::int32_t> di("di", q, 1);
  NearestLog hlog, dlog;
  o.exact_database = exact.data();
  nearest(Host(), hq, hdb, 1, hi, HostRows<double>(), o, &hlog);
  o.exact_database = dexact.data();
  nearest(space, dq, ddb, 1, di, DeviceRows<double>(), o, &dlog, Kokkos::View<T*, Kokkos::CudaSpace>(), dn);
  const auto gi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), di);
  EXPECT_EQ(std::vector<std::int32_t>(gi.data(), gi.data() + q), std::vector<std::int32_t>(hi.data(), hi.data() + q));
  EXPECT_EQ(dlog.rechecked, hlog.rechecked);
  EXPECT_GT(dlog.rechecked, 0);
}

TEST(NearestViewsCuda, MemorySpaceAndKErrors) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  const std::int64_t n = kNearestMaxDeviceK + 1, d = 2;
  HostRows<float> hq("hq", 1, d), hdb("hdb", n, d);
  DeviceRows<float> dq("dq", 1, d), ddb("ddb", n, d);
  DeviceRows<std::int32_t> di("di", 1, 1);
  try {
    nearest(Kokkos::Cuda(), hq, ddb, 1, di, DeviceRows<double>(), NearestOptions{});
    ADD_FAILURE() << "host queries ran on Kokkos::Cuda";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("queries is in memory space Kokkos::HostSpace"), std::string::npos) << e.what();
  }
  EXPECT_THROW(nearest(Host(), hq, ddb, 1, HostRows<std::int32_t>("i", 1, 1), HostRows<double>(), NearestOptions{}),
               InvalidArgument);
  DeviceRows<std::int32_t> dk("dk", 1, n);
  EXPECT_THROW(nearest(Kokkos::Cuda(), dq, ddb, int(n), dk, DeviceRows<double>(), NearestOptions{}), InvalidArgument);
}
#endif

}  // namespace
}  // namespace tcemu::test
