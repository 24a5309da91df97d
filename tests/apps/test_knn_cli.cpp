// The knn executable: every bad-input error (one line, exit 2, no output file), --json, --output.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>  // KOKKOS_ENABLE_CUDA

#include "cli_expect.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "../io/temp_dir.hpp"
#include "knn_fixtures.hpp"
#include "knn/quality.hpp"
#include "app_common/io/hdf5.hpp"
#include "tcemu/scheme.hpp"

namespace {

using knn_test::FileSpec;
using knn_test::run_knn;
using tcemu::testing::TempDir;

constexpr std::int64_t kTrain = 300, kQueries = 20, kDims = 16;

class KnnCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(knn_test::knn_executable())) << knn_test::knn_executable();
    data_ = knn_test::random_dataset(kTrain, kQueries, kDims, 7u);
  }
  std::string make_file(const std::string& name, const FileSpec& spec = {}) {
    const std::string path = dir_.file(name);
    knn_test::write_ann_file(path, data_, spec);
    return path;
  }
  /// Runs knn, expects exit status 2, one stderr line "knn: error: ..." containing every part,
  /// nothing on stdout, and no output file (nor its temporary) in the scratch directory.
  void expect_error(const std::string& args, const std::vector<std::string>& parts) {
    SCOPED_TRACE(args);
    const std::string out = dir_.file("out.h5");
    const auto before = dir_.entries().size();
    const knn_test::Ran r = run_knn(args + " --output '" + out + "'", dir_.path());
    app_test::expect_cli_error("knn", r, parts, out, before, dir_.entries().size());
  }

  TempDir dir_;
  knn::Dataset data_;
};

TEST_F(KnnCli, MissingFile) {
  const std::string path = dir_.file("absent.h5");
  expect_error("--input '" + path + "'", {path, "cannot open", "No such file"});
}

TEST_F(KnnCli, NotAnHdf5File) {
  const std::string path = dir_.file("text.h5");
  { std::ofstream(path) << "not hdf5\n"; }
  expect_error("--input '" + path + "'", {path, "not an HDF5 file"});
}

TEST_F(KnnCli, MissingTrainOrTest) {
  FileSpec no_train;
  no_train.train = false;
  const std::string a = make_file("no-train.h5", no_train);
  expect_error("--input '" + a + "'", {a, "dataset /train", "not found"});
  FileSpec no_test;
  no_test.test = false;
  const std::string b = make_file("no-test.h5", no_test);
  expect_error("--input '" + b + "'", {b, "dataset /test", "not found"});
}

TEST_F(KnnCli, DimensionMismatch) {
  FileSpec spec;
  spec.test_d_delta = 1;
  const std::string path = make_file("mismatch.h5", spec);
  expect_error("--input '" + path + "'", {path, "/train has 16 dimensions but /test has 17"});
}

TEST_F(KnnCli, KOutOfRange) {
  const std::string path = make_file("good.h5");
  expect_error("--input '" + path + "' --k 0", {path, "--k 0", "1..300"});
  expect_error("--input '" + path + "' --k 301", {path, "--k 301", "1..300"});
}

TEST_F(KnnCli, TooManyQueries) {
  const std::string path = make_file("good.h5");
  expect_error("--input '" + path + "' --queries 21", {path, "--queries 21", "1..20", "/test"});
  expect_error("--input '" + path + "' --queries 0", {path, "--queries 0"});
}

TEST_F(KnnCli, NonFiniteValues) {
  FileSpec nan;
  nan.nan_in_train = true;
  const std::string a = make_file("nan.h5", nan);
  expect_error("--input '" + a + "'", {a, "dataset /train", "nan", "NaN/Inf not allowed"});
  FileSpec inf;
  inf.inf_in_test = true;
  const std::string b = make_file("inf.h5", inf);
  expect_error("--input '" + b + "'", {b, "dataset /test", "element [0,1]", "inf"});
}

TEST_F(KnnCli, BadSchemeName) {
  const std::string path = make_file("good.h5");
  expect_error("--input '" + path + "' --scheme fp32,fp17", {"--scheme", "fp17"});
  expect_error("--input '" + path + "' --scheme int8-ozaki:40", {"--scheme", "int8-ozaki:40"});
}

TEST_F(KnnCli, WrongDistanceAttribute) {
  FileSpec spec;
  spec.distance = "angular";
  const std::string path = make_file("angular.h5", spec);
  expect_error("--input '" + path + "'", {path, "distance", "angular", "euclidean"});
}

TEST_F(KnnCli, MissingInputAndUnavailableDevice) {
  expect_error("--scheme fp32", {"--input is required"});
#if !defined(TCEMU_HAVE_CUDA) || !defined(KOKKOS_ENABLE_CUDA)
  // knn's GPU path runs on Kokkos::Cuda: without tcemu's or Kokkos' CUDA backend, one line naming it.
  const std::string path = make_file("good.h5");
  expect_error("--input '" + path + "' --device cuda", {"--device cuda", "no CUDA backend"});
#endif
}

