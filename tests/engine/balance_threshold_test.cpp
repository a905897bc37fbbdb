// 1f1b's chain and window bounds (stage_bounds.hpp) and the threshold test (threshold_bound.hpp):
// hand-worked timelines where the bounds meet the simulator, random stage costs under which no bound
// exceeds the simulated step time, and balances whose threshold tests and proofs are held to
// exhaustive search (docs/ppb.md, bounds for every schedule, 2 and 6).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "balance/balance_budget.hpp"
#include "balance/balance_problem.hpp"
#include "balance/recompute_frontier.hpp"
#include "balance/stage_bounds.hpp"
#include "balance/stage_recompute.hpp"
#include "balance/threshold_bound.hpp"
#include "balance_helpers.hpp"
#include "ppb/balance/balance.hpp"
#include "ppb/plan/stage_costs.hpp"
#include "ppb/simulate/simulate.hpp"

namespace ppb {
namespace {

using namespace ppb::test;
using balancer::BalanceProblem;
using balancer::StageBounds;

// A model of n layers: the stage bounds below read only the problem's counts (m, pp, the forwards
// each stage runs before its first backward), never the layers.
Model placeholder_layers(int n) { return numbered_layers(n, 1); }

VirtualStageCost stage_cost(double f, double b, double send) {
  VirtualStageCost c;
  c.forward_ms = f;
  c.backward_ms = b;
  c.send_ms = send;
  return c;
}

double simulated(const Plan& shape, const std::vector<VirtualStageCost>& costs) {
  SimulationInput in;
  in.schedule = shape.schedule;
  in.pp_degree = shape.pp_degree;
  in.micro_batch_num = shape.micro_batch_num;
  in.costs = costs;
  return simulate(in).step_time_ms;
}

// pp 2, m 6, F 1, B 2 on both stages, 0.5 ms each way between them. Stage 0 runs F0 F1 B0 F2 B1 F3
// B2 F4 B3 F5 B4 B5; each of its backwards waits for the round trip 0.5 + 3 + 0.5 = 4 after its
// forward, so from F(x) to F(x + 2) it takes 1 + 4 + 2 = 7 (round trip, then B and F), not the 6 of
// its own two pairs. By hand: B0 starts at 1 + 4 = 5, F2 ends at 8, F4 at 15, F5 at 18 (one own pair),
// and B5 waits for F5's round trip: 18 + 4 + 2 = 24. The chain is exactly that; the earlier timeline
// bound counts the middle pairs at their own 3 each: 5 + 4 x 3 + 6 = 23.
TEST(BalanceChain, HandWorkedRoundTripsOnTwoStages) {
  const Model model = placeholder_layers(2);
  const Device device;
  const Plan shape = shape_of(2, 6, Schedule::one_f_one_b);
  const BalanceOptions options;
  const BalanceProblem problem(model, device, shape, options);
  const StageBounds bounds(problem);
  const double later = 0.5 + 1 + 2 + 0.5;
  EXPECT_DOUBLE_EQ(bounds.chain(2, 1, 2, later, later, 2), 24.0);
  EXPECT_DOUBLE_EQ(bounds.from_costs(0, 0, 0, 1, 2, later).strong, 24.0);
  EXPECT_DOUBLE_EQ(simulated(shape, {stage_cost(1, 2, 0.5), stage_cost(1, 2, 0)}), 24.0);
}

// pp 3, m 12: stages 0 and 1 of F 1, B 2, stage 2 light (F 0.25, B 0.5), 1 ms each way between
// stages. Stage 0 (three forwards first) waits, every second micro batch, for the round trip through
// stage 1 alone (1 + 3 + 1 = 5): from F(x) to F(x + 2) it takes 3 + 5 = 8, 4 per micro batch, where
// the round trip through both later stages (1 + 3 + 1 + 0.75 + 1 + 1 = 7.75) is only 10.75 per three.
// The window of stages 0..1: B0 waits for 1 + 7.75, F3 ends at 11.75, four steps of 8 reach F11 at
// 43.75, and B11 waits for F11's round trip: 43.75 + 7.75 + 2 = 53.5, the simulated step time. The
// bounds of the whole pipeline reach 49 (the chain at 10.75 per three micro batches).
TEST(BalanceChain, HandWorkedWindowOfTwoStages) {
  const Model model = placeholder_layers(3);
  Device device;
  const Plan shape = shape_of(3, 12, Schedule::one_f_one_b);
  const BalanceOptions options;
  const BalanceProblem problem(model, device, shape, options);
  StageBounds bounds(problem);
  ASSERT_TRUE(bounds.has_windows(0));
  const double later = 7.75, within = 5;
  EXPECT_DOUBLE_EQ(bounds.window(0, 0, 0, 1, 2, later, within, 2), 53.5);
  const std::vector<VirtualStageCost> costs = {stage_cost(1, 2, 1), stage_cost(1, 2, 1), stage_cost(0.25, 0.5, 0)};
  EXPECT_DOUBLE_EQ(simulated(shape, costs), 53.5);
  EXPECT_DOUBLE_EQ(bounds.plan(costs), 49.0);
}

// Random stage costs and transfers, pp 2 to 7, m from pp to 4 pp + 1: every stage bound (the chain
// included) and every window bound is at most the simulated step time, and windows add to the
// whole-pipeline bounds on some of them.
TEST(BalanceChain, NoBoundAboveTheSimulation) {
  std::mt19937 rng(1812);
  std::uniform_real_distribution<double> time(0.25, 6.0), send(0.0, 2.0), heavy(1.0, 3.0);
  std::uniform_int_distribution<int> coin(0, 1);
  int windows_tighter = 0, trials = 0;
  for (int pp = 2; pp <= 7; ++pp)
    for (const std::int64_t m :
         {std::int64_t{pp}, std::int64_t{pp} + 1, 2 * std::int64_t{pp} + 1, 4 * std::int64_t{pp} + 1})
      for (int trial = 0; trial < 25; ++trial) {
        const Model model = placeholder_layers(pp);
        const Device device;
        const Plan shape = shape_of(pp, m, Schedule::one_f_one_b);
        const BalanceOptions options;
        const BalanceProblem problem(model, device, shape, options);
        StageBounds bounds(problem);
        std::vector<VirtualStageCost> costs;
        for (int s = 0; s < pp; ++s) {
          const double f = time(rng) * (coin(rng) ? heavy(rng) : 1.0);
          costs.push_back(stage_cost(f, f + time(rng), s + 1 < pp && coin(rng) ? send(rng) : 0));
        }
        const double step = simulated(shape, costs);
        const double whole = bounds.plan(costs);
        EXPECT_LE(whole, step * (1 + 1e-12)) << "pp " << pp << " m " << m << " trial " << trial;
        // Every window s..e (e < pp - 1) from the stage's exact prefix and round trips.
        double pf = 0, pb = 0, best_window = 0;
        for (int s = 0; s < pp; ++s) {
          double later = 0;
          for (int u = s + 1; u < pp; ++u)
            later += costs[u].forward_ms + costs[u].backward_ms + 2 * costs[u - 1].send_ms;
          if (bounds.has_windows(s)) {
            double within = 0;
            for (int e = s + 1; e + 1 < pp; ++e) {
              within += costs[e].forward_ms + costs[e].backward_ms + 2 * costs[e - 1].send_ms;
              const double w =
                  bounds.window(s, pf, pb, costs[s].forward_ms, costs[s].backward_ms, later, within, e - s + 1);
              EXPECT_LE(w, step * (1 + 1e-12))
                  << "pp " << pp << " m " << m << " trial " << trial << " window " << s << ".." << e;
              best_window = std::max(best_window, w);
            }
          }
          pf += costs[s].forward_ms + costs[s].send_ms;
          pb += costs[s].backward_ms + costs[s].send_ms;
        }
        if (best_window > whole * (1 + 1e-9)) ++windows_tighter;
        ++trials;
      }
  EXPECT_GT(windows_tighter, trials / 50);  // the seeds must show windows that matter
}

// Threshold tests at the exhaustive optimum raised by a hair: whether they rule every plan out (they
// must not).
bool threshold_rules_out(const Model& model, const Device& device, const Plan& shape, const BalanceOptions& options,
                         double optimum) {
  const BalanceProblem problem(model, device, shape, options);
  balancer::Budget budget(options);
  budget.begin_slice(std::numeric_limits<double>::infinity());
  balancer::FrontierCache frontiers(problem, budget);
  balancer::StageRecompute recompute(problem, frontiers, budget);
  const StageBounds bounds(problem);
  balancer::ThresholdBound threshold(problem, recompute, bounds);
  threshold.start(optimum * (1 + 1e-9));
  return threshold.step(budget) == balancer::PhaseStatus::done && threshold.rules_out_every_plan();
}

// The threshold test at a target just above the exhaustive optimum never rules every plan out (the
// optimal plan's stage bounds are below it), and balances of 1f1b models whose windows and round
// trips matter (pp 4 and 5, m from pp to 3 pp, transfers, a memory limit, one recompute kind) claim
// the exhaustive optimum and state no lower bound above it. The threshold phase must have run on
// most of them.
TEST(BalanceThreshold, NeverRulesOutTheExhaustiveOptimum) {
  std::mt19937 rng(20261201);
  int compared = 0, thresholds = 0;
  for (int trial = 0; trial < 120; ++trial) {
    std::uniform_int_distribution<int> layers_d(7, 9), pp_d(4, 5), coin(0, 1);
    const int layers = layers_d(rng);
    const Model model = random_model(rng, layers);
    const int pp = pp_d(rng);
    std::uniform_int_distribution<std::int64_t> m_d(pp, 3 * pp);
    const Plan shape = shape_of(pp, m_d(rng), Schedule::one_f_one_b);
    const std::vector<int> options = {coin(rng)};
    Device device;
    add_transfers(device);
    std::uniform_real_distribution<double> tightness(0.6, 1.6);
    device.memory_limit_mib = limit_between(model, pp, pp, tightness(rng));
    const Exhaustive want = exhaustive(model, device, shape, options);
    const std::string where = "trial " + std::to_string(trial);
    BalanceOptions opt;
    opt.recompute_options = options;
    const BalanceResult got = balance(model, device, shape, opt);
    ASSERT_EQ(got.feasible, want.feasible) << where;
    if (!want.feasible) continue;
    ++compared;
    EXPECT_TRUE(got.proven_optimal) << where;
    EXPECT_NEAR(got.step_time_ms, want.best_ms, 1e-9 * want.best_ms) << where;
    EXPECT_LE(got.lower_bound_ms, want.best_ms * (1 + 1e-9)) << where;
    for (const BalancePhase& phase : got.phases)
      if (phase.name == "threshold test" && phase.complete) ++thresholds;
    EXPECT_FALSE(threshold_rules_out(model, device, shape, opt, want.best_ms)) << where;
  }
  EXPECT_GT(compared, 80);
  EXPECT_GT(thresholds, compared / 2);
}

// With empty stages allowed (balance.allow_empty_stages): random models of 3 to 6 layers, pp 2 to 4,
// gpipe, 1f1b, zb_h1 and zb_h2, slow transfers (1 GB/s: a layer's transfer well above the latency an
// empty first stage sends) on half, pins, memory limits on half and outside tails on a third, against
// every partition with empty stages. An empty first stage sends only the latency, and a stage may
// start at the last layer (every stage after it empty): a review found the threshold test blind to
// the second and every bound overcharging the first, each claiming a proof of a slower plan.
TEST(BalanceEmptyStages, ProvenOptimumIsTheExhaustiveOptimum) {
  std::mt19937 rng(20261202);
  const Schedule schedules[] = {Schedule::gpipe, Schedule::one_f_one_b, Schedule::zb_h1, Schedule::zb_h2};
  int compared = 0, empty_optima = 0;
  for (int trial = 0; trial < 240; ++trial) {
    std::uniform_int_distribution<int> layers_d(3, 6), pp_d(2, 4), coin(0, 1), schedule_d(0, 3), third(0, 2);
    const Model model = random_model(rng, layers_d(rng));
    const int pp = pp_d(rng);
    const Schedule schedule = schedules[schedule_d(rng)];
    std::uniform_int_distribution<std::int64_t> m_d(schedule == Schedule::zb_h1 || schedule == Schedule::zb_h2 ? pp : 1,
                                                    3 * pp);
    const Plan shape = shape_of(pp, m_d(rng), schedule);
    Device device;
    add_transfers(device);
    if (coin(rng)) {
      device.p2p_bandwidth_gbs = 1;
      device.p2p_latency_ms = 0.01;
    }
    std::uniform_real_distribution<double> tightness(0.6, 1.6);
    if (coin(rng)) device.memory_limit_mib = limit_between(model, pp, pp, tightness(rng));
    BalanceOptions options;
    options.recompute_options = {coin(rng)};
    options.allow_empty_stages = true;
    if (third(rng) == 0) {
      StageComponent tail;
      tail.name = "outside";
      std::uniform_real_distribution<double> ms(0, 8);
      for (int s = 0; s < pp; ++s) tail.step_ms.push_back(std::round(ms(rng)));
      options.components = {tail};
    }
    const Exhaustive want = exhaustive(model, device, shape, options.recompute_options, options.components, 0);
    const BalanceResult got = balance(model, device, shape, options);
    const std::string where = "trial " + std::to_string(trial);
    ASSERT_EQ(got.feasible, want.feasible) << where;
    if (!want.feasible) continue;
    ++compared;
    if (std::count(want.best.stage_layers.begin(), want.best.stage_layers.end(), 0) > 0) ++empty_optima;
    EXPECT_LE(got.step_time_ms, want.best_ms * (1 + 1e-9)) << where;
    if (got.proven_optimal) {
      EXPECT_NEAR(got.step_time_ms, want.best_ms, 1e-9 * want.best_ms) << where;
    }
    EXPECT_LE(got.lower_bound_ms, want.best_ms * (1 + 1e-9)) << where;
    EXPECT_FALSE(threshold_rules_out(model, device, shape, options, want.best_ms)) << where;
  }
  EXPECT_GT(compared, 150);
  EXPECT_GT(empty_optima, 20);  // the seeds must reach optima with empty stages
}

}  // namespace
}  // namespace ppb
