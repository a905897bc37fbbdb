// The count search (internal to the engine): an exact branch and cut for models whose movable layers
// are all alike (a transformer's decoders between a pinned embedding and head). Then a plan is
// integers only: c_v, the layers of virtual stage v, and r_vk, how many of them take recompute
// option k (which ones changes nothing). Every operation's time is linear in them, and so is the
// length of any path through the schedule program (the same program for every plan): a row
// T >= const + coef . (c, r) that every plan's step time meets. Each stage's memory at each of its
// count vectors is linear too. So the least T over integer (c, r) under the rows is a lower bound of
// the optimum, and a branch and bound over (c, r) with a linear program at every node, whose rows
// are generated as it goes (the longest path at the node's solution, added while it is longer than
// the solution's T), proves the best plan when every node is closed. docs/ppb.md, "The count
// search", has the argument.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "balance_budget.hpp"
#include "balance_problem.hpp"
#include "dense_lp.hpp"
#include "plan_replay.hpp"
#include "ppb/plan/plan.hpp"
#include "program_paths.hpp"

namespace ppb::balancer {

class CountSearch {
 public:
  explicit CountSearch(const BalanceProblem& problem);

  // Whether the problem has the count form: more than one virtual stage, no empty stages, every
  // movable layer alike (times, memory, output, recompute options), no recompute option on a pinned
  // layer, the same transfer after the first virtual stage whether or not it holds movable layers,
  // memory charged exactly, and a program whose paths are read (not dualpipev's F&B pairs).
  [[nodiscard]] bool applies() const { return applies_; }

  // Starts at the root: plans must beat `incumbent` (the best step time so far, or kInf; any value,
  // on the grain or not). `simulations_before` counts toward the balance's simulation budget.
  void start(double incumbent, std::int64_t simulations_before = 0);
  // Closes nodes, depth first, until none is open (done), the budget is spent or a node's linear
  // program does not finish in its pivots (given up), or the slice ends (paused; the next step goes
  // on from the same node).
  PhaseStatus step(Budget& budget);

  // The best plan the count search found and its step time (kInf when it found none under the
  // incumbent it started with).
  [[nodiscard]] double best_time() const { return found_ ? best_time_ : kInf; }
  [[nodiscard]] bool started() const { return lp_ != nullptr; }
  [[nodiscard]] Plan best_plan() const;
  // A lower bound of every plan not ruled out yet: the least bound of the open nodes and of the nodes
  // closed to the solver's rounding, at most the best time (over 1 + tolerance).
  [[nodiscard]] double open_bound() const;
  [[nodiscard]] std::int64_t nodes() const { return nodes_; }
  [[nodiscard]] std::int64_t simulations() const { return simulations_; }

  // The plan of given counts (c per virtual stage, r per virtual stage and option; the first r of a
  // virtual stage's layers take each option): best_plan()'s, and each solution's simulated.
  [[nodiscard]] Plan plan_of(const std::vector<int>& c, const std::vector<int>& r) const;
  [[nodiscard]] double grain() const { return grain_; }

  // Limits: the variables (virtual stages x (options + 1) + 1), the path rows kept (and all of their
  // entries), and the pivots of one call between two readings of the budget (the pivots of one
  // node's program before the proof is given up are BalanceOptions::count_search_pivots).
  static constexpr int kMaxVariables = 256;
  static constexpr int kMaxPathRows = 100'000;
  static constexpr std::int64_t kMaxPoolEntries = 4'000'000;
  static constexpr int kPivotSlice = 64;