TEST_F(KnnCli, OutputMustNotOverwriteTheInput) {
  const std::string path = make_file("good.h5");
  const auto r = run_knn("--input '" + path + "' --output '" + path + "'", dir_.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("refusing to overwrite an input"), std::string::npos) << r.err;
  EXPECT_NO_THROW(tcemu::app::io::Reader(path).read<float>("/train", 2));  // untouched
}

TEST_F(KnnCli, ExplainPrintsAutosPlan) {
  const std::string path = make_file("good.h5");
  const auto r = run_knn("--input '" + path + "' --scheme auto --explain", dir_.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("plan of the first batch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pick:"), std::string::npos) << r.err;
}

TEST_F(KnnCli, HelpAndListSchemes) {
  const auto help = run_knn("--help", dir_.path());
  EXPECT_EQ(help.status, 0);
  for (const char* s : {"--input", "--scheme", "--target", "--device", "--repeat", "--batch", "--json",
                        "--explain", "--list-schemes", "recall@k", "max_dist_err", "fp16x2", "Examples"})
    EXPECT_NE(help.out.find(s), std::string::npos) << s;
  EXPECT_EQ(help.out.find("kokkos-help"), std::string::npos) << "Kokkos' help leaked into knn --help";

  const auto list = run_knn("--list-schemes", dir_.path());
  EXPECT_EQ(list.status, 0) << list.err;
  for (const auto& s : tcemu::catalogue(tcemu::Target::fp32))
    EXPECT_NE(list.out.find(s.name), std::string::npos) << s.name;
}

TEST_F(KnnCli, JsonHasTheDocumentedShape) {
  const std::string path = make_file("good.h5");
  const auto r = run_knn("--input '" + path + "' --k 5 --queries 10 --scheme fp16x2,fp64 --json", dir_.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << "--json must not print progress: " << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.at("app"), "knn");
  EXPECT_EQ(j.at("input"), path);
  EXPECT_EQ(j.at("queries"), 10);
  EXPECT_EQ(j.at("k"), 5);
  EXPECT_EQ(j.at("ground_truth"), "/neighbors");
  const auto& results = j.at("results");
  ASSERT_TRUE(results.is_array());
  ASSERT_EQ(results.size(), 3u);  // fp32 baseline added first, then fp16x2, fp64
  const std::vector<std::string> names = {"fp32", "fp16x2", "fp64"};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& row = results[i];
    SCOPED_TRACE(names[i]);
    for (const char* key : {"scheme", "used", "time_ms", "speedup", "recall", "max_dist_err"})
      EXPECT_TRUE(row.contains(key)) << key;
    EXPECT_EQ(row.at("scheme"), names[i]);
    EXPECT_EQ(row.at("used"), names[i]);
    EXPECT_TRUE(row.at("time_ms").is_number());
    EXPECT_GT(row.at("time_ms").get<double>(), 0);
    EXPECT_EQ(row.at("recall").get<double>(), 1.0);
    EXPECT_LT(row.at("max_dist_err").get<double>(), 1e-4);
    EXPECT_EQ(row.at("requested").get<bool>(), i != 0);
  }
}

TEST_F(KnnCli, TableAndOutputFile) {
  const std::string path = make_file("good.h5");
  const std::string out = dir_.file("result.h5");
  const auto r = run_knn("--input '" + path + "' --k 4 --scheme fp32,bf16x3 --batch 6 --repeat 3 --output '" + out + "'",
                         dir_.path());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s : {"scheme", "used", "time_ms", "speedup_vs_fp32", "recall@4", "max_dist_err", "note",
                        "bf16x3", "baseline", "median of 3 runs"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " not in:\n" << r.out;
  EXPECT_NE(r.err.find("batch 4/4"), std::string::npos) << r.err;  // progress on stderr

  tcemu::app::io::Reader rd(out);
  EXPECT_EQ(rd.string_attribute("/", "input"), std::optional<std::string>(path));
  EXPECT_EQ(rd.int_attribute("/", "k"), std::optional<std::int64_t>(4));
  const auto truth = knn_test::brute_force(data_, 4);
  for (const char* scheme : {"fp32", "bf16x3"}) {
    SCOPED_TRACE(scheme);
    const auto nb = rd.read<std::int32_t>(std::string("/") + scheme + "/neighbors", 2);
    EXPECT_EQ(nb.shape, (std::vector<std::int64_t>{kQueries, 4}));
    EXPECT_EQ(nb.data, truth);
    const auto dist = rd.read<float>(std::string("/") + scheme + "/distances", 2);
    ASSERT_EQ(dist.data.size(), truth.size());
    for (std::size_t e = 0; e < truth.size(); ++e) {
      const double exact = std::sqrt(knn::exact_sq_distance(data_, static_cast<std::int64_t>(e / 4), truth[e]));
      EXPECT_NEAR(dist.data[e], exact, 1e-5 * exact) << e;
    }
    EXPECT_EQ(rd.string_attribute(std::string("/") + scheme, "used"), std::optional<std::string>(scheme));
  }
  EXPECT_FALSE(rd.has_dataset("/fp64/neighbors"));
}

}  // namespace
