// Communication inside a generated layer, worked out by hand on a small model (docs/transformer-model.md,
// "Communication"): tensor-parallel collectives, the context-parallel ring, the expert-parallel
// all-to-all, and what a dualpipev F&B pair hides of it.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "ppb/commands/commands.hpp"
#include "ppb/model/device_presets.hpp"
#include "ppb/model/transformer.hpp"

namespace ppb::test {
namespace {

// s 8, b 1, h 16, 4 heads (head width 4), no dropout, RMSNorm, bf16 (q = 2 bytes), plain MLP of 32;
// two devices a node, 100 GB/s inside it, 10 GB/s between nodes.
json small(json extra_transformer, json parallel) {
  const json t = tiny_transformer(extra_transformer);
  return {{"transformer", t},
          {"parallel", parallel},
          {"device", {{"peak_tflops", 989}, {"gpus_per_node", 2}, {"intra_node_gbs", 100}, {"inter_node_gbs", 10}}}};
}

constexpr double kFlopsPerMs = 989e12 * 0.5 / 1e3;

// tp 2 without SP: two all-reduces of b s h q = 256 bytes each way, 2 (t - 1) / t of it each:
// 512 bytes at 100 GB/s = 5.12e-6 ms, forward and backward; the layer's times include it.
TEST(TransformerComm, TensorParallelAllReduces) {
  const json model = generate(small({}, {{"tp_degree", 2}}));
  const json& decoder = entry(model, "decoder");
  EXPECT_NEAR(decoder["forward_comm_ms"].get<double>(), 5.12e-6, 1e-15);
  EXPECT_NEAR(decoder["backward_comm_ms"].get<double>(), 5.12e-6, 1e-15);
  // Compute: weights (4 h^2 + 2 h f) / t = 1,024, 8 tokens: 16,384 FLOPs; core s^2 a 2d / t = 1,024.
  const double compute = (16384 + 1024) / kFlopsPerMs;
  EXPECT_NEAR(decoder["forward_ms"].get<double>(), compute + 5.12e-6, 1e-15);
  EXPECT_NEAR(decoder["backward_ms"].get<double>(), 2 * compute + 5.12e-6, 1e-15);
  EXPECT_FALSE(entry(model, "embedding").contains("forward_comm_ms"));

  // With sequence parallelism two all-gathers and two reduce-scatters move the same bytes; with
  // tp_comm_overlap they hide under the GEMMs.
  EXPECT_NEAR(entry(generate(small({}, {{"tp_degree", 2}, {"sequence_parallel", true}})), "decoder")["forward_comm_ms"]
                  .get<double>(),
              5.12e-6, 1e-15);
  EXPECT_FALSE(
      entry(generate(small({}, {{"tp_degree", 2}, {"tp_comm_overlap", true}})), "decoder").contains("forward_comm_ms"));
}

// cp 2: each rank's 4 tokens of keys and values, g (d + d) = 32 wide, 256 bytes, passed once at
// 100 GB/s: 2.56e-6 ms, less the attention core it overlaps (s^2 a 2d / c = 1,024 FLOPs); backward
// twice the bytes against twice the core.
TEST(TransformerComm, ContextParallelRingCountsWhatTheCoreDoesNotHide) {
  const json decoder = entry(generate(small({}, {{"cp_degree", 2}})), "decoder");
  const double core = 1024 / kFlopsPerMs;
  EXPECT_NEAR(decoder["forward_comm_ms"].get<double>(), 2.56e-6 - core, 1e-15);
  EXPECT_NEAR(decoder["backward_comm_ms"].get<double>(), 2 * (2.56e-6 - core), 1e-15);
}

json moe_small() { return small({{"num_layers", 6}, {"moe", {{"num_experts", 4}, {"top_k", 2}}}}, {{"ep_degree", 4}}); }

// ep 4 over nodes of 2: each all-to-all sends top_k copies of 8 tokens of h q = 32 bytes, 512 bytes:
// a quarter to the other rank of its node (128 bytes at 100 GB/s, 1.28e-6 ms) and half to the other
// node (256 bytes at 10 GB/s, 2.56e-5 ms) at once; dispatch and combine: 5.12e-5 ms each way.
TEST(TransformerComm, ExpertParallelAllToAll) {
  const json model = generate(moe_small());
  const json& moe = entry(model, "moe_decoder");
  EXPECT_NEAR(moe["forward_comm_ms"].get<double>(), 5.12e-5, 1e-15);
  EXPECT_NEAR(moe["backward_comm_ms"].get<double>(), 5.12e-5, 1e-15);
}

// Under dualpipev an F&B pair hides one side's communication under the other's compute, so the
// same layer times with their communication marked take less than with it unmarked.
TEST(TransformerComm, DualPipeVHidesPartOfTheAllToAll) {
  // Slow links and a slow device, so that compute and communication are alike (0.05 to 0.1 ms).
  json slow = moe_small();
  slow["device"] = {{"peak_tflops", 0.001}, {"gpus_per_node", 2}, {"intra_node_gbs", 0.1}, {"inter_node_gbs", 0.01}};
  json model = generate(slow);
  const auto step = [](const json& m) {
    const json request = {{"model", m},
                          {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 8}, {"schedule", "dualpipev"}}}};
    const json out = json::parse(run_command("estimate", request.dump()).json);
    EXPECT_TRUE(out["ok"].get<bool>()) << out.dump();
    return out["result"]["step_time_ms"].get<double>();
  };
  const double hidden = step(model);
  for (json& layer : model["layers"]) {
    layer.erase("forward_comm_ms");
    layer.erase("backward_comm_ms");
  }
  const double exposed = step(model);
  EXPECT_LT(hidden, exposed * 0.99);
}

