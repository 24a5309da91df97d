#include "dataset.hpp"

#include <cmath>
#include <optional>

#include "tcemu/error.hpp"
#include "app_common/io/hdf5.hpp"

namespace knn {

void validate(const Dataset& data, int k, const std::string& what) {
  auto fail = [&](const std::string& problem) { throw tcemu::InvalidArgument(what + ": " + problem); };
  if (data.n < 1 || data.d < 1 || data.q < 1) fail("empty train set, queries or dimension");
  if (static_cast<std::int64_t>(data.train.size()) != data.n * data.d)
    fail("train holds " + std::to_string(data.train.size()) + " values, expected n x d = " +
         std::to_string(data.n) + " x " + std::to_string(data.d));
  if (static_cast<std::int64_t>(data.queries.size()) != data.q * data.d)
    fail("queries hold " + std::to_string(data.queries.size()) + " values, expected q x d = " +
         std::to_string(data.q) + " x " + std::to_string(data.d));
  if (k < 1 || k > data.n)
    fail("k = " + std::to_string(k) + " must be in 1.." + std::to_string(data.n) +
         " (the number of train points)");
  if (static_cast<std::int64_t>(data.truth.size()) != data.q * data.truth_k)
    fail("ground truth holds " + std::to_string(data.truth.size()) + " indices, expected q x K = " +
         std::to_string(data.q) + " x " + std::to_string(data.truth_k));
  for (std::size_t i = 0; i < data.truth.size(); ++i)
    if (data.truth[i] < 0 || data.truth[i] >= data.n)
      fail("ground-truth neighbour [" + std::to_string(i / data.truth_k) + "," +
           std::to_string(i % data.truth_k) + "] = " + std::to_string(data.truth[i]) +
           " is not a train index (0.." + std::to_string(data.n - 1) + ")");
  for (std::size_t i = 0; i < data.train.size(); ++i)
    if (!std::isfinite(data.train[i])) fail("train value " + std::to_string(i) + " is not finite");
  for (std::size_t i = 0; i < data.queries.size(); ++i)
    if (!std::isfinite(data.queries[i])) fail("query value " + std::to_string(i) + " is not finite");
}

Dataset load_dataset(const std::string& path, std::optional<std::int64_t> queries, int k) {
  tcemu::app::io::Reader file(path);
  auto fail = [&](const std::string& problem) { throw tcemu::InvalidArgument(path + ": " + problem); };

  if (const auto metric = file.string_attribute("/", "distance"); metric && *metric != "euclidean")
    fail("attribute distance is \"" + *metric + "\"; knn supports only \"euclidean\"");

  // Shape rules first, from the metadata, so that a bad --k or --queries fails before the big reads.
  auto check_shapes = [&](std::int64_t n, std::int64_t d_train, std::int64_t q_all, std::int64_t d_test) {
    if (d_train != d_test)
      fail("/train has " + std::to_string(d_train) + " dimensions but /test has " + std::to_string(d_test));
    if (k < 1 || k > n)
      fail("--k " + std::to_string(k) + " must be in 1.." + std::to_string(n) + " (the rows of /train)");
    if (queries && (*queries < 1 || *queries > q_all))
      fail("--queries " + std::to_string(*queries) + " must be in 1.." + std::to_string(q_all) +
           " (the rows of /test)");
  };
  const auto train_info = file.info("/train");
  const auto test_info = file.info("/test");
  if (train_info.shape.size() == 2 && test_info.shape.size() == 2)
    check_shapes(train_info.shape[0], train_info.shape[1], test_info.shape[0], test_info.shape[1]);

  auto train = file.read<float>("/train", 2);
  auto test = file.read<float>("/test", 2);
  check_shapes(train.rows(), train.cols(), test.rows(), test.cols());
  tcemu::app::io::require_finite(train, path, "/train");

  Dataset data;
  data.path = path;
  data.n = train.rows();
  data.d = train.cols();
  data.q = queries ? *queries : test.rows();
  data.train = std::move(train.data);
  test.data.resize(static_cast<std::size_t>(data.q * data.d));
  test.shape[0] = data.q;
  tcemu::app::io::require_finite(test, path, "/test");
  data.queries = std::move(test.data);

  if (file.has_dataset("/neighbors")) {
    auto truth = file.read<std::int32_t>("/neighbors", 2);
    if (truth.rows() < data.q)
      fail("/neighbors has " + std::to_string(truth.rows()) + " rows, fewer than the " +
           std::to_string(data.q) + " queries");
    data.truth_k = truth.cols();
    truth.data.resize(static_cast<std::size_t>(data.q * data.truth_k));
    data.truth = std::move(truth.data);
  }
  validate(data, k, path);
  return data;
}

}  // namespace knn
