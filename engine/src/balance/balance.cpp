// PPB's phases and its public face (Balancer, balance, with_best_recompute). The phases run in the
// order of the table below, each until it ends or the slice does; docs/ppb.md's first screen says
// what each buys. The state they hand on is in balancer_state.hpp, the answer in balance_answer.cpp.
#include "ppb/balance/balance.hpp"

#include <algorithm>
#include <limits>

#include "balancer_state.hpp"

namespace ppb {

// In the order they run: whether any plan fits (one chunk per stage); the suffix bound, each stage's
// recompute exact, or without frontiers when that cannot finish; the table's own plan; single moves
// from the best plan; one chunk per stage, whether any plan can beat the best; the branch and bound
// over stage ends; and for a long search, the bound the threshold tests can prove, pairs of moves and,
// on alike layers, the count search's proof.
const Balancer::Impl::PhaseEntry Balancer::Impl::kPhases[] = {
    {"least over", [](Impl& b) { return b.least_over_step(); }},
    {"exact bound table", [](Impl& b) { return b.exact_table_step(); }},
    {"relaxed bound table", [](Impl& b) { return b.relaxed_table_step(); }},
    {"incumbents", [](Impl& b) { return b.incumbents_step(); }},
    {"local search", [](Impl& b) { return b.local_search_step(); }},
    {"threshold test", [](Impl& b) { return b.threshold_step(); }},
    {"search", [](Impl& b) { return b.search_step(); }},
    {"threshold bisection", [](Impl& b) { return b.bisection_step(); }},
    {"local search", [](Impl& b) { return b.pair_moves_step(); }},
    {"count search", [](Impl& b) { return b.counts_step(); }},
};

void Balancer::Impl::run_phases() {
  while (phase != Phase::done)
    if (!kPhases[static_cast<int>(phase)].step(*this)) return;  // the slice ended
}

// The search pauses, once it has run kLongSearchNodes nodes without ending, for the phases only a
// long search needs: the count search where every movable layer is alike (after kCountAfterNodes
// with several chunks per stage), the threshold bisection (`bisect`) and the local search's pairs of
// moves (at most 27 virtual stages).
void Balancer::Impl::start_search(bool bisect) {
  search.start(handed.table_bound);
  std::vector<Phase>& later = handed.after_pause;
  later.clear();
  if (counts.applies()) later.push_back(Phase::counts);
  if (bisect) later.push_back(Phase::bisection);
  if (search.pairs_apply()) later.push_back(Phase::pair_moves);
  const bool counts_early = counts.applies() && problem.V != problem.pp;
  if (!later.empty()) search.pause_at(budget.nodes() + (counts_early ? kCountAfterNodes : kLongSearchNodes));
  phase = Phase::search;
}

void Balancer::Impl::resume_search() {
  std::vector<Phase>& later = handed.after_pause;
  if (later.empty()) {
    search.pause_at(std::numeric_limits<std::int64_t>::max());
    phase = Phase::search;
  } else {
    phase = later.front();
    later.erase(later.begin());
  }
}

// The phases, one step each: it runs until the phase ends (true, `phase` then names the next) or the
// slice ends (false: the next slice calls it again and it goes on).

// The plan over the limit by the least: when even it is over the limit, every plan is (memory is
// timing-free), and the balance ends with it.
bool Balancer::Impl::least_over_step() {
  open_phase();
  const PhaseStatus status = sweep->step(budget);
  if (status == PhaseStatus::paused) return false;
  handed.over = sweep->result();
  close_phase(status == PhaseStatus::done && handed.over.has_value());
  // Memory limit less reserved, up to which the least-over plan's overshoot is rounding.
  const double rounding_mib = 1e-7 * std::max({1.0, std::fabs(problem.limit), problem.prefix_static.back()});
  if (handed.over && handed.over->overshoot_mib > rounding_mib) {
    result.plan = least_over_plan(problem, handed.over->ends);
    result.notes.push_back(
        "no plan fits the memory limit with the recompute options allowed; this is the plan that exceeds it least");
    phase = Phase::done;
  } else {
    phase = Phase::exact_table;
  }
  return true;
}

// The bound table with exact recompute gets half of what is left of the time budget; when it cannot
// finish, the relaxed table (recompute time left out, still a lower bound) gets half of the rest.
bool Balancer::Impl::exact_table_step() {
  if (!handed.tried_even) {
    // The even split (and, when it does not fit, the plan over the limit by the least) before the
    // tables, so that a page asking for the best plan so far has one while they are built. In a
    // slice of its own: on many layers its frontiers take a while, and a caller that only wants the
    // least-over phase's verdict (infeasibility.cpp) stops at its end.
    if (budget.slice_over()) return false;
    handed.tried_even = true;
    search.try_plan(problem.even_ends());
    if (search.best_time() == kInf && handed.over) search.try_plan(handed.over->ends);
  }
  if (!problem.options.exact_bound_table) {
    phase = Phase::relaxed_table;
    return true;
  }
  if (!record) {
    open_phase();
    until_work = (record->start_work + problem.options.work_budget) / 2;
    suffix.start(true, until_work, record->start_work);
  }
  const PhaseStatus status = suffix.step(budget);
  if (status == PhaseStatus::paused) return false;
  close_phase(status == PhaseStatus::done);
  phase = status == PhaseStatus::done ? Phase::incumbents : Phase::relaxed_table;
  return true;
}

// When even this table cannot finish, the search runs on its per-stage bounds alone.
bool Balancer::Impl::relaxed_table_step() {
  if (!record) {
    open_phase();
    handed.table = Table::relaxed;
    suffix.start(false, (record->start_work + problem.options.work_budget) / 2, record->start_work);
  }
  const PhaseStatus status = suffix.step(budget);
  if (status == PhaseStatus::paused) return false;
  close_phase(status == PhaseStatus::done);
  if (status != PhaseStatus::done) {
    handed.table = Table::none;
    suffix.clear();
  }
  phase = Phase::incumbents;
  return true;
}

// The plan the suffix bound is built from (the even split and the plan over the limit by the least
// were tried before the tables).
bool Balancer::Impl::incumbents_step() {
  open_phase();
  if (handed.table != Table::none && suffix.at(0, 0) < kInf) search.try_plan(suffix.plan());
  close_phase(true);
  phase = Phase::local_search;
  return true;
}

// Single moves from the best incumbent, within a third of what is left of the budget.
bool Balancer::Impl::local_search_step() {
  if (!record) {
    open_phase();
    until_work = record->start_work + (problem.options.work_budget - record->start_work) / 3;
  }
  const PhaseStatus status = search.improve_locally(until_work);
  if (status == PhaseStatus::paused) return false;
  close_phase(status == PhaseStatus::done);
  handed.table_bound = suffix.at(0, 0);
  phase = Phase::threshold;
  return true;
}

// With one chunk per stage and the exact table: a threshold test (threshold_bound.hpp) at the cut.
// When no plan's stage bounds are all below it, the best plan is proven; otherwise its tables cut
// the search's branches.
bool Balancer::Impl::threshold_step() {
  const double cut = search.best_time() / (1.0 + problem.options.tolerance);
  if (!record) {
    if (handed.table != Table::exact || problem.V != problem.pp || !(cut < kInf) || handed.table_bound >= cut) {
      start_search(false);
      return true;
    }
    open_phase();
    threshold.start(cut);
  }
  const PhaseStatus status = threshold.step(budget);
  if (status == PhaseStatus::paused) return false;
  close_phase(status == PhaseStatus::done);
  handed.below = handed.table_bound;
  handed.above = cut;
  if (status == PhaseStatus::done) {
    if (threshold.rules_out_every_plan())
      handed.below = cut;
    else
      handed.above = cut;
    search.use_threshold(&threshold);
  }
  handed.table_bound = std::max(handed.table_bound, handed.below);
  // The bisection, only for a search that does not end soon (most end well before).
  start_search(status == PhaseStatus::done && handed.below < cut);
  return true;
}

// The branch and bound; it pauses for the phases of a long search (start_search) and goes on after.
bool Balancer::Impl::search_step() {
  open_phase();
  const PhaseStatus status = search.step();
  if (status == PhaseStatus::paused && !handed.after_pause.empty() && search.at_pause()) {
    close_phase(false);
    resume_search();
    return true;
  }
  if (status == PhaseStatus::paused) return false;
  close_phase(status == PhaseStatus::done);
  finish(Stop::none);
  phase = Phase::done;
  return true;
}

// Threshold tests by bisection between the tables' bound and the cut, for the lower bound the answer
// states when the search cannot finish, and last at the cut again, whose tables the search then cuts
// with (a third of what is left of the budget, at most 11 tests).
bool Balancer::Impl::bisection_step() {
  const double cut = search.best_time() / (1.0 + problem.options.tolerance);
  double& below = handed.below;
  double& above = handed.above;
  if (!record) {
    open_phase();
    search.use_threshold(nullptr);  // its tables are rebuilt below
    until_work = record->start_work + (problem.options.work_budget - record->start_work) / 3;
    above = std::min(above, cut);
    tests = 0;
    final_test = below >= above;
    threshold.start(final_test ? cut : below + 0.5 * (above - below));
  }
  bool ready = false;
  for (;;) {
    const PhaseStatus status = threshold.step(budget);
    if (status == PhaseStatus::paused) return false;
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
    final_test = above - below <= 1e-4 * above || tests >= 11 || budget.past_work(until_work);
    threshold.start(final_test ? cut : below + 0.5 * (above - below));
  }
  close_phase(ready);
  handed.table_bound = std::max(handed.table_bound, std::min(below, cut));
  if (ready) search.use_threshold(&threshold);
  resume_search();
  return true;
}

// The local search again, in pairs of moves: a third of what is left of the budget, and at most the
// time the balance has spent so far (a search that would end soon after the pause is not held up
// much longer than it has run). The search then goes on, cutting at the new best time.
bool Balancer::Impl::pair_moves_step() {
  if (!record) {
    open_phase();
    until_work =
        record->start_work + std::min((problem.options.work_budget - record->start_work) / 3, record->start_work);
  }
  const PhaseStatus status = search.improve_in_pairs(until_work);
  if (status == PhaseStatus::paused) return false;
  close_phase(status == PhaseStatus::done);
  resume_search();
  return true;
}

// The count search (count_search.hpp) takes the rest of the budget. Closing every node proves the
// best plan of either search; otherwise the answer keeps the better plan and the higher bound.
bool Balancer::Impl::counts_step() {
  if (!record) {
    open_phase();
    counts.start(search.best_time(), search.simulations());
  }
  const PhaseStatus status = counts.step(budget);
  if (status == PhaseStatus::paused) return false;
  close_phase(status == PhaseStatus::done);
  handed.count_done = status == PhaseStatus::done;
  if (status == PhaseStatus::given_up && !budget.hit()) {
    // Given up for its own reasons (a program the solver could not settle): the search goes on from
    // where it paused, after the phases it paused for (the answer takes the count search's plan when
    // it is better).
    resume_search();
    return true;
  }
  finish(Stop::none);
  phase = Phase::done;
  return true;
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
