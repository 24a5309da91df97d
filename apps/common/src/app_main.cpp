// The skeleton of the apps' main() (app_common/app_main.hpp).
#include "app_common/app_main.hpp"

#include <Kokkos_Core.hpp>
#include <iostream>

#include "app_common/cli.hpp"
#include "app_common/kokkos_args.hpp"

namespace tcemu::app {

tcemu::Target CommonOptions::target() const {
  return naming_option("--target", [&] { return tcemu::parse_target(target_name); });
}

std::vector<tcemu::Scheme> CommonOptions::schemes() const {
  const tcemu::Target t = target();
  return naming_option("--scheme", [&] { return tcemu::parse_scheme_list(scheme_list, t); });
}

Device CommonOptions::device(GpuPath path) const {
  const Device d = naming_option("--device", [&] { return resolve_device(parse_device(device_name), path); });
  if (d == Device::cuda) prepare_gpu_cost_model();
  return d;
}

void add_common_options(CLI::App& app, CommonOptions& options, bool with_quiet) {
  app.add_option("-s,--scheme", options.scheme_list,
                 "comma-separated tcemu schemes, 'all' or 'auto' (see --list-schemes)")
      ->capture_default_str();
  app.add_option("--target", options.target_name,
                 "accuracy target of int8-ozaki and auto: fp32 | fp64 (fp64-target schemes compute in double)")
      ->capture_default_str();
  app.add_option("--device", options.device_name,
                 "host | cuda | auto (cuda when built with the CUDA backend and a GPU is present)")
      ->capture_default_str();
  app.add_flag("--json", options.json, "print one JSON object on stdout instead of the table");
  if (with_quiet) app.add_flag("-q,--quiet", options.quiet, "no progress lines on stderr");
  app.add_flag("--list-schemes", options.list_schemes, "print the scheme catalogue for --target and exit");
}

CommandLine::CommandLine(const std::string& name, const std::string& description, const std::string& footer)
    : app(description, name) {
  app.footer(footer);
  app.get_formatter()->column_width(30);
}

int CommandLine::run(int argc, char** argv, const std::function<int()>& body, bool with_quiet) {
  add_common_options(app, common, with_quiet);
  return run_app(app, common, argc, argv, body);
}

int run_app(CLI::App& app, const CommonOptions& common, int argc, char** argv, const std::function<int()>& body) {
  // Kokkos' own options (--kokkos-threads=N, ...) go to Kokkos, everything else to CLI11; Kokkos is
  // started after parsing so that --help shows the app's help only.
  SplitArgs args = split_kokkos_args(argc, argv);
  if (auto status = parse_arguments(app, args.app_argc(), args.app.data())) return *status;
  int kokkos_argc = args.kokkos_argc();
  Kokkos::ScopeGuard kokkos(kokkos_argc, args.kokkos.data());
  return run_guarded(app.get_name(), [&]() -> int {
    if (common.list_schemes) {
      std::cout << tcemu::catalogue_table(common.target()) << std::flush;
      return kExitOk;
    }
    return body();
  });
}

}  // namespace tcemu::app
