// File-system rules shared by every reader and writer (see app_common/io/files.hpp).
#include "app_common/io/files.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tcemu/error.hpp"

namespace tcemu::app::io {
namespace {

constexpr int kMaxTemporaries = 64;
constexpr std::size_t kMaxTemporaryPath = 4096;

/// Fixed storage the signal handler can read without allocating: a slot is published by setting
/// its flag after the path is written, and withdrawn by clearing the flag first.
struct TemporarySlot {
  std::atomic<bool> reserved{false};  ///< owned by a caller of track_temporary
  std::atomic<bool> ready{false};     ///< path written; the handler may unlink it
  char path[kMaxTemporaryPath] = {};
};
TemporarySlot g_slots[kMaxTemporaries];

extern "C" void remove_temporaries_and_exit(int sig) {
  for (auto& slot : g_slots)
    if (slot.ready.load()) ::unlink(slot.path);
  ::_exit(128 + sig);
}

}  // namespace

const char* file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

void require_regular_file(const std::string& path) {
  if (path.empty()) throw IoError("(empty file name): cannot open: no such file");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw IoError(path + ": cannot open: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw IoError(path + ": cannot open: is " + file_kind(st.st_mode) + ", not a regular file");
}

std::string read_text_file(const std::string& path, std::uint64_t max_bytes) {
  require_regular_file(path);
  struct stat st {};
  ::stat(path.c_str(), &st);
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw IoError(path + ": is " + std::to_string(st.st_size) + " bytes, more than the limit of " +
                  std::to_string(max_bytes) + " bytes");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw IoError(path + ": cannot open: " + std::strerror(errno));
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size));
  f.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(f.gcount()));
  // The file may have grown since stat: one more byte tells.
  if (f.peek() != std::char_traits<char>::eof())
    throw IoError(path + ": grew while being read (more than the limit of " + std::to_string(max_bytes) + " bytes?)");
  return text;
}

int track_temporary(const std::string& path) {
  if (path.size() >= kMaxTemporaryPath) throw IoError(path + ": path too long for a temporary file");
  for (int i = 0; i < kMaxTemporaries; ++i) {
    bool expected = false;
    if (!g_slots[i].reserved.compare_exchange_strong(expected, true)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].ready.store(true);
    return i;
  }
  throw IoError(path + ": too many temporary files open at once");
}

void forget_temporary(int slot) {
  if (slot < 0 || slot >= kMaxTemporaries) return;
  g_slots[slot].ready.store(false);
  g_slots[slot].reserved.store(false);
}

void remove_temporaries_on_signals() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_handler = remove_temporaries_and_exit;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace tcemu::app::io
