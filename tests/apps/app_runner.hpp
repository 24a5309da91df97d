#pragma once
// Running a built app executable from the tests and capturing its output (shared by the app suites).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

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

/// What signal_during_output saw: whether the temporary output appeared, whether the app ended before
/// it did, and the wait(2) status after the signal.
struct Signalled {
  bool temporary_seen = false;
  bool ended_early = false;
  int status = 0;
};

/// Starts `exe` with `args` (no shell; stdout and stderr to /dev/null), waits up to 20 s for a file
/// whose name contains ".tmp" to appear in `dir` (the output's temporary), then sends `sig` and waits
/// for the process to end.
inline Signalled signal_during_output(const std::string& exe, const std::vector<std::string>& args,
                                      const std::filesystem::path& dir, int sig) {
  std::vector<std::string> argv_text = {exe};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  Signalled s;
  const pid_t pid = ::fork();
  if (pid < 0) return s;
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!s.temporary_seen && std::chrono::steady_clock::now() < deadline) {
    for (const auto& e : std::filesystem::directory_iterator(dir))
      s.temporary_seen = s.temporary_seen || e.path().filename().string().find(".tmp") != std::string::npos;
    if (s.temporary_seen) break;
    if (::waitpid(pid, &s.status, WNOHANG) == pid) {
      s.ended_early = true;
      return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, sig);
  while (::waitpid(pid, &s.status, 0) < 0 && errno == EINTR) {
  }
  return s;
}

}  // namespace app_test
