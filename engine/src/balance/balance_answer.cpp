// The balancer's answer: the best plan with what the search proved of it (optimal, a lower bound, or
// why neither), the plan over the limit by the least when nothing fits, and the progress a slice
// reports. See balancer_state.hpp.
#include <cstdio>
#include <string>

#include "balancer_state.hpp"

namespace ppb {
namespace balancer {

Plan plan_of(const BalanceProblem& problem, StageRecompute& recompute, const std::vector<int>& ends, bool within_limit,
             const std::vector<Choice>* choices) {
  Plan plan{problem.shape};
  plan.stage_layers.clear();
  int a = 0;
  for (int b : ends) {
    plan.stage_layers.push_back(b - a);
    a = b;
  }
  plan.recompute = recompute.layer_options(ends, within_limit, choices);
  return plan;
}

Plan least_over_plan(const BalanceProblem& problem, const std::vector<int>& ends) {
  Plan plan{problem.shape};
  int a = 0;
  for (int b : ends) {
    plan.stage_layers.push_back(b - a);
    a = b;
  }
  plan.recompute = least_activation_options(problem);
  return plan;
}

}  // namespace balancer
namespace {

std::vector<std::string> why_not_exact(Table table, bool budget_hit, bool clock_cut) {
  std::vector<std::string> notes;
  if (clock_cut)
    notes.push_back(
        "stopped early on this machine: the wall-clock cap (time_budget_ms) came before the work budget, so "
        "another machine may find another plan; raise the cap for the answer every machine gives");
  if (table == Table::relaxed)
    notes.push_back(
        "the budget did not allow the bound table with exact recompute (one recompute frontier per "
        "layer range); a weaker table that leaves recompute time out was used");
  if (table == Table::none)
    notes.push_back(
        "the budget did not allow even the relaxed bound table (it grows with layers x layers); the "
        "search used per-stage bounds only, starting from the even split");
  if (budget_hit && !clock_cut)
    notes.push_back("the search stopped at its work budget before every candidate was ruled out");
  return notes;
}

// Why no optimum is proven although the search finished: the memory the balancer charges may exceed
// the estimate's, so that a plan that fits could have been ruled out, or a plan's recompute choices
// were not all simulated; empty when neither (docs/ppb.md, why the result is optimal). The bounds
// themselves hold under every schedule program.
std::string why_inexact(const BalanceProblem& problem, const StageRecompute& recompute, const BranchAndBound& search) {
  if (needs_costs(problem.shape.schedule))
    return std::string("not proven optimal: ") + schedule_name(problem.shape.schedule) +
           "'s program depends on the stage costs; the balancer searched with the program written for the even "
           "split, and the plan's estimate runs the one written for the plan's own costs";
  if (!problem.memory_exact)
    return std::string("not proven optimal: under ") + schedule_name(problem.shape.schedule) +
           " a layer states a weight activation below the activation it keeps, and the balancer charges the "
           "part held from B to W as the whole activation, so a plan that fits could have been ruled out";
  if (recompute.memory_conservative())
    return "not proven optimal: a stage's chunks had too many recompute combinations to try each, so their "
           "memory was charged as each chunk's largest in-flight count added up, which can rule out a plan that "
           "fits";
  if (search.choices_cut() || recompute.choices_incomplete())
    return "not proven optimal: a plan had more combinations of its stages' recompute choices (each chunk's "
           "extra time traded against the others') than the search simulates, so only the least summed extra "
           "time of each stage was simulated for it";
  return {};
}

}  // namespace

// The lower bound the search has proven so far: the table's, or the least bound of the branches
// still open, whichever is higher; at most the best time.
double Balancer::Impl::proven_bound() const {
  const double best = std::min(search.best_time(), counts.best_time());
  const double bound = std::max(handed.table_bound, search.open_bound());
  return std::min(counts.started() ? std::max(bound, counts.open_bound()) : bound, best);
}

// The answer from the state of the search: complete, or stopped before it finished.
void Balancer::Impl::finish(Stop stop) {
  const bool stopped = stop != Stop::none;
  const BalanceOptions& options = problem.options;
  result.nodes = budget.nodes();
  result.simulations = search.simulations() + counts.simulations();
  result.work = budget.work();
  result.clock_cut = budget.clock_cut();
  const bool by_counts = counts.best_time() < search.best_time();
  const double best = std::min(search.best_time(), counts.best_time());
  const bool budget_hit = budget.hit() || stopped;
  if (best < kInf) {
    result.feasible = true;
    result.step_time_ms = best;
    result.plan = by_counts ? counts.best_plan()
                            : plan_of(problem, recompute, search.best_ends(), true,
                                      search.best_choices().empty() ? nullptr : &search.best_choices());
    // The count search's proof is its own: its rows are exact for every plan (it applies only where
    // the memory charged is the estimate's) and it reads no frontier.
    if (handed.count_done) {
      // Its lower bound is the cutoff's, or that of a node it closed to its programs' rounding (within
      // 10^-7 of the best time).
      result.lower_bound_ms = std::min(best / (1.0 + options.tolerance), counts.open_bound());
      const bool rounded = result.lower_bound_ms < best / (1.0 + options.tolerance);
      result.within_tolerance = rounded ? (best - result.lower_bound_ms) / result.lower_bound_ms : options.tolerance;
      result.proven_optimal = options.tolerance == 0 && fits(best, result.lower_bound_ms);
      result.notes.clear();
      if (options.tolerance > 0) result.notes.push_back("searched to within the requested tolerance of the optimum");
      if (rounded) {
        char text[160];
        std::snprintf(text, sizeof text, "%.3g ms", best / (1.0 + options.tolerance) - result.lower_bound_ms);
        result.notes.push_back(std::string("the count search closed every node, some to within ") + text +
                               " of the best time (the rounding of its linear programs)");
      }
      return;
    }
    const std::string inexact = why_inexact(problem, recompute, search);
    const bool model_exact = inexact.empty();
    // A thinned frontier may overstate a stage's least recompute time by its error; every bound (a
    // stage's own m micro batches, the drain before it and the round trip after it, counted twice)
    // and the step time grow by at most (m + 2) times the summed errors of the stages.
    const double error = frontiers.max_error();
    const double slack = (problem.m + 2) * problem.pp * error;
    const bool complete = !budget_hit && slack == 0;
    if (model_exact && complete) {
      result.proven_optimal = options.tolerance == 0;
      result.within_tolerance = options.tolerance;
      result.lower_bound_ms = best / (1.0 + options.tolerance);
    } else if (model_exact) {
      result.lower_bound_ms = std::max(0.0, (budget_hit ? proven_bound() : best / (1.0 + options.tolerance)) - slack);
      result.within_tolerance = (best - result.lower_bound_ms) / result.lower_bound_ms;
    }
    result.notes = why_not_exact(handed.table, budget.hit(), budget.clock_cut());
    if (!model_exact) result.notes.push_back(inexact);
    if (slack > 0) {
      char text[160];
      std::snprintf(text, sizeof text, "up to %.4g ms, so the bound holds to within %.4g ms", error, slack);
      result.notes.push_back("a recompute frontier was thinned to " + std::to_string(kFrontierPoints) +
                             " points: its answers may exceed the least recompute time by " + text);
    }
    if (stop == Stop::running)
      result.notes.push_back(stopped_text(stop) + "; this is the best plan so far");
    else if (stopped)
      result.notes.push_back(stopped_text(stop) + " before it finished");
    if (model_exact && complete && options.tolerance > 0)
      result.notes.push_back("searched to within the requested tolerance of the optimum");
  } else {
    // Here the search either ran out of budget or was stopped, or, with several chunks per stage
    // (no least-over plan), ruled every plan out.
    result.plan = least_over_plan(problem, handed.over ? handed.over->ends : problem.even_ends());
    const std::string which = handed.over ? "this is the plan that exceeds it least"
                                          : "this is the even split with the most activation-saving recompute";
    if (stop == Stop::running)
      result.notes.push_back(stopped_text(stop) + " and has not found a plan that fits the memory limit yet; " + which);
    else if (stopped)
      result.notes.push_back(stopped_text(stop) + " before it found a plan that fits the memory limit; " + which);
    else if (budget.clock_cut())
      result.notes.push_back(
          "stopped early on this machine: the wall-clock cap (time_budget_ms) came before the work budget and "
          "no plan that fits the memory limit was found by then; " +
          which);
    else if (budget_hit)
      result.notes.push_back("no plan that fits the memory limit was found within the work budget; " + which);
    else
      result.notes.push_back("no plan fits the memory limit with the recompute options allowed; " + which);
  }
  if (refused_full)
    result.notes.push_back(
        "recompute option \"full\" was left out: Megatron-LM refuses full recompute with the all-to-all overlap "
        "of interleaved_1f1b_overlap");
}

BalanceProgress Balancer::Impl::progress() const {
  BalanceProgress out;
  out.phase = phase == Phase::done ? "done" : kPhases[static_cast<int>(phase)].name;
  out.nodes = budget.nodes();
  out.simulations = search.simulations() + counts.simulations();
  out.finished = phase == Phase::done;
  if (const double best = std::min(search.best_time(), counts.best_time()); best < kInf) out.incumbent_ms = best;
  if (out.finished) {
    if (result.within_tolerance) out.lower_bound_ms = result.lower_bound_ms;
  } else if ((phase == Phase::search || phase == Phase::counts) && why_inexact(problem, recompute, search).empty() &&
             proven_bound() < kInf) {
    out.lower_bound_ms = proven_bound();
  }
  return out;
}
}  // namespace ppb
