// The balancer's state between slices (internal to the balance room): the parts of PPB, which phase
// runs, and what each phase handed over. balance.cpp runs the phases; balance_answer.cpp turns the
// state into the answer (the plan, its proof or why there is none, the progress).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "balance_budget.hpp"
#include "balance_problem.hpp"
#include "branch_and_bound.hpp"
#include "count_search.hpp"
#include "least_over.hpp"
#include "recompute_frontier.hpp"
#include "recompute_price.hpp"
#include "stage_bounds.hpp"
#include "stage_recompute.hpp"
#include "suffix_bound.hpp"
#include "threshold_bound.hpp"

namespace ppb {
namespace balancer {

enum class Table { exact, relaxed, none };  // which suffix table the search had

// The plan of stage ends `ends` with the recompute the stage search chose for them.
Plan plan_of(const BalanceProblem& problem, StageRecompute& recompute, const std::vector<int>& ends, bool within_limit,
             const std::vector<Choice>* choices = nullptr);
// Stage ends with every layer on its most activation-saving option.
Plan least_over_plan(const BalanceProblem& problem, const std::vector<int>& ends);

}  // namespace balancer

using namespace balancer;

struct Balancer::Impl {
  enum class Phase {
    least_over,
    exact_table,
    relaxed_table,
    incumbents,
    local_search,
    threshold,
    search,
    bisection,
    pair_moves,
    counts,
    done
  };

  Impl(const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options)
      : problem(model, device, shape, options),
        budget(options),
        frontiers(problem, budget),
        recompute(problem, frontiers, budget),
        bounds(problem),
        price(problem),
        suffix(problem, recompute, frontiers, bounds, price),
        threshold(problem, recompute, bounds),
        search(problem, recompute, frontiers, bounds, suffix, price, budget),
        counts(problem) {
    // Whether any plan fits is decided first where the least-over plan applies: one chunk per stage
    // and a memory limit.
    if (problem.limit < kInf && problem.V == problem.pp)
      sweep.emplace(problem);
    else
      phase = Phase::exact_table;
  }

  void run_phases();
  // A search that has not ended within kBisectAfterNodes nodes pauses for the threshold bisection and
  // the local search's pairs of moves, when either is to run (bisect_pending is set before).
  // Where every movable layer is alike, the count search takes over instead (count_pending).
  void pause_long_search() {
    pairs_pending = search.pairs_apply();
    count_pending = counts.applies();
    if (count_pending)
      search.pause_at(budget.nodes() + (problem.V == problem.pp ? kBisectAfterNodes : kCountAfterNodes));
    else if (bisect_pending || pairs_pending)
      search.pause_at(budget.nodes() + kBisectAfterNodes);
  }
  // How the balance ends: at its end, or before it (stopped, cancelled, or still running and asked
  // for its best plan so far).
  enum class Stop { none, stopped, cancelled, running };
  [[nodiscard]] static std::string stopped_text(Stop stop) {
    if (stop == Stop::running) return "the balance is still running";
    return std::string("the balance was ") + (stop == Stop::cancelled ? "cancelled" : "stopped");
  }
  void finish(Stop stop);
  // The result, or before the end the answer `stop` makes of the state so far (the balance can
  // still go on).
  [[nodiscard]] BalanceResult answer(Stop stop) {
    if (phase == Phase::done) return result;
    BalanceResult kept = result;
    finish(stop);
    std::swap(kept, result);
    return kept;
  }
  [[nodiscard]] BalanceProgress progress() const;
  [[nodiscard]] double proven_bound() const;
  // Records the phase that starts (once) and the one that ends.
  void open_phase(const char* name) {
    if (!record) record = BalancePhase{name, budget.elapsed_ms(), 0, false};
  }
  void close_phase(bool complete) {
    record->end_ms = budget.elapsed_ms();
    record->complete = complete;
    result.phases.push_back(*record);
    record.reset();
  }

  BalanceProblem problem;
  Budget budget;
  FrontierCache frontiers;
  StageRecompute recompute;
  StageBounds bounds;
  RecomputePrice price;
  SuffixBound suffix;
  ThresholdBound threshold;
  BranchAndBound search;
  CountSearch counts;
  std::optional<LeastOverSweep> sweep;
  std::optional<LeastOver> over;  // the plan over the limit by the least, when known
  Phase phase = Phase::least_over;
  Table table = Table::exact;
  double half_ms = 0;             // the end of the exact table's share of the budget
  double local_until_ms = 0;      // the end of the local search's share
  bool early_incumbents = false;  // the even split (or the least-over plan) was tried before the tables
  double table_bound = 0;         // what the tables prove of every plan: suffix(0, 0), raised by the threshold tests
  // The threshold tests: every plan is at least `below`; some plan's stage bounds are all under `above`;
  // whether the bisection is still to run; its tests done, the end of its share of the budget, and
  // whether the test running is the one at the cut.
  static constexpr std::int64_t kBisectAfterNodes = 20'000;
  double below = 0, above = kInf;
  bool bisect_pending = false;
  // Whether the local search's pairs of moves are still to run (once the search has not ended within
  // kBisectAfterNodes nodes).
  bool pairs_pending = false;
  // Whether the count search is to run (once the search has not ended within kCountAfterNodes nodes
  // with several chunks per stage, where the search's bounds are weakest, or kBisectAfterNodes with
  // one), and whether it closed every node.
  static constexpr std::int64_t kCountAfterNodes = 2'000;
  bool count_pending = false, count_done = false;
  int tests = 0;
  double threshold_until_ms = 0;
  bool final_test = false;
  std::optional<BalancePhase> record;  // the phase running
  BalanceResult result;
};

}  // namespace ppb
