// result.caveats: what an estimate leaves out, said only where it applies (simulate/caveats.hpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// Whether one of the caveats begins with `start`.
bool says(const json& result, const std::string& start) {
  const json& caveats = result.at("caveats");
  return std::any_of(caveats.begin(), caveats.end(),
                     [&](const json& c) { return c.get<std::string>().rfind(start, 0) == 0; });
}

json profiled_request() {
  return {{"model",
           {{"format", "ppb.model.v1"},
            {"layers", {{{"name", "l"}, {"count", 4}, {"forward_ms", 1}, {"activation_mib", 100}, {"send_mib", 8}}}}}},
          {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 4}}}};
}

// A profiled model with no limit, link or component: the gradient reduction, the optimizer step, the
// unstated communication and the latency-only transfers are said; memory is not (no limit).
TEST(Caveats, AProfiledModelWithoutLimitsHearsWhatTheStepLeavesOut) {
  const json r = run("estimate", profiled_request());
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const json& result = r["result"];
  EXPECT_TRUE(says(result, "The data-parallel gradient reduction")) << result["caveats"].dump();
  EXPECT_TRUE(says(result, "The optimizer step is not in the step time"));
  EXPECT_TRUE(says(result, "No layer states its communication time"));
  EXPECT_TRUE(says(result, "Stage-to-stage transfers cost only their latency"));
  EXPECT_FALSE(says(result, "No memory is kept back"));
  EXPECT_FALSE(says(result, "The allocator's fragmentation"));
  EXPECT_FALSE(says(result, "Tensor-, context- and expert-parallel"));
  EXPECT_FALSE(says(result, "Layer times are the model's FLOPs"));
}

// What the request covers is not said: dp 1 (no reduction), a component with step time, stated
// communication, a bandwidth. With a limit and nothing reserved, both memory caveats appear. Stage 0
// of pp 2 under 1F1B holds 2 layers' static memory and 2 micro batches in flight of 2 x 100 MiB:
// 2 x 180 + 400 = 760 MiB of 1000, not tight; stage 1 one micro batch, 360 + 200 = 560 MiB.
TEST(Caveats, WhatTheRequestCoversIsNotSaid) {
  json request = profiled_request();
  request["model"]["layers"][0]["forward_comm_ms"] = 0.2;
  request["model"]["layers"][0]["static_mib"] = 180;
  request["training"] = {{"dp_degree", 1}};
  request["components"] = {{{"name", "optimizer step"}, {"step_ms", 5}}};
  request["device"] = {{"p2p_bandwidth_gbs", 50}, {"memory_limit_mib", 1000}};
  const json r = run("estimate", request);
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const json& result = r["result"];
  EXPECT_DOUBLE_EQ(result["stages"][0]["memory"]["peak_mib"].get<double>(), 760);
  EXPECT_FALSE(says(result, "The data-parallel gradient reduction")) << result["caveats"].dump();
  EXPECT_FALSE(says(result, "The optimizer step"));
  EXPECT_FALSE(says(result, "No layer states its communication time"));
  EXPECT_FALSE(says(result, "Stage-to-stage transfers"));
  EXPECT_TRUE(says(result, "No memory is kept back"));
  EXPECT_TRUE(says(result,
                   "The allocator's fragmentation is not modelled: a plan should leave device.memory_margin "
                   "(5% of the limit) free."));
  EXPECT_FALSE(says(result, "Tight:"));
  // 100 MiB more static per layer: stage 0 at 960 of 1000 MiB, 40 MiB free, under the 50 MiB margin;
  // stage 1 at 760 MiB.
  request["model"]["layers"][0]["static_mib"] = 280;
  const json tight = run("estimate", request);
  ASSERT_TRUE(tight["ok"].get<bool>()) << tight.dump();
  EXPECT_DOUBLE_EQ(tight["result"]["stages"][0]["memory"]["peak_mib"].get<double>(), 960);
  EXPECT_TRUE(says(tight["result"], "Tight: stage 0 leaves less than 5% of the 1,000 MiB limit free."))
      << tight["result"]["caveats"].dump();
  // A margin of 25% (250 MiB) takes stage 1 in too: 240 MiB free.
  request["device"]["memory_margin"] = 0.25;
  const json wide = run("estimate", request);
  EXPECT_TRUE(says(wide["result"], "Tight: stages 0, 1 leave less than 25% of the 1,000 MiB limit free."))
      << wide["result"]["caveats"].dump();
}

// A transformer description: its times are computed, and without links its communication is missing;
// a device preset gives the links.
TEST(Caveats, ADescriptionSaysItsTimesAreComputed) {
  json request = {{"transformer",
                   {{"num_layers", 2},
                    {"hidden_size", 64},
                    {"num_attention_heads", 4},
                    {"ffn_hidden_size", 128},
                    {"vocab_size", 256},
                    {"seq_length", 16}}},
                  {"parallel", {{"tp_degree", 2}}},
                  {"pipeline", {{"pp_degree", 1}, {"micro_batch_num", 1}}},
                  {"device", {{"peak_tflops", 989}}}};
  const json bare = run("estimate", request);
  ASSERT_TRUE(bare["ok"].get<bool>()) << bare.dump();
  EXPECT_TRUE(says(bare["result"], "Layer times are the model's FLOPs"));
  EXPECT_TRUE(says(bare["result"], "Tensor-, context- and expert-parallel communication take no time"));
  request["device"] = {{"preset", "h100_sxm"}};
  const json preset = run("estimate", request);
  ASSERT_TRUE(preset["ok"].get<bool>()) << preset.dump();
  EXPECT_FALSE(says(preset["result"], "Tensor-, context- and expert-parallel"));
  EXPECT_FALSE(says(preset["result"], "No layer states its communication time"));
  EXPECT_FALSE(says(preset["result"], "No memory is kept back"));  // the preset reserves 2 GiB
}

// device.memory_margin is a fraction of the limit below one half.
TEST(Caveats, MemoryMarginIsAFraction) {
  json request = profiled_request();
  request["device"] = {{"memory_limit_mib", 1000}, {"memory_margin", 0.6}};
  EXPECT_TRUE(has_error(run("estimate", request), "OUT_OF_RANGE", "/device/memory_margin"));
  request["device"]["memory_margin"] = -0.1;
  EXPECT_FALSE(run("estimate", request)["ok"].get<bool>());
}

}  // namespace
}  // namespace ppb::test
