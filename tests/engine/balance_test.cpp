// PPB against exhaustive search and hand-worked cases (AP-PP-02, 07, 09).
#include "ppb/balance/balance.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <set>

#include "balance_helpers.hpp"
#include "helpers.hpp"

namespace ppb::test {
namespace {

// PPB's plan is never slower than the best plan exhaustive search finds, and is proven optimal,
// on 500 seeded random models of up to 10 layers, 4 stages and 2 recompute options.
TEST(Balance, NeverWorseThanExhaustiveSearch) {
  std::mt19937 rng(20261129);
  int compared = 0, infeasible = 0;
  for (int trial = 0; trial < 500; ++trial) {
    std::uniform_int_distribution<int> layers_d(2, 10), pp_d(1, 4), m_d(1, 8), coin(0, 1);
    const int layers = layers_d(rng);
    Model model = random_model(rng, layers);
    const int units = model.body_count() + (model.pinned_first ? 1 : 0) + (model.pinned_last ? 1 : 0);
    const int pp = std::min(pp_d(rng), units);
    const Plan shape = shape_of(pp, m_d(rng), coin(rng) ? Schedule::one_f_one_b : Schedule::gpipe);
    // Keep the exhaustive space small enough: 3^layers recompute assignments per partition.
    std::vector<int> options = {0, 1};
    if (layers > 7) options = {coin(rng)};
    Device device = random_device(rng);
    std::uniform_real_distribution<double> tightness(0.5, 2.0);
    device.memory_limit_mib = limit_between(model, std::min<double>(pp, shape.micro_batch_num), pp, tightness(rng));
    BalanceOptions opt;
    opt.recompute_options = options;
    // A third of the trials carry outside per-stage components (a tail after the last operation and
    // memory), which move both the bounds and the limits.
    if (trial % 3 == 0) {
      std::uniform_real_distribution<double> tail(0, 20), extra(0, 300);
      StageComponent c;
      c.name = "outside";
      for (int s = 0; s < pp; ++s) {
        c.step_ms.push_back(std::round(tail(rng)));
        c.memory_mib.push_back(std::round(extra(rng)));
      }
      opt.components = {c};
    }
    const BalanceResult got = balance(model, device, shape, opt);
    const Exhaustive want = exhaustive(model, device, shape, options, opt.components);
    ASSERT_EQ(got.feasible, want.feasible) << "trial " << trial;
    if (!want.feasible) {
      ++infeasible;
      continue;
    }
    ++compared;
    const Estimate e = estimate(model, device, got.plan, false, opt.components);
    EXPECT_TRUE(e.feasible) << "trial " << trial;
    EXPECT_DOUBLE_EQ(e.step_time_ms, got.step_time_ms) << "trial " << trial;
    EXPECT_LE(got.step_time_ms, want.best_ms + 1e-9) << "trial " << trial << " over " << want.plans << " plans";
    EXPECT_TRUE(got.proven_optimal) << "trial " << trial;
    // The relaxed bound table (recompute time left out), used when the exact one does not fit the
    // time budget, is still a lower bound: the same optimum, proven.
    opt.exact_bound_table = false;
    const BalanceResult relaxed = balance(model, device, shape, opt);
    EXPECT_DOUBLE_EQ(relaxed.step_time_ms, got.step_time_ms) << "trial " << trial;
    EXPECT_TRUE(relaxed.proven_optimal) << "trial " << trial;
  }
  // The seeds must exercise both outcomes.
  EXPECT_GT(compared, 300);
  EXPECT_GT(infeasible, 20);
}

// Under interleaved_1f1b and zb_h1 the plans are feasible, no slower than the even split, and on
// models this small the search finishes: proven (BalanceSchedules checks the proofs against
// exhaustive search).
TEST(Balance, OtherSchedulesBeatOrMatchTheEvenSplit) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    Model model = random_model(rng, 8 + trial % 5);
    const bool interleaved = trial % 2 == 0;
    const Plan shape = interleaved ? shape_of(2, 4, Schedule::interleaved_1f1b, 2) : shape_of(3, 6, Schedule::zb_h1);
    Device device;
    BalanceOptions opt;
    opt.recompute_options = {0, 1};
    const BalanceResult got = balance(model, device, shape, opt);
    ASSERT_TRUE(got.feasible);
    Plan even = shape;
    even.stage_layers = even_stage_layers(model, shape.virtual_stages());
    even.recompute.assign(static_cast<std::size_t>(model.layer_count()), -1);
    EXPECT_LE(got.step_time_ms, estimate(model, device, even, false).step_time_ms + 1e-9) << "trial " << trial;
    EXPECT_TRUE(got.proven_optimal) << "trial " << trial;
  }
}

