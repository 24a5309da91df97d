#pragma once
/// \file dataset.hpp
/// Input of the knn app: an ann-benchmarks HDF5 file (docs/architecture.md, "Data formats"), read and validated.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace knn {

/// Train points, queries and (optional) ground truth, all row-major.
struct Dataset {
  std::string path;                    ///< file it came from ("" for data built in memory)
  std::int64_t n = 0;                  ///< train points (rows of /train)
  std::int64_t d = 0;                  ///< dimensions
  std::int64_t q = 0;                  ///< queries in use (the first q rows of /test)
  std::vector<float> train;            ///< n x d
  std::vector<float> queries;          ///< q x d
  /// Columns of the ground truth /neighbors (0 when the file has none); its first k columns are the
  /// indices into /train of each query's k nearest neighbours.
  std::int64_t truth_k = 0;
  std::vector<std::int32_t> truth;     ///< q x truth_k

  /// Row i of the train set / of the queries (d values).
  const float* train_row(std::int64_t i) const { return train.data() + i * d; }
  const float* query_row(std::int64_t i) const { return queries.data() + i * d; }
};

/// Reads an ann-benchmarks file: /train (n x d float32), /test (q_all x d float32), optional
/// /neighbors (q_all x K int32 or int64), root attribute distance = "euclidean" if present.
/// `queries`: the first that many rows of /test are the queries (nullopt: all rows); `k` is the number of
/// neighbours the caller will ask for (validated here against n so that errors name the file).
/// Throws tcemu::IoError (missing file/dataset, wrong rank or type, empty, NaN/Inf) or
/// tcemu::InvalidArgument (d mismatch, k outside 1..n, queries outside 1..q_all, ground-truth indices
/// outside 0..n-1, distance attribute other than "euclidean"), each message starting with the path.
Dataset load_dataset(const std::string& path, std::optional<std::int64_t> queries, int k);

/// Checks the shapes and values of a Dataset built in memory (same rules as load_dataset);
/// throws tcemu::InvalidArgument naming `what` and the problem.
void validate(const Dataset& data, int k, const std::string& what);

}  // namespace knn
