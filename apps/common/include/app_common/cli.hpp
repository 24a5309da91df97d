#pragma once
/// \file cli.hpp
/// The command-line skeleton every app shares: one option-error handler, one error-line format
/// ("<app>: error: <file or option>: <problem>", exit status 2), validators whose messages name the
/// option and the rule, and one place that turns exceptions into that line.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tcemu/error.hpp"

namespace tcemu::app {

/// Exit status of a run that completed.
constexpr int kExitOk = 0;
/// Exit status of every bad-input error (bad option, bad file, resource limit).
constexpr int kExitBadInput = 2;
/// Exit status after SIGINT (128 + 2) and SIGTERM (128 + 15), temporary outputs removed.
constexpr int kExitSigint = 130;
constexpr int kExitSigterm = 143;

/// Prints "<app>: error: <message>" on one line of stderr; control characters in `message` are
/// escaped (tcemu::app::escape_control), so a name read from a file cannot forge a second line.
void print_error(std::string_view app, std::string_view message);

/// Parses `argv` (Kokkos' options already removed) with `app`. Returns std::nullopt when the run
/// should go on, or the exit status to return at once: 0 after --help (printed on stdout), 2 after any
/// parse error (one error line naming the option; never CLI11's own codes 100-120 or its two-line
/// "Run with --help" text).
std::optional<int> parse_arguments(CLI::App& app, int argc, char** argv);

/// What a bad_alloc or an unexpected exception is reported against when it does not name a file or
/// option itself (e.g. the input path, or "--n 100000"). Set by the app as soon as it is known.
void set_error_context(std::string context);

/// Runs `body` and returns its exit status. Installs the SIGINT/SIGTERM handlers that remove
/// temporary outputs (tcemu::app::io::remove_temporaries_on_signals) and reads the TCEMU_* environment
/// variables (execution_policy_from_environment, app_common/environment.hpp) first. Any exception becomes one
/// error line and exit status 2: tcemu::Error prints its message (which names its file or option),
/// other std::exceptions print theirs prefixed with the error context, std::bad_alloc prints
/// "<context>: out of memory".
int run_guarded(std::string_view app, const std::function<int()>& body);

/// Runs `parse` (an option value's parser, e.g. tcemu::parse_scheme_list) and puts `option` in front
/// of the message of any tcemu::Error it throws that does not already name an option
/// ("unknown scheme 'x'" -> "--scheme: unknown scheme 'x'"); returns what `parse` returns.
template <class F>
auto naming_option(const std::string& option, F&& parse) {
  try {
    return parse();
  } catch (const tcemu::Error& e) {
    const std::string message = e.what();
    if (message.rfind("--", 0) == 0) throw;
    throw tcemu::InvalidArgument(option + ": " + message);
  }
}

/// Option validators whose failures read "--opt: <value> is <rule>" and that reject NaN and Inf
/// (CLI11's PositiveNumber and NonNegativeNumber accept "nan" and print DBL_MAX in 309 digits).
/// `positive`: a finite number > 0; `non_negative`: a finite number >= 0.
CLI::Validator positive();
CLI::Validator non_negative();
/// A decimal integer in [lo, hi] ("1e3", "2.0" and out-of-range values are refused with a message
/// naming the option, the value and the range in full digits).
CLI::Validator integer_in(std::int64_t lo, std::int64_t hi);
/// A decimal integer in [0, 2^64 - 1] (seeds): a sign, a fraction or a value past 2^64 - 1 is refused
/// (CLI11 alone wraps or saturates such values silently).
CLI::Validator unsigned_64();

}  // namespace tcemu::app
