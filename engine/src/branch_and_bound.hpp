// PPB's branch and bound over stage boundaries (internal to the engine). A depth-first search
// chooses the end of each virtual stage in order. A branch is cut when its stages' bounds, or the
// suffix bound of what remains, reach the best simulated step time found so far; since the bound
// only grows as a stage takes more layers, the loop over a stage's end stops at the first cut. Every
// complete plan that survives is simulated with its stages' least recompute that fits.
#pragma once

#include <vector>

#include "balance_budget.hpp"
#include "ppb/simulate.hpp"
#include "stage_bounds.hpp"
#include "stage_recompute.hpp"
#include "suffix_bound.hpp"

namespace ppb::balancer {

class BranchAndBound {
 public:
  BranchAndBound(const BalanceProblem& problem, StageRecompute& recompute, FrontierCache& frontiers, StageBounds& bounds,
                 const SuffixBound& suffix, Budget& budget);

  // Simulates a plan given by its stage ends (an incumbent), when every stage fits.
  void try_plan(const std::vector<int>& ends);
  // Searches every partition not ruled out, until done or out of budget.
  void search() { dfs(0, 0, 0.0); }

  [[nodiscard]] double best_time() const { return best_time_; }
  [[nodiscard]] const std::vector<int>& best_ends() const { return best_ends_; }
  [[nodiscard]] std::int64_t simulations() const { return simulations_; }

 private:
  struct Child {
    int b;
    double priority;  // the least step time any plan in this branch can have
    double bound;
  };

  // A branch is cut when its bound reaches this: the best time so far, lowered by the tolerance.
  [[nodiscard]] double cut() const { return cut_; }
  void set_best_time(double t) {
    best_time_ = t;
    cut_ = best_time_ / (1.0 + p_.options.tolerance);
  }
  void dfs(int v, int a, double bound);
  void assign_chunk_costs(int s, const Ranges& ranges, const std::vector<FrontierPoint>& chosen);
  void evaluate();

  const BalanceProblem& p_;
  StageRecompute& recompute_;
  FrontierCache& frontiers_;
  StageBounds& bounds_;
  const SuffixBound& suffix_;
  Budget& budget_;
  // The partial plan: stage ends, each physical stage's chunks so far, the prefix times before each
  // physical stage (pf forward, pb backward) and the costs of the virtual stages chosen.
  std::vector<int> ends_;
  std::vector<Ranges> chunk_ranges_;
  std::vector<double> stage_pf_, stage_pb_;
  std::vector<VirtualStageCost> costs_;
  // Scratch kept between nodes so that no node allocates.
  std::vector<std::vector<Child>> children_;  // the children of the node at each depth
  std::vector<FrontierPoint> chosen_;         // stage_extra's choice for the child being entered
  SimulationInput sim_in_;
  double best_time_ = kInf;
  double cut_ = kInf;
  std::vector<int> best_ends_;
  std::int64_t simulations_ = 0;
};

}  // namespace ppb::balancer
