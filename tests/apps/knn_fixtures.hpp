#pragma once
// Shared fixtures of the knn tests: seeded random data sets, brute-force FP64 neighbours, HDF5 files
// in the ann-benchmarks layout, running the knn executable, and a small JSON parser.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "app_runner.hpp"
#include "knn/dataset.hpp"
#include "app_common/io/hdf5.hpp"

namespace knn_test {

/// n train points and q queries of d dimensions, uniform in [0, 1), seeded.
inline knn::Dataset random_dataset(std::int64_t n, std::int64_t q, std::int64_t d, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  knn::Dataset data;
  data.n = n;
  data.q = q;
  data.d = d;
  data.train.resize(static_cast<std::size_t>(n * d));
  data.queries.resize(static_cast<std::size_t>(q * d));
  for (auto& v : data.train) v = u(gen);
  for (auto& v : data.queries) v = u(gen);
  return data;
}

/// Brute-force k nearest neighbours in FP64 (direct sum of (x_i - y_i)^2): q x k indices, nearest
/// first, ties to the smaller index. `sq` receives the squared distances when not null.
inline std::vector<std::int32_t> brute_force(const knn::Dataset& data, int k, std::vector<double>* sq = nullptr,
                                             double* min_gap = nullptr) {
  std::vector<std::int32_t> out;
  if (sq) sq->clear();
  double gap = 1e300;
  for (std::int64_t i = 0; i < data.q; ++i) {
    std::vector<double> d2(static_cast<std::size_t>(data.n));
    for (std::int64_t j = 0; j < data.n; ++j) {
      double s = 0;
      for (std::int64_t c = 0; c < data.d; ++c) {
        const double t = double(data.query_row(i)[c]) - double(data.train_row(j)[c]);
        s += t * t;
      }
      d2[j] = s;
    }
    std::vector<std::int32_t> idx(static_cast<std::size_t>(data.n));
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](std::int32_t a, std::int32_t b) {
      return d2[a] < d2[b] || (d2[a] == d2[b] && a < b);
    });
    for (int j = 0; j < k; ++j) {
      out.push_back(idx[j]);
      if (sq) sq->push_back(d2[idx[j]]);
    }
    for (int j = 0; j < k && j + 1 < data.n; ++j)
      gap = std::min(gap, (d2[idx[j + 1]] - d2[idx[j]]) / d2[idx[j + 1]]);
  }
  if (min_gap) *min_gap = gap;
  return out;
}

/// What to put into a test HDF5 file.
struct FileSpec {
  bool train = true, test = true, neighbors = true;
  std::int64_t truth_k = 10;      ///< columns of /neighbors
  std::int64_t test_d_delta = 0;  ///< /test gets d + delta columns (d mismatch when != 0)
  bool nan_in_train = false;
  bool inf_in_test = false;
  std::string distance = "euclidean";  ///< "" = no attribute
};

/// Writes `data` as an ann-benchmarks file (with brute-force /neighbors and /distances).
inline void write_ann_file(const std::string& path, const knn::Dataset& data, const FileSpec& spec = {}) {
  tcemu::app::io::Writer w(path);
  if (spec.train) {
    std::vector<float> train = data.train;
    if (spec.nan_in_train) train[train.size() / 2] = std::numeric_limits<float>::quiet_NaN();
    w.write("/train", train, {data.n, data.d});
  }
  if (spec.test) {
    const std::int64_t d = data.d + spec.test_d_delta;
    std::vector<float> test(static_cast<std::size_t>(data.q * d), 0.5f);
    for (std::int64_t i = 0; i < data.q; ++i)
      for (std::int64_t c = 0; c < std::min(d, data.d); ++c) test[i * d + c] = data.query_row(i)[c];
    if (spec.inf_in_test) test[1] = std::numeric_limits<float>::infinity();
    w.write("/test", test, {data.q, d});
  }
  if (spec.neighbors) {
    std::vector<double> sq;
    const auto nb = brute_force(data, static_cast<int>(spec.truth_k), &sq);
    std::vector<float> dist(sq.size());
    for (std::size_t i = 0; i < sq.size(); ++i) dist[i] = static_cast<float>(std::sqrt(sq[i]));
    w.write("/neighbors", nb, {data.q, spec.truth_k});
    w.write("/distances", dist, {data.q, spec.truth_k});
  }
  if (!spec.distance.empty()) w.write_string_attribute("/", "distance", spec.distance);
  w.commit();
}

