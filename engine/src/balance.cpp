// PPB's phases in order: whether any plan fits, the bound table, the incumbents, the branch and bound, and the result with
// what it proves. The parts live beside this file: balance_problem (the tables every part reads),
// recompute_frontier and stage_recompute (exact recompute per stage), stage_bounds and suffix_bound
// (lower bounds), branch_and_bound (the search), least_over (when nothing fits).
#include "ppb/balance.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "balance_budget.hpp"
#include "balance_problem.hpp"
#include "branch_and_bound.hpp"
#include "least_over.hpp"
#include "recompute_frontier.hpp"
#include "stage_bounds.hpp"
#include "stage_recompute.hpp"
#include "suffix_bound.hpp"

namespace ppb {
namespace {

using namespace balancer;

enum class Table { exact, relaxed, none };  // which suffix table the search had

Plan plan_of(const BalanceProblem& problem, StageRecompute& recompute, const std::vector<int>& ends, bool within_limit) {
  Plan plan{problem.shape};
  plan.stage_layers.clear();
  int a = 0;
  for (int b : ends) {
    plan.stage_layers.push_back(b - a);
    a = b;
  }
  plan.recompute = recompute.layer_options(ends, within_limit);
  return plan;
}

// Stage ends with every layer on its most activation-saving option.
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

std::vector<std::string> why_not_exact(const BalanceProblem& problem, Table table, bool budget_hit, bool thinned) {
  std::vector<std::string> notes;
  if (table == Table::relaxed)
    notes.push_back("the time budget did not allow the bound table with exact recompute (one recompute frontier per "
                    "layer range); a weaker table that leaves recompute time out was used");
  if (table == Table::none)
    notes.push_back("the time budget did not allow even the relaxed bound table (it grows with layers x layers); the "
                    "search used per-stage bounds only, starting from the even split");
  if (budget_hit) notes.push_back("the search stopped at its budget before every candidate was ruled out");
  if (thinned) notes.push_back("a recompute frontier was thinned to " + std::to_string(kFrontierCap) + " points");
  if (problem.shape.vpp_degree > 1)
    notes.push_back("with several model chunks per stage the memory bound adds each chunk's largest in-flight count, "
                    "which can rule out plans that would fit");
  if (problem.shape.schedule == Schedule::zb_h1)
    notes.push_back("zb_h1 picks operations by arrival, so its step time is not proven monotone in stage times, and "
                    "memory is bounded by the in-flight cap min(pp - s, m)");
  return notes;
}

}  // namespace

BalanceResult balance(const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options) {
  const BalanceProblem problem(model, device, shape, options);
  Budget budget(options);
  FrontierCache frontiers(problem, budget);
  StageRecompute recompute(problem, frontiers, budget);
  StageBounds bounds(problem);
  SuffixBound suffix(problem, recompute, frontiers, bounds);
  BalanceResult result;
  // Runs one phase, which says whether it ran to its end, and records it.
  auto phase = [&](const char* name, auto&& run) {
    BalancePhase record{name, budget.elapsed_ms(), 0, false};
    record.complete = run();
    record.end_ms = budget.elapsed_ms();
    result.phases.push_back(record);
    return record.complete;
  };

  // Whether any plan fits: the plan over the limit by the least (every layer on its most-saving
  // recompute) decides it in O(V L) before any search; when it fits it is an incumbent too.
  std::optional<LeastOver> over;
  if (problem.limit < kInf && problem.V == problem.pp)
    phase("least over", [&] {
      over = least_over(problem, budget);
      return over.has_value();
    });
  const double rounding_mib = 1e-7 * std::max({1.0, std::fabs(problem.limit), problem.prefix_static.back()});
  if (over && over->overshoot_mib > rounding_mib) {
    result.plan = least_over_plan(problem, over->ends);
    result.notes.push_back("no plan fits the memory limit with the recompute options allowed; this is the plan that "
                           "exceeds it least");
    return result;
  }

  // The bound table with exact recompute gets half of what is left of the time budget; when it
  // cannot finish, the relaxed table (recompute time left out, still a lower bound) gets the rest,
  // and when even that cannot finish the search runs on its per-stage bounds alone.
  Table table = Table::exact;
  const double half_ms = (budget.elapsed_ms() + options.time_budget_ms) / 2;
  if (!options.exact_bound_table || !phase("exact bound table", [&] { return suffix.build(true, half_ms, budget); })) {
    table = Table::relaxed;
    if (!phase("relaxed bound table", [&] { return suffix.build(false, options.time_budget_ms, budget); })) {
      table = Table::none;
      suffix.clear();
    }
  }

  BranchAndBound search(problem, recompute, frontiers, bounds, suffix, budget);
  // Incumbents: the plan the suffix bound is built from, the even split, and when neither fits the
  // plan over the limit by the least, which fits.
  phase("incumbents", [&] {
    if (table != Table::none && suffix.at(0, 0) < kInf) search.try_plan(suffix.plan());
    search.try_plan(problem.even_ends());
    if (search.best_time() == kInf && over) search.try_plan(over->ends);
    return true;
  });
  const double lower_bound = suffix.at(0, 0);
  phase("search", [&] {
    search.search();
    return !budget.hit();
  });

  result.nodes = budget.nodes();
  result.simulations = search.simulations();
  const double best = search.best_time();
  if (best < kInf) {
    result.feasible = true;
    result.step_time_ms = best;
    result.plan = plan_of(problem, recompute, search.best_ends(), true);
    const bool model_exact =
        shape.vpp_degree == 1 && (shape.schedule == Schedule::gpipe || shape.schedule == Schedule::one_f_one_b);
    const bool complete = !budget.hit() && !frontiers.thinned();
    if (model_exact && complete) {
      result.proven_optimal = options.tolerance == 0;
      result.within_tolerance = options.tolerance;
      result.lower_bound_ms = best / (1.0 + options.tolerance);
    } else if (model_exact) {
      result.lower_bound_ms = std::min(lower_bound, best);
      result.within_tolerance = (best - result.lower_bound_ms) / result.lower_bound_ms;
    }
    result.notes = why_not_exact(problem, table, budget.hit(), frontiers.thinned());
    if (model_exact && complete && options.tolerance > 0)
      result.notes.push_back("searched to within the requested tolerance of the optimum");
  } else {
    // Here the search either ran out of budget or, with several chunks per stage (no least-over
    // plan), ruled every plan out.
    result.plan = least_over_plan(problem, over ? over->ends : problem.even_ends());
    const std::string which = over ? "this is the plan that exceeds it least"
                                   : "this is the even split with the most activation-saving recompute";
    if (budget.hit())
      result.notes.push_back("no plan that fits the memory limit was found within the search budget; " + which);
    else
      result.notes.push_back("no plan fits the memory limit with the recompute options allowed; " + which);
  }
  return result;
}

Plan with_best_recompute(const Model& model, const Device& device, Plan plan, const std::vector<int>& recompute_options,
                         const std::vector<StageComponent>& components) {
  BalanceOptions options;
  options.components = components;
  options.recompute_options = recompute_options;
  options.allow_empty_stages = true;
  const BalanceProblem problem(model, device, plan, options);
  Budget budget(options);
  FrontierCache frontiers(problem, budget);
  StageRecompute recompute(problem, frontiers, budget);
  return plan_of(problem, recompute, ends_of(plan.stage_layers), true);
}

}  // namespace ppb
