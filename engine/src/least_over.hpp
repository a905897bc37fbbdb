// When no plan fits the memory limit (internal to the engine): the stage ends whose largest
// overshoot of the limit is least, every layer on its most activation-saving recompute option.
#pragma once

#include <vector>

#include "balance_problem.hpp"

namespace ppb::balancer {

// One chunk per stage; with vpp > 1 the even split.
std::vector<int> least_over_ends(const BalanceProblem& problem);

}  // namespace ppb::balancer
