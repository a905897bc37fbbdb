// The balancer under every schedule program: the V placement of zbv and dualpipev (hand-worked), and
// property tests against exhaustive search (every partition, every recompute assignment, each
// simulated by the estimate) on small models with transfers, pins and up to four recompute kinds.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "balance/balance_problem.hpp"
#include "balance_helpers.hpp"
#include "helpers.hpp"
#include "ppb/balance/balance.hpp"
#include "ppb/plan/stage_costs.hpp"
#include "ppb/schedule/schedule.hpp"
#include "ppb/simulate/estimate.hpp"
#include "ppb/simulate/simulate.hpp"

namespace ppb::test {
namespace {

// Five layers of F 1, B 2 (no weight-gradient part), static memory 40, 30, 35, 28, 40 MiB and no
// activation, over zbv with pp 2 (four virtual stages) and one micro batch; every transfer 0.5 ms.
Model v_placement_model() {
  Model model = numbered_layers(5, 1, 2);
  const double statics[] = {40, 30, 35, 28, 40};
  for (int i = 0; i < 5; ++i) model.layers[static_cast<std::size_t>(i)].other_static_mib = statics[i];
  return model;
}

// In a V, virtual stages 0 and 3 sit on physical stage 0 and 1 and 2 on stage 1. Of the four
// partitions of five layers into four non-empty virtual stages (sizes 2111, 1211, 1121, 1112), stage 0
// holds layers {0, 1, 4} = 110, {0, 4} = 80, {0, 4} = 80, {0, 3, 4} = 108 MiB and stage 1 {2, 3} =
// 63, {1, 2, 3} = 93, {1, 2, 3} = 93, {1, 2} = 65 MiB: under a 100 MiB limit only 1211 and 1121 fit.
// (Placing virtual stage v on stage v mod 2 would see 2111 and 1112 fit, and neither of the others.)
// With one micro batch the step is one chain: four forwards, four backwards, and a transfer at each
// boundary between physical stages, 0 -> 1 and 2 -> 3 both ways; 1 -> 2 turns in stage 1 and costs
// nothing. So every partition takes 5 x (1 + 2) + 4 x 0.5 = 17 ms.
TEST(BalanceVPlacement, ZbvChargesMemoryAndTransfersWhereTheVPutsTheStages) {
  const Model model = v_placement_model();
  Device device;
  device.memory_limit_mib = 100;
  device.p2p_latency_ms = 0.5;
  const Plan shape = shape_of(2, 1, Schedule::zbv, 2);
  const BalanceResult got = balance(model, device, shape, BalanceOptions{});
  ASSERT_TRUE(got.feasible);
  const std::vector<int> a = {1, 2, 1, 1}, b = {1, 1, 2, 1};
  EXPECT_TRUE(got.plan.stage_layers == a || got.plan.stage_layers == b);
  EXPECT_DOUBLE_EQ(got.step_time_ms, 17.0);
  EXPECT_TRUE(got.proven_optimal);
  const Estimate e = estimate(model, device, got.plan, false);
  EXPECT_TRUE(e.feasible);
  EXPECT_DOUBLE_EQ(e.step_time_ms, 17.0);
  EXPECT_DOUBLE_EQ(e.stages[0].memory.peak_mib, 80.0);
  EXPECT_DOUBLE_EQ(e.stages[1].memory.peak_mib, 93.0);
  // Transfers where the V crosses: after virtual stage 0 (0 -> 1) and 2 (1 -> 0), not 1 (1 -> 1).
  EXPECT_DOUBLE_EQ(e.stages[0].time.send_ms, 0.5);
  EXPECT_DOUBLE_EQ(e.stages[1].time.send_ms, 0.5);
}

// The same five layers with a 100 MiB limit, now with recompute deciding it: every layer 20 MiB of
// static memory and 30 MiB of activation per micro batch, which "full" cuts to 5 MiB for 1 ms more
// backward; one micro batch, so each stage holds one of each of its chunks' micro batches at once.
// Stage 0 (virtual stages 0 and 3) with layers {0, 4} holds 40 + 60 = 100 MiB: fits without
// recompute; stage 1 with {1, 2, 3} holds 60 + 90 = 150, and needs 50 MiB less: recomputing two of
// its layers saves 2 x 25 = 50 (150 - 50 = 100, fits), one saves only 25. So the least recompute is
// two layers, 2 ms, on stage 1: step 17 + 2 = 19 ms. Stages sized 2111 or 1112 put three layers on
// stage 0 and two on stage 1, the same by symmetry: also two recomputed layers, also 19 ms.
TEST(BalanceVPlacement, ZbvRecomputesOnThePhysicalStageThatHoldsTheLayers) {
  Model model = v_placement_model();
  model.recompute_options = {"full"};
  for (auto& l : model.layers) {
    l.other_static_mib = 20;
    l.activation_mib = 30;
    l.recompute = {RecomputeCost{5, 1}};
  }
  Device device;
  device.memory_limit_mib = 100;
  device.p2p_latency_ms = 0.5;
  BalanceOptions options;
  options.recompute_options = {0};
  const BalanceResult got = balance(model, device, shape_of(2, 1, Schedule::zbv, 2), options);
  ASSERT_TRUE(got.feasible);
  EXPECT_DOUBLE_EQ(got.step_time_ms, 19.0);
  EXPECT_TRUE(got.proven_optimal);
  const Estimate e = estimate(model, device, got.plan, false);
  EXPECT_TRUE(e.feasible);
  EXPECT_DOUBLE_EQ(e.step_time_ms, 19.0);
  EXPECT_EQ(std::count(got.plan.recompute.begin(), got.plan.recompute.end(), 0), 2);
}

const char* const kKinds[] = {"selective", "comm", "selective_comm", "full"};

// A random model of `layers` layers with up to four recompute kinds, each layer offering each kind
// with probability one half (so some offer none and some all four); a weight-gradient part of the
// backward; communication inside the times (what DualPipeV's pairs hide) on some models; and, with
// `low_weight_activation`, a weight activation stated below the activation on some layers.
Model kinds_model(std::mt19937& rng, int layers, int kinds, bool low_weight_activation) {
  std::uniform_real_distribution<double> time(0.5, 4.0), mem(50, 400), act(20, 300), send(0, 64), frac(0.05, 0.9),
      cost(0.05, 1.0);
  std::uniform_int_distribution<int> coin(0, 1);
  const bool comm = coin(rng) == 1;
  Model model;
  for (int k = 0; k < kinds; ++k) model.recompute_options.push_back(kKinds[k]);
  for (int i = 0; i < layers; ++i) {
    Layer l;
    l.name = "layer" + std::to_string(i);
    const auto quarter = [](double x) { return std::max(0.25, std::round(x * 4) / 4); };
    l.forward_ms = quarter(time(rng));
    l.backward_ms = quarter(l.forward_ms * (1.5 + coin(rng)));
    l.weight_backward_ms = quarter(l.backward_ms / 2);
    if (comm) {
      l.forward_comm_ms = quarter(l.forward_ms / 3);
      l.backward_comm_ms = quarter(l.backward_ms / 4);
    }
    l.other_static_mib = std::round(mem(rng));
    l.activation_mib = std::round(act(rng));
    l.send_mib = std::round(send(rng));
    if (low_weight_activation && coin(rng)) l.weight_activation_mib = std::round(l.activation_mib / 2);
    l.recompute.assign(static_cast<std::size_t>(kinds), std::nullopt);
    for (int k = 0; k < kinds; ++k)
      if (coin(rng))
        l.recompute[static_cast<std::size_t>(k)] =
            RecomputeCost{std::round(l.activation_mib * frac(rng)), quarter(l.forward_ms * cost(rng))};
    model.layers.push_back(l);
  }
  if (coin(rng)) {
    model.layers.front().pin = Pin::first;
    model.pinned_first = 1;
  }
  if (coin(rng)) {
    model.layers.back().pin = Pin::last;
    model.pinned_last = 1;
  }
  return model;
}

// Recompute assignments of a model (the product over layers of 1 + the kinds it offers).
double assignments(const Model& model) {
  double n = 1;
  for (const auto& l : model.layers)
    n *= 1.0 + static_cast<double>(
                   std::count_if(l.recompute.begin(), l.recompute.end(), [](const auto& r) { return r.has_value(); }));
  return n;
}

// Takes recompute kinds off random layers until exhaustive search over `partitions` partitions stays
// within `cap` simulations.
void fit_exhaustive(std::mt19937& rng, Model& model, double partitions, double cap) {
  std::uniform_int_distribution<int> pick(0, model.layer_count() - 1);
  while (partitions * assignments(model) > cap) {
    auto& options = model.layers[static_cast<std::size_t>(pick(rng))].recompute;
    for (auto& r : options)
      if (r) {
        r.reset();
        break;
      }
  }
}

struct Tally {
  int trials = 0, feasible = 0, proven = 0, exact_memory = 0, proven_exact = 0;
};

std::string describe(const Plan& plan) {
  std::string text = "stage_layers";
  // (appended piecewise: g++ 12 warns falsely on " " + to_string)
  for (int n : plan.stage_layers) text.append(" ").append(std::to_string(n));
  text += ", recompute";
  for (int r : plan.recompute) text.append(" ").append(std::to_string(r));
  return text;
}

// One trial: the balancer against exhaustive search on the same model, shape and options.
//  - a plan it calls feasible is feasible, and its step time is the estimate's;
//  - it is never faster than the optimum (no plan beats exhaustive search), and it finds a plan
//    whenever one fits and it charges the estimate's memory;
//  - when it claims proven_optimal, its step time is the optimum; a lower bound it states is at most
//    the optimum; when it claims nothing, a note says why.
void check_trial(const Model& model, const Device& device, const Plan& shape, const BalanceOptions& options,
                 bool exact_memory, const std::string& label, Tally& tally) {
  const BalanceResult got = balance(model, device, shape, options);
  // Under interleaved_1f1b_overlap the balancer leaves the "full" option out (Megatron-LM refuses it
  // there), so the optimum to meet is over the options it keeps.
  const Exhaustive want =
      exhaustive(model, device, shape, balancer::options_for_schedule(model, shape, options).recompute_options);
  ++tally.trials;
  if (got.feasible) {
    const Estimate e = estimate(model, device, got.plan, false);
    EXPECT_TRUE(e.feasible) << label;
    EXPECT_NEAR(e.step_time_ms, got.step_time_ms, 1e-9 * e.step_time_ms) << label;
    ASSERT_TRUE(want.feasible) << label;
    EXPECT_GE(got.step_time_ms, want.best_ms - 1e-9 * want.best_ms) << label;
  }
  if (!want.feasible) {
    EXPECT_FALSE(got.feasible) << label;
    return;
  }
  ++tally.feasible;
  if (exact_memory) {
    ++tally.exact_memory;
    EXPECT_TRUE(got.feasible) << label;
  }
  if (got.within_tolerance) {
    EXPECT_LE(got.lower_bound_ms, want.best_ms * (1 + 1e-9)) << label;
  }
  if (got.proven_optimal) {
    ++tally.proven;
    if (exact_memory) ++tally.proven_exact;
    EXPECT_NEAR(got.step_time_ms, want.best_ms, 1e-9 * want.best_ms)
        << label << " over " << want.plans << " plans; best " << describe(want.best) << "; got " << describe(got.plan);
  } else {
    EXPECT_FALSE(got.notes.empty()) << label;
  }
}

// Every schedule program against exhaustive search: 6 to 8 layers, pp 2 and 3, vpp 2 and 3 for
// interleaved_1f1b and looped_bfs, transfers on half the trials, random pins, up to four recompute kinds per
// layer, random memory limits from "everything fits" to "nothing fits". On models this small the
// search always finishes, so every feasible trial whose memory the balancer charges exactly must
// be proven; trials with a weight activation stated below the activation (split schedules) may not
// be, and must say why.
TEST(BalanceSchedules, ProvenOptimumIsTheExhaustiveOptimumUnderEverySchedule) {
  const std::vector<Case> cases = {
      {Schedule::gpipe, 2, 1, {1, 2, 4}},
      {Schedule::gpipe, 3, 1, {2, 3, 6}},
      {Schedule::one_f_one_b, 2, 1, {1, 3, 6}},
      {Schedule::one_f_one_b, 3, 1, {2, 4, 8}},
      {Schedule::interleaved_1f1b, 2, 2, {2, 4, 6}},
      {Schedule::interleaved_1f1b, 2, 3, {2, 4}},
      {Schedule::interleaved_1f1b, 3, 2, {3, 6}},
      {Schedule::zb_h1, 2, 1, {1, 3, 6}},
      {Schedule::zb_h1, 3, 1, {2, 4, 8}},
      {Schedule::zb_h2, 2, 1, {2, 4, 6}},
      {Schedule::zb_h2, 3, 1, {3, 6, 8}},
      {Schedule::zbv, 2, 2, {1, 2, 4, 6}},
      {Schedule::zbv, 3, 2, {3, 6}},
      {Schedule::dualpipev, 2, 2, {4, 6, 8}},
      {Schedule::dualpipev, 3, 2, {6, 8}},
      {Schedule::interleaved_1f1b_overlap, 2, 2, {2, 4, 6}},
      {Schedule::interleaved_1f1b_overlap, 3, 2, {3, 6}},
      {Schedule::v_half, 2, 2, {1, 2, 4, 6}},
      {Schedule::v_half, 3, 2, {3, 6}},
      {Schedule::v_min, 2, 2, {1, 2, 4, 6}},
      {Schedule::v_min, 3, 2, {3, 6}},
      {Schedule::interleaved_zero_bubble, 2, 2, {2, 3, 4}},
      {Schedule::interleaved_zero_bubble, 3, 2, {3, 6}},
      {Schedule::looped_bfs, 2, 2, {2, 4}},
      {Schedule::looped_bfs, 2, 3, {2, 3}},
  };
  std::mt19937 rng(20261201);
  for (const Case& c : cases) {
    Tally tally;
    const int V = c.pp * c.vpp;
    for (int trial = 0; trial < 40; ++trial) {
      std::uniform_int_distribution<int> layers_d(std::max(6, V), std::max(8, V + 1)), kinds_d(1, 4), coin(0, 1);
      std::uniform_int_distribution<std::size_t> m_d(0, c.micro_batches.size() - 1);
      const bool low_weight_activation = splits_weight_gradient(c.schedule) && trial % 4 == 3;
      Model model = kinds_model(rng, layers_d(rng), kinds_d(rng), low_weight_activation);
      const int L = model.layer_count();
      fit_exhaustive(rng, model, binomial(L - 1, V - 1), 6000);
      Plan shape = shape_of(c.pp, c.micro_batches[m_d(rng)], c.schedule, c.vpp);
      Device device = random_device(rng);
      // gpipe and looped_bfs hold every micro batch, 1f1b at most pp of them.
      const double m = static_cast<double>(shape.micro_batch_num);
      const double held =
          c.schedule == Schedule::gpipe || c.schedule == Schedule::looped_bfs ? m : std::min<double>(c.pp, m);
      std::uniform_real_distribution<double> tightness(0.5, 1.8);
      device.memory_limit_mib = limit_between(model, held, c.pp, tightness(rng));
      BalanceOptions options;
      for (int k = 0; k < static_cast<int>(model.recompute_options.size()); ++k) options.recompute_options.push_back(k);
      bool exact_memory = true;
      for (const auto& l : model.layers)
        if (l.weight_activation_mib && *l.weight_activation_mib < l.activation_mib) exact_memory = false;
      const std::string label = std::string(schedule_name(c.schedule)) + " pp " + std::to_string(c.pp) + " vpp " +
                                std::to_string(c.vpp) + " m " + std::to_string(shape.micro_batch_num) + " trial " +
                                std::to_string(trial);
      check_trial(model, device, shape, options, exact_memory, label, tally);
    }
    const std::string name =
        std::string(schedule_name(c.schedule)) + " pp " + std::to_string(c.pp) + " vpp " + std::to_string(c.vpp);
    // Each case must exercise feasible plans, and prove every one it charges exactly.
    EXPECT_GE(tally.feasible, 15) << name;
    EXPECT_EQ(tally.proven_exact, tally.exact_memory) << name;
  }
}

// The least recompute time of physical stage s holding layers [a, b) whose peak memory, as the
// estimate reports it, fits the limit: every assignment of the range's layers tried, the other layers
// without recompute (a stage's memory depends only on its own layers). kInf when none fits.
double least_stage_extra(const Model& model, const Device& device, const Plan& plan, int s, int a, int b,
                         const std::vector<int>& options) {
  Plan trial = plan;
  trial.recompute.assign(static_cast<std::size_t>(model.layer_count()), -1);
  double best = std::numeric_limits<double>::infinity();
  std::function<void(int, double)> choose = [&](int i, double extra) {
    if (i == b) {
      const Estimate e = estimate(model, device, trial, false);
      if (e.stages[static_cast<std::size_t>(s)].memory.peak_mib <= *device.memory_limit_mib + 1e-9)
        best = std::min(best, extra);
      return;
    }
    trial.recompute[static_cast<std::size_t>(i)] = -1;
    choose(i + 1, extra);
    for (int o : options)
      if (const auto& r = model.layers[static_cast<std::size_t>(i)].recompute[static_cast<std::size_t>(o)]) {
        trial.recompute[static_cast<std::size_t>(i)] = o;
        choose(i + 1, extra + r->extra_ms);
      }
    trial.recompute[static_cast<std::size_t>(i)] = -1;
  };
  choose(a, 0);
  return best;
}

// A bound independent of the balancer's tables, frontiers and search: for every partition, no plan
// is faster than the simulation with each stage's backward grown by only the least recompute time
// that fits its memory (found by trying every assignment of its layers), because the step time grows
// with every backward and a stage's memory depends on its own layers alone (the two facts of
// docs/ppb.md). The least of these over every partition is then the optimum. One chunk per stage.
double independent_optimum(const Model& model, const Device& device, const Plan& shape,
                           const std::vector<int>& options) {
  const int L = model.layer_count(), pp = shape.pp_degree;
  double best = std::numeric_limits<double>::infinity();
  for_each_partition(model, pp, [&](const std::vector<int>& sizes) {
    Plan plan = shape;
    plan.stage_layers = sizes;
    plan.recompute.assign(static_cast<std::size_t>(L), -1);
    std::vector<VirtualStageCost> costs = virtual_stage_costs(model, device, plan);
    int a = 0;
    for (int s = 0; s < pp; ++s) {
      const int b = a + sizes[static_cast<std::size_t>(s)];
      const double extra = least_stage_extra(model, device, plan, s, a, b, options);
      if (extra == std::numeric_limits<double>::infinity()) return;
      costs[static_cast<std::size_t>(s)].backward_ms += extra;
      a = b;
    }
    SimulationInput in;
    static_cast<PipelineShape&>(in) = shape;
    in.costs = costs;
    best = std::min(best, simulate(in).step_time_ms);
  });
  return best;
}

// Proof check: on models too large to search every recompute assignment (10 to 12 layers, three kinds,
// pp 3), a claimed optimum is re-verified by the independent bound above: the balancer's step time
// equals the least over every partition of that bound, under each one-chunk schedule.
// zb_auto writes its program for each plan's costs, so the balancer, which searches with the one for
// the even split, never calls its answer proven and says why; it charges every stage the cap's worth
// of activation, the most any zb_auto program holds, so the plan it calls feasible fits under the
// program the plan's own estimate runs.
TEST(BalanceSchedules, ZbAutoAnswerFitsUnderItsOwnProgramAndIsNotProven) {
  std::mt19937 rng(3105);
  int feasible = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const Model model = kinds_model(rng, 9, 2, trial % 2 == 1);
    Plan shape = shape_of(3, 6, Schedule::zb_auto);
    shape.max_in_flight = trial % 3 == 0 ? 0 : 2 + trial % 3;
    Device device;
    add_transfers(device);
    device.memory_limit_mib = limit_between(model, shape.in_flight_cap(), 3, 1.0 + 0.1 * (trial % 3));
    BalanceOptions options;
    options.recompute_options = {0, 1};
    const BalanceResult got = balance(model, device, shape, options);
    const std::string label = "trial " + std::to_string(trial);
    EXPECT_FALSE(got.proven_optimal) << label;
    if (!got.feasible) continue;
    ++feasible;
    EXPECT_TRUE(estimate(model, device, got.plan, false).feasible) << label;
    EXPECT_TRUE(std::any_of(got.notes.begin(), got.notes.end(), [](const std::string& note) {
      return note.find("zb_auto's program depends on the stage costs") != std::string::npos;
    })) << label;
  }
  EXPECT_GE(feasible, 3);
}

TEST(BalanceSchedules, ClaimedOptimumMeetsAnIndependentBound) {
  std::mt19937 rng(31);
  int checked = 0;
  for (const Schedule schedule : {Schedule::gpipe, Schedule::one_f_one_b, Schedule::zb_h1, Schedule::zb_h2}) {
    for (int trial = 0; trial < 4; ++trial) {
      std::uniform_int_distribution<int> layers_d(10, 12);
      const Model model = kinds_model(rng, layers_d(rng), 3, false);
      const Plan shape = shape_of(3, schedule == Schedule::gpipe ? 3 : 6, schedule);
      Device device;
      add_transfers(device);
      device.memory_limit_mib = limit_between(model, 3, 3, 0.9);
      BalanceOptions options;
      options.recompute_options = {0, 1, 2};
      const BalanceResult got = balance(model, device, shape, options);
      const double bound = independent_optimum(model, device, shape, options.recompute_options);
      const std::string label = std::string(schedule_name(schedule)) + " trial " + std::to_string(trial);
      if (bound == std::numeric_limits<double>::infinity()) {
        EXPECT_FALSE(got.feasible) << label;
        continue;
      }
      ASSERT_TRUE(got.feasible) << label;
      EXPECT_GE(got.step_time_ms, bound * (1 - 1e-9)) << label;
      ASSERT_TRUE(got.proven_optimal) << label;
      EXPECT_NEAR(got.step_time_ms, bound, 1e-9 * bound) << label;
      EXPECT_NEAR(got.lower_bound_ms, bound, 1e-9 * bound) << label;
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);
}

// Megatron-LM refuses full recompute with --overlap-moe-expert-parallel-comm (transformer_config.py),
// so under interleaved_1f1b_overlap the balancer leaves the option out and says so. 8 layers of
// 10 MiB activation (2 with "full", 5 with "selective"), pp 2, vpp 2, m 4: interleaved 1F1B's stage 0
// holds its warm-up 2 + 2 + 1 = 5 chunk activations plus one more under the overlap, 6 chunks of two
// layers = 120 MiB without recompute. A 70 MiB limit needs recompute; "selective" reaches 6 x 10 = 60.
TEST(BalanceSchedules, OverlapScheduleLeavesFullRecomputeOut) {
  using nlohmann::json;
  const json layer = {{"name", "l"},
                      {"count", 8},
                      {"forward_ms", 1},
                      {"backward_ms", 2},
                      {"activation_mib", 10},
                      {"recompute",
                       {{"full", {{"activation_mib", 2}, {"extra_ms", 1}}},
                        {"selective", {{"activation_mib", 5}, {"extra_ms", 0.5}}}}}};
  const json request = {
      {"model", {{"layers", {layer}}}},
      {"device", {{"memory_limit_mib", 70}}},
      {"pipeline",
       {{"pp_degree", 2}, {"vpp_degree", 2}, {"micro_batch_num", 4}, {"schedule", "interleaved_1f1b_overlap"}}}};
  const json r = run("balance", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  ASSERT_TRUE(r["result"]["feasible"]) << r.dump();
  bool said = false;
  for (const auto& note : r["result"]["method"]["notes"])
    said = said || note.get<std::string>().find("recompute option \"full\" was left out") != std::string::npos;
  EXPECT_TRUE(said) << r.dump();
  EXPECT_FALSE(r["result"]["layer_recompute"].contains("full")) << r.dump();
  EXPECT_TRUE(r["result"]["layer_recompute"].contains("selective")) << r.dump();
}

}  // namespace
}  // namespace ppb::test
