// libFuzzer target: qsim's OpenQASM 2.0 reader (qsim::parse_qasm) on arbitrary text.
//
// Expected outcome for bad input: tcemu::Error (InvalidArgument "<file>:<line>: ..." or IoError for a
// missing include). Anything else -- a crash, a sanitizer report, an exception of another type
// (std::bad_alloc, std::out_of_range, ...), a timeout or running out of memory -- is a finding.
//
// Includes must not escape: `include "x"` is resolved relative to the including file, which the
// harness names inside its own empty scratch directory, so a relative include finds nothing (an
// IoError, exercised). Inputs that contain a possible string token with a '/' (an absolute path, or a
// relative one leaving the directory) are skipped, so the fuzzer never reads arbitrary files such
// as /dev/zero or ~/.ssh. Strings have no escapes in the lexer (qasm_lexer.cpp): a string token runs
// from a '"' to the next '"' on the same line, so scanning from every '"' covers every token the
// lexer can see, whatever precedes it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "qsim/qasm.hpp"
#include "tcemu/error.hpp"

namespace {

bool may_escape(const std::string& s) {
  for (std::size_t i = s.find('"'); i != std::string::npos; i = s.find('"', i + 1)) {
    for (std::size_t j = i + 1; j < s.size() && s[j] != '"' && s[j] != '\n'; ++j)
      if (s[j] == '/' || s[j] == '\\') return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string source(reinterpret_cast<const char*>(data), size);
  if (may_escape(source)) return 0;
  static const std::string file = tcemu_fuzz::scratch_dir() + "/fuzz.qasm";  // never written
  try {
    const qsim::Circuit c = qsim::parse_qasm(source, file);
    (void)c;
  } catch (const tcemu::Error& e) {
    tcemu_fuzz::expected_error(e);
  }
  return 0;
}
