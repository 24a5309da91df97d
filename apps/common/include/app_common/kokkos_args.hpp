#pragma once
/// \file kokkos_args.hpp
/// Kokkos' own options (--kokkos-*) split from an app's, so that each parser sees only its own.
#include <string>
#include <vector>

namespace tcemu::app {

/// argv split into Kokkos' own options (--kokkos-*) and the application's, both starting with
/// argv[0]: the app's CLI11 parser never sees Kokkos options, and Kokkos can be initialised after
/// parsing, so that --help prints only the app's help.
struct SplitArgs {
  std::vector<char*> kokkos;
  std::vector<char*> app;
  int kokkos_argc() const { return static_cast<int>(kokkos.size()); }
  int app_argc() const { return static_cast<int>(app.size()); }
};

/// See SplitArgs. The pointers refer to the strings of `argv`.
inline SplitArgs split_kokkos_args(int argc, char** argv) {
  SplitArgs s;
  s.kokkos.push_back(argv[0]);
  s.app.push_back(argv[0]);
  for (int i = 1; i < argc; ++i)
    (std::string(argv[i]).rfind("--kokkos-", 0) == 0 ? s.kokkos : s.app).push_back(argv[i]);
  return s;
}

}  // namespace tcemu::app
