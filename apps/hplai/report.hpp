#pragma once
/// \file report.hpp
/// hplai's output: the result table (stdout, one row per scheme) and the --json summary.
#include <cstdio>
#include <string>

#include "run.hpp"

namespace hplai {

/// Prints the table: scheme, used, storage, factor/refine/total ms, GFLOP/s, speedup over the FP64
/// baseline, refinement iterations, initial and final scaled residual, PASS/FAIL, note.
void print_table(std::FILE* out, const RunResult& result);

/// Prints one JSON object {"app":"hplai", "n", "nb", "source", "solver", "device", "eps",
/// "threshold", "results":[{"scheme","used","storage","baseline","time_ms","factor_ms","panel_ms",
/// "update_ms","refine_ms",
/// "gflops","speedup","iterations","restarts","initial_scaled_residual","scaled_residual","pass",
/// "updates","fallbacks","note"}]} and a newline.
void print_json(std::FILE* out, const RunResult& result);


}  // namespace hplai