// Embedding F 6 B 12, 8 decoders F 2 B 4, head F 8 B 16, over 4 stages, 16 micro batches.
json heavy_ends_request() {
  return {{"model", {{"layers", heavy_ends_layers(eight_decoders(10, false))}}},
          {"pipeline", {{"pp_degree", 4}, {"micro_batch_num", 16}}}};
}

// A proven plan's lower bound is its step time, under 1f1b and zb_h1 alike.
TEST(Balance, ProvenPlansStateTheirStepTimeAsTheLowerBound) {
  json req = heavy_ends_request();
  for (const char* schedule : {"1f1b", "zb_h1"}) {
    req["pipeline"]["schedule"] = schedule;
    const json proven = run("balance", req);
    ASSERT_TRUE(proven["result"]["method"]["proven_optimal"]) << proven.dump();
    EXPECT_EQ(proven["result"]["method"]["lower_bound_ms"], proven["result"]["step_time_ms"]);
  }
}

// When the memory the balancer charges is not the estimate's (a weight activation stated below the
// activation, whose weight part it charges in full), nothing is proven and no bound is stated: the
// command's lower_bound_ms and within_tolerance are then null.
TEST(Balance, NoBoundWithoutAProof) {
  Model model = numbered_layers(6, 1, 2, 1);
  for (auto& l : model.layers) {
    l.activation_mib = 100;
    l.weight_activation_mib = 40;
  }
  Device device;
  device.memory_limit_mib = 10'000;
  const BalanceResult got = balance(model, device, shape_of(2, 4, Schedule::zb_h1), BalanceOptions{});
  ASSERT_TRUE(got.feasible);
  EXPECT_FALSE(got.proven_optimal);
  EXPECT_FALSE(got.within_tolerance.has_value());
  ASSERT_FALSE(got.notes.empty());
  EXPECT_NE(got.notes.back().find("weight activation"), std::string::npos) << got.notes.back();
}

// AP-PP-02: per micro batch the even split gives stages 18 + 12 = 30, 12, 12, 12 + 24 = 36 ms of
// compute (max/mean 36 / 22.5 = 1.6, max - min 24). The best split has 24 ms at most on a stage
// (90 ms over 4 stages in steps of 6: 24, 24, 24, 18), so max/mean 24 / 22.5 and max - min 6, and
// its step time is the least of all 84 partitions, found here by enumerating them.
TEST(Balance, AP_PP_02_PpbIsMoreBalancedThanTheEvenSplit) {
  const json r = run("balance", heavy_ends_request());
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& res = r["result"];
  EXPECT_DOUBLE_EQ(res["baseline"]["imbalance"]["max_over_mean"], 36 / 22.5);
  EXPECT_DOUBLE_EQ(res["baseline"]["imbalance"]["max_minus_min_ms"], 24);
  EXPECT_DOUBLE_EQ(res["imbalance"]["max_over_mean"], 24 / 22.5);
  EXPECT_DOUBLE_EQ(res["imbalance"]["max_minus_min_ms"], 6);
  EXPECT_LT(res["step_time_ms"].get<double>(), res["baseline"]["step_time_ms"].get<double>());
  EXPECT_TRUE(res["method"]["proven_optimal"]);

  Diagnostics d;
  const Request request = parse_request(heavy_ends_request(), d);
  const Exhaustive all = exhaustive(request.model, request.device, shape_of(4, 16, Schedule::one_f_one_b), {});
  EXPECT_EQ(all.plans, 84);  // C(9, 3) ways to cut 10 layers into 4 non-empty stages, pins respected
  EXPECT_DOUBLE_EQ(res["step_time_ms"].get<double>(), all.best_ms);
  EXPECT_GT(res["gain"]["step_time_ms"].get<double>(), 0);
}

