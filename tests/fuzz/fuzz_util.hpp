#pragma once
/// \file fuzz_util.hpp
/// Shared by the libFuzzer targets: a per-process scratch directory for inputs that must be files
/// (the HDF5 library reads paths, not buffers), removed at exit.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace tcemu_fuzz {

/// "<base>/tcemu-fuzz-<pid>", created on first use; base is $TCEMU_FUZZ_TMPDIR, else /dev/shm when it
/// is a writable directory (no disk traffic per execution), else $TMPDIR, else /tmp.
inline const std::string& scratch_dir() {
  // Never destroyed (the atexit handler runs after static destructors would have run).
  static const std::string* const dir = [] {
    std::string base;
    if (const char* e = std::getenv("TCEMU_FUZZ_TMPDIR"); e && *e) base = e;
    else if (access("/dev/shm", W_OK | X_OK) == 0) base = "/dev/shm";
    else if (const char* t = std::getenv("TMPDIR"); t && *t) base = t;
    else base = "/tmp";
    auto* d = new std::string(base + "/tcemu-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return d;
  }();
  return *dir;
}

/// Writes the fuzz input to `<scratch>/<name>` and returns the path; aborts if it cannot (that is a
/// harness problem, not a finding).
inline std::string write_input(const std::uint8_t* data, std::size_t size, const std::string& name) {
  const std::string path = scratch_dir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

/// The expected outcome for bad input; printed when TCEMU_FUZZ_VERBOSE is set (to see what a seed or a
/// reproducer is rejected for).
inline void expected_error(const std::exception& e) {
  static const bool verbose = std::getenv("TCEMU_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "expected error: %s\n", e.what());
}

inline void remove_input(const std::string& path) { std::remove(path.c_str()); }

}  // namespace tcemu_fuzz
