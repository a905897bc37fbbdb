// PPB keeps its budgets in every phase. The work budget decides the answer: the same request gives
// the same plan, figures and notes whatever the clock says, sliced or not (what makes a link show the
// plan its sender saw, on any machine). The wall clock is only a safety cap: the balance reads an
// injected clock that advances at every reading, so the cap tests depend on the balancer's own
// readings, never on the machine's speed.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "ppb/balance/balance.hpp"
#include "test_models.hpp"

namespace ppb::test {
namespace {

// A clock of whole milliseconds that moves on by `step_ms` each time it is read.
struct SteppingClock {
  double now_ms = 0;
  double step_ms = 1;
  std::int64_t readings = 0;
  std::function<double()> function() {
    return [this] {
      ++readings;
      const double t = now_ms;
      now_ms += step_ms;
      return t;
    };
  }
};

// `body` decoders of distinct activation (so that no two ranges share a recompute frontier) with
// full and selective recompute, between a pinned embedding and head.
Model distinct_layers(int body) {
  Model model;
  model.recompute_options = {"full", "selective"};
  const auto layer = [](double f, double act) { return two_option_layer("layer", f, 10, act); };
  model.layers.push_back(layer(3, 100));
  model.layers.back().pin = Pin::first;
  for (int i = 0; i < body; ++i) {
    Layer l = layer(1 + 0.01 * (i % 7), 30 + (i % 101));
    l.recompute[0] = RecomputeCost{2, l.forward_ms};
    l.recompute[1] = RecomputeCost{l.activation_mib / 2, 0.25 * l.forward_ms};
    model.layers.push_back(l);
  }
  model.layers.push_back(layer(5, 100));
  model.layers.back().pin = Pin::last;
  model.pinned_first = model.pinned_last = 1;
  return model;
}

PipelineShape pp8_m32() {
  PipelineShape shape;
  shape.pp_degree = 8;
  shape.micro_batch_num = 32;
  return shape;
}

// 2,000 distinct layers on pp 8, m 32 under a binding limit that some plan meets, balanced with full
// and selective recompute on a clock of 1 ms per reading, with `options`' budgets. The even split
// holds 250 layers of 10 MiB static and up to 8 micro batches of ~80 MiB each per layer: 250 x (10 +
// 8 x 80) = 162,500 MiB on stage 0; a fifth of that makes the early stages recompute, and still fits
// with full recompute (250 x (10 + 8 x 2) = 6,500 MiB).
BalanceResult balance_binding(BalanceOptions options) {
  const Model model = distinct_layers(2'000);
  Device device;
  device.memory_limit_mib = 32'500;
  SteppingClock clock;
  options.recompute_options = {0, 1};
  options.clock_ms = clock.function();
  return balance(model, device, pp8_m32(), options);
}

// A phase that ends within 3 readings of the later of its start and `deadline_ms`: its own
// readings of its start, its end and the check that stops it.
void expect_stops_by(const BalancePhase& p, double deadline_ms) {
  EXPECT_LE(p.end_ms - std::max(p.start_ms, deadline_ms), 3) << p.name;
}

const BalancePhase* find_phase(const BalanceResult& r, const std::string& name) {
  for (const auto& p : r.phases)
    if (p.name == name) return &p;
  return nullptr;
}

bool has_note(const BalanceResult& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// 2,000 layers over 8 stages with memory binding and a work budget of 2,000,000 units. The even
// split is tried first whatever the budget (about 600,000 units: its frontiers over long ranges).
// Each bound table needs 2,001 rows of up to 8 x 2,001 cells, one unit each, far beyond its share
// (half of what is left), so each is given up on its pace once a 32nd of its share is spent, not at
// the end of its share; the search then runs to the budget and stops there. No phase runs past the
// budget by more than its last row (8 x 2,001 cells at most).
TEST(BalanceBudget, EveryPhaseStopsWithinTheWorkBudget) {
  BalanceOptions options;
  options.work_budget = 2'000'000;
  const BalanceResult r = balance_binding(options);

  ASSERT_TRUE(r.feasible);
  EXPECT_FALSE(r.proven_optimal);
  EXPECT_FALSE(r.clock_cut);
  const BalancePhase* least = find_phase(r, "least over");
  const BalancePhase* exact = find_phase(r, "exact bound table");
  const BalancePhase* relaxed = find_phase(r, "relaxed bound table");
  const BalancePhase* search = find_phase(r, "search");
  ASSERT_TRUE(least && exact && relaxed && search);
  EXPECT_TRUE(least->complete);  // 8 rows of about 2,000 / 8 units each
  EXPECT_FALSE(exact->complete);
  EXPECT_FALSE(relaxed->complete);
  EXPECT_FALSE(search->complete);
  // Given up on its pace, long before the end of its share (half of what is left): a 32nd of the
  // share, then the row that passes it (its cells and the frontiers it builds over long ranges, the
  // relaxed table's first rows up to a sixth of its share here).
  const std::int64_t row = 8 * 2'001;
  ASSERT_LT(exact->start_work, options.work_budget);
  EXPECT_LE(exact->work, (options.work_budget - exact->start_work) / 2 / 4);
  EXPECT_LE(relaxed->work, (options.work_budget - relaxed->start_work) / 2 / 4);
  for (const auto& p : r.phases) EXPECT_LE(p.start_work + p.work, options.work_budget + row) << p.name;
  EXPECT_GE(r.work, options.work_budget);
  EXPECT_TRUE(has_note(r, "did not allow even the relaxed bound table"));
  EXPECT_TRUE(has_note(r, "stopped at its work budget"));
}

// The answer depends on work alone: a clock three times slower (3 ms per reading), and the balance
// run in slices of 1 ms, give the same plan, step time, bound, nodes, simulations, work and notes as
// one run at once; on a balance cut by its work budget (the hard case) and on one that ends before.
TEST(BalanceBudget, TheSameRequestGivesTheSameAnswerWhateverTheClock) {
  struct Run {
    Model model;
    double limit_mib;
    std::int64_t work_budget;
  };
  const Run runs[] = {{distinct_layers(2'000), 32'500, 2'000'000}, {distinct_layers(60), 2'000, kDefaultWorkBudget}};
  for (const Run& run : runs) {
    Device device;
    device.memory_limit_mib = run.limit_mib;
    const auto answer = [&](double ms_per_reading, double slice_ms) {
      SteppingClock clock;
      clock.step_ms = ms_per_reading;
      BalanceOptions options;
      options.recompute_options = {0, 1};
      options.work_budget = run.work_budget;
      options.clock_ms = clock.function();
      const PipelineShape shape = pp8_m32();  // the balancer keeps a reference: it must outlive it
      Balancer balancer(run.model, device, shape, options);
      while (!balancer.step(slice_ms).finished) {
      }
      return balancer.result();
    };
    const BalanceResult once = answer(1, 1e12);
    const std::string label = std::to_string(run.model.layer_count()) + " layers";
    for (const auto& [ms, slice] : {std::pair{3.0, 1e12}, std::pair{1.0, 1.0}, std::pair{3.0, 1.0}}) {
      const BalanceResult other = answer(ms, slice);
      EXPECT_EQ(other.plan.stage_layers, once.plan.stage_layers) << label;
      EXPECT_EQ(other.plan.recompute, once.plan.recompute) << label;
      EXPECT_EQ(other.step_time_ms, once.step_time_ms) << label;
      EXPECT_EQ(other.lower_bound_ms, once.lower_bound_ms) << label;
      EXPECT_EQ(other.proven_optimal, once.proven_optimal) << label;
      EXPECT_EQ(other.nodes, once.nodes) << label;
      EXPECT_EQ(other.simulations, once.simulations) << label;
      EXPECT_EQ(other.work, once.work) << label;
      EXPECT_EQ(other.notes, once.notes) << label;
    }
    // The first stops at its work budget, the second ends on its own before it.
    EXPECT_EQ(once.work >= run.work_budget, &run == &runs[0]) << label << " " << once.work;
  }
}

// The wall clock is a safety cap: at 60 ms (one reading a millisecond) it cuts a balance whose work
// budget is far away; every phase stops by it, and the answer says it stopped early on this
// machine, not that its work budget ran out.
TEST(BalanceBudget, TheWallClockCapStopsEveryPhaseAndSaysSo) {
  BalanceOptions options;
  options.time_budget_ms = 60;
  const BalanceResult r = balance_binding(options);

  ASSERT_TRUE(r.feasible);
  EXPECT_FALSE(r.proven_optimal);
  EXPECT_TRUE(r.clock_cut);
  EXPECT_LT(r.work, options.work_budget);
  for (const auto& p : r.phases) expect_stops_by(p, 60);
  EXPECT_TRUE(has_note(r, "stopped early on this machine"));
  EXPECT_FALSE(has_note(r, "stopped at its work budget"));
}

// The least-over phase counts its rows (2,500 units each on 20,000 layers): with a budget of 5,000
// units it stops after 3 of its 8 stages, and with nothing proven the answer is the even split with
// the most-saving recompute, saying the search found no plan within its work budget (not that none
// fits: here none does, but the balance did not get to prove it).
TEST(BalanceBudget, LeastOverStopsWithinTheWorkBudget) {
  const Model model = distinct_layers(20'000);
  Device device;
  device.memory_limit_mib = 1000;  // far below any stage's static memory (2,500 x 10 MiB)
  BalanceOptions options;
  options.recompute_options = {0, 1};
  options.work_budget = 6'000;
  const BalanceResult r = balance(model, device, pp8_m32(), options);

  EXPECT_FALSE(r.feasible);
  const BalancePhase* least = find_phase(r, "least over");
  ASSERT_TRUE(least);
  EXPECT_FALSE(least->complete);
  EXPECT_EQ(least->work, 3 * (1 + 20'002 / 8));
  EXPECT_TRUE(has_note(r, "no plan that fits the memory limit was found within the work budget"));
  // 20,000 body layers over 8 stages: 2,500 each, the pinned layers on the first and last.
  EXPECT_EQ(r.plan.stage_layers, (std::vector<int>{2501, 2500, 2500, 2500, 2500, 2500, 2500, 2501}));
}

// With the whole budget, the same model is proven infeasible by the least-over phase alone, before
// any table or search: the plan is the one over the limit by the least.
TEST(BalanceBudget, NothingFitsIsProvenBeforeAnySearch) {
  const Model model = distinct_layers(20'000);
  Device device;
  device.memory_limit_mib = 1000;
  BalanceOptions options;
  options.recompute_options = {0, 1};
  const BalanceResult r = balance(model, device, pp8_m32(), options);

  EXPECT_FALSE(r.feasible);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_EQ(r.phases[0].name, "least over");
  EXPECT_TRUE(r.phases[0].complete);
  EXPECT_EQ(r.nodes, 0);
  EXPECT_TRUE(has_note(r, "no plan fits the memory limit"));
  EXPECT_TRUE(has_note(r, "exceeds it least"));
}

// The command counts the time spent reading the request against the wall-clock cap
// (spent_before_ms): the balance starts with that much already on its clock, and every phase still
// stops by the cap, 20 ms after the start here rather than 60.
TEST(BalanceBudget, TimeSpentBeforeTheBalanceCountsAgainstTheCap) {
  BalanceOptions options;
  options.time_budget_ms = 60;
  options.spent_before_ms = 40;
  const BalanceResult r = balance_binding(options);

  ASSERT_TRUE(r.feasible);
  EXPECT_FALSE(r.proven_optimal);
  EXPECT_TRUE(r.clock_cut);
  ASSERT_FALSE(r.phases.empty());
  EXPECT_GE(r.phases.front().start_ms, 40);
  for (const auto& p : r.phases) expect_stops_by(p, 60);
}

}  // namespace
}  // namespace ppb::test