// AP-PP-07: the offset search lists legal offsets only (summing to 8 mod 4 = 0, within +-2 of the
// even split's zeros), moves boundaries, and reports the offset it chose.
TEST(Balance, AP_PP_07_OffsetSearchMovesBoundaries) {
  json req = heavy_ends_request();
  req["balance"] = {{"mode", "offset"}, {"offset_range", 2}};
  const json r = run("balance", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& offsets = r["result"]["offsets"];
  // Offsets o_v in [-2, 2] summing to 0, where the middle stages (no pinned layer) keep at least one of
  // their 2 base layers (o >= -1): the coefficient of x^0 in (x^-2 + ... + x^2)^2 (x^-1 + ... + x^2)^2,
  // which is 56.
  EXPECT_EQ(offsets.size(), 56u);
  double last = 0;
  for (const auto& c : offsets) {
    int sum = 0;
    for (int o : c["layer_offset"]) {
      EXPECT_GE(o, -2);
      EXPECT_LE(o, 2);
      sum += o;
    }
    EXPECT_EQ(sum, 0);
    EXPECT_GE(c["step_time_ms"].get<double>(), last);
    last = c["step_time_ms"].get<double>();
  }
  EXPECT_EQ(r["result"]["layer_offset"], offsets[0]["layer_offset"]);
  EXPECT_NE(r["result"]["layer_offset"], json({0, 0, 0, 0}));  // a boundary moved
  // The best offset moves decoders off the heavy first and last stages.
  EXPECT_LT(r["result"]["layer_offset"][0].get<int>(), 0);
  EXPECT_LT(r["result"]["layer_offset"][3].get<int>(), 0);
}

// Cut by max_candidates, the offset search has evaluated the offsets nearest the even split: with
// 4 stages of base 2 and offsets summing to 0, distance 0 is the even split alone, no offset is at
// distance 1 (a single +-1 breaks the sum), and distance 2 holds one +1 and one -1 on two of the 4
// stages, 4 x 3 = 12 offsets. So 13 candidates are exactly those 13.
TEST(Balance, OffsetSearchEvaluatesTheNearestOffsetsFirst) {
  json req = heavy_ends_request();
  req["balance"] = {{"mode", "offset"}, {"offset_range", 2}, {"max_candidates", 13}};
  const json r = run("balance", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& method = r["result"]["method"];
  EXPECT_EQ(method["evaluated"], 13);
  EXPECT_FALSE(method["complete"]);
  ASSERT_EQ(method["notes"].size(), 1u);
  EXPECT_NE(method["notes"][0].get<std::string>().find("max_candidates (13)"), std::string::npos);
  std::set<std::vector<int>> seen;
  for (const auto& c : r["result"]["offsets"]) {
    const auto offset = c["layer_offset"].get<std::vector<int>>();
    int distance = 0;
    for (int o : offset) distance += std::abs(o);
    EXPECT_TRUE(distance == 0 || distance == 2) << c.dump();
    seen.insert(offset);
  }
  EXPECT_EQ(seen.size(), 13u);
  EXPECT_TRUE(seen.count({0, 0, 0, 0}));
}

// The time budget ends the offset search too; the even split is always evaluated first.
TEST(Balance, OffsetSearchStopsAtItsTimeBudget) {
  json req = heavy_ends_request();
  req["balance"] = {{"mode", "offset"}, {"offset_range", 2}, {"time_budget_ms", 0.001}};
  const json r = run("balance", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& method = r["result"]["method"];
  EXPECT_EQ(method["evaluated"], 1);
  EXPECT_FALSE(method["complete"]);
  ASSERT_EQ(method["notes"].size(), 1u);
  EXPECT_NE(method["notes"][0].get<std::string>().find("time budget (balance.time_budget_ms 0.001)"),
            std::string::npos);
  EXPECT_EQ(r["result"]["layer_offset"], json({0, 0, 0, 0}));
}

// A budget too small for the bound tables still answers: the even split with its best recompute
// (here 3 selective layers on stage 0, as AP-PP-09 below derives), not proven, saying why. A work
// budget of 1 gives that answer on every machine; a wall-clock cap of 0.001 ms gives it too, and says
// it stopped early on this machine.
TEST(Balance, ATinyBudgetGivesTheEvenSplitWithItsRecompute) {
  const json layers = json::array({eight_decoders(100, true)});
  for (const json& budget : {json{{"work_budget", 1}}, json{{"time_budget_ms", 0.001}}}) {
    const json req = {{"model", {{"layers", layers}}},
                      {"device", {{"memory_limit_mib", 1000}}},
                      {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 8}}},
                      {"balance", budget}};
    const json r = run("balance", req);
    ASSERT_TRUE(r["ok"]) << r.dump();
    EXPECT_TRUE(r["result"]["feasible"]);
    EXPECT_EQ(r["result"]["stage_layers"], json({4, 4}));
    EXPECT_EQ(r["result"]["layer_recompute"], json({{"selective", {0, 1, 2}}}));
    EXPECT_FALSE(r["result"]["method"]["proven_optimal"]);
    const std::string notes = r["result"]["method"]["notes"].dump();
    EXPECT_NE(notes.find("the budget did not allow"), std::string::npos) << notes;
    const bool clock = budget.contains("time_budget_ms");
    EXPECT_EQ(notes.find("stopped at its work budget") != std::string::npos, !clock) << notes;
    EXPECT_EQ(notes.find("stopped early on this machine") != std::string::npos, clock) << notes;
  }
}

// AP-PP-09: 8 decoders (F 2, B 4, activation 100, static 100; full keeps 10 for +2 ms, selective
// keeps 60 for +0.5 ms) on 2 stages, 8 micro batches. Stage 0 holds 2 micro batches: 4 x 100 static
// + 2 x 400 activation = 1200 MiB; stage 1 holds 1: 400 + 400 = 800. With a 1000 MiB limit the even
// split does not fit; stage 0 must keep at most 300 MiB per micro batch, so it saves 100 MiB: the
// cheapest way is 3 selective layers (saving 120 MiB for 1.5 ms; one full layer saves 90, too little;
// 2 selective + ... any cheaper mix saves less). Stage 1 fits and recomputes nothing.
TEST(Balance, AP_PP_09_RecomputeMakesATightPlanFeasible) {
  const json layers = json::array({eight_decoders(100, true)});
  json req = {{"model", {{"layers", layers}}},
              {"device", {{"memory_limit_mib", 1000}}},
              {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 8}, {"stage_layers", {4, 4}}}}};
  json even = run("estimate", req);
  ASSERT_TRUE(even["ok"]) << even.dump();
  EXPECT_FALSE(even["result"]["feasible"]);
  EXPECT_DOUBLE_EQ(even["result"]["stages"][0]["memory"]["peak_mib"], 1200);

  req["pipeline"].erase("stage_layers");
  req["balance"] = {{"mode", "offset"}, {"offset_range", 0}};  // keep the even split, choose recompute
  const json r = run("balance", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& s0 = r["result"]["stages"][0];
  EXPECT_TRUE(r["result"]["feasible"]);
  EXPECT_EQ(r["result"]["layer_recompute"], json({{"selective", {0, 1, 2}}}));
  EXPECT_DOUBLE_EQ(s0["memory"]["activation_mib"], 2 * (400 - 3 * 40));   // lowered by exactly 3 x 40 per micro batch
  EXPECT_DOUBLE_EQ(s0["time"]["recompute_ms"], 1.5);                      // raised by exactly 3 x 0.5
  EXPECT_DOUBLE_EQ(r["result"]["stages"][1]["time"]["recompute_ms"], 0);  // stage 1 fits: nothing recomputed
  EXPECT_FALSE(r["result"]["baseline"]["feasible"]);

  // The optimal mode finds a feasible plan too, never slower than the even split with recompute.
  req["balance"] = json::object();
  const json opt = run("balance", req);
  EXPECT_TRUE(opt["result"]["feasible"]);
  EXPECT_LE(opt["result"]["step_time_ms"].get<double>(), r["result"]["step_time_ms"].get<double>());
}

