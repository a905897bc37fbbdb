// Validation of partitions, recompute, degrees and batch sizes: each mistake gives its code and path.
#include "ppb/plan/plan.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// 8 decoders between a pinned embedding and head: 10 layers, body 8.
json request(json pipeline) {
  pipeline["micro_batch_num"] = pipeline.value("micro_batch_num", 8);
  return {{"model", uniform_model(8, 2, 4, 100, 50, true)}, {"pipeline", pipeline}};
}

TEST(Plan, AP_PP_05_IncompleteStagePartitionIsRejected) {
  const json r = run("estimate", request({{"pp_degree", 2}, {"stage_partition", {0, 0, 0, 0, 1, 1, 1, 1}}}));
  EXPECT_FALSE(r["ok"]);
  EXPECT_TRUE(has_error(r, "PARTITION_INCOMPLETE", "/pipeline/stage_partition")) << r.dump();
}

TEST(Plan, AP_PP_05_StagePartitionOrderRangeAndLength) {
  json r = run("estimate", request({{"pp_degree", 2}, {"stage_partition", {0, 0, 0, 1, 0, 1, 1, 1, 1, 1}}}));
  EXPECT_TRUE(has_error(r, "PARTITION_ORDER", "/pipeline/stage_partition/4")) << r.dump();
  r = run("estimate", request({{"pp_degree", 2}, {"stage_partition", {0, 0, 0, 0, 0, 1, 1, 1, 1, 2}}}));
  EXPECT_TRUE(has_error(r, "PARTITION_RANGE", "/pipeline/stage_partition/9")) << r.dump();
  r = run("estimate", request({{"pp_degree", 2}, {"stage_partition", {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}}}));
  EXPECT_TRUE(has_error(r, "PARTITION_LENGTH", "/pipeline/stage_partition")) << r.dump();
  // The pinned head must stay on the last stage.
  r = run("estimate", request({{"pp_degree", 2}, {"stage_partition", {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}}));
  EXPECT_TRUE(has_error(r, "PIN_PLACEMENT", "/pipeline/stage_partition/9")) << r.dump();
}

TEST(Plan, AP_PP_06_MoreStagesThanLayersIsRejected) {
  // 8 body layers plus the two pinned groups: at most 10 virtual stages.
  json r = run("estimate", request({{"pp_degree", 11}}));
  EXPECT_EQ(error_codes(r), std::vector<std::string>{"PP_EXCEEDS_LAYERS"}) << r.dump();
  EXPECT_TRUE(has_error(r, "PP_EXCEEDS_LAYERS", "/pipeline/pp_degree"));
  r = run("estimate",
          request({{"pp_degree", 6}, {"vpp_degree", 2}, {"schedule", "interleaved_1f1b"}, {"micro_batch_num", 12}}));
  EXPECT_TRUE(has_error(r, "PP_EXCEEDS_LAYERS", "/pipeline/pp_degree")) << r.dump();
  r = run("estimate", request({{"pp_degree", 0}}));
  EXPECT_TRUE(has_error(r, "PP_DEGREE_INVALID", "/pipeline/pp_degree")) << r.dump();
  // 10 stages fit exactly: embedding alone, 8 single decoders, head alone.
  r = run("estimate", request({{"pp_degree", 10}, {"stage_layers", {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}}}));
  EXPECT_TRUE(r["ok"]) << r.dump();
}

TEST(Plan, EmptyStageNeedsPermission) {
  json req = request({{"pp_degree", 4}, {"stage_layers", {1, 4, 0, 5}}});
  json r = run("estimate", req);
  EXPECT_TRUE(has_error(r, "EMPTY_STAGE", "/pipeline/stage_layers")) << r.dump();
  req["pipeline"]["allow_empty_stages"] = true;
  r = run("estimate", req);
  EXPECT_TRUE(r["ok"]) << r.dump();
  EXPECT_DOUBLE_EQ(r["result"]["stages"][2]["time"]["forward_ms"], 0);
}

// Several empty stages are one error naming each (errors with one code and path are de-duplicated,
// so one error per stage would report only the first).
TEST(Plan, EveryEmptyStageIsNamed) {
  const json r = run("estimate", request({{"pp_degree", 4}, {"stage_layers", {5, 0, 0, 5}}}));
  ASSERT_TRUE(has_error(r, "EMPTY_STAGE", "/pipeline/stage_layers")) << r.dump();
  for (const auto& e : r["errors"]) {
    if (e["code"] != "EMPTY_STAGE") continue;
    EXPECT_NE(e["message"].get<std::string>().find("virtual stages 1, 2 get no layer"), std::string::npos) << e;
  }
}

TEST(Plan, AP_PP_08_IllegalLayerOffsets) {
  // 8 body layers over 4 stages: base 2, remainder 0.
  json r = run("estimate", request({{"pp_degree", 4}, {"layer_offset", {1, 0, 0, 0}}}));
  EXPECT_TRUE(has_error(r, "OFFSET_SUM", "/pipeline/layer_offset")) << r.dump();
  EXPECT_EQ(r["errors"][0]["message"],
            "layer_offset sums to 1, it must sum to 0 (8 body layers over 4 virtual stages: base 2, remainder 0).");
  r = run("estimate", request({{"pp_degree", 4}, {"layer_offset", {1, -1, 0}}}));
  EXPECT_TRUE(has_error(r, "OFFSET_LENGTH", "/pipeline/layer_offset")) << r.dump();
  r = run("estimate", request({{"pp_degree", 4}, {"layer_offset", {3, -3, 0, 0}}}));
  EXPECT_TRUE(has_error(r, "OFFSET_NEGATIVE_STAGE", "/pipeline/layer_offset/1")) << r.dump();
  r = run("estimate", request({{"pp_degree", 4}, {"layer_offset", {1, 0.5, 0, 0}}}));
  EXPECT_TRUE(has_error(r, "NOT_INTEGER", "/pipeline/layer_offset/1")) << r.dump();
  // 8 body layers over 3 stages: base 2, remainder 2, so [1, 1, 0] is legal and [0, 0, 0] is not.
  EXPECT_TRUE(run("estimate", request({{"pp_degree", 3}, {"layer_offset", {1, 1, 0}}}))["ok"]);
  EXPECT_TRUE(has_error(run("estimate", request({{"pp_degree", 3}, {"layer_offset", {0, 0, 0}}})), "OFFSET_SUM",
                        "/pipeline/layer_offset"));
}

TEST(Plan, AP_PP_10_IllegalRecompute) {
  json r = run("estimate", request({{"pp_degree", 2}, {"recompute", {{"selective", {1, 1}}}}}));
  EXPECT_TRUE(has_error(r, "RECOMPUTE_OPTION_UNKNOWN", "/pipeline/recompute/selective")) << r.dump();
  r = run("estimate", request({{"pp_degree", 2}, {"recompute", {{"layers", {{"full", {3, 10}}}}}}}));
  EXPECT_TRUE(has_error(r, "RECOMPUTE_LAYER_RANGE", "/pipeline/recompute/layers/full/1")) << r.dump();
  r = run("estimate", request({{"pp_degree", 2}, {"recompute", {{"layers", {{"full", {0}}}}}}}));
  EXPECT_TRUE(has_error(r, "RECOMPUTE_OPTION_MISSING", "/pipeline/recompute/layers/full/0")) << r.dump();
  r = run("estimate", request({{"pp_degree", 2}, {"recompute", {{"full", {5, 0}}}}}));
  EXPECT_TRUE(has_error(r, "RECOMPUTE_COUNT_EXCEEDS", "/pipeline/recompute/full/0")) << r.dump();
  r = run("estimate", request({{"pp_degree", 2}, {"recompute", {{"full", {1, 1, 1}}}}}));
  EXPECT_TRUE(has_error(r, "RECOMPUTE_COUNT_LENGTH", "/pipeline/recompute/full")) << r.dump();
  r = run("estimate", request({{"pp_degree", 2}, {"recompute", {{"layers", {{"full", {2, 2}}}}}}}));
  EXPECT_TRUE(has_error(r, "RECOMPUTE_LAYER_DUPLICATE", "/pipeline/recompute/layers/full/1")) << r.dump();
}

TEST(Plan, BatchSizesMustFitTogether) {
  json req = request({{"pp_degree", 2}});
  req["pipeline"].erase("micro_batch_num");
  req["training"] = {{"global_batch_size", 64}, {"micro_batch_size", 2}, {"dp_degree", 4}};
  json r = run("estimate", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["micro_batch_num"], 8);
  req["training"]["global_batch_size"] = 60;
  EXPECT_TRUE(has_error(run("estimate", req), "BATCH_NOT_DIVISIBLE", "/training/global_batch_size"));
  req["training"]["global_batch_size"] = 64;
  req["pipeline"]["micro_batch_num"] = 16;
  EXPECT_TRUE(has_error(run("estimate", req), "BATCH_MISMATCH", "/pipeline/micro_batch_num"));
  req.erase("training");
  req["pipeline"].erase("micro_batch_num");
  EXPECT_TRUE(has_error(run("estimate", req), "MICRO_BATCH_NUM_MISSING", "/pipeline/micro_batch_num"));
}

TEST(Plan, ScheduleRules) {
  EXPECT_TRUE(has_error(run("estimate", request({{"pp_degree", 2}, {"schedule", "interleaved_1f1b"}})),
                        "SCHEDULE_NEEDS_VPP", "/pipeline/vpp_degree"));
  EXPECT_TRUE(has_error(run("estimate", request({{"pp_degree", 2}, {"vpp_degree", 2}})), "VPP_NEEDS_INTERLEAVED",
                        "/pipeline/schedule"));
  EXPECT_TRUE(has_error(
      run("estimate",
          request({{"pp_degree", 2}, {"vpp_degree", 2}, {"schedule", "interleaved_1f1b"}, {"micro_batch_num", 7}})),
      "MICRO_BATCH_NOT_MULTIPLE", "/pipeline/micro_batch_num"));
  EXPECT_TRUE(has_error(run("estimate", request({{"schedule", "2f2b"}})), "SCHEDULE_UNKNOWN", "/pipeline/schedule"));
}

TEST(Plan, PinnedLayersMustOpenAndCloseTheList) {
  json model = uniform_model(4, 1, 2, 0, 0, true);
  std::swap(model["layers"][0], model["layers"][1]);  // embedding after the decoders
  const json r = run("estimate", {{"model", model}, {"pipeline", {{"micro_batch_num", 1}}}});
  EXPECT_TRUE(has_error(r, "PIN_ORDER", "/model/layers/1")) << r.dump();
}

// Every mistake is reported at once, not just the first.
TEST(Plan, FiveMistakesGiveFiveErrors) {
  json req = request({{"pp_degree", 2}, {"schedule", "2f2b"}, {"include_timeline", "yes"}});
  req["device"] = {{"reserved_mib", -1}};
  req["training"] = {{"global_batch_size", "x"}};
  req["model"]["layers"][1].erase("forward_ms");
  const json r = run("estimate", req);
  ASSERT_FALSE(r["ok"]);
  EXPECT_EQ(r["errors"].size(), 5u) << r.dump();
  EXPECT_TRUE(has_error(r, "SCHEDULE_UNKNOWN", "/pipeline/schedule"));
  EXPECT_TRUE(has_error(r, "TYPE_MISMATCH", "/pipeline/include_timeline"));
  EXPECT_TRUE(has_error(r, "NEGATIVE", "/device/reserved_mib"));
  EXPECT_TRUE(has_error(r, "TYPE_MISMATCH", "/training/global_batch_size"));
  EXPECT_TRUE(has_error(r, "REQUIRED", "/model/layers/1/forward_ms"));
}

// The plan's checks run whenever what they read was read: an offset that does not sum and an
// unknown recompute option are reported beside an unknown schedule, a negative time and a memory
// limit given as text (the case of tests/bad-inputs/estimate.every-error-at-once.json). Body 8 over
// V = 2: base 4, remainder 0, so offsets [1, 0] sum to 1, not 0.
TEST(Plan, EveryErrorAtOnce) {
  json req =
      request({{"pp_degree", 2}, {"schedule", "2f2b"}, {"layer_offset", {1, 0}}, {"recompute", {{"turbo", {1, 0}}}}});
  req["model"]["layers"][1]["forward_ms"] = -1;
  req["device"] = {{"memory_limit_mib", "64 GB"}};
  const json r = run("estimate", req);
  ASSERT_FALSE(r["ok"]);
  EXPECT_EQ(r["errors"].size(), 5u) << r.dump();
  EXPECT_TRUE(has_error(r, "OFFSET_SUM", "/pipeline/layer_offset")) << r.dump();
  EXPECT_TRUE(has_error(r, "RECOMPUTE_OPTION_UNKNOWN", "/pipeline/recompute/turbo")) << r.dump();
  EXPECT_TRUE(has_error(r, "SCHEDULE_UNKNOWN", "/pipeline/schedule"));
  EXPECT_TRUE(has_error(r, "NEGATIVE", "/model/layers/1/forward_ms"));
  EXPECT_TRUE(has_error(r, "TYPE_MISMATCH", "/device/memory_limit_mib"));
  // The same from the corpus file, through the command line's text path.
  std::ifstream file(std::string(PPB_SOURCE_DIR) + "/tests/bad-inputs/estimate.every-error-at-once.json");
  ASSERT_TRUE(file);
  const json corpus = json::parse(run_command("estimate", std::string(std::istreambuf_iterator<char>(file), {})).json);
  EXPECT_EQ(error_codes(corpus), (std::vector<std::string>{"NEGATIVE", "TYPE_MISMATCH", "SCHEDULE_UNKNOWN",
                                                           "RECOMPUTE_OPTION_UNKNOWN", "OFFSET_SUM"}))
      << corpus.dump();
}

// A value the reader could not read is one error: the checks that need it are left out, not run on
// a default in its place; the checks that do not need it still run.
TEST(Plan, AnUnreadValueIsOneErrorNotACascade) {
  // pp_degree unread: no OFFSET_LENGTH against the default pp_degree 1, but the recompute option is checked.
  json r =
      run("estimate", request({{"pp_degree", "two"}, {"layer_offset", {1, 0}}, {"recompute", {{"turbo", {1, 0}}}}}));
  EXPECT_EQ(error_codes(r), (std::vector<std::string>{"TYPE_MISMATCH", "RECOMPUTE_OPTION_UNKNOWN"})) << r.dump();
  // The layer list unread (a bad count): nothing is checked against it, the schedule still is.
  json req = request({{"pp_degree", 2}, {"vpp_degree", 2}, {"layer_offset", {9, 9}}});
  req["model"]["layers"][1]["count"] = "eight";
  r = run("estimate", req);
  EXPECT_EQ(error_codes(r), (std::vector<std::string>{"TYPE_MISMATCH", "VPP_NEEDS_INTERLEAVED"})) << r.dump();
  // A batch size unread: no MICRO_BATCH_NUM_MISSING in its place, and the partition is still checked.
  req = request({{"pp_degree", 2}, {"layer_offset", {1, 0}}});
  req["pipeline"].erase("micro_batch_num");
  req["training"] = {{"global_batch_size", -4}};
  r = run("estimate", req);
  EXPECT_EQ(error_codes(r), (std::vector<std::string>{"NEGATIVE", "OFFSET_SUM"})) << r.dump();
  // An unreadable partition still lets the stage count be checked against the layers (10 at most).
  r = run("estimate", request({{"pp_degree", 11}, {"stage_layers", {"a"}}}));
  EXPECT_EQ(error_codes(r), (std::vector<std::string>{"TYPE_MISMATCH", "PARTITION_UNUSABLE", "PP_EXCEEDS_LAYERS"}))
      << r.dump();
  // An unread schedule leaves out the schedule's rules (vpp 2 with a schedule that may be interleaved).
  r = run("estimate", request({{"pp_degree", 2}, {"vpp_degree", 2}, {"schedule", "interleaved"}}));
  EXPECT_EQ(error_codes(r), std::vector<std::string>{"SCHEDULE_UNKNOWN"}) << r.dump();
}

TEST(Plan, UnknownFieldsAreWarnings) {
  json req = request({{"pp_degree", 2}, {"colour", "blue"}});
  const json r = run("estimate", req);
  ASSERT_TRUE(r["ok"]);
  ASSERT_EQ(r["warnings"].size(), 1u);
  EXPECT_EQ(r["warnings"][0]["code"], "UNKNOWN_FIELD");
  EXPECT_EQ(r["warnings"][0]["path"], "/pipeline/colour");
}

TEST(Plan, EvenSplitPutsRemainderFirst) {
  Model model;
  model.layers.resize(12);
  model.pinned_first = 1;
  model.pinned_last = 1;  // body 10 over 4: 3 3 2 2, plus the pinned layers
  EXPECT_EQ(even_stage_layers(model, 4), (std::vector<int>{4, 3, 2, 3}));
}

}  // namespace
}  // namespace ppb::test
