// knn: exact k-nearest-neighbour search on an ann-benchmarks HDF5 file with every tcemu scheme side by
// side (time, speedup over native FP32, recall@k, distance error). See `knn --help`.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app_common/environment.hpp"
#include "dataset.hpp"
#include "device.hpp"
#include "report.hpp"
#include "run.hpp"
#include "app_common/app_main.hpp"
#include "app_common/cli.hpp"
#include "app_common/paths.hpp"
#include "tcemu/error.hpp"
#include "app_common/io/hdf5.hpp"
#include "tcemu/scheme.hpp"
#if defined(TCEMU_HAVE_CUDA)
#include "tcemu/cuda/calibrate.hpp"
#endif

namespace {

const char* kDescription =
    "knn - exact k-nearest-neighbour search (squared Euclidean distance) with tcemu's emulated GEMMs.\n"
    "\n"
    "For every scheme, the squared distances of a batch of queries x to all train points y are\n"
    "||x||^2 + ||y||^2 - 2 x.y, where x.y is one GEMM (queries x train^T) computed with that scheme;\n"
    "an exact top-k (ties to the smaller train index) follows. Schemes with target fp64 run in double on\n"
    "double copies of the data, all others in float. Native fp32 always runs as the speedup baseline.\n";

std::string footer() {
  std::string s =
      "\nInput (ann-benchmarks layout): /train n x d float32, /test q x d float32, optional /neighbors\n"
      "q x K int32 (ground truth), optional root attribute distance = \"euclidean\".\n"
      "\nSchemes (--list-schemes prints ranges, products and split rules):\n";
  for (const auto& sc : tcemu::catalogue(tcemu::Target::fp32)) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-16s %s\n", sc.name.c_str(), sc.source.c_str());
    s += line;
  }
  s +=
      "  int8-ozaki:<s>   Ozaki INT8 with a fixed number s of slices (1..18)\n"
      "  int8-mixpert:<L> MixPert level L = 1..4 (I-IV: 2x2, 2x3, 3x2, 3x3 INT8 segments; default IV)\n"
      "  all              every scheme above; auto picks per GEMM call for --target\n"
      "\nMetrics (one table row per scheme):\n"
      "  time_ms          wall clock of the whole search (norms, GEMMs, top-k), median of --repeat runs,\n"
      "                   after one untimed warm-up search of the first batch; excludes reading the\n"
      "                   file and making the double copies for fp64-target schemes\n"
      "  speedup_vs_fp32  fp32 time / this scheme's time\n"
      "  recall@k         share of returned neighbours whose exact distance (direct FP64 sum of\n"
      "                   (x_i - y_i)^2) is <= that of the k-th true neighbour: /neighbors, or the fp64\n"
      "                   run when the file has none (ties never count as misses)\n"
      "  max_dist_err     max over returned neighbours of |d - d_exact| / d_exact, squared distances\n"
      "  used / note      the scheme the GEMM really ran (auto's pick, or native after a range fallback)\n"
      "\nErrors print one line 'knn: error: <file or option>: <problem>' and exit with status 2;\n"
      "no output file is created then.\n"
      "\nExamples:\n"
      "  knn --input data/fashion-mnist-784-euclidean.h5 --queries 1000 --k 10 --scheme all\n"
      "  knn --input F.h5 --scheme fp32,fp16x2,bf16x3,auto --repeat 5 --json\n"
      "  knn --input F.h5 --scheme int8-ozaki,auto --target fp64 --explain --output out.h5\n"
      "  knn --list-schemes --target fp64\n";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  tcemu::app::CommandLine cli("knn", kDescription, footer());
  std::string input, output;
  std::int64_t queries = 0, batch = 1024;
  int k = 10, repeat = 1;
  bool explain = false;
  cli.app.add_option("-i,--input", input, "HDF5 file in the ann-benchmarks layout (required unless --list-schemes)");
  cli.app.add_option("-o,--output", output,
                 "write /<scheme>/neighbors (q x k int32) and /<scheme>/distances (q x k float32,\n"
                 "Euclidean) for every scheme; written to a temporary name, renamed when complete");
  // Integers only here (no wrapped or saturated values); the ranges, which depend on the file, are
  // checked with the file's sizes in the message (knn::load_dataset).
  cli.app.add_option("-q,--queries", queries, "use the first N rows of /test as queries (default: all)")
      ->check(tcemu::app::integer_in(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()));
  cli.app.add_option("-k,--k", k, "neighbours per query, 1..n")
      ->check(tcemu::app::integer_in(std::numeric_limits<int>::min(), std::numeric_limits<int>::max()))
      ->capture_default_str();
  cli.app.add_option("--repeat", repeat, "timed runs per scheme; the table shows the median")
      ->check(tcemu::app::positive())
      ->capture_default_str();
  cli.app.add_option("--batch", batch, "queries per distance GEMM; memory is about batch x n values")
      ->check(tcemu::app::positive())
      ->capture_default_str();
  cli.app.add_flag("--explain", explain, "print auto's plan (profiles, candidates, pick) of its first batch to stderr");
  bool recalibrate = false;
  cli.app.add_flag("--recalibrate", recalibrate,
               "GPU: measure auto's cost model on this GPU again (a few seconds), rewrite its cache file\n"
               "and print it to stderr before the search (otherwise cached, measured on first use)");
  return cli.run(argc, argv, [&]() -> int {
    const tcemu::Target target = cli.common.target();
    if (input.empty()) throw tcemu::InvalidArgument("--input is required (see knn --help)");
    tcemu::app::set_error_context(input);
    tcemu::app::require_input_file(input);
    if (cli.app.count("--output")) tcemu::app::require_output_file("--output", output, {input});
    const auto schemes = cli.common.schemes();
    const knn::Device device = cli.common.device(tcemu::app::GpuPath::kokkos_cuda);
    const knn::Dataset data =
        knn::load_dataset(input, cli.app.count("--queries") ? std::optional<std::int64_t>(queries) : std::nullopt, k);
    std::unique_ptr<tcemu::app::io::Writer> writer;
    if (!output.empty()) writer = std::make_unique<tcemu::app::io::Writer>(output);  // fails early, before the work
    // After every check: a note printed before an error line would break the one-line contract.
    if (recalibrate) {
#if defined(TCEMU_HAVE_CUDA)
      if (device == knn::Device::cuda)
        std::cerr << tcemu::cuda::describe_cost_model(tcemu::cuda::calibrated_cost_model(tcemu::app::execution_policy_from_environment(), nullptr, true));
      else
#endif
        std::cerr << "knn: --recalibrate: nothing to measure on the host (its cost model is fixed)" << std::endl;
    }

    knn::RunOptions options;
    options.schemes = schemes;
    options.device = device;
    options.progress = cli.common.json ? nullptr : &std::cerr;  // --json prints nothing but the object
    options.explain = explain ? &std::cerr : nullptr;
    options.k = k;
    options.repeat = repeat;
    options.batch = batch;
    const knn::RunResult result = knn::run(data, options);

    const knn::RunInfo info{input, target, device, repeat};
    if (writer) {
      knn::write_results(*writer, data, result, info);
      writer->commit();
    }
    if (cli.common.json)
      std::cout << knn::format_json(data, result, info) << std::endl;
    else
      std::cout << knn::format_table(data, result, info) << std::flush;
    return 0;
  }, /*with_quiet=*/false);
}
