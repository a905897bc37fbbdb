// Per-stage memory and time of an estimate, against values worked out by hand.
#include "ppb/simulate/estimate.hpp"

#include <gtest/gtest.h>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// Model used below: embedding (F 1, B 2, static 500) pinned first, 8 decoders (F 2, B 4, static 100,
// activation 50, full recompute keeps 10 and adds 2 ms), lm_head (F 3, B 6, static 700) pinned last.
json request(int pp, int m) {
  return {{"model", uniform_model(8, 2, 4, 100, 50, true)}, {"pipeline", {{"pp_degree", pp}, {"micro_batch_num", m}}}};
}

// AP-PP-01, pp 2: the even split puts embedding + 4 decoders on stage 0 and 4 decoders + head on
// stage 1. Stage 0: F 1 + 4x2 = 9, B 2 + 4x4 = 18, static 500 + 400 = 900, 1f1b holds min(2, 4) = 2
// micro batches of 4 x 50 = 200 MiB -> 400, peak 1300. Stage 1: F 8 + 3 = 11, B 16 + 6 = 22, static
// 400 + 700 = 1100, holds 1 -> 200, peak 1300. Step: stage 1 is the bottleneck, 4 x 33 = 132 ms,
// entered after stage 0's first forward (9) and followed by stage 0's last backward (18): 159 ms.
TEST(Estimate, AP_PP_01_EvenSplitTwoStages) {
  const json r = run("estimate", request(2, 4));
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& res = r["result"];
  EXPECT_EQ(res["stage_layers"], json({5, 5}));
  const json& s0 = res["stages"][0];
  const json& s1 = res["stages"][1];
  EXPECT_DOUBLE_EQ(s0["time"]["forward_ms"], 9);
  EXPECT_DOUBLE_EQ(s0["time"]["backward_ms"], 18);
  EXPECT_DOUBLE_EQ(s1["time"]["forward_ms"], 11);
  EXPECT_DOUBLE_EQ(s1["time"]["backward_ms"], 22);
  EXPECT_DOUBLE_EQ(s0["memory"]["static_mib"], 900);
  EXPECT_DOUBLE_EQ(s1["memory"]["static_mib"], 1100);
  EXPECT_DOUBLE_EQ(s0["memory"]["activation_mib"], 400);
  EXPECT_DOUBLE_EQ(s1["memory"]["activation_mib"], 200);
  EXPECT_EQ(s0["memory"]["in_flight_micro_batches"], 2);
  EXPECT_EQ(s1["memory"]["in_flight_micro_batches"], 1);
  EXPECT_DOUBLE_EQ(s0["memory"]["peak_mib"], 1300);
  EXPECT_DOUBLE_EQ(s1["memory"]["peak_mib"], 1300);
  EXPECT_DOUBLE_EQ(res["step_time_ms"], 159);
  EXPECT_DOUBLE_EQ(s0["time"]["busy_ms"], 4 * 27);
  EXPECT_DOUBLE_EQ(s1["time"]["bubble_ms"], 159 - 132);
  EXPECT_DOUBLE_EQ(res["bubble"]["fraction"], (159 - 108 + 159 - 132) / (2.0 * 159));
  EXPECT_DOUBLE_EQ(res["imbalance"]["max_over_mean"], 33 / 30.0);
  EXPECT_DOUBLE_EQ(res["imbalance"]["max_minus_min_ms"], 6);
}

