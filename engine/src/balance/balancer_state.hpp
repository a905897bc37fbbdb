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
  // In the order they run; kPhases (balance.cpp) has each one's name and step.
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

  Impl(const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& given)
      : settings(options_for_schedule(model, shape, given)),
        problem(model, device, shape, settings),
        budget(settings),
        frontiers(problem, budget),
        recompute(problem, frontiers, budget),
        bounds(problem),
        price(problem),
        suffix(problem, recompute, frontiers, bounds, price),
        threshold(problem, recompute, bounds),
        search(problem, recompute, frontiers, bounds, suffix, budget),
        counts(problem) {
    refused_full = settings.recompute_options.size() < given.recompute_options.size();
    // Whether any plan fits is decided first where the least-over plan applies: one chunk per stage
    // and a memory limit.
    if (problem.limit < kInf && problem.V == problem.pp)
      sweep.emplace(problem);
    else
      phase = Phase::exact_table;
  }

  // Runs the phases from `phase` on until the balance is done or the slice ends.
  void run_phases();
  // The phases: each runs until it ends (true, `phase` then names the next) or the slice ends (false,
  // the next slice calls it again).
  bool least_over_step();
  bool exact_table_step();
  bool relaxed_table_step();
  bool incumbents_step();
  bool local_search_step();
  bool threshold_step();
  bool search_step();
  bool bisection_step();
  bool pair_moves_step();
  bool counts_step();
  struct PhaseEntry {
    const char* name;  // as BalancePhase names it
    bool (*step)(Impl&);
  };
  static const PhaseEntry kPhases[static_cast<int>(Phase::done)];
  // Starts the branch and bound, to pause after a number of nodes for the phases that only a long
  // search needs (handed.after_pause).
  void start_search(bool bisect);
  // Goes on after a phase the search paused for: to the next such phase, or back to the search.
  void resume_search();

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
  void open_phase() {
    if (!record)
      record = BalancePhase{kPhases[static_cast<int>(phase)].name, budget.elapsed_ms(), 0, budget.work(), 0, false};
  }
  void close_phase(bool complete) {
    record->end_ms = budget.elapsed_ms();
    record->work = budget.work() - record->start_work;
    record->complete = complete;
    result.phases.push_back(*record);
    record.reset();
  }

  // The request's options less what the schedule refuses (options_for_schedule); the problem and
  // the budget keep a reference, so it lives here, before them.
  BalanceOptions settings;
  bool refused_full = false;  // the request allowed "full", which the schedule refuses
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
  Phase phase = Phase::least_over;
  std::optional<BalancePhase> record;  // the phase running
  std::int64_t until_work = 0;         // the end of the running phase's share of the work budget
  int tests = 0;                       // the bisection's threshold tests so far
  bool final_test = false;             // the bisection's test running is the last, at the cut

  // What the phases hand on to those after them and to the answer.
  struct HandOver {
    std::optional<LeastOver> over;  // the plan over the limit by the least, when known
    bool tried_even = false;        // the even split (or the least-over plan) was tried before the tables
    Table table = Table::exact;     // the suffix table the search has
    double table_bound = 0;         // what the tables prove of every plan: suffix(0, 0), raised by threshold tests
    // The threshold tests: every plan is at least `below`; some plan's stage bounds are all under `above`.
    double below = 0, above = kInf;
    // The phases a search that has not ended within a number of nodes pauses for, in the order they
    // run (the count search first: when it closes every node, the balance is done).
    std::vector<Phase> after_pause;
    bool count_done = false;  // the count search closed every node
  } handed;
  // A search pauses after kLongSearchNodes nodes (kCountAfterNodes for the count search with several
  // chunks per stage, where the search's bounds are weakest).
  static constexpr std::int64_t kLongSearchNodes = 20'000;
  static constexpr std::int64_t kCountAfterNodes = 2'000;
  BalanceResult result;
};

}  // namespace ppb
