// The apps' --json reports go through one JSON writer (app_common/json.hpp): a string with quotes,
// backslashes and control characters (a file or circuit name, a note) comes back unchanged when the
// report is parsed, and the documented keys are there in the documented order.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hplai/report.hpp"
#include "kmeans/report.hpp"
#include "knn/report.hpp"
#include "qsim/outputs.hpp"
#include "tcemu/scheme.hpp"

namespace {

/// Quotes, backslashes, a newline, a tab, other control characters and a non-ASCII character.
const std::string kAwkward = "we\"ird\\name\n\t\x01\x1f caf\xc3\xa9.h5";

/// Keys of a parsed object in the order they appear in the text.
std::vector<std::string> keys_of(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

/// What `print` writes to a temporary FILE*.
template <class F>
std::string printed(F&& print) {
  std::FILE* f = std::tmpfile();
  print(f);
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  std::fclose(f);
  return text;
}

TEST(AppReports, KnnJsonRoundTripsAwkwardStrings) {
  knn::Dataset data;
  data.q = 2, data.n = 5, data.d = 3;
  knn::RunResult result;
  result.k = 1;
  result.ground_truth = kAwkward;
  knn::SchemeResult row;
  row.scheme = tcemu::parse_scheme("fp32");
  row.used = "fp32";
  row.note = kAwkward;
  row.time_ms = 1.25;
  row.speedup = 1.0;
  result.rows.push_back(row);
  const knn::RunInfo info{kAwkward, tcemu::Target::fp32, knn::Device::host, 1};
  const std::string text = knn::format_json(data, result, info);
  EXPECT_EQ(text.find('\n'), std::string::npos) << "one line";
  const auto j = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(j.at("input"), kAwkward);
  EXPECT_EQ(j.at("ground_truth"), kAwkward);
  EXPECT_EQ(j.at("results").at(0).at("note"), kAwkward);
  EXPECT_EQ(j.at("results").at(0).at("time_ms"), 1.25);
  EXPECT_EQ(keys_of(j), (std::vector<std::string>{"app", "input", "queries", "k", "n", "d", "target", "device",
                                                  "repeat", "ground_truth", "results"}));
}

TEST(AppReports, KmeansJsonRoundTripsAwkwardStrings) {
  kmeans::Dataset data;
  data.path = kAwkward;
  data.n = 3, data.d = 1;
  kmeans::Row row;
  row.scheme = "fp64";
  row.used = kAwkward;  // kmeans wrote scheme and used without escaping before
  row.result.assignment = {0, 0, 1};
  row.result.inertia = {2.0};
  row.result.iterations = 1;
  row.result.seconds = 0.5;
  const std::string text = kmeans::format_json({row}, row, &row, data, 2);
  const auto j = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(j.at("input"), kAwkward);
  EXPECT_EQ(j.at("results").at(0).at("used"), kAwkward);
  EXPECT_TRUE(j.at("results").at(0).at("ari_vs_labels").is_null()) << "no /labels";
  EXPECT_EQ(keys_of(j.at("results").at(0)),
            (std::vector<std::string>{"scheme", "used", "time_ms", "ms_per_iter", "speedup", "iterations", "inertia",
                                      "ari_vs_fp64", "agreement_vs_fp64", "rechecked", "ari_vs_labels"}));
}

TEST(AppReports, HplaiJsonRoundTripsAwkwardStrings) {
  hplai::RunResult res;
  res.n = 4, res.nb = 2;
  res.source = kAwkward;
  res.solver = "gmres";
  res.device = "host";
  hplai::SchemeResult row;
  row.scheme = "fp32";
  row.used = "fp32";
  row.note = kAwkward;
  row.scaled_residual = std::nan("");  // JSON has no NaN: null
  res.rows.push_back(row);
  const auto j = nlohmann::ordered_json::parse(printed([&](std::FILE* f) { hplai::print_json(f, res); }));
  EXPECT_EQ(j.at("source"), kAwkward);
  EXPECT_EQ(j.at("results").at(0).at("note"), kAwkward);
  EXPECT_TRUE(j.at("results").at(0).at("scaled_residual").is_null());
  EXPECT_EQ(j.at("eps").get<double>(), 0x1p-53);
}

TEST(AppReports, QsimJsonRoundTripsAwkwardStrings) {
  qsim::Circuit circuit;
  circuit.name = kAwkward;
  circuit.num_qubits = 1;
  qsim::JobResult job;
  qsim::SchemeRun run;
  run.scheme = tcemu::parse_scheme("fp32");
  run.used = kAwkward;
  run.precision = "complex64";
  run.amplitudes = {{0.5, -0.25}};
  job.runs.push_back(run);
  qsim::ReportContext ctx;
  ctx.circuit = &circuit;
  ctx.bitstrings = {"1"};
  ::testing::internal::CaptureStdout();
  qsim::print_json(job, ctx);
  std::fflush(stdout);
  const auto j = nlohmann::ordered_json::parse(::testing::internal::GetCapturedStdout());
  EXPECT_EQ(j.at("circuit"), kAwkward);
  EXPECT_EQ(j.at("results").at(0).at("used"), kAwkward);
  EXPECT_EQ(j.at("results").at(0).at("amplitudes").at(0).at("im"), -0.25);
}

}  // namespace
