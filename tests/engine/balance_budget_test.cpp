// PPB keeps its time budget in every phase. The balance reads an injected clock that advances 1 ms
// at every reading, so these tests depend on the balancer's own readings, never on the machine's
// speed: a phase that stops reading the clock, or reads it and goes on, shows up as a phase that
// ends past its share.
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

// 2,000 layers over 8 stages with memory binding: each bound table would take 2,001 rows, one clock
// reading (1 ms) each at least, far beyond its share of the 60 ms budget, so each is given up after
// its first rows, not at the end of its share; the search then runs to the budget and stops there.
TEST(BalanceBudget, EveryPhaseStopsWithinTheBudget) {
  const Model model = distinct_layers(2'000);
  Device device;
  // The even split holds 250 layers of 10 MiB static and up to 8 micro batches of ~80 MiB each per
  // layer: 250 x (10 + 8 x 80) = 162,500 MiB on stage 0; a fifth of that makes the early stages
  // recompute, and still fits with full recompute (250 x (10 + 8 x 2) = 6,500 MiB).
  device.memory_limit_mib = 32'500;
  SteppingClock clock;
  BalanceOptions options;
  options.recompute_options = {0, 1};
  options.time_budget_ms = 60;
  options.clock_ms = clock.function();
  const BalanceResult r = balance(model, device, pp8_m32(), options);

  ASSERT_TRUE(r.feasible);
  EXPECT_FALSE(r.proven_optimal);
  const BalancePhase* least = find_phase(r, "least over");
  const BalancePhase* exact = find_phase(r, "exact bound table");
  const BalancePhase* relaxed = find_phase(r, "relaxed bound table");
  const BalancePhase* search = find_phase(r, "search");
  ASSERT_TRUE(least && exact && relaxed && search);
  EXPECT_TRUE(least->complete);  // 8 rows, one reading each
  EXPECT_FALSE(exact->complete);
  EXPECT_FALSE(relaxed->complete);
  EXPECT_FALSE(search->complete);
  // Given up on its pace after a few rows, not at the end of its share of about 30 ms.
  EXPECT_LE(exact->end_ms - exact->start_ms, 5);
  EXPECT_LE(relaxed->end_ms - relaxed->start_ms, 5);
  for (const auto& p : r.phases) expect_stops_by(p, 60);
  EXPECT_TRUE(has_note(r, "did not allow even the relaxed bound table"));
  EXPECT_TRUE(has_note(r, "stopped at its budget"));
}

// The least-over phase reads the clock once per stage: with a 3 ms budget it stops after 3 of its 8
// stages, each later phase stops at its first reading, and with nothing proven the answer is the even split with
// the most-saving recompute, saying the search found no plan within its budget (not that none
// fits: here none does, but the balance did not get to prove it).
TEST(BalanceBudget, LeastOverStopsWithinTheBudget) {
  const Model model = distinct_layers(20'000);
  Device device;
  device.memory_limit_mib = 1000;  // far below any stage's static memory (2,500 x 10 MiB)
  SteppingClock clock;
  BalanceOptions options;
  options.recompute_options = {0, 1};
  options.time_budget_ms = 3;
  options.clock_ms = clock.function();
  const BalanceResult r = balance(model, device, pp8_m32(), options);

  EXPECT_FALSE(r.feasible);
  const BalancePhase* least = find_phase(r, "least over");
  ASSERT_TRUE(least);
  EXPECT_FALSE(least->complete);
  for (const auto& p : r.phases) expect_stops_by(p, 3);
  EXPECT_TRUE(has_note(r, "no plan that fits the memory limit was found within the search budget"));
  // 20,000 body layers over 8 stages: 2,500 each, the pinned layers on the first and last.
  EXPECT_EQ(r.plan.stage_layers, (std::vector<int>{2501, 2500, 2500, 2500, 2500, 2500, 2500, 2501}));
}

// With the whole budget, the same model is proven infeasible by the least-over phase alone, before
// any table or search: the plan is the one over the limit by the least.
TEST(BalanceBudget, NothingFitsIsProvenBeforeAnySearch) {
  const Model model = distinct_layers(20'000);
  Device device;
  device.memory_limit_mib = 1000;
  SteppingClock clock;
  BalanceOptions options;
  options.recompute_options = {0, 1};
  options.time_budget_ms = 2000;
  options.clock_ms = clock.function();
  const BalanceResult r = balance(model, device, pp8_m32(), options);

  EXPECT_FALSE(r.feasible);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_EQ(r.phases[0].name, "least over");
  EXPECT_TRUE(r.phases[0].complete);
  EXPECT_EQ(r.nodes, 0);
  EXPECT_TRUE(has_note(r, "no plan fits the memory limit"));
  EXPECT_TRUE(has_note(r, "exceeds it least"));
}

// The command counts the time spent reading the request against the budget (spent_before_ms): the
// balance starts with that much already on its clock, and every phase still stops by the budget's
// end, 20 ms after the start here rather than 60.
TEST(BalanceBudget, TimeSpentBeforeTheBalanceCountsAgainstTheBudget) {
  const Model model = distinct_layers(2'000);
  Device device;
  device.memory_limit_mib = 32'500;  // as EveryPhaseStopsWithinTheBudget: binding, and some plan fits
  SteppingClock clock;
  BalanceOptions options;
  options.recompute_options = {0, 1};
  options.time_budget_ms = 60;
  options.spent_before_ms = 40;
  options.clock_ms = clock.function();
  const BalanceResult r = balance(model, device, pp8_m32(), options);

  ASSERT_TRUE(r.feasible);
  EXPECT_FALSE(r.proven_optimal);
  ASSERT_FALSE(r.phases.empty());
  EXPECT_GE(r.phases.front().start_ms, 40);
  for (const auto& p : r.phases) expect_stops_by(p, 60);
}

}  // namespace
}  // namespace ppb::test
