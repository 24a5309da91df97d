#pragma once
/// \file text.hpp
/// Making text from files and options safe to print on one terminal line.
#include <string>
#include <string_view>

namespace tcemu::app {

/// `text` with every control character (bytes 0x00-0x1f and 0x7f) written as a C escape ("\n", "\t",
/// "\x1b", ...) and backslashes doubled, so that a name read from a file can never start a second
/// line or move the terminal's cursor. Other bytes (UTF-8 included) are kept. Texts longer than
/// `max_length` bytes are cut there and end in "...".
std::string escape_control(std::string_view text, std::size_t max_length = 512);

/// `value` in the shortest decimal form that reads back to the same double ("1e-06", "0.5"); used
/// for limits and tolerances in messages, where "%f" would print 1e-7 as "0.000000".
std::string format_number(double value);

}  // namespace tcemu::app