 private:
  struct Node {
    std::shared_ptr<const DenseLp::State> parent;  // null at the root
    int var = -1;
    double lo = 0, hi = 0;  // the branch's bounds of var
    double bound = 0;       // its parent's bound
    double objective = 0;   // its parent's least T
    double distance = 1;    // how far the branch moves var from the parent's solution
    int side = 0;           // 0 down, 1 up
  };
  [[nodiscard]] int c_var(int v) const { return v; }
  [[nodiscard]] int r_var(int v, int k) const { return V_ + v * K_ + k; }
  [[nodiscard]] int t_var() const { return V_ + V_ * K_; }
  // The virtual stages' terms (ProgramPaths' layout) at the values of the last solve.
  void times_at_solution();
  // The node's program solved, the budget ticked every kPivotSlice pivots: stopped when the time
  // budget is spent or the program takes count_search_pivots pivots.
  DenseLp::Status solve(Budget& budget);
  // Closes `node` or branches it. False when its linear program did not finish (the proof is given up).
  bool visit(const Node& node, Budget& budget);
  // Simulates the plan of the integral solution and keeps it when it beats the best; nothing when the
  // plan does not meet the program's fixed rows exactly.
  void try_solution();
  [[nodiscard]] bool integral() const;
  // A node is closed once its bound reaches this: the best time less its grain (no plan's time lies
  // strictly between), or the best time to rounding.
  // Pseudo-costs: what a branch on a variable raised the least T, per unit moved, on each side (the
  // node's least T, or the cutoff when it was infeasible); the branch is on the candidate whose
  // estimated gains on both sides have the largest product.
  void learn(const Node& node, double objective);
  [[nodiscard]] int branching_variable(Budget& budget);
  DenseLp::State probe_;
  static constexpr int kProbePivots = 50;
  // A node is closed once its bound reaches this: with a tolerance, the best time over 1 + tolerance;
  // with a grain (every step time a whole multiple of it), just above the grain below the best time
  // rounded up to the grain (no plan's time lies in between); otherwise the best time to rounding.
  [[nodiscard]] double cutoff() const {
    const double rounding = best_time_ * (1 - 1e-9);
    if (p_.options.tolerance > 0) return best_time_ / (1 + p_.options.tolerance);
    if (!on_grain()) return rounding;
    const double steps = best_time_ / grain_;
    return std::min(rounding, (std::ceil(steps - 1e-9 * std::max(1.0, steps)) - 1 + 1e-3) * grain_);
  }
  // Whether the grain is coarse enough against the best time for its arithmetic to hold.
  [[nodiscard]] bool on_grain() const { return grain_ > 1e-6 * best_time_; }

  const BalanceProblem& p_;
  bool applies_ = false;
  int V_ = 0, K_ = 0, N_ = 0;        // virtual stages, recompute options of a movable layer, movable layers
  std::vector<int> option_;          // per k: index into Model::recompute_options
  std::vector<double> extra_, act_;  // per k: the option's extra time and the activation it keeps
  const Layer* body_ = nullptr;      // a movable layer (all are alike)
  double send_ = 0;                  // transfer after a virtual stage that sends
  // Every operation's and transfer's time is a whole multiple of it (so is every step time), or 0.
  double grain_ = 0;
  // Per virtual stage: the pinned layers' forward, backward, weight gradient, static and activation.
  std::vector<double> pin_f_, pin_b_, pin_w_, pin_static_, pin_act_;
  std::unique_ptr<DenseLp> lp_;
  std::unique_ptr<ProgramPaths> paths_;
  std::unique_ptr<PlanReplay> replay_;
  std::vector<Node> open_;
  const DenseLp::State* current_ = nullptr;  // the state the program stands in, unchanged since saved
  std::vector<double> times_, row_, x_, slopes_;
  std::vector<double> gain_sum_, gain_count_;  // per variable and side (2 j + side)
  std::vector<int> best_c_, best_r_;
  double best_time_ = kInf;  // the incumbent's, or an upper bound of every plan's
  bool found_ = false;       // whether the count search found a plan under it
  std::int64_t nodes_ = 0, simulations_ = 0, simulations_before_ = 0;
  double rounded_ = kInf;  // the least bound of a node closed within kRounding of the cutoff
  int path_rows_ = 0;
  std::unordered_map<std::uint64_t, std::vector<int>> pooled_;  // path rows found, by a hash of the row
  int max_path_rows_ = kMaxPathRows;
  int fixed_rows_ = 0;  // the pool's rows before the first path row: sum, recompute counts, memory
};

}  // namespace ppb::balancer
