// When no plan fits the memory limit (internal to the engine): the stage ends whose largest
// overshoot of the limit is least, every layer on its most activation-saving recompute option. Its
// overshoot also decides, before any search, whether some plan can fit at all: when even this plan
// is over the limit, every plan is.
#pragma once

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

// One chunk per stage (vpp 1) only; nothing when the time budget runs out first. O(V L): for each
// stage v and start a, the best end minimises max(need(a, b), rest(b)) where need grows with b; the
// crossing point moves right as a grows, so one sweep with a sliding-window minimum finds it.
std::optional<LeastOver> least_over(const BalanceProblem& problem, Budget& budget);

// The most activation-saving option of every layer (ties: the least extra time, then "none" before
// the options in their order), -1 for none.
std::vector<int> least_activation_options(const BalanceProblem& problem);

}  // namespace ppb::balancer
