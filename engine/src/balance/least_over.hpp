// When no plan fits the memory limit (internal to the engine): the stage ends whose largest
// overshoot of the limit is least, every layer on its most activation-saving recompute option. Its
// overshoot also decides, before any search, whether some plan can fit at all: when even this plan
// is over the limit, every plan is.
#pragma once

#include <deque>
#include <optional>
#include <vector>

#include "balance_budget.hpp"
#include "balance_problem.hpp"

namespace ppb::balancer {

struct LeastOver {
  std::vector<int> ends;  // one per virtual stage
  // Largest (memory need - memory for layers) over the stages, in MiB: at most 0 (within rounding)
  // when the plan fits with the most-saving options.
  double overshoot_mib = 0;
};

// One chunk per stage (vpp 1) only. A dynamic program over (stage, start layer), one stage per row
// from the last: for start a, the best end minimises max(need(a, b), rest(b)) where need grows with
// b; the crossing point moves right as a grows, so one sweep per row with a sliding-window minimum
// finds it, O(V L) in all (docs/ppb.md).
class LeastOverSweep {
 public:
  explicit LeastOverSweep(const BalanceProblem& problem);
  // Builds rows until done, the time budget is spent (given up) or the slice ends (paused).
  PhaseStatus step(Budget& budget);
  // The plan, once done; nothing when no partition exists.
  [[nodiscard]] std::optional<LeastOver> result() const;

 private:
  void row(int v);

  const BalanceProblem& p_;
  int v_;  // the next row to build
  // rest_: the row after v_ (the least largest overshoot of the later stages from each start),
  // over_: scratch for row v_; next_[v][a] the end that gives over[v][a] (the earliest on ties).
  std::vector<double> rest_, over_;
  std::vector<std::vector<int>> next_;
  std::deque<int> window_;  // ends in [lo, c) by index, values strictly rising from the front
};

// The most activation-saving option of every layer (ties: the least extra time, then "none" before
// the options in their order), -1 for none.
std::vector<int> least_activation_options(const BalanceProblem& problem);

}  // namespace ppb::balancer
