// The whole-plan bound (internal to the engine): a Lagrangian relaxation of "the step time is at
// least every stage bound, and every stage fits its memory" over the whole plan at once. The stage
// bounds g_j are bound 1 of each physical stage, the chain bounds read off its program (the chain
// of a micro batch before one of its operations, its operations from there to a later one, the
// chain after it) and paths through the whole program generated as needed (program_paths.hpp),
// each linear in the virtual stages' times. For weights lambda_j >= 0 summing
// to 1 and prices mu_{s,k} >= 0 on each stage's memory at each of its count vectors k,
//     T >= max_j g_j >= sum_j lambda_j g_j + sum_{s,k} mu_{s,k} (memory_{s,k} - M_s),
// and the right side is a sum over layers (each at its cheapest recompute option) and transfers:
// its least over every partition is a dynamic program over (virtual stage, layer). The weights and
// prices are raised by an ascent once the search has run a while (branch_and_bound.hpp); with the
// best of them, the program's suffix (rest) and
// each range's cost bound every branch of the search in O(1). The argument is in docs/ppb.md
// (bounds for every schedule, 5). Its tables and dynamic program are in whole_plan_bound.cpp, the
// ascent (column generation, its master a DenseLp) in whole_plan_ascent.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "balance_budget.hpp"
#include "balance_problem.hpp"
#include "dense_lp.hpp"
#include "program_paths.hpp"

namespace ppb::balancer {

class WholePlanBound {
 public:
  // With `wanted` false nothing is built and the bound does not apply (a balance that does not
  // use it pays nothing).
  explicit WholePlanBound(const BalanceProblem& problem, bool wanted = true);

  // Whether its tables are small enough to build (virtual stages x layers under a cap, and the
  // master's rows, bounds and memory rows, under another).
  [[nodiscard]] bool applies() const { return applies_; }
  // The stage bounds weighed (bound 1 of each physical stage, then the chain bounds, none under
  // dualpipev, whose F&B pairs overlap); `lambda` has one entry per bound.
  [[nodiscard]] int bounds() const { return nb_; }

  // The bound at weights `lambda` (one per stage bound, >= 0, summing to 1) and prices `mu` (per
  // physical stage, one per count vector of problem.peaks[s], >= 0), its tables built for them.
  double evaluate(const std::vector<double>& lambda, const std::vector<std::vector<double>>& mu);

  // The ascent over weights and prices, `target` an upper bound of the optimum (the best plan so
  // far, or kInf). Its rounds and the master's pivots depend only on the problem (at most kRounds,
  // fewer on large tables, and all of its work under a cap), so that a run in slices makes the same
  // ones; stops early, inside a round too, when the budget is spent (given up), or pauses at the end
  // of a slice (inside the master's solve too). When it ends, the tables hold the best multipliers
  // found, and its bound is valid wherever it stopped.
  PhaseStatus ascend(Budget& budget, double target);

  // The best bound found (a lower bound of every plan that fits), -kInf before any.
  [[nodiscard]] double best() const { return best_; }

  // With the tables built: what virtual stage v holding [a, b) adds to the relaxed sum (its layers
  // and the transfer after it), and the least the virtual stages v.. can add when v starts at a
  // (kInf when they cannot be placed).
  [[nodiscard]] double range(int v, int a, int b) const {
    const double* c = cum_.data() + static_cast<std::size_t>(v) * width_;
    return c[b] - c[a] + trans_[static_cast<std::size_t>(v) * width_ + static_cast<std::size_t>(b)];
  }
  [[nodiscard]] double rest(int v, int a) const {
    return rest_[static_cast<std::size_t>(v) * width_ + static_cast<std::size_t>(a)];
  }
  // The relaxed sum of a complete plan is the sum of its ranges plus this (tails, less the prices
  // times the memory limits).
  [[nodiscard]] double constant() const { return constant_; }

  [[nodiscard]] double master() const { return master_; }
  [[nodiscard]] int rounds() const { return round_; }
  [[nodiscard]] int plans() const { return static_cast<int>(plan_terms_.size()); }
  [[nodiscard]] int path_rows() const { return path_rows_; }
  // The master's arithmetic so far (multiply-adds, about), and its rows now.
  [[nodiscard]] double master_work() const { return lp_ ? lp_->work() : 0; }
  [[nodiscard]] int master_rows() const { return nb_ + memories_ + 1; }
  static constexpr int kRounds = 600;
  // The master's rows (stage bounds, memory rows and the convexity row, path rows included) at most:
  // its tableau takes rows x (plans + memory rows + 1) doubles, as does its pool of rows, and each
  // pivot about as many multiply-adds; every bound takes kTerms x V doubles. A problem with more
  // bounds goes without it.
  static constexpr int kMaxRows = 500;

 private:
  void build(const std::vector<double>& lambda, const std::vector<std::vector<double>>& mu);
  // The plan of the program's least (stage ends into ends_, options into option_) and its
  // subgradient: each stage bound's value g_ and each stage's memory less its limit, slack_.
  void subgradient();
  // Layer i's cheapest option in virtual stage u at the weights built: its priced cost, the
  // option's index (into option_extra_) in `which`.
  [[nodiscard]] double layer_cost(int u, int i, int* which) const;

