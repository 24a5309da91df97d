#pragma once
/// \file paths.hpp
/// Input and output paths checked before any work, so that a bad path fails in a second, not after
/// an hour of computation, and no input is ever overwritten.
#include <string>
#include <vector>

namespace tcemu::app {

/// Throws tcemu::IoError "<path>: <problem>" unless `path` is an existing, readable regular file
/// (directories, FIFOs, devices and sockets are refused: a FIFO would block, a directory would read
/// as empty). Same rule as tcemu::app::io::require_regular_file, plus a read-permission check.
void require_input_file(const std::string& path);

/// Checks an output path before any work. Throws tcemu::InvalidArgument naming `option` when
/// `path` is empty, and tcemu::IoError "<path>: <problem>" when its directory does not exist or is
/// not writable, when `path` exists and is not a regular file, or when it is the same file as one of
/// `inputs` (compared by device and inode, so hard links, symbolic links and "./x" spellings are
/// caught; inputs that do not exist are skipped).
void require_output_file(const std::string& option, const std::string& path, const std::vector<std::string>& inputs);

}  // namespace tcemu::app