// AP-PP-01, pp 4: 2 decoders per stage. Static: 700, 200, 200, 900. Activation per micro batch 100,
// held min(4 - s, 4) times: 400, 300, 200, 100. Peaks: 1100, 500, 400, 1000.
TEST(Estimate, AP_PP_01_EvenSplitFourStages) {
  const json r = run("estimate", request(4, 4));
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& stages = r["result"]["stages"];
  ASSERT_EQ(stages.size(), 4u);
  const double statics[] = {700, 200, 200, 900}, acts[] = {400, 300, 200, 100};
  const double fwd[] = {5, 4, 4, 7}, bwd[] = {10, 8, 8, 14};
  for (int s = 0; s < 4; ++s) {
    EXPECT_DOUBLE_EQ(stages[s]["memory"]["static_mib"], statics[s]) << s;
    EXPECT_DOUBLE_EQ(stages[s]["memory"]["activation_mib"], acts[s]) << s;
    EXPECT_DOUBLE_EQ(stages[s]["memory"]["peak_mib"], statics[s] + acts[s]) << s;
    EXPECT_DOUBLE_EQ(stages[s]["time"]["forward_ms"], fwd[s]) << s;
    EXPECT_DOUBLE_EQ(stages[s]["time"]["backward_ms"], bwd[s]) << s;
  }
  EXPECT_EQ(r["result"]["layer_offset"], json({0, 0, 0, 0}));
}

// AP-PP-04: with a 1050 MiB limit only stage 0 (1100 MiB) is over, by 50 MiB.
TEST(Estimate, AP_PP_04_OverLimitIsInfeasibleNamingTheStage) {
  json req = request(4, 4);
  req["device"] = {{"memory_limit_mib", 1050}};
  const json r = run("estimate", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_FALSE(r["result"]["feasible"]);
  const json& v = r["result"]["violations"];
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]["stage"], 0);
  EXPECT_DOUBLE_EQ(v[0]["over_mib"], 50);
  EXPECT_EQ(v[0]["message"], "stage 0 needs 1100 MiB, limit 1050 MiB (50 MiB over)");
  req["device"]["reserved_mib"] = 100;  // now stage 3 (1000 + 100) is over too
  const json r2 = run("estimate", req);
  ASSERT_EQ(r2["result"]["violations"].size(), 2u);
  EXPECT_EQ(r2["result"]["violations"][1]["stage"], 3);
  EXPECT_DOUBLE_EQ(r2["result"]["violations"][1]["over_mib"], 50);
}

// Part of AP-PP-09: two decoders of stage 0 on full recompute keep 10 instead of 50 MiB each and add
// 2 ms each to the backward: activation per micro batch 200 -> 120, held twice: 400 -> 240.
TEST(Estimate, RecomputeLowersActivationAndRaisesBackwardExactly) {
  json req = request(2, 4);
  req["pipeline"]["recompute"] = {{"full", {2, 0}}};
  const json r = run("estimate", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& s0 = r["result"]["stages"][0];
  EXPECT_DOUBLE_EQ(s0["memory"]["activation_mib"], 240);
  EXPECT_DOUBLE_EQ(s0["time"]["recompute_ms"], 4);
  EXPECT_DOUBLE_EQ(s0["time"]["backward_ms"], 18);
  EXPECT_DOUBLE_EQ(s0["time"]["busy_ms"], 4 * (9 + 18 + 4));
  EXPECT_EQ(r["result"]["layer_recompute"], json({{"full", {1, 2}}}));
  EXPECT_EQ(r["result"]["recompute_counts"], json({{"full", {2, 0}}}));
}

// A plan given as stage_layers, re-submitted as its layer_offset and as its stage_partition, gives
// the same estimate.
TEST(Estimate, PartitionFormsRoundTrip) {
  json req = request(2, 4);
  req["pipeline"]["stage_layers"] = {4, 6};
  const json a = run("estimate", req);
  ASSERT_TRUE(a["ok"]) << a.dump();
  EXPECT_EQ(a["result"]["layer_offset"], json({-1, 1}));  // body 3 and 5 against base 4
  req["pipeline"].erase("stage_layers");
  req["pipeline"]["layer_offset"] = a["result"]["layer_offset"];
  const json b = run("estimate", req);
  req["pipeline"].erase("layer_offset");
  req["pipeline"]["stage_partition"] = a["result"]["stage_partition"];
  const json c = run("estimate", req);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(a["result"]["stage_partition"], json({0, 0, 0, 0, 1, 1, 1, 1, 1, 1}));
}

// Static memory from params: bytes_per_param 2 + 4 + 12 per parameter by default.
TEST(Estimate, ParamsUseBytesPerParam) {
  json model = {{"layers", {{{"name", "l"}, {"count", 2}, {"forward_ms", 1}, {"params", 1048576}}}}};
  json r = run("estimate", {{"model", model}, {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 1}}}});
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_DOUBLE_EQ(r["result"]["stages"][0]["memory"]["weights_mib"], 2);
  EXPECT_DOUBLE_EQ(r["result"]["stages"][0]["memory"]["grads_mib"], 4);
  EXPECT_DOUBLE_EQ(r["result"]["stages"][0]["memory"]["optimizer_mib"], 12);
  EXPECT_DOUBLE_EQ(r["result"]["stages"][0]["memory"]["static_mib"], 18);
  json req = {{"model", model},
              {"training", {{"bytes_per_param", {{"weights", 4}, {"grads", 4}, {"optimizer", 8}}}}},
              {"pipeline", {{"pp_degree", 1}, {"micro_batch_num", 1}}}};
  r = run("estimate", req);
  EXPECT_DOUBLE_EQ(r["result"]["stages"][0]["memory"]["static_mib"], 2 * 16);
}

}  // namespace
}  // namespace ppb::test

