// The whole-plan bound (whole_plan_bound.hpp): its value at given weights on a hand-worked model, and
// on small random models under every schedule program, never above the exhaustive optimum at the
// ascent's best multipliers nor at random ones (weak duality must hold for every weight and price);
// its path rows (program_paths.hpp) against the simulator.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "balance/balance_budget.hpp"
#include "balance/balance_problem.hpp"
#include "balance/branch_and_bound.hpp"
#include "balance/program_paths.hpp"
#include "balance/recompute_frontier.hpp"
#include "balance/whole_plan_bound.hpp"
#include "balance_helpers.hpp"
#include "balance_search_parts.hpp"
#include "ppb/balance/balance.hpp"
#include "ppb/plan/stage_costs.hpp"
#include "ppb/schedule/schedule.hpp"
#include "ppb/simulate/simulate.hpp"

namespace ppb::test {
namespace {

using balancer::BalanceProblem;
using balancer::Budget;
using balancer::WholePlanBound;

// Six layers of F 1, B 2, no transfers, no memory limit; interleaved_1f1b, pp 2, vpp 2, m 2.
// Virtual stages 0 and 2 sit on stage 0, 1 and 3 on stage 1; each holds at least one layer.
Model six_equal_layers() { return numbered_layers(6, 1, 2); }

// Weights only on bound 1 (bounds 0 and 1 are bound 1 of stages 0 and 1): (1 - l) g_0 + l g_1 with
//   g_0 = m (work of v0 + v2) = 6 (n0 + n2),   g_1 = PF_1 + m (work of v1 + v3) + PB_1 = 3 n0 + 6 (n1 + n3).
// A layer therefore costs 6 (1 - l) + 3 l = 6 - 3l in v0, 6 l in v1 and v3, 6 (1 - l) in v2. One
// layer must sit in each virtual stage (12 + 3l) and the two others go where a layer is cheapest,
// min(6 l, 6 - 6 l) each (v0 never is: 6 - 3l >= 6 - 6l). So
//   D(l) = 12 + 3l + 2 min(6l, 6 - 6l):  D(1/2) = 19.5, D(1/4) = 15.75, D(3/4) = 17.25, D(0) = 12.
TEST(BalanceWholeBound, HandWorkedWeightsOnBoundOne) {
  const Model model = six_equal_layers();
  const Device device;
  const Plan shape = shape_of(2, 2, Schedule::interleaved_1f1b, 2);
  const BalanceOptions options;
  const BalanceProblem problem(model, device, shape, options);
  WholePlanBound whole(problem);
  ASSERT_TRUE(whole.applies());
  ASSERT_GT(whole.bounds(), 2);
  const std::vector<std::vector<double>> no_prices(2, std::vector<double>(problem.peaks[0].size(), 0.0));
  const auto at = [&](double l) {
    std::vector<double> lambda(static_cast<std::size_t>(whole.bounds()), 0.0);
    lambda[0] = 1 - l;
    lambda[1] = l;
    std::vector<std::vector<double>> mu;
    for (int s = 0; s < 2; ++s) mu.emplace_back(problem.peaks[static_cast<std::size_t>(s)].size(), 0.0);
    return whole.evaluate(lambda, mu);
  };
  EXPECT_NEAR(at(0.5), 19.5, 1e-12);
  EXPECT_NEAR(at(0.25), 15.75, 1e-12);
  EXPECT_NEAR(at(0.75), 17.25, 1e-12);
  EXPECT_NEAR(at(0.0), 12.0, 1e-12);
  // The ascent's best is a bound too: never above the optimum found by exhaustive search.
  Budget budget(options);
  budget.begin_slice(std::numeric_limits<double>::infinity());
  whole.ascend(budget, std::numeric_limits<double>::infinity());
  const Exhaustive want = exhaustive(model, device, shape, {});
  ASSERT_TRUE(want.feasible);
  EXPECT_LE(whole.best(), want.best_ms * (1 + 1e-9));
  EXPECT_GE(whole.best(), 12.0);
}

// Random models of 6 to 7 layers (pins, two recompute kinds, transfers on half, a memory limit from
// loose to tight) under every schedule: the bound at the ascent's multipliers, and at random weights
// and prices, is at most the exhaustive optimum of every model with a plan that fits.
TEST(BalanceWholeBound, NeverAboveTheExhaustiveOptimum) {
  const std::vector<Case> cases = {
      {Schedule::gpipe, 2, 1, {1, 2, 4}},
      {Schedule::one_f_one_b, 3, 1, {2, 4, 8}},
      {Schedule::interleaved_1f1b, 2, 2, {2, 4, 6}},
      {Schedule::interleaved_1f1b, 2, 3, {2, 4}},
      {Schedule::interleaved_1f1b, 3, 2, {3, 6}},
      {Schedule::zb_h1, 2, 1, {1, 3, 6}},
      {Schedule::zb_h2, 3, 1, {3, 6, 8}},
      {Schedule::zbv, 2, 2, {1, 2, 4, 6}},
      {Schedule::dualpipev, 2, 2, {4, 6, 8}},
  };
  std::mt19937 rng(18);
  for (const Case& c : cases) {
    int checked = 0;
    for (int trial = 0; trial < 12; ++trial) {
      const int V = c.pp * c.vpp;
      std::uniform_int_distribution<int> layers_d(std::max(6, V), std::max(7, V));
      std::uniform_int_distribution<std::size_t> m_d(0, c.micro_batches.size() - 1);
      const Model model = random_model(rng, layers_d(rng));
      const Plan shape = shape_of(c.pp, c.micro_batches[m_d(rng)], c.schedule, c.vpp);
      Device device = random_device(rng);
      const double m = static_cast<double>(shape.micro_batch_num);
      std::uniform_real_distribution<double> tightness(0.8, 2.0);
      device.memory_limit_mib = limit_between(model, std::min<double>(c.pp, m), c.pp, tightness(rng));
      BalanceOptions options;
      options.recompute_options = {0, 1};
      const std::string label = std::string(schedule_name(c.schedule)) + " pp " + std::to_string(c.pp) + " vpp " +
                                std::to_string(c.vpp) + " trial " + std::to_string(trial);
      const Exhaustive want = exhaustive(model, device, shape, options.recompute_options);
      if (!want.feasible) continue;
      ++checked;
      const BalanceProblem problem(model, device, shape, options);
      WholePlanBound whole(problem);
      ASSERT_TRUE(whole.applies()) << label;
      Budget budget(options);
      budget.begin_slice(std::numeric_limits<double>::infinity());
      whole.ascend(budget, want.best_ms * 1.2);
      EXPECT_LE(whole.best(), want.best_ms * (1 + 1e-9)) << label;
      // The table a node reads: what the virtual stages from v on can add, from v's start, is at
      // most what the exhaustive optimum's partition adds from there.
      std::vector<int> ends;
      int a = 0;
      for (int n : want.best.stage_layers) ends.push_back(a += n);
      double after = 0;
      for (int v = static_cast<int>(ends.size()) - 1; v >= 0; --v) {
        const int from = v == 0 ? 0 : ends[static_cast<std::size_t>(v) - 1];
        after += whole.range(v, from, ends[static_cast<std::size_t>(v)]);
        EXPECT_LE(whole.rest(v, from), after + 1e-9 * std::fabs(after)) << label << " virtual stage " << v;
      }
      EXPECT_NEAR(whole.rest(0, 0) + whole.constant(), whole.best(), 1e-9 * std::fabs(whole.best())) << label;
      // Random weights on the simplex and random prices up to a few ms per MiB.
      std::exponential_distribution<double> draw(1.0);
      std::uniform_real_distribution<double> price(0, 0.05);
      for (int k = 0; k < 5; ++k) {
        std::vector<double> lambda(static_cast<std::size_t>(whole.bounds()));
        double sum = 0;
        for (double& x : lambda) sum += x = draw(rng);
        for (double& x : lambda) x /= sum;
        std::vector<std::vector<double>> mu;
        for (int s = 0; s < c.pp; ++s) {
          mu.emplace_back(problem.peaks[static_cast<std::size_t>(s)].size(), 0.0);
          for (double& y : mu.back()) y = price(rng);
        }
        EXPECT_LE(whole.evaluate(lambda, mu), want.best_ms * (1 + 1e-9)) << label << " random multipliers " << k;
      }
      // Each bound alone (its weight 1, no prices): random weights spread over every row would hide
      // one invalid row under the others. Path rows added by the ascent included.
      const std::vector<std::vector<double>> no_prices = [&] {
        std::vector<std::vector<double>> mu;
        for (int s = 0; s < c.pp; ++s) mu.emplace_back(problem.peaks[static_cast<std::size_t>(s)].size(), 0.0);
        return mu;
      }();
      for (int j = 0; j < whole.bounds(); ++j) {
        std::vector<double> lambda(static_cast<std::size_t>(whole.bounds()), 0.0);
        lambda[static_cast<std::size_t>(j)] = 1;
        EXPECT_LE(whole.evaluate(lambda, no_prices), want.best_ms * (1 + 1e-9)) << label << " bound " << j << " alone";
      }
    }
    EXPECT_GE(checked, 6) << schedule_name(c.schedule);
  }
}

// A clock of whole milliseconds that moves on by 1 at each reading (as in balance_budget_test.cpp):
// what the ascent spends depends on its own readings, never on the machine's speed.
struct SteppingClock {
  double now_ms = 0;
  std::int64_t readings = 0;
  std::function<double()> function() {
    return [this] {
      ++readings;
      return now_ms++;
    };
  }
};

// The search with the whole-plan bound from its first node (its root bound, and the table at every
// node): on small random models with several chunks per stage it must still find the exhaustive
// optimum, so the bound never cuts the branch that holds it. (A balance builds it only after
// 20,000 nodes, which these models never reach.)
TEST(BalanceWholeBound, SearchWithItFromTheFirstNodeFindsTheExhaustiveOptimum) {
  const std::vector<Case> cases = {
      {Schedule::interleaved_1f1b, 2, 2, {2, 4}},
      {Schedule::interleaved_1f1b, 3, 2, {3, 6}},
      {Schedule::zbv, 2, 2, {1, 4}},
      {Schedule::dualpipev, 2, 2, {4, 6}},
  };
  std::mt19937 rng(1812);
  for (const Case& c : cases) {
    int checked = 0;
    for (int trial = 0; trial < 10; ++trial) {
      const int V = c.pp * c.vpp;
      const auto [model, shape, device] = random_trial(rng, c, std::max(6, V + 1), trial);
      BalanceOptions options;
      options.recompute_options = {0, 1};
      const Exhaustive want = exhaustive(model, device, shape, options.recompute_options);
      if (!want.feasible) continue;
      ++checked;
      SearchParts parts(model, device, shape, options, 0, false);
      balancer::BranchAndBound& search = *parts.search;
      const std::string label =
          std::string(schedule_name(c.schedule)) + " pp " + std::to_string(c.pp) + " trial " + std::to_string(trial);
      ASSERT_EQ(search.step(), balancer::PhaseStatus::done) << label;
      EXPECT_NEAR(search.best_time(), want.best_ms, 1e-9 * want.best_ms) << label;
    }
    EXPECT_GE(checked, 5) << schedule_name(c.schedule);
  }
}

// The product's path: the bound built part way through the search (after 4 nodes here, 20,000 in a
// balance), inside slices of 2 ms of a clock that moves 1 ms per reading, so that the ascent and
// the search pause and go on, and the relaxed sums of the stages already on the search path are
// rebuilt from its stack. The search must still find the exhaustive optimum, and the bound must
// have been built in most cases.
TEST(BalanceWholeBound, SearchBuildingItPartWayInSlicesFindsTheExhaustiveOptimum) {
  const std::vector<Case> cases = {
      {Schedule::interleaved_1f1b, 2, 2, {2, 4}},
      {Schedule::interleaved_1f1b, 3, 2, {3, 6}},
      {Schedule::zbv, 2, 2, {1, 4}},
      {Schedule::interleaved_1f1b, 2, 3, {2, 4}},
  };
  std::mt19937 rng(2412);
  for (const Case& c : cases) {
    int checked = 0, built = 0;
    for (int trial = 0; trial < 8; ++trial) {
      const int V = c.pp * c.vpp;
      const auto [model, shape, device] = random_trial(rng, c, V + 2, trial);
      SteppingClock clock;
      BalanceOptions options;
      options.recompute_options = {0, 1};
      options.clock_ms = clock.function();
      const Exhaustive want = exhaustive(model, device, shape, options.recompute_options);
      if (!want.feasible) continue;
      ++checked;
      SearchParts parts(model, device, shape, options, 4, true);
      balancer::BranchAndBound& search = *parts.search;
      Budget& budget = parts.budget;
      const std::string label =
          std::string(schedule_name(c.schedule)) + " pp " + std::to_string(c.pp) + " trial " + std::to_string(trial);
      balancer::PhaseStatus status = balancer::PhaseStatus::paused;
      for (int slice = 0; status == balancer::PhaseStatus::paused && slice < 1'000'000; ++slice) {
        budget.begin_slice(2);
        status = search.step();
        budget.end_slice();
      }
      ASSERT_EQ(status, balancer::PhaseStatus::done) << label;
      EXPECT_NEAR(search.best_time(), want.best_ms, 1e-9 * want.best_ms) << label;
      built += search.whole_ready() ? 1 : 0;
    }
    EXPECT_GE(checked, 5) << schedule_name(c.schedule);
    EXPECT_GE(built, checked / 2) << schedule_name(c.schedule);
  }
}

// A problem whose master has many rows and whose ascent runs many pivots: interleaved_1f1b, pp 4,
// vpp 3 (4 + 4 x 4 x 3^2 = 148 stage and chain bounds), 40 random layers, a binding memory limit.
struct LargeMaster {
  Model model;
  Device device;
  Plan shape = shape_of(4, 12, Schedule::interleaved_1f1b, 3);
  [[nodiscard]] BalanceOptions options(double time_budget_ms = std::numeric_limits<double>::infinity(),
                                       std::function<double()> clock = {}) const {
    BalanceOptions o;
    o.recompute_options = recompute;
    o.time_budget_ms = time_budget_ms;
    o.work_budget = std::numeric_limits<std::int64_t>::max() / 2;  // only the clock stops it
    o.clock_ms = std::move(clock);
    return o;
  }
  std::vector<int> recompute = {0, 1};
  LargeMaster() {
    std::mt19937 rng(2026);
    model = random_model(rng, 40);
    device = random_device(rng);
    device.memory_limit_mib = limit_between(model, 4, 4, 1.0);
  }
};

// The time budget is kept inside a round: with the clock moving 1 ms per reading and a 25 ms budget,
// the ascent stops at its first reading past 25 ms (given up), and between two readings the master
// does at most the work that makes the budget read the clock (64 units of 256 multiply-adds) plus
// one step of its solver (dense_lp.hpp): a pivot (rows x variables, variables = t, the memory rows'
// parts over their limits and the plans), with at most two refreshes of the basic values (as much
// each) and the moves of nonbasic variables to their other bounds before it (rows each, at most one
// per variable), or a plan's column or a path's row added (at most rows x (rows + memory rows +
// variables)). Its best is a bound of the ascent's prefix, so never above the best of an ascent
// without a clock.
TEST(BalanceWholeBound, AscentStopsInsideItsShareOfTime) {
  const LargeMaster c;
  const BalanceOptions options = c.options();
  const BalanceProblem problem(c.model, c.device, c.shape, options);
  WholePlanBound full(problem);
  ASSERT_TRUE(full.applies());
  Budget unlimited(options);
  unlimited.begin_slice(std::numeric_limits<double>::infinity());
  ASSERT_EQ(full.ascend(unlimited, std::numeric_limits<double>::infinity()), balancer::PhaseStatus::done);
  int memories = 0;
  for (const auto& vectors : problem.peaks) memories += static_cast<int>(vectors.size());
  const double rows = full.master_rows(), variables = 1.0 + memories + full.plans();
  const double between = 64 * 256 + rows * (4 * variables + rows + memories + 8);
  // The unlimited ascent does far more than 25 readings' worth of work: the clock must stop it.
  ASSERT_GT(full.master_work(), 40 * between);

  SteppingClock clock;
  const BalanceOptions timed = c.options(25, clock.function());
  WholePlanBound whole(problem);
  Budget budget(timed);
  budget.begin_slice(std::numeric_limits<double>::infinity());
  EXPECT_EQ(whole.ascend(budget, std::numeric_limits<double>::infinity()), balancer::PhaseStatus::given_up);
  EXPECT_LE(clock.now_ms, 25 + 3);  // its start, the reading past 25 ms, and one more at most
  EXPECT_LE(whole.master_work(), static_cast<double>(clock.readings + 1) * between);
  EXPECT_GT(whole.best(), -std::numeric_limits<double>::infinity());
  EXPECT_LE(whole.best(), full.best() * (1 + 1e-12));
}

// An ascent run in slices of 2 ms (slices end inside the master's solve too) makes the same rounds,
// plans and path rows, and reaches the same bound, as one run without a clock.
TEST(BalanceWholeBound, AscentInSlicesMatchesOneRun) {
  const LargeMaster c;
  const BalanceOptions options = c.options();
  const BalanceProblem problem(c.model, c.device, c.shape, options);
  WholePlanBound once(problem);
  Budget unlimited(options);
  unlimited.begin_slice(std::numeric_limits<double>::infinity());
  ASSERT_EQ(once.ascend(unlimited, std::numeric_limits<double>::infinity()), balancer::PhaseStatus::done);

  SteppingClock clock;
  const BalanceOptions sliced = c.options(std::numeric_limits<double>::infinity(), clock.function());
  WholePlanBound whole(problem);
  Budget budget(sliced);
  int slices = 0;
  balancer::PhaseStatus status = balancer::PhaseStatus::paused;
  while (status == balancer::PhaseStatus::paused) {
    budget.begin_slice(2);
    status = whole.ascend(budget, std::numeric_limits<double>::infinity());
    budget.end_slice();
    ++slices;
  }
  EXPECT_EQ(status, balancer::PhaseStatus::done);
  EXPECT_GT(slices, whole.rounds());  // some slices ended inside a round
  EXPECT_EQ(whole.rounds(), once.rounds());
  EXPECT_EQ(whole.plans(), once.plans());
  EXPECT_EQ(whole.path_rows(), once.path_rows());
  EXPECT_EQ(whole.best(), once.best());
}

// The longest path through the program, from a plan's virtual stage costs, is the simulator's step
// time (both take each operation at the later of its stage's previous end and its input's arrival,
// with the transfer on every edge between physical stages; no tails here), and its row, read at
// the same times, gives the same value: a path of the plan, hence a bound of it.
TEST(BalanceWholeBound, LongestPathIsTheSimulatorsStepTime) {
  std::mt19937 rng(7);
  const std::vector<Case> cases = {
      {Schedule::one_f_one_b, 3, 1, {2, 5}},
      {Schedule::interleaved_1f1b, 2, 2, {2, 4}},
      {Schedule::interleaved_1f1b, 3, 2, {3, 6}},
      {Schedule::zb_h1, 3, 1, {3, 6}},
      {Schedule::zb_h2, 2, 1, {4}},
      {Schedule::zbv, 2, 2, {2, 5}},
  };
  for (const Case& c : cases)
    for (int trial = 0; trial < 5; ++trial) {
      const int V = c.pp * c.vpp;
      const Model model = random_model(rng, V + 3);
      Plan shape =
          shape_of(c.pp, c.micro_batches[static_cast<std::size_t>(trial) % c.micro_batches.size()], c.schedule, c.vpp);
      const Device device = random_device(rng);
      shape.stage_layers.assign(static_cast<std::size_t>(V), 1);
      shape.stage_layers[static_cast<std::size_t>(trial % V)] += 3;
      shape.recompute.assign(static_cast<std::size_t>(model.layer_count()), -1);
      const std::vector<VirtualStageCost> costs = virtual_stage_costs(model, device, shape);
      SimulationInput in;
      static_cast<PipelineShape&>(in) = shape;
      in.costs = costs;
      const double want = simulate(in).step_time_ms;
      const BalanceOptions options;
      const BalanceProblem problem(model, device, shape, options);
      balancer::ProgramPaths paths(problem);
      const auto Vs = static_cast<std::size_t>(V);
      std::vector<double> times(5 * Vs, 0), row;
      for (std::size_t u = 0; u < Vs; ++u) {
        times[0 * Vs + u] = costs[u].forward_ms;
        times[1 * Vs + u] = costs[u].backward_ms;
        times[2 * Vs + u] = costs[u].weight_ms;
        times[4 * Vs + u] = costs[u].send_ms;
      }
      double tail = 0;
      const std::string label = std::string(schedule_name(c.schedule)) + " trial " + std::to_string(trial);
      const double got = paths.longest(times, row, tail);
      EXPECT_NEAR(got, want, 1e-9 * want) << label;
      double along = tail;
      for (std::size_t k = 0; k < row.size(); ++k) along += row[k] * times[k];
      EXPECT_NEAR(along, got, 1e-9 * got) << label;
    }
}

}  // namespace
}  // namespace ppb::test