TEST(TransformerComm, LinksGoTogether) {
  json request = moe_small();
  request["device"].erase("inter_node_gbs");
  Diagnostics d;
  EXPECT_FALSE(transformer_model(request, d).has_value());
  ASSERT_EQ(d.errors().size(), 1u);
  EXPECT_EQ(d.errors()[0].code, "LINKS_INCOMPLETE");
  EXPECT_EQ(d.errors()[0].path, "/device");
}

// A preset fills what the request leaves out and keeps what it states; an unknown one is named.
TEST(DevicePresets, FillTheDeviceAndKeepStatedFields) {
  json request = {{"device", {{"preset", "h800"}, {"memory_limit_mib", 70000}}}};
  Diagnostics d;
  apply_device_preset(request, d);
  EXPECT_TRUE(d.ok());
  EXPECT_EQ(request["device"]["memory_limit_mib"], 70000);
  EXPECT_EQ(request["device"]["peak_tflops"], 989.4);
  EXPECT_EQ(request["device"]["intra_node_gbs"], 200);
  EXPECT_EQ(request["device"]["gpus_per_node"], 8);

  request = {{"device", {{"preset", "h100"}}}};
  apply_device_preset(request, d);
  ASSERT_EQ(d.errors().size(), 1u);
  EXPECT_EQ(d.errors()[0].code, "DEVICE_PRESET_UNKNOWN");
  EXPECT_NE(d.errors()[0].message.find("h100_sxm"), std::string::npos);
}

// Through a command: an H100 preset limits memory to 80 GiB, 2 GiB of it reserved.
TEST(DevicePresets, EstimateUsesThePresetsMemory) {
  const json request = {
      {"model", {{"format", "ppb.model.v1"}, {"layers", {{{"name", "l"}, {"count", 4}, {"forward_ms", 1}}}}}},
      {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 4}}},
      {"device", {{"preset", "h100_sxm"}}}};
  const json out = json::parse(run_command("estimate", request.dump()).json);
  ASSERT_TRUE(out["ok"].get<bool>()) << out.dump();
  EXPECT_FALSE(out.contains("warnings")) << out.dump();
  EXPECT_EQ(out["result"]["stages"][0]["memory"]["limit_mib"], 81920);
  EXPECT_EQ(out["result"]["stages"][0]["memory"]["reserved_mib"], 2048);
}

}  // namespace
}  // namespace ppb::test