// When no plan fits, the plan returned exceeds the limit by the least: its largest overshoot (peak
// memory less the limit, every layer on its most activation-saving option) is the least of every
// partition's, found here by enumerating them (up to 10 layers, 4 stages, pins, components, both
// one-chunk schedules), on 300 seeded random models with a limit no plan meets.
TEST(Balance, NothingFitsGivesThePlanOverTheLimitByTheLeast) {
  std::mt19937 rng(4711);
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::uniform_int_distribution<int> layers_d(2, 10), pp_d(1, 4), m_d(1, 8), coin(0, 1);
    const Model model = random_model(rng, layers_d(rng));
    const int units = model.body_count() + (model.pinned_first ? 1 : 0) + (model.pinned_last ? 1 : 0);
    const int pp = std::min(pp_d(rng), units);
    const Plan shape = shape_of(pp, m_d(rng), coin(rng) ? Schedule::one_f_one_b : Schedule::gpipe);
    double total_static = 0;
    for (const auto& l : model.layers) total_static += l.static_mib();
    Device device;
    std::uniform_real_distribution<double> share(0.1, 0.9);
    device.memory_limit_mib = std::round(share(rng) * total_static / pp);  // below the average stage's static memory
    std::vector<StageComponent> components;
    if (trial % 3 == 0) {
      std::uniform_real_distribution<double> extra(0, 300);
      StageComponent c;
      c.name = "outside";
      for (int s = 0; s < pp; ++s) c.memory_mib.push_back(std::round(extra(rng)));
      components = {c};
    }
    // Every layer on its most-saving option (the least activation; the extra time does not matter here).
    std::vector<int> least(model.layers.size(), -1);
    for (std::size_t i = 0; i < model.layers.size(); ++i) {
      double act = model.layers[i].activation_mib;
      for (int o : {0, 1})
        if (const auto& r = model.layers[i].recompute[static_cast<std::size_t>(o)]; r && r->activation_mib < act) {
          act = r->activation_mib;
          least[i] = o;
        }
    }
    auto overshoot = [&](const Plan& plan) {
      double worst = -1e300;
      for (const auto& st : estimate(model, device, plan, false, components).stages)
        worst = std::max(worst, st.memory.peak_mib - *device.memory_limit_mib);
      return worst;
    };
    double best = 1e300;
    for_each_partition(model, pp, [&](const std::vector<int>& stage_layers) {
      Plan plan = shape;
      plan.stage_layers = stage_layers;
      plan.recompute = least;
      best = std::min(best, overshoot(plan));
    });
    BalanceOptions opt;
    opt.recompute_options = {0, 1};
    opt.components = components;
    const BalanceResult got = balance(model, device, shape, opt);
    ASSERT_LT(best, 1e300) << "trial " << trial;
    if (best <= 0) continue;  // some plan fits after all
    ++compared;
    ASSERT_FALSE(got.feasible) << "trial " << trial;
    EXPECT_EQ(got.plan.recompute, least) << "trial " << trial;
    EXPECT_NEAR(overshoot(got.plan), best, 1e-6) << "trial " << trial;
  }
  EXPECT_GT(compared, 250);
}

// With no plan under the limit the answer is infeasible and names the stages over it.
TEST(Balance, NothingFitsGivesTheLeastOverPlan) {
  json req = heavy_ends_request();
  req["device"] = {{"memory_limit_mib", 150}};  // every stage holds at least 100 MiB static + activations
  const json r = run("balance", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_FALSE(r["result"]["feasible"]);
  EXPECT_FALSE(r["result"]["violations"].empty());
}

TEST(Balance, UnknownRecomputeOptionIsAnError) {
  json req = heavy_ends_request();
  req["balance"] = {{"recompute_options", {"full"}}};
  const json r = run("balance", req);
  EXPECT_TRUE(has_error(r, "RECOMPUTE_OPTION_UNKNOWN", "/balance/recompute_options/0")) << r.dump();
}

}  // namespace
}  // namespace ppb::test