  const BalanceProblem& p_;
  bool applies_ = false;
  int pp_ = 1, V_ = 1, L_ = 0, nb_ = 1;
  std::size_t width_ = 1;  // L + 1
  // Each stage bound j is linear in the virtual stages' times: coef_[(j x kTerms + term) x V + u]
  // ms per ms of virtual stage u's forward, backward (recompute included), weight gradient,
  // communication an F&B pair hides, and transfer after it; plus tail_[j].
  enum Term { kF, kB, kW, kComm, kSend, kTerms };
  std::vector<double> coef_, tail_;
  void add_bound(const std::vector<double>& rows, double tail);
  // Adds the chain bounds to `into`, or with nullptr only counts them; returns their number.
  int chain_bounds(WholePlanBound* into) const;
  // Each layer's options, "none" first: extra time and activation kept per micro batch.
  std::vector<int> option_begin_;
  std::vector<double> option_extra_, option_act_;
  // Per virtual stage, at the weights built: sum over the bounds of weight x coefficient of each
  // term (recompute rides with the backward), the price of each MiB of activation and of static
  // memory.
  std::vector<double> weighed_, act_price_, static_price_;  // weighed_: kTerms x V
  std::vector<double> cum_, trans_, rest_;                  // V x (L + 1); rest_ has a row V
  std::vector<int> next_;                                   // V x (L + 1): the end of v giving rest(v, a)
  std::vector<double> g_;                                   // per stage bound
  std::vector<std::vector<double>> slack_;                  // per physical stage and count vector
  // Scratch of subgradient(): the least plan's per virtual stage terms (kTerms x V), per physical
  // stage statics and each chunk's activation; the ascent's sort.
  std::vector<double> terms_, statics_, chunk_act_, sorted_;
  double constant_ = 0;
  // The ascent: the round, the multipliers now and the best, the step scale.
  int round_ = 0;
  bool finished_ = false;
  // A round's work units and the rounds allowed, fixed when the ascent starts: a slice that ends
  // between rounds must not change them (the rows added since would), or a sliced balance would
  // count other work than one run.
  std::int64_t round_units_ = 0;
  int rounds_ = 0;
  std::vector<double> lambda_, best_lambda_;
  std::vector<double> dual_lambda_, dual_mu_, flat_slack_;  // the master's duals; scratch
  // The restricted master (whole_plan_ascent.cpp): over mixtures of the plans found so far, the
  // least largest stage bound, each memory row within its limit on average or paid for,
  //     min t + kPriceCap sum_r over_r   subject to   sum_k alpha_k g_kj - t <= 0 (each bound j),
  //     sum_k alpha_k slack_kr - over_r <= 0 (each memory row r),   sum_k alpha_k = 1,
  // alpha, over >= 0. Its variables: t, then each over_r, then each plan's share alpha_k (a column
  // added with the plan); its rows: the bounds' (bound_row_: their rows in the pool, path rows
  // last), the memory rows' (from memory_row_), the convexity row. Only its duals are read.
  std::unique_ptr<DenseLp> lp_;
  std::vector<int> bound_row_;
  int memory_row_ = 0, convexity_row_ = 0;
  // The boxes of t and of each over_r, widened as plans come (DenseLp wants every variable boxed):
  // strictly around every value they can take at an optimum, so that no box binds there.
  double g_low_ = kInf, g_high_ = -kInf;
  std::vector<double> over_high_;
  std::vector<double> column_, y_;  // scratch
  int pivot_ = 0;                   // pivots of the master's solve in progress
  bool optimal_ = false;            // the last solve of the master ended at its optimum
  double ticked_ = 0;               // of the master's work, what the budget has counted
  void start_master();
  // Adds the plan of g_ and flat_slack_ as a column of the master.
  void add_plan(Budget& budget);
  // Widens t's box to hold bound values from `low` to `high`.
  void widen(double low, double high);
  // Solves the master from its last basis, a pivot at a time, each counted by the budget: stops
  // when the time budget is spent (given up), pauses at the end of a slice (the next call goes on with
  // the same pivots), and is done at its optimum or after kPivots pivots or the work `cap`.
  PhaseStatus solve_master(double cap, Budget& budget);
  // Counts the master's work not counted yet; true once a budget is spent.
  bool spend(Budget& budget);
  // Path rows: the longest path of the program at the master's mixture of plans, added as a bound
  // when it is longer than the master's value (row generation); every plan's terms are kept to
  // write the new row's value at each.
  std::unique_ptr<ProgramPaths> paths_;
  std::vector<std::vector<double>> plan_terms_;
  std::vector<double> mixed_, path_row_;
  int path_rows_ = 0;
  // Each bound's value at virtual stage terms `terms` (kTerms x V) into `out`.
  void values(const std::vector<double>& terms, std::vector<double>& out) const;
  // The longest path at the master's mixture, added as a bound when it exceeds `master`: true if so.
  bool add_path(double master, Budget& budget);
  double master_ = kInf;
  int memories_ = 0;      // the master's memory rows
  bool solving_ = false;  // a slice ended inside the master's solve
  std::vector<std::vector<double>> mu_, best_mu_;
  double best_ = -kInf;
};

}  // namespace ppb::balancer
