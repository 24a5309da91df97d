#include "app_common/cli.hpp"
#include "app_common/environment.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <iostream>
#include <new>

#include "app_common/text.hpp"
#include "tcemu/error.hpp"
#include "app_common/io/files.hpp"

namespace tcemu::app {
namespace {

std::string& error_context() {
  static std::string context;
  return context;
}

/// Reads an option's value as a double for the validators; CLI11 has already converted it to the
/// option's own type, so a failure here means a non-number reached a numeric option.
bool read_number(const std::string& text, double& value) {
  try {
    std::size_t used = 0;
    value = std::stod(text, &used);
    return used == text.size();
  } catch (const std::exception&) {
    return false;
  }
}

CLI::Validator number_rule(std::string description, std::function<bool(double)> ok, std::string rule) {
  return CLI::Validator(
      [ok = std::move(ok), rule = std::move(rule)](std::string& text) -> std::string {
        double v = 0;
        if (!read_number(text, v)) return "'" + escape_control(text, 64) + "' is not a number";
        if (!std::isfinite(v)) return escape_control(text, 64) + " is not a finite number";
        if (!ok(v)) return escape_control(text, 64) + " is " + rule;
        return {};
      },
      std::move(description));
}

}  // namespace

void print_error(std::string_view app, std::string_view message) {
  std::string line = std::string(app) + ": error: " + escape_control(message, 2048) + "\n";
  std::fflush(stdout);
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

std::optional<int> parse_arguments(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help() << std::flush;
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All) << std::flush;
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    print_error(app.get_name(), e.what());
    return kExitBadInput;
  }
}

void set_error_context(std::string context) { error_context() = std::move(context); }

int run_guarded(std::string_view app, const std::function<int()>& body) {
  tcemu::app::io::remove_temporaries_on_signals();
  const auto with_context = [](const std::string& message) {
    const std::string& ctx = error_context();
    if (ctx.empty() || message.rfind(ctx, 0) == 0) return message;
    return ctx + ": " + message;
  };
  try {
    // The TCEMU_* variables are checked before any work, like the options (a bad value is one error
    // line, never a message after a part of the run).
    execution_policy_from_environment();
    return body();
  } catch (const tcemu::Error& e) {
    print_error(app, e.what());  // tcemu's messages name their file or option themselves
  } catch (const std::bad_alloc&) {
    const std::string& ctx = error_context();
    print_error(app, (ctx.empty() ? std::string("input") : ctx) +
                         ": out of memory (the problem needs more host memory than is available)");
  } catch (const std::exception& e) {
    print_error(app, with_context(e.what()));
  }
  return kExitBadInput;
}

CLI::Validator positive() {
  return number_rule("POSITIVE", [](double v) { return v > 0; }, "not positive");
}

CLI::Validator non_negative() {
  return number_rule("NON-NEGATIVE", [](double v) { return v >= 0; }, "negative");
}

CLI::Validator integer_in(std::int64_t lo, std::int64_t hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0') return "'" + escape_control(text, 64) + "' is not an integer";
        if (errno == ERANGE || v < lo || v > hi) return escape_control(text, 64) + " is outside " + range;
        return {};
      },
      "[" + range + "]");
}

CLI::Validator unsigned_64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits) return "'" + escape_control(text, 64) + "' is not a non-negative integer";
        errno = 0;
        std::strtoull(text.c_str(), nullptr, 10);
        if (errno == ERANGE) return escape_control(text, 64) + " is outside 0..18446744073709551615";
        return {};
      },
      "[0..2^64-1]");
}

}  // namespace tcemu::app
