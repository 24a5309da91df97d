#pragma once
// The check every app's CLI error tests share (knn, qsim, hplai).
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "app_runner.hpp"

namespace app_test {

/// A run that must fail the way every app reports bad input: exit status 2, exactly one stderr line
/// starting "<app>: error: " and containing every one of `parts`, nothing on stdout, `output` not
/// created, and the scratch directory holding as many entries as before the run (no temporary left).
inline void expect_cli_error(const std::string& app, const Ran& r, const std::vector<std::string>& parts,
                             const std::string& output, std::size_t entries_before, std::size_t entries_after) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind(app + ": error: ", 0), 0u) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  for (const auto& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << "'" << p << "' not in: " << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(std::filesystem::exists(output));
  EXPECT_EQ(entries_after, entries_before) << "a file was left behind";
}

}  // namespace app_test
