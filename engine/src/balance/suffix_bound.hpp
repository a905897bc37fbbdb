// The suffix bound (internal to the engine): at(v, a), the least possible largest stage bound over
// virtual stages v.. when virtual stage v starts at layer a, a dynamic program over (stage, start
// layer). It bounds every completion of a partial plan from below, and its argmin is the first
// incumbent plan. One chunk per stage; with vpp > 1 it is zero beyond the incumbent.
#pragma once

#include <vector>

#include "balance_budget.hpp"
#include "recompute_price.hpp"
#include "stage_bounds.hpp"
#include "stage_recompute.hpp"

namespace ppb::balancer {

class SuffixBound {
 public:
  SuffixBound(const BalanceProblem& problem, StageRecompute& recompute, FrontierCache& frontiers,
              const StageBounds& bounds, const RecomputePrice& price)
      : p_(problem), recompute_(recompute), frontiers_(frontiers), bounds_(bounds), price_(price) {}

  // Starts the table, with each stage's exact least recompute time or, with `with_recompute` false,
  // with a lower bound of it from the prices on memory (recompute_price.hpp; 0 without prices) when
  // its most-saving options fit (a weaker bound without frontiers: O(prices) per cell instead of a
  // frontier per range, which on thousands of distinct layers is what dominates). The prefix times of earlier stages
  // are taken without recompute and with the cheapest transfer. The table is built by step() and given up as soon as
  // `until_work` (work done) passes or the rows left, at the pace of the rows built so far, could not be built before
  // it: a table that cannot finish in its share is given up early, not at its end. `now_work` is the work done so far.
  void start(bool with_recompute, std::int64_t until_work, std::int64_t now_work);
  // Builds rows until done, given up, or the slice ends (paused).
  PhaseStatus step(Budget& budget);
  // A table of zeros: no bound beyond the stages' own.
  void clear();

  [[nodiscard]] double at(int v, int a) const {
    return table_[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)];
  }
  // Row v + 1 is what the stages after v can reach, indexed by v's end.
  [[nodiscard]] const double* row(int v) const { return table_[static_cast<std::size_t>(v)].data(); }
  // least_extra(v)[a]: the least recompute time, summed, of virtual stages v.. when v starts at a,
  // with each stage's least recompute that fits (0 without the exact table); kInf when no plan of
  // them fits. It is part of the round trip every earlier stage waits for.
  [[nodiscard]] const double* least_extra(int v) const { return least_extra_[static_cast<std::size_t>(v)].data(); }
  // The stage ends of the plan the table's minimum is built from.
  [[nodiscard]] std::vector<int> plan() const;

 private:
  const BalanceProblem& p_;
  StageRecompute& recompute_;
  FrontierCache& frontiers_;
  const StageBounds& bounds_;
  const RecomputePrice& price_;
  std::vector<std::vector<double>> table_;
  std::vector<std::vector<int>> next_;  // the end of stage v that gives table_[v][a]
  std::vector<std::vector<double>> least_extra_;
  // The table being built: its kind, its deadline, the next row (start layer) and its pace.
  bool with_recompute_ = true;
  std::int64_t until_work_ = 0;
  int a_ = -1;
  std::int64_t start_work_ = 0;  // the work done when the table started
  std::int64_t pace_work_ = 1;   // the work after which the pace is read
};

}  // namespace ppb::balancer
