#pragma once
/// \file io/files.hpp
/// File-system rules every reader and writer of tcemu follows: inputs must be regular files, text
/// inputs have a size limit, and temporary outputs are removed when the process is interrupted.
#include <sys/types.h>

#include <cstdint>
#include <string>

namespace tcemu::app::io {

/// "a directory", "a FIFO", "a character device", "a block device", "a socket", "a symbolic link",
/// or "a regular file", for a st_mode from stat(2).
const char* file_kind(mode_t mode);

/// Throws IoError "<path>: cannot open: <reason>" when `path` does not exist, and
/// "<path>: cannot open: is a directory|FIFO|..., not a regular file" when it exists but is not a
/// regular file (a FIFO would block the reader forever, a directory would read as empty, /dev/zero
/// would never end). Symbolic links are followed.
void require_regular_file(const std::string& path);

/// The whole content of the regular file `path`. Throws IoError "<path>: ..." when it is not a
/// regular file (require_regular_file), cannot be read, or is larger than `max_bytes`
/// ("<path>: is N bytes, more than the limit of M bytes").
std::string read_text_file(const std::string& path, std::uint64_t max_bytes);

/// Registers a temporary output file for removal when SIGINT or SIGTERM arrives (see
/// remove_temporaries_on_signals); returns a slot to pass to forget_temporary once the file has been
/// renamed or removed. At most 64 temporaries are tracked at once (IoError beyond). Paths longer
/// than 4095 bytes are refused with IoError.
int track_temporary(const std::string& path);
/// Stops tracking the temporary of `slot` (a value from track_temporary; -1 is ignored).
void forget_temporary(int slot);

/// Installs handlers for SIGINT and SIGTERM that unlink every tracked temporary file and end the
/// process with status 128 + signal (130, 143), without running exit-time cleanup (async-signal-safe:
/// unlink and _exit only). Idempotent.
void remove_temporaries_on_signals();

}  // namespace tcemu::app::io
