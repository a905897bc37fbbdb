// PPB's phases in order: whether any plan fits, the bound table, the incumbents, the branch and bound, and the result
// with what it proves. The parts live beside this file: balance_problem (the tables every part reads),
// recompute_frontier and stage_recompute (exact recompute per stage), stage_bounds and suffix_bound
// (lower bounds), branch_and_bound (the search), least_over (when nothing fits).
#include "ppb/balance/balance.hpp"

#include <limits>

#include "balancer_state.hpp"

namespace ppb {

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
