#pragma once
// A uniquely named scratch directory for one test, removed (with its files) when the test ends.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace tcemu::testing {

class TempDir {
 public:
  TempDir() {
    const char* build = std::getenv("TCEMU_BUILD_DIR");
    const std::filesystem::path base =
        build ? std::filesystem::path(build) / "test-tmp" : std::filesystem::temp_directory_path();
    std::filesystem::create_directories(base);
    std::string templ = (base / "tcemu-XXXXXX").string();
    if (!::mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed under " + base.string());
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// Path of a file inside the directory.
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  /// Names of the entries currently in the directory.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename());
    return names;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace tcemu::testing
