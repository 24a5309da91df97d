#pragma once
// Running a built app executable from the tests and capturing its output (shared by the app suites).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace app_test {

/// Result of running a command.
struct Ran {
  int status = -1;  ///< exit status
  std::string out, err;
};

/// Whole content of a file ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Path of a built app: $TCEMU_BUILD_DIR/apps/<app>/<app>, or found next to the running test binary
/// (<build>/tests/test_apps).
inline std::string app_executable(const std::string& app) {
  if (const char* b = std::getenv("TCEMU_BUILD_DIR")) return std::string(b) + "/apps/" + app + "/" + app;
  const auto self = std::filesystem::read_symlink("/proc/self/exe");
  return (self.parent_path().parent_path() / "apps" / app / app).string();
}

/// Runs `exe` with `args` (already shell-quoted where needed), capturing stdout/stderr into files of
/// `scratch` that are removed afterwards.
inline Ran run_executable(const std::string& exe, const std::string& args, const std::filesystem::path& scratch) {
  const std::string out = (scratch / "stdout.txt").string(), err = (scratch / "stderr.txt").string();
  const std::string cmd = "'" + exe + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int raw = std::system(cmd.c_str());
  Ran r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

}  // namespace app_test
