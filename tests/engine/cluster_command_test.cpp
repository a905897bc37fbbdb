// The cluster command: what a cluster gives one pp_degree by the search's rule, so that a page shows it
// without a rule of its own. Numbers by hand: dp = world_size / (pp x tp x cp), micro_batch_num =
// global_batch_size / (micro_batch_size x dp).
#include <gtest/gtest.h>

#include "helpers.hpp"

namespace ppb::test {
namespace {

json cluster(const json& training, const json& pipeline) {
  return json::parse(run_command("cluster", json{{"training", training}, {"pipeline", pipeline}}.dump()).json);
}

// 256 devices, tp 8, a global batch of 256: at pp 8, dp 256 / 64 = 4 and 256 / 4 = 64 micro batches.
TEST(ClusterCommand, GivesDpAndMicroBatches) {
  const json r = cluster({{"world_size", 256}, {"tp_degree", 8}, {"global_batch_size", 256}}, {{"pp_degree", 8}});
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["command"], "cluster");
  EXPECT_EQ(r["result"]["dp_degree"], 4);
  EXPECT_EQ(r["result"]["micro_batch_num"], 64);
  EXPECT_EQ(r["result"]["micro_batch_size"], 1);
  EXPECT_EQ(r["result"]["problems"], json::array());
}

// pp 3 x tp 8 = 24 devices a pipeline: 256 is not a multiple, so neither dp nor m; the rule is a
// result, as the search skips such a pp_degree, not an error.
TEST(ClusterCommand, ARuleBrokenIsAProblemOfTheResult) {
  const json r = cluster({{"world_size", 256}, {"tp_degree", 8}, {"global_batch_size", 256}}, {{"pp_degree", 3}});
  ASSERT_TRUE(r["ok"]);
  EXPECT_TRUE(r["result"]["dp_degree"].is_null());
  EXPECT_TRUE(r["result"]["micro_batch_num"].is_null());
  EXPECT_EQ(r["result"]["problems"][0]["code"], "CLUSTER_NOT_DIVISIBLE");
  EXPECT_EQ(r["result"]["problems"][0]["message"],
            "world_size 256 is not divisible by pp_degree x tp_degree x cp_degree = 3 x 8 x 1.");
  // dp 4 and a global batch of 90: 90 is not a multiple of 1 x 4 (the estimate's own sentence).
  const json batch = cluster({{"world_size", 256}, {"tp_degree", 8}, {"global_batch_size", 90}}, {{"pp_degree", 8}});
  EXPECT_EQ(batch["result"]["dp_degree"], 4);
  EXPECT_EQ(batch["result"]["problems"][0]["message"],
            "global_batch_size 90 is not a multiple of micro_batch_size x dp_degree = 1 x 4 = 4.");
}

// Without a global batch only dp is known; without pp_degree it is 1 (the estimate's default):
// 256 / 8 = 32.
TEST(ClusterCommand, DpAloneWithoutAGlobalBatch) {
  const json r = cluster({{"world_size", 256}, {"tp_degree", 8}}, json::object());
  EXPECT_EQ(r["result"]["pp_degree"], 1);
  EXPECT_EQ(r["result"]["dp_degree"], 32);
  EXPECT_TRUE(r["result"]["micro_batch_num"].is_null());
  EXPECT_TRUE(r["result"]["global_batch_size"].is_null());
  EXPECT_EQ(r["result"]["problems"], json::array());
}

TEST(ClusterCommand, BadFieldsAreErrors) {
  const auto out = run_command("cluster", R"({"training": {"world_size": "many"}, "pipeline": {"pp_degree": 0}})");
  EXPECT_EQ(out.exit_code, 2);
  const json r = json::parse(out.json);
  EXPECT_TRUE(has_error(r, "TYPE_MISMATCH", "/training/world_size"));
  EXPECT_EQ(r["errors"].size(), 2u);
  EXPECT_EQ(r["errors"][1]["path"], "/pipeline/pp_degree");
  const json missing = json::parse(run_command("cluster", "{}").json);
  EXPECT_TRUE(has_error(missing, "REQUIRED", "/training/world_size"));
  EXPECT_EQ(run_command("cluster", "[]").exit_code, 2);
}

// The experts' own tp: Qwen3-235B-A22B at tp 2, ep 32, 256 devices, pp 8 has dp 256 / 16 = 16. With the experts at
// tp 2 (the default) they span 32 x 2 = 64 ranks, which do not divide dp x cp x tp = 32: skipped. At expert tp 1
// they span 32, which do.
TEST(ClusterCommand, TheExpertsOwnTensorParallelSize) {
  const json training = {{"world_size", 256}, {"tp_degree", 2}, {"ep_degree", 32}};
  json request = {{"training", training}, {"pipeline", {{"pp_degree", 8}}}};
  json r = json::parse(run_command("cluster", request.dump()).json);
  EXPECT_EQ(r["result"]["expert_tp_degree"], 2);
  EXPECT_EQ(r["result"]["problems"][0]["code"], "DP_NOT_DIVISIBLE_BY_EP") << r.dump();
  request["parallel"] = {{"expert_tp_degree", 1}};
  r = json::parse(run_command("cluster", request.dump()).json);
  EXPECT_EQ(r["result"]["expert_tp_degree"], 1);
  EXPECT_EQ(r["result"]["dp_degree"], 16);
  EXPECT_TRUE(r["result"]["problems"].empty()) << r.dump();
}

}  // namespace
}  // namespace ppb::test