using app_test::Ran;
using app_test::slurp;

/// Path of the built knn executable.
inline std::string knn_executable() { return app_test::app_executable("knn"); }

/// Runs the knn executable with `args` (already shell-quoted where needed), capturing stdout/stderr
/// into files of `scratch`.
inline Ran run_knn(const std::string& args, const std::filesystem::path& scratch) {
  return app_test::run_executable(knn_executable(), args, scratch);
}

// ------------------------------------------------------------------------------ a tiny JSON parser

/// A parsed JSON value (enough to check the shape of knn --json).
struct Json {
  enum class Type { null, boolean, number, string, array, object } type = Type::null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;

  bool has(const std::string& key) const { return type == Type::object && obj.count(key); }
  const Json& at(const std::string& key) const { return obj.at(key); }
};

/// Parses one JSON document; throws std::runtime_error on malformed input or trailing garbage.
class JsonParser {
 public:
  static Json parse(const std::string& text) {
    JsonParser p(text);
    Json v = p.value();
    p.ws();
    if (p.i_ != text.size()) throw std::runtime_error("trailing characters at " + std::to_string(p.i_));
    return v;
  }

 private:
  explicit JsonParser(const std::string& t) : t_(t) {}
  void ws() {
    while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) ++i_;
  }
  [[noreturn]] void bad(const std::string& what) {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void expect(char c) {
    ws();
    if (i_ >= t_.size() || t_[i_] != c) bad(std::string("expected '") + c + "'");
    ++i_;
  }
  bool literal(const char* word) {
    const std::string w(word);
    if (t_.compare(i_, w.size(), w) == 0) {
      i_ += w.size();
      return true;
    }
    return false;
  }
  std::string string() {
    expect('"');
    std::string s;
    while (i_ < t_.size() && t_[i_] != '"') {
      if (t_[i_] == '\\') {
        ++i_;
        if (i_ >= t_.size()) bad("unterminated escape");
        const char e = t_[i_];
        if (e == 'u') {
          if (i_ + 4 >= t_.size()) bad("short \\u escape");
          s += static_cast<char>(std::stoi(t_.substr(i_ + 1, 4), nullptr, 16));
          i_ += 4;
        } else {
          s += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        }
      } else {
        if (static_cast<unsigned char>(t_[i_]) < 0x20) bad("control character in string");
        s += t_[i_];
      }
      ++i_;
    }
    if (i_ >= t_.size()) bad("unterminated string");
    ++i_;
    return s;
  }
  Json value() {
    ws();
    if (i_ >= t_.size()) bad("unexpected end");
    Json v;
    const char c = t_[i_];
    if (c == '{') {
      ++i_;
      v.type = Json::Type::object;
      ws();
      if (t_[i_] == '}') return ++i_, v;
      while (true) {
        const std::string key = string();
        expect(':');
        v.obj[key] = value();
        ws();
        if (i_ < t_.size() && t_[i_] == ',') { ++i_; continue; }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      ++i_;
      v.type = Json::Type::array;
      ws();
      if (t_[i_] == ']') return ++i_, v;
      while (true) {
        v.arr.push_back(value());
        ws();
        if (i_ < t_.size() && t_[i_] == ',') { ++i_; continue; }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.type = Json::Type::string;
      v.str = string();
      return v;
    }
    if (literal("true")) { v.type = Json::Type::boolean; v.b = true; return v; }
    if (literal("false")) { v.type = Json::Type::boolean; return v; }
    if (literal("null")) return v;
    const char* begin = t_.c_str() + i_;
    char* end = nullptr;
    v.num = std::strtod(begin, &end);
    if (end == begin) bad("unexpected character");
    i_ += static_cast<std::size_t>(end - begin);
    v.type = Json::Type::number;
    return v;
  }

  const std::string& t_;
  std::size_t i_ = 0;
};

}  // namespace knn_test
