// kmeans: Lloyd's k-means with every tcemu scheme side by side (time, iterations, inertia, agreement
// with the FP64 run and with reference labels). See `kmeans --help`.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app_common/environment.hpp"
#include "agreement.hpp"
#include "dataset.hpp"
#include "init.hpp"
#include "lloyd.hpp"
#include "report.hpp"
#include "app_common/app_main.hpp"
#include "app_common/cli.hpp"
#include "app_common/device.hpp"
#include "app_common/paths.hpp"
#include "app_common/sweep.hpp"
#include "tcemu/error.hpp"
#include "app_common/io/hdf5.hpp"
#include "tcemu/scheme.hpp"

namespace {

const char* kDescription =
    "kmeans - Lloyd's k-means clustering with tcemu's emulated GEMMs.\n"
    "\n"
    "Each iteration assigns every point to the nearest centroid, with the squared distances\n"
    "||x||^2 + ||c||^2 - 2 x.c and x.c from one GEMM (points x centroids^T) computed with the scheme,\n"
    "then moves each centroid to the mean of its points (FP64). All schemes start from the same\n"
    "seeded centroids (k-means++ by default, computed once in FP64), so their results are comparable:\n"
    "the fp64 run is the reference, fp32 the speed baseline. Inertia is computed directly in FP64.\n";

const char* kFooter =
    "\nInput: /data n x d float32, optional /labels n int32, optional /init_centroids k x d float32.\n"
    "\nMetrics (one row per scheme):\n"
    "  time_ms        wall clock of the Lloyd iterations (init excluded); ms/iter per iteration\n"
    "  iters          assignment steps until |inertia_prev - inertia| <= tol * inertia (or max-iter)\n"
    "  inertia        sum of squared distances of the points to their centroids, FP64\n"
    "  d_inertia      |inertia - inertia_fp64| / inertia_fp64\n"
    "  agree, ari     share of points with fp64's cluster index; adjusted Rand index vs fp64\n"
    "  ari_labels     adjusted Rand index vs /labels (when the file has them)\n"
    "  rechecks       assignments decided by the exact FP64 near-tie re-check (--recheck-margin)\n"
    "\nOutput (--output O.h5, written to a temporary name and renamed on success): per scheme\n"
    "/<scheme>/centroids (k x d float32), /<scheme>/assignments (n int32), /<scheme>/inertia (per iteration).\n"
    "\nErrors print one line 'kmeans: error: <file or option>: <problem>' and exit with status 2.\n"
    "\nExamples:\n"
    "  kmeans --input data/fashion-mnist-kmeans.h5 --k 10 --scheme all\n"
    "  kmeans --input F.h5 --k 256 --scheme fp32,fp16x2,bf16x3 --max-iter 50 --json\n";

}  // namespace

