// The training state a device holds per parameter (training.hpp): precision, sharding over the
// data-parallel ranks, and which statement wins (the request's, the model document's, the default).
// Expected figures from Megatron-LM's distributed-optimizer guide (bytes per parameter: 18 and
// 6 + 12/d for bf16 parameters with fp32 gradients, 20 and 4 + 16/d for fp16, 16 and 8 + 8/d for
// fp32) and ZeRO's stages (the gradients, then the weights, divided by d as well).
#include <gtest/gtest.h>

#include <map>

#include "helpers.hpp"
#include "ppb/model/training.hpp"

namespace ppb::test {
namespace {

double total(const BytesPerParam& b) { return b.weights + b.grads + b.optimizer; }

TEST(TrainingState, MegatronDistributedOptimizerTable) {
  for (const std::int64_t d : {1, 8, 64}) {
    const double dd = static_cast<double>(d);
    EXPECT_DOUBLE_EQ(total(held_bytes_per_param(bytes_for_precision(Precision::bf16), Sharding::none, d)), 18);
    EXPECT_DOUBLE_EQ(total(held_bytes_per_param(bytes_for_precision(Precision::fp16), Sharding::none, d)), 20);
    EXPECT_DOUBLE_EQ(total(held_bytes_per_param(bytes_for_precision(Precision::fp32), Sharding::none, d)), 16);
    EXPECT_DOUBLE_EQ(total(held_bytes_per_param(bytes_for_precision(Precision::bf16), Sharding::optimizer, d)),
                     6 + 12 / dd);
    EXPECT_DOUBLE_EQ(total(held_bytes_per_param(bytes_for_precision(Precision::fp16), Sharding::optimizer, d)),
                     4 + 16 / dd);
    EXPECT_DOUBLE_EQ(total(held_bytes_per_param(bytes_for_precision(Precision::fp32), Sharding::optimizer, d)),
                     8 + 8 / dd);
    // FP8 GEMMs keep bf16 weights and fp32 gradients and optimizer state.
    EXPECT_DOUBLE_EQ(total(held_bytes_per_param(bytes_for_precision(Precision::fp8), Sharding::optimizer, d)),
                     6 + 12 / dd);
  }
}

TEST(TrainingState, ZeroStagesDivideMoreOfTheState) {
  const BytesPerParam bf16 = bytes_for_precision(Precision::bf16);
  const BytesPerParam zero2 = held_bytes_per_param(bf16, Sharding::optimizer_and_grads, 8);
  EXPECT_DOUBLE_EQ(zero2.weights, 2);
  EXPECT_DOUBLE_EQ(zero2.grads, 0.5);
  EXPECT_DOUBLE_EQ(zero2.optimizer, 1.5);
  const BytesPerParam full = held_bytes_per_param(bf16, Sharding::full, 8);
  EXPECT_DOUBLE_EQ(total(full), 18.0 / 8);
  EXPECT_DOUBLE_EQ(total(held_bytes_per_param(bf16, Sharding::full, 0)), 18);  // a group below 1 counts as 1
}

// Four equal layers of 1,048,576 x 64 parameters on two stages: two layers a stage.
json request_with(json training, json model_extra = json::object()) {
  json model = {{"format", "ppb.model.v1"},
                {"layers", {{{"name", "block"}, {"count", 4}, {"forward_ms", 1}, {"params", 67108864}}}}};
  model.update(model_extra);
  return {{"model", model},
          {"training", training},
          {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 4}, {"schedule", "1f1b"}}}};
}

double stage_memory(const json& response, const char* part) {
  return response.at("result").at("stages").at(0).at("memory").at(part).get<double>();
}

// Two layers x 2^26 parameters = 2^27 per stage, 128 MiB per byte per parameter.
TEST(TrainingState, ShardedOptimizerOverDp8OnAParamsModel) {
  const json r = run("estimate", request_with({{"sharding", "optimizer"}, {"dp_degree", 8}}));
  ASSERT_TRUE(r.at("ok").get<bool>()) << r.dump();
  EXPECT_DOUBLE_EQ(stage_memory(r, "optimizer_mib"), 128.0 * 12 / 8);
  EXPECT_DOUBLE_EQ(stage_memory(r, "weights_mib"), 128.0 * 2);
  EXPECT_DOUBLE_EQ(stage_memory(r, "grads_mib"), 128.0 * 4);
  // distributed_optimizer: true says the same.
  const json same = run("estimate", request_with({{"distributed_optimizer", true}, {"dp_degree", 8}}));
  EXPECT_DOUBLE_EQ(stage_memory(same, "optimizer_mib"), 128.0 * 12 / 8);
  // Unsharded, fp16: 2 + 2 + 16.
  const json fp16 = run("estimate", request_with({{"precision", "fp16"}, {"dp_degree", 8}}));
  EXPECT_DOUBLE_EQ(stage_memory(fp16, "grads_mib"), 128.0 * 2);
  EXPECT_DOUBLE_EQ(stage_memory(fp16, "optimizer_mib"), 128.0 * 16);
}

