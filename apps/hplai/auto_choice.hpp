#pragma once
/// \file auto_choice.hpp
/// hplai's `auto` (FP32 target, FP32 storage): the fastest factorisation that passes the HPL-MxP
/// scaled-residual check (issue 20), with a guaranteed pass.
///
/// Rule. Candidates: every FP32-target scheme of `--scheme all` (parse_scheme_list("all", fp32):
/// native fp32, the one-pass and split emulations, int8-ozaki with the FP32 target), not auto,
/// ordered by the predicted time of the trailing updates, sum over the panels j of
/// CostModel::predict_seconds(scheme, m_j, m_j, nb) with m_j = n - (j + 1) nb (core's cost model,
/// tcemu::app::auto_cost_model: on the GPU the device's calibrated fits where it has them, the rate
/// formula for the others; the
/// panels, solves and refinement are the same FP32-storage code for every candidate, so they do not
/// change the order). Accuracy does not filter: the refinement in FP64 is what makes the answer
/// FP64-accurate, and whether it converges from a given factorisation is what the check decides.
/// Auto runs the first candidate; when its row fails the check (refinement did not converge, or a
/// pivot too small for LU without pivoting) it runs the next, until one passes or the list ends.
/// The reported row is the passing run's, its times the sum over every attempt (the time to a
/// verified solution), its note the attempts (AutoOutcome::note). --target fp64 keeps core's
/// per-call auto (the FP64-storage factorisation, every update FP64-accurate).
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "run.hpp"
#include "tcemu/scheme.hpp"
#include "tcemu/select.hpp"

namespace hplai {

/// One scheme auto may run, with its predicted trailing-update time.
struct AutoCandidate {
  tcemu::Scheme scheme;
  double predicted_seconds = 0;  ///< the trailing updates of the whole factorisation
  std::string cost_source;       ///< "fit" (a measured cost of the model) or "rates"
};

/// True when `scheme` is auto with the FP32 target: the runs auto_choice decides (run.cpp).
bool uses_auto_choice(const tcemu::Scheme& scheme);

/// The candidates for an n x n system with block size nb (1 <= nb), fastest predicted first (ties:
/// catalogue order). Throws tcemu::InvalidArgument for n < 1 or nb < 1.
std::vector<AutoCandidate> auto_candidates(std::int64_t n, std::int64_t nb, const tcemu::CostModel& model);

/// Runs the candidates in order through `run_one` until a row passes (file comment) and returns
/// the row to report: scheme "auto", `used` the passing candidate's, times summed over the attempts,
/// note "auto: <attempts>" followed by the passing row's own note. When every candidate fails, the
/// last attempt's row (pass false) with every attempt in the note. A candidate whose run throws
/// tcemu::InvalidArgument (e.g. a singular pivot) counts as failed; when every candidate threw,
/// throws tcemu::InvalidArgument "auto: none of the N candidates factorised the system (first: <the
/// first candidate's error>)". `progress` (may be nullptr) gets one line per failed attempt. Throws
/// tcemu::InvalidArgument when `candidates` is empty.
SchemeResult run_auto(const std::vector<AutoCandidate>& candidates,
                      const std::function<SchemeResult(const tcemu::Scheme&)>& run_one, std::ostream* progress);

}  // namespace hplai