int main(int argc, char** argv) {
  tcemu::app::CommandLine cli("kmeans", kDescription, kFooter);
  std::string input, output, init_name = "kmeans++";
  // The Lloyd options are bound to the command line directly (LloydOptions' defaults are the CLI's).
  kmeans::LloydOptions lopt;
  std::int64_t& k = lopt.k;
  std::uint64_t seed = 1;
  int replicate = 1;
  double noise = 0.0;
  cli.app.add_option("-i,--input", input, "HDF5 file with /data (n x d float32) (required)");
  cli.app.add_option("-o,--output", output, "HDF5 file for centroids, assignments and inertia per scheme");
  cli.app.add_option("-k,--k", k, "number of clusters, 1 <= k <= n (required)");
  cli.app.add_option("--max-iter", lopt.max_iter, "maximum Lloyd iterations")->check(tcemu::app::positive());
  cli.app.add_option("--tol", lopt.tol, "stop when the relative inertia change is <= tol")->check(tcemu::app::non_negative());
  cli.app.add_option("--seed", seed, "seed of the initialisation (same for every scheme)")->check(tcemu::app::unsigned_64());
  cli.app.add_option("--init", init_name, "kmeans++ | random | file (/init_centroids)");
  cli.app.add_option("--replicate", replicate, "use the data R times (scaled-up studies: Fashion-MNIST x 10 = 700,000 points)")
      ->check(tcemu::app::positive());
  cli.app.add_option("--noise", noise, "std. deviation of seeded Gaussian noise added to every copy after the first")
      ->check(tcemu::app::non_negative());
  cli.app.add_option("--recheck-margin", lopt.recheck_margin,
                 "re-decide near-ties with exact FP64 distances: centroids within margin*(|x|^2+|c|^2) of the "
                 "best (default 2^-16; 0 = pure GEMM assignment)")
      ->check(tcemu::app::non_negative());
  return cli.run(argc, argv, [&]() -> int {
    (void)cli.common.target();  // a bad --target is the first error reported, before the inputs' checks
    if (input.empty()) throw tcemu::InvalidArgument("--input is required (see kmeans --help)");
    if (cli.app.count("--k") == 0) throw tcemu::InvalidArgument("--k is required (see kmeans --help)");
    if (k < 1) throw tcemu::InvalidArgument("--k " + std::to_string(k) + " must be >= 1");
    tcemu::app::set_error_context(input);
    tcemu::app::require_input_file(input);
    if (cli.app.count("--output")) tcemu::app::require_output_file("--output", output, {input});
    const tcemu::app::Device device = cli.common.device(tcemu::app::GpuPath::kokkos_cuda);
    const auto init = kmeans::parse_init(init_name);
    const auto schemes = cli.common.schemes();
    const auto data = replicate > 1 ? kmeans::replicate(kmeans::load_dataset(input), replicate, noise, seed)
                                    : kmeans::load_dataset(input);
    kmeans::validate_k(data, k, init == kmeans::Init::file, input);
    // Opened before the iterations: a bad path fails at once, and the Writer removes its temporary
    // file if anything below throws or a signal arrives.
    std::unique_ptr<tcemu::app::io::Writer> out;
    if (!output.empty()) out = std::make_unique<tcemu::app::io::Writer>(output);
    const auto centroids0 = kmeans::initial_centroids(data, k, init, seed);

    lopt.device = device;
    // fp64 is the reference and fp32 the speed baseline: run them first, once, whatever the list.
    const auto order = tcemu::app::sweep_order(
        schemes, {{tcemu::parse_scheme("fp64"), "reference"}, {tcemu::parse_scheme("fp32"), "baseline"}});
    std::vector<kmeans::Row> rows;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto& s = order[i].scheme;
      const tcemu::GemmOptions gopt = tcemu::app::gemm_options(s);
      auto progress = [&](int it, double inertia, double rel) {
        if (!cli.common.quiet && !cli.common.json)
          std::fprintf(stderr, "kmeans: [%zu/%zu] %-16s iter %3d  inertia %.9e  rel change %.2e\n", i + 1,
                       order.size(), s.name.c_str(), it, inertia, rel);
      };
      kmeans::Row row;
      row.scheme = s.name;
      const bool fp64 = s.target == tcemu::Target::fp64;
      row.result = fp64 ? kmeans::lloyd<double>(data, centroids0, gopt, lopt, progress)
                        : kmeans::lloyd<float>(data, centroids0, gopt, lopt, progress);
      row.used = row.result.gemm.used_names();
      row.note = row.result.gemm.first_note;
      rows.push_back(std::move(row));
    }
    // Every row is either a requested scheme or one of the two references the sweep opens with.
    const kmeans::Row& fp64 = rows[0];
    const kmeans::Row* fp32 = &rows[1];
    if (out) {
      for (const auto& r : rows) {
        std::vector<float> c(r.result.centroids.begin(), r.result.centroids.end());
        out->write<float>("/" + r.scheme + "/centroids", c, {k, data.d});
        out->write<std::int32_t>("/" + r.scheme + "/assignments", r.result.assignment, {data.n});
        out->write<double>("/" + r.scheme + "/inertia", r.result.inertia,
                           {static_cast<std::int64_t>(r.result.inertia.size())});
      }
      out->write_string_attribute("/", "input", input);
      out->commit();
    }
    if (cli.common.json) std::printf("%s\n", kmeans::format_json(rows, fp64, fp32, data, k).c_str());
    else kmeans::print_table(rows, fp64, fp32, data);
    return 0;
  });
}