// dp from the world size: 64 devices over pp 2, tp 2, cp 2 leaves dp 8, and the shard group is
// dp x cp = 16 ranks.
TEST(TrainingState, ShardGroupFromTheWorldSizeWithContextParallelRanks) {
  const json r =
      run("estimate",
          request_with({{"sharding", "optimizer_and_grads"}, {"world_size", 64}, {"tp_degree", 2}, {"cp_degree", 2}}));
  ASSERT_TRUE(r.at("ok").get<bool>()) << r.dump();
  EXPECT_DOUBLE_EQ(stage_memory(r, "grads_mib"), 128.0 * 4 / 16);
  EXPECT_DOUBLE_EQ(stage_memory(r, "optimizer_mib"), 128.0 * 12 / 16);
}

// Fully sharded over 8 ranks: 18 / 8 bytes per parameter held, and the layers computed unsharded:
// two layers' bf16 weights (prefetch) and one layer's fp32 gradients, 2^26 x (2 x 2 + 4) bytes =
// 512 MiB on every stage.
TEST(TrainingState, FullShardingHoldsTheComputedLayersUnsharded) {
  const json r = run("estimate", request_with({{"sharding", "full"}, {"dp_degree", 8}}));
  ASSERT_TRUE(r.at("ok").get<bool>()) << r.dump();
  EXPECT_DOUBLE_EQ(stage_memory(r, "weights_mib"), 128.0 * 2 / 8);
  EXPECT_DOUBLE_EQ(stage_memory(r, "grads_mib"), 128.0 * 4 / 8);
  EXPECT_DOUBLE_EQ(stage_memory(r, "optimizer_mib"), 128.0 * 12 / 8);
  EXPECT_DOUBLE_EQ(stage_memory(r, "components_mib"), 512);
}

TEST(TrainingState, TheModelDocumentsBytesApplyWhenTheRequestStatesNone) {
  const json doc_bytes = {{"bytes_per_param", {{"weights", 2}, {"grads", 4}, {"optimizer", 1.5}}}};
  const json r = run("estimate", request_with(json::object(), doc_bytes));
  ASSERT_TRUE(r.at("ok").get<bool>()) << r.dump();
  EXPECT_DOUBLE_EQ(stage_memory(r, "optimizer_mib"), 128.0 * 1.5);
  EXPECT_FALSE(r.contains("warnings")) << r.dump();
  // Stated in the request too, differently: the request's win, with a warning.
  const json both = run("estimate", request_with({{"precision", "fp32"}}, doc_bytes));
  EXPECT_DOUBLE_EQ(stage_memory(both, "optimizer_mib"), 128.0 * 8);
  ASSERT_TRUE(both.contains("warnings"));
  EXPECT_EQ(both.at("warnings").at(0).at("code"), "BYTES_PER_PARAM_CONFLICT");
  // No statement anywhere: bf16, nothing sharded.
  EXPECT_DOUBLE_EQ(stage_memory(run("estimate", request_with(json::object())), "optimizer_mib"), 128.0 * 12);
}

TEST(TrainingState, BadStatementsAreErrorsAndAnUnknownGroupAWarning) {
  EXPECT_TRUE(
      has_error(run("estimate", request_with({{"precision", "int4"}})), "PRECISION_UNKNOWN", "/training/precision"));
  EXPECT_TRUE(
      has_error(run("estimate", request_with({{"sharding", "zero-1"}})), "SHARDING_UNKNOWN", "/training/sharding"));
  EXPECT_TRUE(has_error(run("estimate", request_with({{"sharding", "full"}, {"distributed_optimizer", true}})),
                        "SHARDING_CONFLICT", "/training/distributed_optimizer"));
  const json r = run("estimate", request_with({{"sharding", "optimizer"}}));
  ASSERT_TRUE(r.at("ok").get<bool>());
  EXPECT_EQ(r.at("warnings").at(0).at("code"), "SHARD_GROUP_UNKNOWN");
  EXPECT_DOUBLE_EQ(stage_memory(r, "optimizer_mib"), 128.0 * 12);
}

}  // namespace
}  // namespace ppb::test

