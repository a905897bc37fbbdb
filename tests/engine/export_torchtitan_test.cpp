// The torchtitan export (export_torchtitan.cpp): [parallelism] keys as torchtitan's ParallelismConfig
// names them (torchtitan/config/configs.py), the CSV of the PyTorch export, and activation
// checkpointing where one policy covers the plan; expected values worked out by hand.
#include <gtest/gtest.h>

#include "helpers.hpp"

namespace ppb::test {
namespace {

json torchtitan_request(int decoders, json pipeline) {
  return {{"model", uniform_model(decoders, 1, 2, 0, 1, true)},
          {"pipeline", std::move(pipeline)},
          {"export", {{"to", "torchtitan"}}}};
}

// 1F1B, pp 2, m 4, embedding + 2 decoders + head split 2 | 2: rank 0 holds tok_embeddings and
// layers.0, rank 1 layers.1 and the head (norm, output). No run stated: only the pipeline keys.
TEST(Torchtitan, OneFOneBPipelineKeysAndTheCsv) {
  const json r = run("export", torchtitan_request(2, {{"pp_degree", 2}, {"micro_batch_num", 4}}));
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const json& out = r["result"]["json"];
  EXPECT_EQ(out["parallelism"],
            json({{"pipeline_parallel_degree", 2},
                  {"pipeline_parallel_schedule", "1F1B"},
                  {"pipeline_parallel_schedule_csv", "ppb_schedule.csv"},
                  {"num_pp_microbatches", 4},
                  {"module_fqns_per_model_part", {{"tok_embeddings", "layers.0"}, {"layers.1", "norm", "output"}}}}));
  EXPECT_EQ(out["activation_checkpoint"], "none");
  // 1F1B, pp 2, m 4: rank 0 warms up 1 forward, rank 1 none.
  EXPECT_EQ(out["csv"], "0F0,0F1,0B0,0F2,0B1,0F3,0B2,0B3\n1F0,1B0,1F1,1B1,1F2,1B2,1F3,1B3\n");
  EXPECT_EQ(out["overrides"], json({"--parallelism.num_pp_microbatches", "4", "--parallelism.pipeline_parallel_degree",
                                    "2", "--parallelism.pipeline_parallel_schedule", "1F1B",
                                    "--parallelism.pipeline_parallel_schedule_csv", "ppb_schedule.csv"}));
  const std::string toml = r["result"]["text"];
  EXPECT_NE(toml.find("[parallelism]\n"), std::string::npos) << toml;
  EXPECT_NE(toml.find("module_fqns_per_model_part = [[\"tok_embeddings\", \"layers.0\"], [\"layers.1\", \"norm\", "
                      "\"output\"]]\n"),
            std::string::npos)
      << toml;
  EXPECT_NE(toml.find("[activation_checkpoint]\nmode = \"none\"\n"), std::string::npos) << toml;
  EXPECT_TRUE(r["result"]["exported"]["plan_kept"].get<bool>());
}

// PyTorch's own looped schedules run by their class names (torchtitan's pipeline_parallel_schedule
// takes ScheduleLoopedBFS as "LoopedBFS"); the CSV is ScheduleLoopedBFS's order written by hand: rank r
// runs stages r and r + 2, every forward of the first, then of the second, then the backwards of the
// second with micro batches in reverse, then of the first.
TEST(Torchtitan, PyTorchsLoopedSchedulesByClassName) {
  const json bfs = run(
      "export",
      torchtitan_request(4, {{"pp_degree", 2}, {"vpp_degree", 2}, {"micro_batch_num", 2}, {"schedule", "looped_bfs"}}));
  ASSERT_TRUE(bfs["ok"].get<bool>()) << bfs.dump();
  EXPECT_EQ(bfs["result"]["json"]["parallelism"]["pipeline_parallel_schedule"], "LoopedBFS");
  EXPECT_EQ(bfs["result"]["json"]["csv"], "0F0,0F1,2F0,2F1,2B1,2B0,0B1,0B0\n1F0,1F1,3F0,3F1,3B1,3B0,1B1,1B0\n");
  const json zb = run(
      "export",
      torchtitan_request(
          4, {{"pp_degree", 2}, {"vpp_degree", 2}, {"micro_batch_num", 2}, {"schedule", "interleaved_zero_bubble"}}));
  ASSERT_TRUE(zb["ok"].get<bool>()) << zb.dump();
  EXPECT_EQ(zb["result"]["json"]["parallelism"]["pipeline_parallel_schedule"], "InterleavedZeroBubble");
}

// ZB-V on pp 2 (4 virtual stages, the V: stages 0 and 3 on rank 0), full recompute on every decoder:
// torchtitan's full activation checkpointing, the plan kept. With TP 2 + SP and dp 4 sharded, the
// degrees are written, and torchtitan's FSDP (ZeRO-3) is said to shard more than the plan's optimizer.
TEST(Torchtitan, VShapeRunDegreesAndFullCheckpointing) {
  json request = torchtitan_request(
      4, {{"pp_degree", 2}, {"micro_batch_num", 4}, {"schedule", "zbv"}, {"recompute", {{"full", {1, 1, 1, 1}}}}});
  request["parallel"] = {{"tp_degree", 2}, {"sequence_parallel", true}, {"dp_degree", 4}};
  request["training"] = {{"sharding", "optimizer"}};
  const json r = run("export", request);
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const json& p = r["result"]["json"]["parallelism"];
  EXPECT_EQ(p["pipeline_parallel_schedule"], "ZBVZeroBubble");
  EXPECT_EQ(p["module_fqns_per_model_part"],
            json({{"tok_embeddings", "layers.0"}, {"layers.1"}, {"layers.2"}, {"layers.3", "norm", "output"}}));
  EXPECT_EQ(p["tensor_parallel_degree"], 2);
  EXPECT_EQ(p["enable_sequence_parallel"], true);
  EXPECT_EQ(p["context_parallel_degree"], 1);
  EXPECT_EQ(p["data_parallel_shard_degree"], 4);
  EXPECT_EQ(p["data_parallel_replicate_degree"], 1);
  EXPECT_FALSE(p.contains("expert_parallel_degree"));
  EXPECT_EQ(r["result"]["json"]["activation_checkpoint"], "full");
  EXPECT_EQ(r["result"]["json"]["stage_to_rank"], json({0, 1, 1, 0}));
  ASSERT_EQ(r["result"]["json"]["notes"].size(), 1u);
  EXPECT_NE(r["result"]["json"]["notes"][0].get<std::string>().find("ZeRO-3"), std::string::npos);
  EXPECT_TRUE(r["result"]["exported"]["plan_kept"].get<bool>());
  // Full recompute on half the layers is no policy of torchtitan's: none is written and said.
  request["pipeline"]["recompute"] = {{"full", {1, 0, 1, 0}}};
  const json half = run("export", request);
  ASSERT_TRUE(half["ok"].get<bool>()) << half.dump();
  EXPECT_EQ(half["result"]["json"]["activation_checkpoint"], "none");
  EXPECT_FALSE(half["result"]["exported"]["plan_kept"].get<bool>());
}

}  // namespace
}  // namespace ppb::test
