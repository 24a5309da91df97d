#pragma once
/// \file app_main.hpp
/// The skeleton of every app's main(): the options all four share (--scheme, --target, --device,
/// --json, --quiet, --list-schemes), Kokkos' own options split off before CLI11 parses the rest,
/// Kokkos started after parsing (so that --help prints only the app's help), and the body run under
/// run_guarded (one error line, exit status 2; app_common/cli.hpp).
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "app_common/device.hpp"
#include "tcemu/scheme.hpp"

namespace tcemu::app {

/// The options every app offers, as given on the command line; the accessors parse them, each
/// naming its option in errors ("--scheme: unknown scheme 'x'"), when the app's checks reach them.
struct CommonOptions {
  std::string scheme_list = "all";
  std::string target_name = "fp32";
  std::string device_name = "auto";
  bool json = false;          ///< --json: one JSON object on stdout instead of the table
  bool quiet = false;         ///< -q, --quiet: no progress lines on stderr
  bool list_schemes = false;  ///< --list-schemes: the catalogue for --target, then exit

  /// --target parsed (tcemu::parse_target).
  tcemu::Target target() const;
  /// --scheme parsed for target() (tcemu::parse_scheme_list: names, "all" or "auto").
  std::vector<tcemu::Scheme> schemes() const;
  /// --device resolved for an app whose GPU path is `path`: auto becomes cuda when
  /// gpu_available(path), else host; cuda without a GPU or without what `path` needs in this build
  /// throws (resolve_device). For cuda it also loads (or measures) the GPU cost model first
  /// (prepare_gpu_cost_model), so that no calibration falls inside the app's timings.
  Device device(GpuPath path = GpuPath::tcemu_cuda) const;
};

/// Adds --scheme, --target, --device, --json and --list-schemes to `app`, and -q,--quiet when
/// `with_quiet`, bound to `options`.
void add_common_options(CLI::App& app, CommonOptions& options, bool with_quiet = true);

/// An app's command line: a CLI::App with the apps' help layout (description, footer, option names
/// in 30 columns) and the common options, which run() adds after the app's own.
struct CommandLine {
  CommandLine(const std::string& name, const std::string& description, const std::string& footer);
  /// add_common_options (with -q,--quiet when `with_quiet`), then run_app with `body`.
  int run(int argc, char** argv, const std::function<int()>& body, bool with_quiet = true);

  CLI::App app;          ///< the parser; the app adds its own options to it
  CommonOptions common;  ///< the common options as given (parsed by their accessors)
};

/// main() of an app: splits argv into Kokkos' options and the app's, parses the app's with `app`
/// (--help: exit 0; any parse error: one line, exit 2), starts Kokkos with its options, and runs
/// `body` under run_guarded(app.get_name()). --list-schemes prints the catalogue for --target and
/// returns 0 without running `body`. Returns the exit status.
int run_app(CLI::App& app, const CommonOptions& common, int argc, char** argv, const std::function<int()>& body);

}  // namespace tcemu::app
