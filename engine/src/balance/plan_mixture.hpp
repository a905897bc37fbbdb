// The restricted master of the whole-plan bound's column generation (internal to the engine): over
// mixtures (convex combinations) of the plans found so far, the least largest stage bound, with each
// stage's memory at each count vector kept within its limit on average (or paid for at a high
// price). A small linear program, solved by a revised simplex with a dense basis inverse; its duals
// are the weights on the stage bounds and the prices on memory at which the next plan is priced
// (Dantzig-Wolfe decomposition). Only the duals are used: whatever they are, the bound computed
// from them is valid (weak duality), so the solver's accuracy affects the bound's strength, never its
// validity.
#pragma once

#include <vector>

#include "balance_budget.hpp"

namespace ppb::balancer {

class PlanMixture {
 public:
  // `bounds` stage bounds, `memories` memory rows (stage, count vector), `price_cap` the price paid
  // for memory over a limit on average (an upper bound of the prices the duals can take).
  PlanMixture(int bounds, int memories, double price_cap);

  // A plan: its stage bounds' values and its memory less the limits. The first plan sets up the basis
  // (an inverse, whose work the budget counts; stopped by the time budget, the basis stays unsolved).
  void add(const std::vector<double>& g, const std::vector<double>& slack, Budget& budget);
  [[nodiscard]] int plans() const { return static_cast<int>(plans_.size()); }
  // Arithmetic done so far (multiply-adds, about): what the ascent's budget counts.
  [[nodiscard]] double work() const { return work_; }

  // Solves the master from the last basis: at most `pivots` pivots, and none once work() reaches
  // `work_cap` (both counts depend only on the problem). Each pivot's work is counted by `budget`:
  // stops when the time budget is spent (given up) or pauses at the end of a slice, its basis kept, so
  // that the next call goes on with the same pivots. Whenever it stops, the current basis' duals are
  // weights and prices like any others: the bound computed from them is valid.
  PhaseStatus solve(int pivots, double work_cap, Budget& budget);
  // The duals of the current basis into `lambda` (>= 0) and `mu` (>= 0, flat). Returns the master's
  // value, an upper bound of the relaxation's best once solve() is done.
  double duals(std::vector<double>& lambda, std::vector<double>& mu) const;
  // The mixture of the last solve: each plan's share (summing to 1).
  void shares(std::vector<double>& alpha) const;

 private:
  // Column q of the constraint matrix: plans first, then t, the over-limit parts, the slacks.
  [[nodiscard]] double entry(int q, int row) const;
  [[nodiscard]] double cost(int q) const;
  void column(int q, std::vector<double>& out) const;
  // The basis inverse afresh; false (the inverse as it was) when the time budget is spent first.
  bool invert(Budget& budget);
  // Counts `work` multiply-adds and ticks the budget by them; true once a budget is spent.
  bool spend(double work, Budget& budget);
  // The duals y_ of the current basis.
  void price_rows();

  int nb_, nm_, rows_;
  double price_cap_;
  std::vector<std::vector<double>> plans_;      // each: g (nb), slack (nm)
  std::vector<int> basis_;                      // column basic in each row
  std::vector<char> in_basis_;                  // per column
  std::vector<double> inverse_;                 // rows_ x rows_
  std::vector<double> scratch_, next_inverse_;  // invert(): the basis, eliminated, and its inverse
  std::vector<double> x_;                       // the basic values
  std::vector<double> y_, a_, u_;               // scratch
  int since_invert_ = 0;
  int step_ = 0;  // pivots of the solve in progress
  double work_ = 0, ticked_ = 0;
};

}  // namespace ppb::balancer
