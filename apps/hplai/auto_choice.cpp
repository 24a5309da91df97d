// hplai's auto: predicted-fastest factorisation first, the next one when the check fails (auto_choice.hpp).
#include "auto_choice.hpp"

#include <algorithm>
#include <cstdio>

#include "tcemu/error.hpp"

namespace hplai {

bool uses_auto_choice(const tcemu::Scheme& s) { return s.is_automatic() && s.target == tcemu::Target::fp32; }

std::vector<AutoCandidate> auto_candidates(std::int64_t n, std::int64_t nb, const tcemu::CostModel& model) {
  if (n < 1 || nb < 1)
    throw tcemu::InvalidArgument("hplai auto: n (" + std::to_string(n) + ") and nb (" + std::to_string(nb) + ") must be >= 1");
  std::vector<AutoCandidate> out;
  for (const tcemu::Scheme& s : tcemu::parse_scheme_list("all", tcemu::Target::fp32)) {
    if (s.is_automatic() || s.target != tcemu::Target::fp32) continue;
    AutoCandidate c;
    c.scheme = s;
    for (std::int64_t m = n - nb; m > 0; m -= nb) c.predicted_seconds += model.predict_seconds(s, m, m, nb, tcemu::Target::fp32);
    c.cost_source = model.find_measured(s, tcemu::Target::fp32) ? "fit" : "rates";
    out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const AutoCandidate& a, const AutoCandidate& b) { return a.predicted_seconds < b.predicted_seconds; });
  return out;
}

namespace {

std::string residual_text(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", r);
  return b;
}

}  // namespace

SchemeResult run_auto(const std::vector<AutoCandidate>& candidates,
                      const std::function<SchemeResult(const tcemu::Scheme&)>& run_one, std::ostream* progress) {
  if (candidates.empty()) throw tcemu::InvalidArgument("hplai auto: no candidate scheme");
  std::string attempts;
  double factor = 0, panel = 0, update = 0, refine = 0;
  SchemeResult last;
  bool have_row = false;
  std::string first_error;
  int errors = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const tcemu::Scheme& s = candidates[i].scheme;
    if (!attempts.empty()) attempts += " -> ";
    attempts += s.name;
    SchemeResult r;
    try {
      r = run_one(s);
    } catch (const tcemu::InvalidArgument& e) {
      if (errors++ == 0) first_error = e.what();
      attempts += std::string(" failed (") + e.what() + ")";
      if (progress) *progress << "hplai: auto: " << s.name << " failed (" << e.what() << "), trying the next candidate\n";
      continue;
    }
    factor += r.factor_seconds;
    panel += r.panel_seconds;
    update += r.update_seconds;
    refine += r.refine_seconds;
    attempts += r.pass ? " PASS" : " FAIL (scaled residual " + residual_text(r.scaled_residual) + ")";
    last = std::move(r);
    have_row = true;
    if (last.pass) {
      if (i == 0) attempts += ", predicted fastest of " + std::to_string(candidates.size());
      break;
    }
    if (progress && i + 1 < candidates.size())
      *progress << "hplai: auto: " << s.name << " failed the check, trying " << candidates[i + 1].scheme.name << "\n";
  }
  if (!have_row)
    throw tcemu::InvalidArgument("auto: none of the " + std::to_string(candidates.size()) +
                                 " candidates factorised the system (first: " + first_error + ")");
  last.scheme = "auto";
  last.factor_seconds = factor;
  last.panel_seconds = panel;
  last.update_seconds = update;
  last.refine_seconds = refine;
  last.total_seconds = factor + refine;
  last.gflops = last.total_seconds > 0 ? hpl_flops(static_cast<std::int64_t>(last.x.size())) / last.total_seconds * 1e-9 : 0;
  last.note = "auto: " + attempts + (last.note.empty() ? "" : "; " + last.note);
  return last;
}

}  // namespace hplai
