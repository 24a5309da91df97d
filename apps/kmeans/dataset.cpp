#include "dataset.hpp"

#include <cmath>

#include "tcemu/checked.hpp"

#include <random>

#include "tcemu/error.hpp"
#include "app_common/io/hdf5.hpp"

namespace kmeans {

Dataset load_dataset(const std::string& path) {
  tcemu::app::io::Reader in(path);
  Dataset ds;
  ds.path = path;
  auto data = in.read<float>("/data", 2);
  tcemu::app::io::require_finite(data, path, "/data");
  ds.n = data.rows();
  ds.d = data.cols();
  ds.data = std::move(data.data);
  if (in.has_dataset("/labels")) {
    auto labels = in.read<std::int32_t>("/labels", 1);
    if (labels.rows() != ds.n)
      throw tcemu::InvalidArgument(path + ": dataset /labels has " + std::to_string(labels.rows()) +
                                   " entries but /data has " + std::to_string(ds.n) + " points");
    ds.labels = std::move(labels.data);
  }
  if (in.has_dataset("/init_centroids")) {
    auto init = in.read<float>("/init_centroids", 2);
    tcemu::app::io::require_finite(init, path, "/init_centroids");
    if (init.cols() != ds.d)
      throw tcemu::InvalidArgument(path + ": dataset /init_centroids has " + std::to_string(init.cols()) +
                                   " columns but /data has d = " + std::to_string(ds.d));
    ds.init_k = init.rows();
    ds.init_centroids = std::move(init.data);
  }
  return ds;
}

Dataset replicate(const Dataset& data, int times, double noise, std::uint64_t seed) {
  if (times < 1) throw tcemu::InvalidArgument("--replicate " + std::to_string(times) + " must be >= 1");
  if (!(noise >= 0) || !std::isfinite(noise)) throw tcemu::InvalidArgument("--noise must be a finite number >= 0");
  const std::int64_t values = tcemu::checked_element_count({data.n, times, data.d}, sizeof(float), "--replicate");
  const std::uint64_t memory = tcemu::physical_memory_bytes();
  if (memory > 0 && static_cast<double>(values) * sizeof(float) > static_cast<double>(memory))
    throw tcemu::InvalidArgument("--replicate " + std::to_string(times) + ": " + std::to_string(data.n * times) +
                                 " points x " + std::to_string(data.d) + " dims do not fit in this machine's memory");
  Dataset out = data;
  out.data.reserve(data.data.size() * times);
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> gauss(0.0f, static_cast<float>(noise));
  for (int t = 1; t < times; ++t) {
    for (float v : data.data) out.data.push_back(noise > 0 ? v + gauss(gen) : v);
    out.labels.insert(out.labels.end(), data.labels.begin(), data.labels.end());
  }
  out.n = data.n * times;
  return out;
}

void validate_k(const Dataset& data, std::int64_t k, bool need_init, const std::string& what) {
  if (k < 1) throw tcemu::InvalidArgument(what + ": --k " + std::to_string(k) + " must be >= 1");
  if (k > data.n)
    throw tcemu::InvalidArgument(what + ": --k " + std::to_string(k) + " exceeds the " +
                                 std::to_string(data.n) + " points in /data");
  if (need_init && data.init_k == 0)
    throw tcemu::InvalidArgument(what + ": --init file needs a dataset /init_centroids");
  if (need_init && data.init_k != k)
    throw tcemu::InvalidArgument(what + ": /init_centroids has " + std::to_string(data.init_k) +
                                 " rows but --k is " + std::to_string(k));
}

}  // namespace kmeans
