// The balancer's search set up on its own for the tests that step it (internal parts, as balance()
// sets them up), and the random trials they run it on.
#pragma once

#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "balance/balance_budget.hpp"
#include "balance/balance_problem.hpp"
#include "balance/branch_and_bound.hpp"
#include "balance/recompute_frontier.hpp"
#include "balance_helpers.hpp"
#include "ppb/balance/balance.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb::test {

// A random model of `layers` layers on the case's shape (its micro batches picked by the trial's number) and a
// device whose limit lies between loose and tight, for the searches below.
struct Trial {
  Model model;
  Plan shape;
  Device device;
};
inline Trial random_trial(std::mt19937& rng, const Case& c, int layers, int trial) {
  Trial t;
  t.model = random_model(rng, layers);
  t.shape =
      shape_of(c.pp, c.micro_batches[static_cast<std::size_t>(trial) % c.micro_batches.size()], c.schedule, c.vpp);
  t.device = random_device(rng);
  std::uniform_real_distribution<double> tightness(0.8, 2.0);
  t.device.memory_limit_mib = limit_between(
      t.model, std::min<double>(c.pp, static_cast<double>(t.shape.micro_batch_num)), c.pp, tightness(rng));
  return t;
}

// The parts a branch and bound stands on for one problem, set up as balance() sets them up (in one slice without a
// limit), and the search on them: its whole-plan bound built after `whole_after` nodes, started without an incumbent
// so that it must reach the optimum itself. `sliced`: the setup's slice is closed, for the caller to step the search
// in slices of its own.
struct SearchParts {
  SearchParts(const Model& model, const Device& device, const Plan& shape, const BalanceOptions& options,
              std::int64_t whole_after, bool sliced)
      : problem(model, device, shape, options), budget(options), bounds(problem), price(problem) {
    budget.begin_slice(std::numeric_limits<double>::infinity());
    frontiers = std::make_unique<balancer::FrontierCache>(problem, budget);
    recompute = std::make_unique<balancer::StageRecompute>(problem, *frontiers, budget);
    suffix = std::make_unique<balancer::SuffixBound>(problem, *recompute, *frontiers, bounds, price);
    suffix->clear();
    if (sliced) budget.end_slice();
    search = std::make_unique<balancer::BranchAndBound>(problem, *recompute, *frontiers, bounds, *suffix, budget,
                                                        whole_after);
    search->start(0);
  }
  balancer::BalanceProblem problem;
  balancer::Budget budget;
  balancer::StageBounds bounds;
  const balancer::RecomputePrice price;
  std::unique_ptr<balancer::FrontierCache> frontiers;
  std::unique_ptr<balancer::StageRecompute> recompute;
  std::unique_ptr<balancer::SuffixBound> suffix;
  std::unique_ptr<balancer::BranchAndBound> search;
};

}  // namespace ppb::test
