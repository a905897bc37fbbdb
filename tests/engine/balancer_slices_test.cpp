// A balance run in slices (Balancer::step) gives exactly the answer of one run at once: the same
// plan, proof, bound, nodes and simulations, whatever the slices. The balances read an injected
// clock that moves 1 ms at every reading, so slices of 1 ms end at almost every point where a
// balance can stop, and nothing depends on the machine's speed.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "ppb/balance/balance.hpp"
#include "test_models.hpp"

namespace ppb::test {
namespace {

struct SteppingClock {
  double now_ms = 0;
  std::function<double()> function() {
    return [this] { return now_ms++; };
  }
};

struct Case {
  std::string name;
  Model model;
  PipelineShape shape;
  std::optional<double> limit_mib;
  std::int64_t node_budget = 2'000'000;
};

// Proven (96 layers over 16 stages, memory binding), cut by its node budget (1,000 layers over 64
// stages), nothing fits, interleaved and zb_h1 (no proof), gpipe without a limit, a search paused
// for the threshold bisection and one for the pairs of moves; node budgets keep the test short.
std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back(
      {"proven", transformer_like(96), shape_of(16, 64, Schedule::one_f_one_b), 3000 + 6 * 400 + 16 * 6 * 300 / 3.0});
  out.push_back({"node budget", transformer_like(1000), shape_of(64, 64, Schedule::one_f_one_b),
                 3000 + 15.6 * 400 + 64 * 15.6 * 300 / 3.0, 5'000});
  out.push_back({"nothing fits", transformer_like(96), shape_of(8, 32, Schedule::one_f_one_b), 3000});
  out.push_back({"interleaved", transformer_like(40), shape_of(4, 8, Schedule::interleaved_1f1b, 2), 20'000, 5'000});
  out.push_back({"zb_h1", transformer_like(40), shape_of(4, 8, Schedule::zb_h1), 20'000, 5'000});
  out.push_back({"no limit", transformer_like(60), shape_of(8, 16, Schedule::gpipe), std::nullopt, 5'000});
  // The search pauses after 20,000 nodes for the threshold bisection, then goes on to its budget.
  out.push_back({"bisection", transformer_like(298), shape_of(64, 256, Schedule::one_f_one_b),
                 3000 + 4.66 * 400 + 64 * 4.66 * 300 / 3.0, 30'000});
  // Interleaved past 20,000 nodes: the search pauses for the local search's pairs of moves.
  out.push_back(
      {"interleaved pairs", transformer_like(40), shape_of(4, 8, Schedule::interleaved_1f1b, 2), 20'000, 30'000});
  // Past 20,000 nodes with neither (32 virtual stages, several chunks): the search must not pause.
  out.push_back(
      {"many stages", transformer_like(100), shape_of(16, 32, Schedule::interleaved_1f1b, 2), std::nullopt, 25'000});
  return out;
}

BalanceResult run(const Case& c, double slice_ms, std::vector<BalanceProgress>* progress = nullptr,
                  double time_budget_ms = 1e12, std::int64_t work_budget = kDefaultWorkBudget) {
  Device device;
  device.p2p_bandwidth_gbs = 25;
  device.p2p_latency_ms = 0.02;
  device.memory_limit_mib = c.limit_mib;
  SteppingClock clock;
  BalanceOptions options;
  options.recompute_options = {0, 1};
  options.node_budget = c.node_budget;
  options.time_budget_ms = time_budget_ms;
  options.work_budget = work_budget;
  options.clock_ms = clock.function();
  Balancer balancer(c.model, device, c.shape, options);
  for (;;) {
    const BalanceProgress p = balancer.step(slice_ms);
    if (progress) progress->push_back(p);
    if (p.finished) break;
  }
  return balancer.result();
}

TEST(BalancerSlices, SlicedRunGivesTheOneShotPlanAndProof) {
  for (const Case& c : cases()) {
    const BalanceResult whole = run(c, 1e12);
    std::vector<BalanceProgress> progress;
    const BalanceResult sliced = run(c, 1, &progress);
    EXPECT_GT(progress.size(), 3u) << c.name;  // it did run in several slices
    EXPECT_EQ(sliced.plan.stage_layers, whole.plan.stage_layers) << c.name;
    EXPECT_EQ(sliced.plan.recompute, whole.plan.recompute) << c.name;
    EXPECT_EQ(sliced.feasible, whole.feasible) << c.name;
    EXPECT_EQ(sliced.proven_optimal, whole.proven_optimal) << c.name;
    EXPECT_EQ(sliced.step_time_ms, whole.step_time_ms) << c.name;
    EXPECT_EQ(sliced.lower_bound_ms, whole.lower_bound_ms) << c.name;
    EXPECT_EQ(sliced.within_tolerance, whole.within_tolerance) << c.name;
    EXPECT_EQ(sliced.nodes, whole.nodes) << c.name;
    EXPECT_EQ(sliced.simulations, whole.simulations) << c.name;
    EXPECT_EQ(sliced.notes, whole.notes) << c.name;
    if (c.name == "bisection") {
      std::vector<std::string> phases;
      for (const BalancePhase& phase : whole.phases) phases.push_back(phase.name);
      EXPECT_EQ(std::count(phases.begin(), phases.end(), "threshold bisection"), 1);
      EXPECT_EQ(std::count(phases.begin(), phases.end(), "search"), 2);
    }
    if (c.name == "bisection" || c.name == "interleaved pairs" || c.name == "many stages") {
      std::vector<std::string> phases;
      for (const BalancePhase& phase : whole.phases) phases.push_back(phase.name);
      // The local search before the search, and its pairs of moves once the search has paused (not
      // over 64 stages: about 8 million pairs).
      EXPECT_EQ(std::count(phases.begin(), phases.end(), "local search"), c.name == "interleaved pairs" ? 2 : 1)
          << c.name;
      EXPECT_GT(whole.nodes, 20'000) << c.name;
    }
  }
  // The cases cover what they are named for.
  const auto all = cases();
  EXPECT_TRUE(run(all[0], 1e12).proven_optimal);
  EXPECT_FALSE(run(all[1], 1e12).proven_optimal);
  EXPECT_FALSE(run(all[2], 1e12).feasible);
}

// The pairs of moves stop at their share of the work budget (a third of what is left, at most the
// work done before them), in 1 ms slices as in one run: their share is checked every 2 V tries
// counted across slices, not only within one call. The search then goes on to the budget's end, and
// the sliced run is the one run exactly.
TEST(BalancerSlices, PairsOfMovesStopAtTheirShare) {
  const auto all = cases();
  const Case& c = *std::find_if(all.begin(), all.end(), [](const Case& x) { return x.name == "interleaved pairs"; });
  // Where the search pauses without a work budget: a budget a little past that.
  const BalanceResult probe = run(c, 1e12, nullptr, 1e12, std::numeric_limits<std::int64_t>::max() / 2);
  std::int64_t pause_work = 0;  // the first search ends at the pause
  for (const BalancePhase& p : probe.phases)
    if (p.name == "search") {
      pause_work = p.start_work + p.work;
      break;
    }
  ASSERT_GT(pause_work, 0);
  const std::int64_t budget = pause_work + 45'000;
  std::optional<BalanceResult> whole;
  for (double slice : {1e12, 1.0}) {
    const BalanceResult r = run(c, slice, nullptr, 1e12, budget);
    std::vector<BalancePhase> locals;
    for (const BalancePhase& p : r.phases)
      if (p.name == "local search") locals.push_back(p);
    ASSERT_EQ(locals.size(), 2u) << slice;
    const BalancePhase& pairs = locals[1];
    const std::int64_t share = std::min((budget - pairs.start_work) / 3, pairs.start_work);
    EXPECT_FALSE(pairs.complete) << slice;  // a pass takes longer than the share here
    // Its share is checked every 2 V tries: it stops within a tenth of its share past it.
    EXPECT_GE(pairs.work, share) << slice;
    EXPECT_LE(pairs.work - share, share / 10) << slice;
    const BalancePhase& last = r.phases.back();
    EXPECT_EQ(last.name, "search") << slice;
    EXPECT_GE(last.start_work + last.work, budget) << slice;  // the rest is the search's
    // Sliced, the same plan, work and nodes: the whole-plan ascent keeps its round's work fixed
    // across slices (before, a slice between rounds recounted it with the rows added since).
    if (!whole) {
      whole = r;
    } else {
      EXPECT_EQ(r.plan.stage_layers, whole->plan.stage_layers);
      EXPECT_EQ(r.step_time_ms, whole->step_time_ms);
      EXPECT_EQ(r.work, whole->work);
      EXPECT_EQ(r.nodes, whole->nodes);
    }
  }
}

// Between slices the incumbent only falls and the proven lower bound only rises, never above the
// incumbent; the gap closes to nothing when the balance proves its plan.
TEST(BalancerSlices, ProgressShowsTheGapClosing) {
  std::vector<BalanceProgress> progress;
  const BalanceResult r = run(cases()[0], 1, &progress);
  ASSERT_TRUE(r.proven_optimal);
  double incumbent = 1e300, bound = 0;
  bool gap_seen = false;
  for (const auto& p : progress) {
    if (p.incumbent_ms) {
      EXPECT_LE(*p.incumbent_ms, incumbent);
      incumbent = *p.incumbent_ms;
    }
    if (p.lower_bound_ms) {
      EXPECT_GE(*p.lower_bound_ms, bound);
      bound = *p.lower_bound_ms;
      ASSERT_TRUE(p.incumbent_ms);
      EXPECT_LE(*p.lower_bound_ms, *p.incumbent_ms);
      gap_seen = gap_seen || *p.lower_bound_ms < *p.incumbent_ms;
    }
  }
  EXPECT_TRUE(gap_seen);
  const BalanceProgress& last = progress.back();
  EXPECT_TRUE(last.finished);
  EXPECT_EQ(last.phase, "done");
  EXPECT_EQ(last.incumbent_ms, r.step_time_ms);
  EXPECT_EQ(last.lower_bound_ms, r.step_time_ms);
}

// Stopped before it finishes, a balancer answers with the best plan so far, not proven, saying it
// was stopped, and can still go on to the answer of an uninterrupted run.
TEST(BalancerSlices, AStoppedBalanceAnswersWithItsBestPlanSoFar) {
  const Case c = cases()[0];
  const BalanceResult whole = run(c, 1e12);
  Device device;
  device.p2p_bandwidth_gbs = 25;
  device.p2p_latency_ms = 0.02;
  device.memory_limit_mib = c.limit_mib;
  SteppingClock clock;
  BalanceOptions options;
  options.recompute_options = {0, 1};
  options.time_budget_ms = 1e12;
  options.clock_ms = clock.function();
  Balancer balancer(c.model, device, c.shape, options);
  BalanceProgress p;
  do p = balancer.step(1);
  while (p.phase != "search" || !p.incumbent_ms);
  const BalanceResult early = balancer.result();
  EXPECT_TRUE(early.feasible);
  EXPECT_FALSE(early.proven_optimal);
  EXPECT_EQ(early.step_time_ms, *p.incumbent_ms);
  EXPECT_GE(early.step_time_ms, whole.step_time_ms);
  ASSERT_FALSE(early.notes.empty());
  EXPECT_EQ(early.notes.back(), "the balance was stopped before it finished");
  while (!balancer.step(1e12).finished) {
  }
  const BalanceResult rest = balancer.result();
  EXPECT_EQ(rest.plan.stage_layers, whole.plan.stage_layers);
  EXPECT_TRUE(rest.proven_optimal);
}

}  // namespace
}  // namespace ppb::test