namespace ppb::test {
namespace {

// A search on 64 devices: pp 2 leaves dp 32, pp 4 dp 16, and each candidate's optimizer state is
// sharded over its own dp. 8 layers of 2^26 parameters with no activation: pp 2 holds 4 layers
// (256 MiB per byte per parameter) at 2 + 4 + 12/32 bytes = 1,632 MiB; pp 4 holds 2 layers (128 MiB)
// at 2 + 4 + 12/16 = 864 MiB. Unsharded they would be 4,608 and 2,304.
TEST(TrainingState, EachSearchCandidateShardsOverItsOwnDp) {
  const json request = {
      {"model",
       {{"format", "ppb.model.v1"},
        {"layers", {{{"name", "block"}, {"count", 8}, {"forward_ms", 1}, {"params", 67108864}}}}}},
      {"training",
       {{"world_size", 64}, {"global_batch_size", 512}, {"micro_batch_size", 1}, {"sharding", "optimizer"}}},
      {"search", {{"pp_degree", {2, 4}}, {"schedule", {"1f1b"}}}}};
  const json r = run("search", request);
  ASSERT_TRUE(r.at("ok").get<bool>()) << r.dump();
  std::map<int, double> peak;
  for (const json& c : r.at("result").at("candidates")) peak[c.at("pp_degree").get<int>()] = c.at("peak_mib");
  EXPECT_DOUBLE_EQ(peak.at(2), 256 * (6 + 12.0 / 32));
  EXPECT_DOUBLE_EQ(peak.at(4), 128 * (6 + 12.0 / 16));
}

// Experts are sharded over the expert data-parallel group, dp x cp x tp / (ep x expert tp): with dp 8,
// ep 4 and no TP two ranks hold each expert. A stage holds 2^27 parameters, 3/4 of them experts:
// optimizer 128 MiB x (1/4 x 12 / 8 + 3/4 x 12 / 2) = 128 x 4.875.
TEST(TrainingState, ExpertsShardOverTheExpertDataParallelGroup) {
  json request = request_with({{"sharding", "optimizer"}, {"dp_degree", 8}, {"ep_degree", 4}});
  request["model"]["layers"][0]["expert_params"] = 67108864 / 4 * 3;
  const json r = run("estimate", request);
  ASSERT_TRUE(r.at("ok").get<bool>()) << r.dump();
  EXPECT_DOUBLE_EQ(stage_memory(r, "optimizer_mib"), 128.0 * (0.25 * 12 / 8 + 0.75 * 12 / 2));
  EXPECT_DOUBLE_EQ(stage_memory(r, "grads_mib"), 128.0 * 4);
  // With tp 2 and the experts' own tensor parallelism 1, dp 8 x tp 2 / ep 4 = 4 ranks hold each.
  request["parallel"] = {{"tp_degree", 2}, {"expert_tp_degree", 1}};
  const json etp = run("estimate", request);
  ASSERT_TRUE(etp.at("ok").get<bool>()) << etp.dump();
  EXPECT_DOUBLE_EQ(stage_memory(etp, "optimizer_mib"), 128.0 * (0.25 * 12 / 8 + 0.75 * 12 / 4));
  // expert_params is part of params.
  request["model"]["layers"][0]["expert_params"] = 67108864 * 2;
  const json bad = run("estimate", request);
  EXPECT_EQ(bad.at("errors").at(0).at("code"), "COST_PART_EXCEEDS");
  EXPECT_EQ(bad.at("errors").at(0).at("path"), "/model/layers/0/expert_params");
}

// The generator writes expert_params and the experts' bytes: DeepSeek-V3's shape of ep 64 over dp 128
// leaves 2 ranks a copy of each expert, so 12 / 2 bytes of optimizer state per expert parameter.
TEST(TrainingState, GeneratedMoeLayersCarryTheirExpertsBytes) {
  const json request = {{"transformer",
                         {{"num_layers", 2},
                          {"hidden_size", 64},
                          {"num_attention_heads", 4},
                          {"vocab_size", 128},
                          {"seq_length", 16},
                          {"moe", {{"num_experts", 64}, {"top_k", 2}, {"expert_ffn_hidden_size", 32}}}}},
                        {"parallel", {{"ep_degree", 64}, {"dp_degree", 128}}},
                        {"training", {{"sharding", "optimizer"}}},
                        {"device", {{"peak_tflops", 100}}}};
  const json r = run("import", request);
  ASSERT_TRUE(r.at("ok").get<bool>()) << r.dump();
  const json& model = r.at("result").at("model");
  EXPECT_DOUBLE_EQ(model.at("bytes_per_param").at("optimizer").get<double>(), 12.0 / 128);
  EXPECT_DOUBLE_EQ(model.at("expert_bytes_per_param").at("optimizer").get<double>(), 12.0 / 2);
  // One expert of 2 h f_e = 4,096 parameters a rank (64 experts over ep 64).
  EXPECT_EQ(model.at("layers").at(1).at("expert_params"), 4096);
}

}  // namespace
}  // namespace ppb::test
