#include "app_common/paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "tcemu/error.hpp"
#include "app_common/io/files.hpp"

namespace tcemu::app {

void require_input_file(const std::string& path) {
  tcemu::app::io::require_regular_file(path);
  if (::access(path.c_str(), R_OK) != 0) throw IoError(path + ": cannot read: " + std::strerror(errno));
}

void require_output_file(const std::string& option, const std::string& path, const std::vector<std::string>& inputs) {
  if (path.empty()) throw InvalidArgument(option + ": the file name is empty");
  namespace fs = std::filesystem;
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  struct stat dir {};
  if (::stat(parent.c_str(), &dir) != 0)
    throw IoError(path + ": cannot create: directory " + parent.string() + ": " + std::strerror(errno));
  if (!S_ISDIR(dir.st_mode)) throw IoError(path + ": cannot create: " + parent.string() + " is not a directory");
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    throw IoError(path + ": cannot create: directory " + parent.string() + " is not writable");
  struct stat out {};
  if (::stat(path.c_str(), &out) != 0) return;  // a new file
  if (!S_ISREG(out.st_mode))
    throw IoError(path + ": cannot write: exists and is " + tcemu::app::io::file_kind(out.st_mode) +
                  ", not a regular file");
  for (const auto& in : inputs) {
    struct stat st {};
    if (in.empty() || ::stat(in.c_str(), &st) != 0) continue;
    if (st.st_dev == out.st_dev && st.st_ino == out.st_ino)
      throw InvalidArgument(option + ": " + path + " is the input file " + in + "; refusing to overwrite an input");
  }
}

}  // namespace tcemu::app