namespace ppb::test {
namespace {

// Outside components: a layer's component is part of its times and memory and reported by name;
// a stage component runs after the stage's last operation and holds memory. Two stages of one
// layer each (F 1, B 2), 1f1b, 2 micro batches: stage 0 runs F0 [0,1], F1 [1,2], B0 [4,6], B1 [7,9];
// stage 1 runs F0 [1,2], B0 [2,4], F1 [4,5], B1 [5,7]. With a synchronisation of 1 ms after stage 0
// and 5 ms after stage 1, the step ends at max(9 + 1, 7 + 5) = 12 ms.
TEST(Estimate, OutsideComponentsAddByName) {
  json layers = {{{"name", "l"},
                  {"count", 2},
                  {"forward_ms", 0.75},
                  {"backward_ms", 1.5},
                  {"static_mib", 10},
                  {"components", {{"tp_comm", {{"forward_ms", 0.25}, {"backward_ms", 0.5}, {"static_mib", 5}}}}}}};
  json req = {{"model", {{"layers", layers}}},
              {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 2}}},
              {"components", {{{"name", "dp_sync"}, {"step_ms", {1, 5}}, {"memory_mib", 100}}}}};
  const json r = run("estimate", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_DOUBLE_EQ(r["result"]["step_time_ms"], 12);
  const json& s0 = r["result"]["stages"][0];
  EXPECT_DOUBLE_EQ(s0["time"]["forward_ms"], 1);
  EXPECT_DOUBLE_EQ(s0["time"]["backward_ms"], 2);
  EXPECT_DOUBLE_EQ(s0["components"]["tp_comm"]["forward_ms"], 0.25);
  EXPECT_DOUBLE_EQ(s0["components"]["tp_comm"]["static_mib"], 5);
  EXPECT_DOUBLE_EQ(s0["components"]["dp_sync"]["step_ms"], 1);
  EXPECT_DOUBLE_EQ(r["result"]["stages"][1]["components"]["dp_sync"]["step_ms"], 5);
  EXPECT_DOUBLE_EQ(s0["memory"]["static_mib"], 15);
  EXPECT_DOUBLE_EQ(s0["memory"]["components_mib"], 100);
  EXPECT_DOUBLE_EQ(s0["memory"]["peak_mib"], 115);
  EXPECT_DOUBLE_EQ(s0["time"]["busy_ms"], 2 * 3 + 1);
  req["components"][0]["step_ms"] = {1, 2, 3};
  EXPECT_TRUE(has_error(run("estimate", req), "COMPONENT_LENGTH", "/components/0/step_ms"));
}

}  // namespace
}  // namespace ppb::test
