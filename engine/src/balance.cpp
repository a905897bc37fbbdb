// PPB's phases in order: whether any plan fits, the bound table, the incumbents, the branch and bound, and the result
// with what it proves. The parts live beside this file: balance_problem (the tables every part reads),
// recompute_frontier and stage_recompute (exact recompute per stage), stage_bounds and suffix_bound
// (lower bounds), branch_and_bound (the search), least_over (when nothing fits).
#include "ppb/balance.hpp"

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
namespace {

using namespace balancer;

enum class Table { exact, relaxed, none };  // which suffix table the search had

Plan plan_of(const BalanceProblem& problem, StageRecompute& recompute, const std::vector<int>& ends, bool within_limit,
             const std::vector<Choice>* choices = nullptr) {
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

std::vector<std::string> why_not_exact(Table table, bool budget_hit) {
  std::vector<std::string> notes;
  if (table == Table::relaxed)
    notes.push_back(
        "the time budget did not allow the bound table with exact recompute (one recompute frontier per "
        "layer range); a weaker table that leaves recompute time out was used");
  if (table == Table::none)
    notes.push_back(
        "the time budget did not allow even the relaxed bound table (it grows with layers x layers); the "
        "search used per-stage bounds only, starting from the even split");
  if (budget_hit) notes.push_back("the search stopped at its budget before every candidate was ruled out");
  return notes;
}

// Why no optimum is proven although the search finished: the memory the balancer charges may exceed
// the estimate's, so that a plan that fits could have been ruled out, or a plan's recompute choices
// were not all simulated; empty when neither (docs/ppb.md, why the result is optimal). The bounds
// themselves hold under every schedule program.
std::string why_inexact(const BalanceProblem& problem, const StageRecompute& recompute, const BranchAndBound& search) {
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

void Balancer::Impl::run_phases() {
  // Memory limit less reserved, up to which the least-over plan's overshoot is rounding.
  const double rounding_mib = 1e-7 * std::max({1.0, std::fabs(problem.limit), problem.prefix_static.back()});
  const BalanceOptions& options = problem.options;
  while (phase != Phase::done) {
    switch (phase) {
      case Phase::least_over: {
        open_phase("least over");
        const PhaseStatus status = sweep->step(budget);
        if (status == PhaseStatus::paused) return;
        over = sweep->result();
        close_phase(status == PhaseStatus::done && over.has_value());
        // Memory is timing-free: when even this plan is over the limit, every plan is.
        if (over && over->overshoot_mib > rounding_mib) {
          result.plan = least_over_plan(problem, over->ends);
          result.notes.push_back(
              "no plan fits the memory limit with the recompute options allowed; this is the plan "
              "that exceeds it least");
          phase = Phase::done;
        } else {
          phase = Phase::exact_table;
        }
        break;
      }
      // The bound table with exact recompute gets half of what is left of the time budget; when it
      // cannot finish, the relaxed table (recompute time left out, still a lower bound) gets half of
      // the rest, and when even that cannot finish the search runs on its per-stage bounds alone.
      case Phase::exact_table: {
        if (!early_incumbents) {
          // The even split (and, when it does not fit, the plan over the limit by the least) before the
          // tables, so that a page asking for the best plan so far has one while they are built. In a
          // slice of its own: on many layers its frontiers take a while, and a caller that only wants
          // the least-over phase's verdict (infeasibility.cpp) stops at its end.
          if (budget.slice_over()) return;
          early_incumbents = true;
          search.try_plan(problem.even_ends());
          if (search.best_time() == kInf && over) search.try_plan(over->ends);
        }
        if (!options.exact_bound_table) {
          phase = Phase::relaxed_table;
          break;
        }
        if (!record) {
          open_phase("exact bound table");
          half_ms = (record->start_ms + options.time_budget_ms) / 2;
          suffix.start(true, half_ms, record->start_ms);
        }
        const PhaseStatus status = suffix.step(budget);
        if (status == PhaseStatus::paused) return;
        close_phase(status == PhaseStatus::done);
        phase = status == PhaseStatus::done ? Phase::incumbents : Phase::relaxed_table;
        break;
      }
      case Phase::relaxed_table: {
        if (!record) {
          open_phase("relaxed bound table");
          table = Table::relaxed;
          suffix.start(false, (record->start_ms + options.time_budget_ms) / 2, record->start_ms);
        }
        const PhaseStatus status = suffix.step(budget);
        if (status == PhaseStatus::paused) return;
        close_phase(status == PhaseStatus::done);
        if (status != PhaseStatus::done) {
          table = Table::none;
          suffix.clear();
        }
        phase = Phase::incumbents;
        break;
      }
      // Incumbents: the plan the suffix bound is built from (the even split and the plan over the
      // limit by the least were tried before the tables).
      case Phase::incumbents: {
        open_phase("incumbents");
        if (table != Table::none && suffix.at(0, 0) < kInf) search.try_plan(suffix.plan());
        close_phase(true);
        phase = Phase::local_search;
        break;
      }
      // A local search from the best incumbent gets a third of what is left of the budget.
      case Phase::local_search: {
        if (!record) {
          open_phase("local search");
          local_until_ms = record->start_ms + (options.time_budget_ms - record->start_ms) / 3;
        }
        const PhaseStatus status = search.improve_locally(local_until_ms);
        if (status == PhaseStatus::paused) return;
        close_phase(status == PhaseStatus::done);
        table_bound = suffix.at(0, 0);
        phase = Phase::threshold;
        break;
      }
      // With one chunk per stage and the exact table: a threshold test (threshold_bound.hpp) at the cut.
      // When no plan's stage bounds are all below it, the best plan is proven; otherwise its tables
      // cut the search's branches.
      case Phase::threshold: {
        const double cut = search.best_time() / (1.0 + options.tolerance);
        if (!record) {
          if (table != Table::exact || problem.V != problem.pp || !(cut < kInf) || table_bound >= cut) {
            search.start(table_bound);
            pause_long_search();
            phase = Phase::search;
            break;
          }
          open_phase("threshold test");
          threshold.start(cut);
        }
        const PhaseStatus status = threshold.step(budget);
        if (status == PhaseStatus::paused) return;
        close_phase(status == PhaseStatus::done);
        below = table_bound;
        above = cut;
        if (status == PhaseStatus::done) {
          if (threshold.rules_out_every_plan())
            below = cut;
          else
            above = cut;
          search.use_threshold(&threshold);
          // The bisection, only for a search that does not end soon (most end well before).
          bisect_pending = below < cut;
        }
        table_bound = std::max(table_bound, below);
        search.start(table_bound);
        pause_long_search();
        phase = Phase::search;
        break;
      }
      case Phase::search: {
        open_phase("search");
        const PhaseStatus status = search.step();
        if (status == PhaseStatus::paused && (bisect_pending || pairs_pending || count_pending) && search.at_pause()) {
          close_phase(false);
          phase = count_pending ? Phase::counts : bisect_pending ? Phase::bisection : Phase::pair_moves;
          break;
        }
        if (status == PhaseStatus::paused) return;
        close_phase(status == PhaseStatus::done);
        finish(Stop::none);
        phase = Phase::done;
        break;
      }
      // A search that did not end within kBisectAfterNodes nodes: threshold tests by bisection between
      // the tables' bound and the cut, for the lower bound the answer states when the search cannot
      // finish, and last at the cut again, whose tables the search then cuts with (a third of what is
      // left of the budget, at most 11 tests). The search goes on from where it paused.
      case Phase::bisection: {
        const double cut = search.best_time() / (1.0 + options.tolerance);
        if (!record) {
          open_phase("threshold bisection");
          search.use_threshold(nullptr);  // its tables are rebuilt below
          threshold_until_ms = record->start_ms + (options.time_budget_ms - record->start_ms) / 3;
          above = std::min(above, cut);
          tests = 0;
          final_test = below >= above;
          threshold.start(final_test ? cut : below + 0.5 * (above - below));
        }
        bool ready = false;
        for (;;) {
          const PhaseStatus status = threshold.step(budget);
          if (status == PhaseStatus::paused) return;
          if (status == PhaseStatus::given_up) break;
          ++tests;
          const double t = threshold.target();
          if (threshold.rules_out_every_plan())
            below = std::max(below, t);
          else
            above = std::min(above, t);
          if (final_test) {
            ready = true;
            break;
          }
          final_test = above - below <= 1e-4 * above || tests >= 11 || budget.past(threshold_until_ms);
          threshold.start(final_test ? cut : below + 0.5 * (above - below));
        }
        close_phase(ready);
        table_bound = std::max(table_bound, std::min(below, cut));
        if (ready) search.use_threshold(&threshold);
        bisect_pending = false;
        if (!pairs_pending) search.pause_at(std::numeric_limits<std::int64_t>::max());
        phase = pairs_pending ? Phase::pair_moves : Phase::search;
        break;
      }
      // The local search again, in pairs of moves, for a search that did not end within
      // kBisectAfterNodes nodes: a third of what is left of the budget, and at most the time the
      // balance has spent so far (a search that would end soon after the pause is not held up much
      // longer than it has run). The search then goes on from where it paused, cutting at the new
      // best time.
      case Phase::pair_moves: {
        if (!record) {
          open_phase("local search");
          local_until_ms = record->start_ms + std::min((options.time_budget_ms - record->start_ms) / 3,
                                                       record->start_ms - options.spent_before_ms);
        }
        const PhaseStatus status = search.improve_in_pairs(local_until_ms);
        if (status == PhaseStatus::paused) return;
        close_phase(status == PhaseStatus::done);
        pairs_pending = false;
        search.pause_at(std::numeric_limits<std::int64_t>::max());
        phase = Phase::search;
        break;
      }
      // The count search (count_search.hpp), for a search that did not end within kCountAfterNodes
      // nodes on a model whose movable layers are all alike: the rest of the budget. Closing every
      // node proves the best plan of either search; otherwise the answer keeps the better plan and
      // the higher bound.
      case Phase::counts: {
        if (!record) {
          open_phase("count search");
          counts.start(search.best_time(), search.simulations());
        }
        const PhaseStatus status = counts.step(budget);
        if (status == PhaseStatus::paused) return;
        close_phase(status == PhaseStatus::done);
        count_pending = false;
        count_done = status == PhaseStatus::done;
        if (status == PhaseStatus::given_up && !budget.hit()) {
          // Given up for its own reasons (a program the solver could not settle): the search goes on
          // from where it paused, after the phases it paused for (the answer takes the count search's
          // plan when it is better).
          if (!bisect_pending && !pairs_pending) search.pause_at(std::numeric_limits<std::int64_t>::max());
          phase = bisect_pending ? Phase::bisection : pairs_pending ? Phase::pair_moves : Phase::search;
          break;
        }
        finish(Stop::none);
        phase = Phase::done;
        break;
      }
      case Phase::done: break;
    }
  }
}

// The lower bound the search has proven so far: the table's, or the least bound of the branches
// still open, whichever is higher; at most the best time.
double Balancer::Impl::proven_bound() const {
  const double best = std::min(search.best_time(), counts.best_time());
  const double bound = std::max(table_bound, search.open_bound());
  return std::min(counts.started() ? std::max(bound, counts.open_bound()) : bound, best);
}

// The answer from the state of the search: complete, or stopped before it finished.
void Balancer::Impl::finish(Stop stop) {
  const bool stopped = stop != Stop::none;
  const BalanceOptions& options = problem.options;
  result.nodes = budget.nodes();
  result.simulations = search.simulations() + counts.simulations();
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
    if (count_done) {
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
    result.notes = why_not_exact(table, budget.hit());
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
    result.plan = least_over_plan(problem, over ? over->ends : problem.even_ends());
    const std::string which = over ? "this is the plan that exceeds it least"
                                   : "this is the even split with the most activation-saving recompute";
    if (stop == Stop::running)
      result.notes.push_back(stopped_text(stop) + " and has not found a plan that fits the memory limit yet; " + which);
    else if (stopped)
      result.notes.push_back(stopped_text(stop) + " before it found a plan that fits the memory limit; " + which);
    else if (budget_hit)
      result.notes.push_back("no plan that fits the memory limit was found within the search budget; " + which);
    else
      result.notes.push_back("no plan fits the memory limit with the recompute options allowed; " + which);
  }
}

BalanceProgress Balancer::Impl::progress() const {
  // In the order of Phase.
  static const char* const names[] = {
      "least over", "exact bound table",   "relaxed bound table", "incumbents",   "local search", "threshold test",
      "search",     "threshold bisection", "local search",        "count search", "done"};
  static_assert(sizeof names / sizeof names[0] == static_cast<std::size_t>(Phase::done) + 1);
  BalanceProgress out;
  out.phase = names[static_cast<int>(phase)];
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

Balancer::Balancer(const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options)
    : impl_(std::make_unique<Impl>(model, device, shape, options)) {}

Balancer::~Balancer() = default;

BalanceProgress Balancer::step(double slice_ms) {
  impl_->budget.begin_slice(slice_ms);
  impl_->run_phases();
  impl_->budget.end_slice();
  return impl_->progress();
}

BalanceProgress Balancer::progress() const { return impl_->progress(); }

BalanceResult Balancer::result(bool cancelled) {
  return impl_->answer(cancelled ? Impl::Stop::cancelled : Impl::Stop::stopped);
}

BalanceResult Balancer::best_so_far() { return impl_->answer(Impl::Stop::running); }

BalanceResult balance(const Model& model, const Device& device, const PipelineShape& shape,
                      const BalanceOptions& options) {
  Balancer balancer(model, device, shape, options);
  balancer.step(std::numeric_limits<double>::infinity());
  return balancer.result();
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
