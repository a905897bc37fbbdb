// Builders for the search tests that state a search as values, without JSON (their models: test_models.hpp).
#pragma once

#include <string>

#include "ppb/model/model.hpp"
#include "ppb/search/search_evaluate.hpp"
#include "test_models.hpp"

namespace ppb::test {

// A balanced candidate with only the figures ranking reads.
inline SearchCandidate ranked(double step_time_ms, double peak_mib, double time_per_sample_ms = 0) {
  SearchCandidate c;
  c.feasible = true;
  c.figures = CandidateFigures{};
  c.figures->step_time_ms = step_time_ms;
  c.figures->peak_mib = peak_mib;
  c.figures->time_per_sample_ms = time_per_sample_ms;
  return c;
}

// An infeasible candidate over the limit by `over_mib`.
inline SearchCandidate over(double over_mib, const std::string& group = "every stage over the memory limit") {
  SearchCandidate c;
  c.feasible = false;
  c.over_mib = over_mib;
  c.infeasible_group = group;
  c.reasons = {group};
  return c;
}

}  // namespace ppb::test
