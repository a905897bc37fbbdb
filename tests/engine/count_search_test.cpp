// The count search (count_search.hpp; its linear programs are tested in dense_lp_test.cpp): against
// exhaustive search (every partition, every layer's recompute, each estimated) on small models whose
// movable layers are alike, under every schedule it reads; when it applies; and in the balance,
// issue 18's interleaved case proven optimal at the optimum the offline proof found
// (docs/proofs/interleaved-96-layers.lp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "balance/balance_budget.hpp"
#include "balance/balance_problem.hpp"
#include "balance/count_search.hpp"
#include "balance_helpers.hpp"
#include "helpers.hpp"
#include "ppb/io/request_reader.hpp"
#include "ppb/model/schedule_names.hpp"

namespace ppb::test {
namespace {

using balancer::BalanceProblem;
using balancer::Budget;
using balancer::CountSearch;
using balancer::kInf;
using balancer::PhaseStatus;

// A model of the count form: a pinned first and last layer (each on half of the trials) around
// `body` copies of one layer with `kinds` recompute options (0 to 2).
Model alike_model(std::mt19937& rng, int body, int kinds) {
  std::uniform_real_distribution<double> time(0.5, 6.0), mem(50, 400), act(20, 300), send(0, 64);
  std::uniform_int_distribution<int> coin(0, 1);
  Model model;
  model.recompute_options = {"full", "selective"};
  const auto quarter = [](double x) { return std::round(x * 4) / 4; };
  Layer decoder;
  decoder.name = "decoder";
  decoder.forward_ms = quarter(time(rng));
  decoder.backward_ms = quarter(decoder.forward_ms * (1.5 + coin(rng)));
  decoder.weight_backward_ms = decoder.backward_ms / 2;
  decoder.other_static_mib = std::round(mem(rng));
  decoder.activation_mib = std::round(act(rng));
  decoder.send_mib = std::round(send(rng));
  decoder.recompute.assign(2, std::nullopt);
  if (kinds >= 1) decoder.recompute[0] = RecomputeCost{std::round(decoder.activation_mib * 0.1), decoder.forward_ms};
  if (kinds >= 2)
    decoder.recompute[1] = RecomputeCost{std::round(decoder.activation_mib * 0.6), quarter(decoder.forward_ms * 0.3)};
  const auto pinned = [&](const char* name, Pin pin) {
    Layer l;
    l.name = name;
    l.pin = pin;
    l.forward_ms = quarter(time(rng));
    l.backward_ms = quarter(2 * l.forward_ms);
    l.weight_backward_ms = l.backward_ms / 2;
    l.other_static_mib = std::round(2 * mem(rng));
    l.activation_mib = std::round(act(rng));
    l.send_mib = decoder.send_mib;
    l.recompute.assign(2, std::nullopt);
    return l;
  };
  if (coin(rng)) {
    model.layers.push_back(pinned("embedding", Pin::first));
    model.pinned_first = 1;
  }
  for (int i = 0; i < body; ++i) model.layers.push_back(decoder);
  if (coin(rng)) {
    model.layers.push_back(pinned("head", Pin::last));
    model.pinned_last = 1;
  }
  return model;
}

// Under every schedule whose paths the count search reads, on random models of the count form with
// random limits, transfers on half: the count search run to its end from no incumbent finds the
// exhaustive optimum (or, when nothing fits, nothing), and its plan, estimated, fits and takes that
// time.
TEST(CountSearch, FindsTheExhaustiveOptimumUnderEverySchedule) {
  const std::vector<Case> cases = {
      {Schedule::gpipe, 2, 1, {1, 2, 4}},         {Schedule::one_f_one_b, 3, 1, {2, 4, 8}},
      {Schedule::interleaved_1f1b, 2, 2, {2, 4}}, {Schedule::interleaved_1f1b, 2, 3, {2, 4}},
      {Schedule::zb_h1, 3, 1, {2, 4, 8}},         {Schedule::zb_h2, 2, 1, {2, 4, 6}},
      {Schedule::zbv, 2, 2, {2, 4, 6}},
  };
  std::mt19937 rng(20261202);
  int all_infeasible = 0;
  for (const Case& c : cases) {
    const int V = c.pp * c.vpp;
    int feasible = 0, infeasible = 0;
    for (int trial = 0; trial < 16; ++trial) {
      std::uniform_int_distribution<int> kinds_d(0, 2), coin(0, 1);
      const int kinds = kinds_d(rng);
      // As many movable layers as keep exhaustive search to a few thousand estimates.
      int body = V + 4;
      while (body > V && binomial(body + 1, V - 1) * std::pow(kinds + 1, body) > 12'000) --body;
      Model model = alike_model(rng, body, kinds);
      Plan shape =
          shape_of(c.pp, c.micro_batches[static_cast<std::size_t>(trial) % c.micro_batches.size()], c.schedule, c.vpp);
      Device device = random_device(rng);
      const double m = static_cast<double>(shape.micro_batch_num);
      const double held = c.schedule == Schedule::gpipe ? m : std::min<double>(c.pp * c.vpp, m);
      std::uniform_real_distribution<double> tightness(0.6, 2.0);
      device.memory_limit_mib = limit_between(model, held, c.pp, tightness(rng));
      BalanceOptions options;
      options.recompute_options = {0, 1};
      const std::string label = std::string(schedule_name(c.schedule)) + " pp " + std::to_string(c.pp) + " vpp " +
                                std::to_string(c.vpp) + " m " + std::to_string(shape.micro_batch_num) + " trial " +
                                std::to_string(trial) + " body " + std::to_string(body) + " kinds " +
                                std::to_string(kinds);
      const BalanceProblem problem(model, device, shape, options);
      CountSearch counts(problem);
      ASSERT_TRUE(counts.applies()) << label;
      Budget budget(options);
      budget.begin_slice(kInf);
      counts.start(kInf);
      ASSERT_EQ(counts.step(budget), PhaseStatus::done) << label;
      const Exhaustive truth = exhaustive(model, device, shape, options.recompute_options);
      if (!truth.feasible) {
        ++infeasible;
        EXPECT_EQ(counts.best_time(), kInf) << label;
        continue;
      }
      ++feasible;
      ASSERT_LT(counts.best_time(), kInf) << label;
      EXPECT_NEAR(counts.best_time(), truth.best_ms, 1e-9 * truth.best_ms) << label;
      const Estimate e = estimate(model, device, counts.best_plan(), false);
      EXPECT_TRUE(e.feasible) << label;
      EXPECT_NEAR(e.step_time_ms, counts.best_time(), 1e-9 * truth.best_ms) << label;
    }
    const std::string name =
        std::string(schedule_name(c.schedule)) + " pp " + std::to_string(c.pp) + " vpp " + std::to_string(c.vpp);
    EXPECT_GE(feasible, 8) << name;
    all_infeasible += infeasible;
  }
  EXPECT_GE(all_infeasible, 5);  // the search also ends when nothing fits
}

// It applies only where a plan is its counts: not when a movable layer differs from the others, a
// pinned layer offers a recompute option the balance may use, stages may be empty, the first
// virtual stage would send a different size without movable layers, or under dualpipev.
TEST(CountSearch, AppliesOnlyWhereAPlanIsItsCounts) {
  std::mt19937 rng(7);
  Model model = alike_model(rng, 8, 1);
  while (model.pinned_first == 0) model = alike_model(rng, 8, 1);
  const Device device;
  const Plan shape = shape_of(2, 4, Schedule::one_f_one_b);
  BalanceOptions options;
  options.recompute_options = {0, 1};
  const auto applies = [&](const Model& m, const Plan& s, const BalanceOptions& o) {
    const BalanceProblem problem(m, device, s, o);
    return CountSearch(problem).applies();
  };
  EXPECT_TRUE(applies(model, shape, options));
  Model different = model;
  different.layers[3].forward_ms += 0.25;
  EXPECT_FALSE(applies(different, shape, options));
  Model recomputed_pin = model;
  recomputed_pin.layers[0].recompute[1] = RecomputeCost{1, 1};
  EXPECT_FALSE(applies(recomputed_pin, shape, options));
  BalanceOptions only_full = options;
  only_full.recompute_options = {0};  // the pin's option is not one the balance may use
  EXPECT_TRUE(applies(recomputed_pin, shape, only_full));
  Model other_send = model;
  other_send.layers[0].send_mib += 1;
  Device with_transfers;
  add_transfers(with_transfers);
  {
    const BalanceProblem problem(other_send, with_transfers, shape, options);
    EXPECT_FALSE(CountSearch(problem).applies());
  }
  BalanceOptions empty = options;
  empty.allow_empty_stages = true;
  EXPECT_FALSE(applies(model, shape, empty));
  EXPECT_FALSE(applies(model, shape_of(2, 4, Schedule::dualpipev, 2), options));
  EXPECT_TRUE(applies(model, shape_of(2, 4, Schedule::zbv, 2), options));
}

// Issue 18's interleaved case (bench/bench.cpp issue18_request(3)): examples/sapp-llama-192l.json
// with 96 decoders, pp 8, vpp 2, m 16, interleaved_1f1b, `full` only, 20,000 MiB.
struct Issue18Case {
  Request request;
  Plan shape = shape_of(8, 16, Schedule::interleaved_1f1b, 2);
  BalanceOptions options;
  Issue18Case() {
    std::ifstream in(std::string(PPB_SOURCE_DIR) + "/examples/sapp-llama-192l.json");
    json model = run("import", json::parse(in))["result"]["model"];
    for (auto& layer : model["layers"])
      if (layer.contains("count")) layer["count"] = 96;
    Diagnostics diagnostics;
    request = parse_request(json{{"model", model}, {"device", {{"memory_limit_mib", 20000}}}}, diagnostics);
    options.recompute_options = {request.model.option_index("full")};
  }
};

// The balance proves the case optimal: its search does not end within 5,000 nodes, and the count
// search then closes every node. The optimum is the one the offline proof found with CBC
// (docs/proofs/interleaved-96-layers.lp, checked by InterleavedProof): 4,188 ms.
TEST(CountSearch, ProvesIssue18sInterleavedCaseAtTheOfflineOptimum) {
  const Issue18Case c;
  const BalanceResult result = balance(c.request.model, c.request.device, c.shape, c.options);
  ASSERT_TRUE(result.feasible);
  EXPECT_TRUE(result.proven_optimal);
  EXPECT_DOUBLE_EQ(result.step_time_ms, 4188);
  EXPECT_DOUBLE_EQ(result.lower_bound_ms, 4188);
  ASSERT_TRUE(result.within_tolerance.has_value());
  EXPECT_EQ(*result.within_tolerance, 0);
  EXPECT_TRUE(result.notes.empty());
  ASSERT_FALSE(result.phases.empty());
  EXPECT_EQ(result.phases.back().name, "count search");
  EXPECT_TRUE(result.phases.back().complete);
  const Estimate e = estimate(c.request.model, c.request.device, result.plan, false);
  EXPECT_TRUE(e.feasible);
  EXPECT_DOUBLE_EQ(e.step_time_ms, 4188);
}

// Run in slices of 20 ms, the balance gives the same answer, and while the count search runs its
// progress says so, with the incumbent and a lower bound that never falls and never passes it.
TEST(CountSearch, RunsInSlicesWithItsGapClosing) {
  const Issue18Case c;
  Balancer balancer(c.request.model, c.request.device, c.shape, c.options);
  int count_slices = 0;
  double last_bound = 0;
  for (;;) {
    const BalanceProgress progress = balancer.step(20);
    if (progress.finished) break;
    if (progress.phase != "count search") continue;
    ++count_slices;
    ASSERT_TRUE(progress.incumbent_ms.has_value());
    ASSERT_TRUE(progress.lower_bound_ms.has_value());
    EXPECT_GE(*progress.lower_bound_ms, last_bound);
    EXPECT_LE(*progress.lower_bound_ms, *progress.incumbent_ms);
    last_bound = *progress.lower_bound_ms;
  }
  EXPECT_GE(count_slices, 3);
  const BalanceResult result = balancer.result();
  EXPECT_TRUE(result.proven_optimal);
  EXPECT_DOUBLE_EQ(result.step_time_ms, 4188);
}

// A count search that gives up for its own reasons (here: one pivot allowed per node's program)
// proves nothing: the search goes on from where it paused, after the phases it had paused for, to
// its work budget (500,000 units), and the answer says so.
TEST(CountSearch, GivingUpLetsTheSearchGoOnAndProvesNothing) {
  Issue18Case c;
  c.options.count_search_pivots = 1;
  c.options.work_budget = 500'000;
  const BalanceResult result = balance(c.request.model, c.request.device, c.shape, c.options);
  ASSERT_TRUE(result.feasible);
  EXPECT_FALSE(result.proven_optimal);
  // The count search, given up, then the local search's pairs of moves it had paused for, then the
  // search to the work budget.
  std::vector<std::string> names;
  for (const BalancePhase& phase : result.phases) names.push_back(phase.name);
  const auto counts = std::find(names.begin(), names.end(), "count search");
  ASSERT_NE(counts, names.end());
  EXPECT_FALSE(result.phases[static_cast<std::size_t>(counts - names.begin())].complete);
  EXPECT_EQ(std::vector<std::string>(counts + 1, names.end()), (std::vector<std::string>{"local search", "search"}));
  EXPECT_FALSE(result.phases.back().complete);
  ASSERT_TRUE(result.within_tolerance.has_value());
  EXPECT_GT(*result.within_tolerance, 0.01);  // the search's bound, not a proof
}

// Its nodes count toward the balance's node budget: 3,000 nodes in all (2,000 of the search's).
TEST(CountSearch, KeepsTheNodeBudget) {
  Issue18Case c;
  c.options.node_budget = 3000;
  const BalanceResult result = balance(c.request.model, c.request.device, c.shape, c.options);
  EXPECT_FALSE(result.proven_optimal);
  EXPECT_LE(result.nodes, 3001);
  EXPECT_EQ(result.phases.back().name, "count search");
  EXPECT_FALSE(result.phases.back().complete);
}

// With a tolerance the count search proves the answer within it: its lower bound is the best time
// over 1 + tolerance, not the best time.
TEST(CountSearch, ATolerancesProofIsTheTolerances) {
  Issue18Case c;
  c.options.tolerance = 0.02;
  const BalanceResult result = balance(c.request.model, c.request.device, c.shape, c.options);
  ASSERT_TRUE(result.feasible);
  EXPECT_FALSE(result.proven_optimal);
  EXPECT_EQ(result.phases.back().name, "count search");
  EXPECT_TRUE(result.phases.back().complete);
  ASSERT_TRUE(result.within_tolerance.has_value());
  EXPECT_DOUBLE_EQ(*result.within_tolerance, 0.02);
  EXPECT_DOUBLE_EQ(result.lower_bound_ms, result.step_time_ms / 1.02);
  EXPECT_LE(result.step_time_ms, 4188 * 1.02);
}

// Started from an incumbent off the grain (every step time here is a whole multiple of 0.5 ms), the
// count search still finds the plans between it and the grain below it: from 4,188.3 ms, the
// 4,188 ms plan.
TEST(CountSearch, AnIncumbentOffTheGrainHidesNoPlan) {
  const Issue18Case c;
  const BalanceProblem problem(c.request.model, c.request.device, c.shape, c.options);
  CountSearch counts(problem);
  ASSERT_EQ(counts.grain(), 0.5);
  Budget budget(c.options);
  budget.begin_slice(kInf);
  counts.start(4188.3);
  ASSERT_EQ(counts.step(budget), PhaseStatus::done);
  EXPECT_DOUBLE_EQ(counts.best_time(), 4188);
}

}  // namespace
}  // namespace ppb::test
