// Exports never change the plan silently: the plan the written settings run, its estimate
// (result.exported), the nearest fitting plan a launcher can express, or a refusal. Expected values
// are worked out by hand from the contract's memory rule (peak = static + in-flight micro batches x
// activation per micro batch; 1F1B holds min(pp - s, m) micro batches on stage s) and the 1F1B
// timeline (for equal stages (m + pp - 1) x (F + B)); the comments show the arithmetic.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// 8 decoders (F 1 ms, B 2 ms, 100 MiB static, 10 MiB activation) with three recompute options:
// full keeps 1 MiB for 1 ms more, selective 4 MiB for 0.75 ms more, offload (no Megatron-LM or
// MindFormers counterpart) 0 MiB for 0.5 ms more. pp 2, m 4, 1F1B, even split 4 | 4: each stage
// holds 400 MiB static; stage 0 keeps 2 micro batches in flight, stage 1 one.
json request(const json& recompute, std::optional<double> limit, const std::string& to) {
  const json layer = {{"name", "decoder"},
                      {"count", 8},
                      {"forward_ms", 1},
                      {"backward_ms", 2},
                      {"static_mib", 100},
                      {"activation_mib", 10},
                      {"recompute",
                       {{"full", {{"activation_mib", 1}, {"extra_ms", 1}}},
                        {"selective", {{"activation_mib", 4}, {"extra_ms", 0.75}}},
                        {"offload", {{"activation_mib", 0}, {"extra_ms", 0.5}}}}}};
  json r = {{"model", {{"format", "ppb.model.v1"}, {"name", "fit"}, {"layers", {layer}}}},
            {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 4}}},
            {"export", {{"to", to}}}};
  if (!recompute.is_null()) r["pipeline"]["recompute"] = recompute;
  if (limit) r["device"] = {{"memory_limit_mib", *limit}};
  return r;
}

bool has_change(const json& exported, const std::string& text) {
  for (const auto& c : exported["changes"])
    if (c.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// Selective on layers 0 and 1 only: stage 0 keeps 2 x 4 + 2 x 10 = 28 MiB per micro batch, peak
// 400 + 2 x 28 = 456 MiB, within 460. Megatron-LM applies selective to every layer or none, so its
// arguments run no recompute: 400 + 2 x 40 = 480 MiB, over. What it can express, partition kept:
// selective everywhere (stage 0: 400 + 2 x 16 = 432 MiB; B 8 + 4 x 0.75 = 11 ms per stage, step
// (4 + 1) x (4 + 11) = 75 ms), block N (stage 0: 400 + 2 x (N + 10 (4 - N)): N 1 gives 462, over;
// N 2 gives 444, fits; B 8 + 2 = 10 ms, step 5 x 14 = 70 ms), uniform (408 MiB, B 12, step 80 ms).
// The fastest that fits is block 2.
TEST(ExportFit, MegatronWritesTheFastestRecomputeItExpressesThatFits) {
  const json r = run("export", request({{"layers", {{"selective", {0, 1}}}}}, 460, "megatron"));
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& args = r["result"]["json"]["args"];
  EXPECT_EQ(args, json({"--num-layers", "8", "--pipeline-model-parallel-size", "2", "--recompute-granularity", "full",
                        "--recompute-method", "block", "--recompute-num-layers", "2"}));
  const json& exported = r["result"]["exported"];
  EXPECT_FALSE(exported["plan_kept"]);
  EXPECT_TRUE(exported["feasible"]);
  EXPECT_DOUBLE_EQ(exported["step_time_ms"], 70);
  EXPECT_DOUBLE_EQ(exported["peak_mib"], 444);  // stage 1: 400 + 22 = 422
  EXPECT_EQ(exported["peak_stage"], 0);
  // What differs: the refusal of the plan as written (480 MiB), then the layers, then the numbers.
  EXPECT_TRUE(has_change(exported, "peak at 480 MiB on stage 0, over the 460 MiB limit")) << exported.dump();
  EXPECT_TRUE(has_change(exported, "layers 0-1: full recompute as written, selective recompute in the plan."));
  EXPECT_TRUE(has_change(exported, "layers 4-5: full recompute as written, no recompute in the plan."));
  EXPECT_TRUE(has_change(exported, "as written: 70 ms per step")) << exported.dump();
  // The notes say what Megatron-LM cannot express of the written plan: nothing of its recompute.
  for (const auto& note : r["result"]["json"]["notes"])
    EXPECT_EQ(note.get<std::string>().find("recompute"), std::string::npos) << note;
}

// Without a memory limit the written plan fits whatever it is, so it is written as it is and its
// own estimate says what changed: no recompute, B 8 ms per stage, step 5 x 12 = 60 ms, stage 0 peak
// 400 + 2 x 40 = 480 MiB.
TEST(ExportFit, MegatronWithoutLimitWritesWhatItCanAndSaysWhatChanged) {
  const json r = run("export", request({{"layers", {{"selective", {0, 1}}}}}, std::nullopt, "megatron"));
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["json"]["args"].size(), 4u);  // no recompute argument
  const json& exported = r["result"]["exported"];
  EXPECT_FALSE(exported["plan_kept"]);
  EXPECT_TRUE(exported["feasible"]);
  EXPECT_DOUBLE_EQ(exported["step_time_ms"], 60);
  EXPECT_DOUBLE_EQ(exported["peak_mib"], 480);
  EXPECT_TRUE(has_change(exported, "layers 0-1: no recompute as written, selective recompute in the plan."));
}

// Offload on every layer: 400 MiB on each stage, within 405. Megatron-LM has no offload, and the
// least memory it can express is full recompute everywhere: 400 + 2 x 4 x 1 = 408 MiB on stage 0,
// over 405: refused, with both numbers.
TEST(ExportFit, MegatronRefusesWhenNothingItExpressesFits) {
  const json r = run("export", request({{"offload", {4, 4}}}, 405, "megatron"));
  ASSERT_FALSE(r["ok"]) << r.dump();
  EXPECT_TRUE(has_error(r, "EXPORT_PLAN_DOES_NOT_FIT", "/export/to")) << r.dump();
  const std::string message = r["errors"][0]["message"];
  EXPECT_NE(message.find("peaks at 408 MiB on stage 0"), std::string::npos) << message;
  EXPECT_NE(message.find("405 MiB limit"), std::string::npos) << message;
  EXPECT_NE(message.find("\"offload\" (8 layers) has no Megatron-LM counterpart"), std::string::npos) << message;
}

// Full recompute on the first 2 layers of each stage is block 2: kept, nothing changed, and the
// estimate is the plan's: step 70 ms, peak 444 MiB on stage 0.
TEST(ExportFit, MegatronKeepsAPlanItExpresses) {
  const json r = run("export", request({{"full", {2, 2}}}, 460, "megatron"));
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& exported = r["result"]["exported"];
  EXPECT_TRUE(exported["plan_kept"]);
  EXPECT_TRUE(exported["changes"].empty());
  EXPECT_TRUE(exported["feasible"]);
  EXPECT_DOUBLE_EQ(exported["step_time_ms"], 70);
  EXPECT_DOUBLE_EQ(exported["peak_mib"], 444);
  EXPECT_EQ(exported["peak_stage"], 0);
}

// A zero-bubble schedule has no Megatron-LM argument: the arguments run 1F1B, said in changes.
TEST(ExportFit, MegatronSaysItRunsOneFOneB) {
  json req = request(nullptr, std::nullopt, "megatron");
  req["pipeline"]["schedule"] = "zb_h1";
  const json r = run("export", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_FALSE(r["result"]["exported"]["plan_kept"]);
  EXPECT_TRUE(has_change(r["result"]["exported"], "Megatron-LM runs the 1f1b schedule, not the plan's zb_h1."));
  EXPECT_DOUBLE_EQ(r["result"]["exported"]["step_time_ms"], 60);  // 5 x (4 + 8), no recompute
}

// MindFormers counts recompute per stage but applies it to the first layers: full recompute of
// layers 2 and 3 is written as recompute [2, 0] and runs on layers 0 and 1. The layers are alike,
// so the memory (400 + 2 x (2 + 20) = 444 MiB on stage 0) and the step time are the plan's.
TEST(ExportFit, MindFormersSaysWhichLayersMoveAndThatItStillFits) {
  const json r = run("export", request({{"layers", {{"full", {2, 3}}}}}, 460, "mindformers"));
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["json"]["recompute"], json({2, 0}));
  const json& exported = r["result"]["exported"];
  EXPECT_FALSE(exported["plan_kept"]);
  EXPECT_TRUE(exported["feasible"]);
  EXPECT_DOUBLE_EQ(exported["peak_mib"], 444);
  EXPECT_TRUE(has_change(exported, "layers 0-1: full recompute as written, no recompute in the plan."));
  EXPECT_TRUE(has_change(exported, "layers 2-3: no recompute as written, full recompute in the plan."));
  EXPECT_TRUE(has_change(exported, "within the 460 MiB limit")) << exported.dump();
  json plain = request({{"layers", {{"full", {2, 3}}}}}, 460, "mindformers");
  plain.erase("export");
  const json e = run("estimate", plain);
  EXPECT_DOUBLE_EQ(exported["step_time_ms"], e["result"]["step_time_ms"]);
}

// Counts on the first layers are MindFormers' own form: kept.
TEST(ExportFit, MindFormersKeepsFirstLayerCounts) {
  const json r = run("export", request({{"full", {2, 0}}}, 460, "mindformers"));
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_TRUE(r["result"]["exported"]["plan_kept"]);
  EXPECT_TRUE(r["result"]["exported"]["changes"].empty());
  EXPECT_DOUBLE_EQ(r["result"]["exported"]["peak_mib"], 444);
}

// Offload everywhere (400 MiB per stage) fits 430, but MindFormers has no offload: written as no recompute,
// stage 0 peaks at 480 and stage 1 at 440. Full recompute on the first N layers of a stage: stage 0
// 400 + 2 (N + 10 (4 - N)): N 2 gives 444, N 3 gives 426; stage 1 400 + N + 10 (4 - N): N 1 gives
// 431, N 2 gives 422. So recompute [3, 2], peak 426 MiB on stage 0. Step time: stage 0 F 4 B 11,
// stage 1 F 4 B 10; 1F1B runs stage 0 F0 0-4, F1 4-8; stage 1 F0 4-8, B0 8-18; stage 0 B0 18-29;
// stage 1 F1 18-22, B1 22-32; stage 0 F2 29-33, B1 33-44; stage 1 F2 33-37, B2 37-47; stage 0 F3
// 44-48, B2 48-59; stage 1 F3 48-52, B3 52-62; stage 0 B3 62-73: 73 ms.
TEST(ExportFit, MindFormersRaisesEachStagesFullRecomputeUntilItFits) {
  const json r = run("export", request({{"offload", {4, 4}}}, 430, "mindformers"));
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["json"]["recompute"], json({3, 2}));
  const json& exported = r["result"]["exported"];
  EXPECT_FALSE(exported["plan_kept"]);
  EXPECT_TRUE(exported["feasible"]);
  EXPECT_DOUBLE_EQ(exported["peak_mib"], 426);
  EXPECT_EQ(exported["peak_stage"], 0);
  EXPECT_DOUBLE_EQ(exported["step_time_ms"], 73);
  EXPECT_TRUE(has_change(exported, "peak at 480 MiB on stage 0, over the 430 MiB limit")) << exported.dump();
  EXPECT_NE(r["result"]["text"].get<std::string>().find("# changed: "), std::string::npos);
}

// Offload everywhere under 405 MiB: MindFormers' least memory is full recompute of every layer,
// 400 + 2 x 4 = 408 MiB on stage 0, over: refused, naming the layers it cannot run as planned.
TEST(ExportFit, MindFormersRefusesWhenNothingItExpressesFits) {
  const json r = run("export", request({{"offload", {4, 4}}}, 405, "mindformers"));
  ASSERT_TRUE(has_error(r, "EXPORT_PLAN_DOES_NOT_FIT", "/export/to")) << r.dump();
  const std::string message = r["errors"][0]["message"];
  EXPECT_NE(message.find("Layers 0-7: no recompute as written, offload recompute in the plan."), std::string::npos)
      << message;
  EXPECT_NE(message.find("peaks at 408 MiB on stage 0"), std::string::npos) << message;
}

// zbv places virtual stage 2 on stage 1 and 3 on stage 0 (a V); the MindFormers lists follow the V,
// [c][s] = [[v0, v1], [v3, v2]], and MindFormers reads them chunk-major under interleaved 1F1B: the
// plan's split 1 | 2 | 3 | 2 runs as 1 | 2 | 2 | 3. Said, with the schedule.
TEST(ExportFit, MindFormersSaysAVShapedPlanRunsAnotherSplit) {
  json req = request(nullptr, std::nullopt, "mindformers");
  req["pipeline"]["schedule"] = "zbv";
  req["pipeline"]["stage_layers"] = {1, 2, 3, 2};
  const json r = run("export", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["json"]["offset"], json({{-1, 0}, {0, 1}}));  // against 8 // 4 = 2
  const json& exported = r["result"]["exported"];
  EXPECT_FALSE(exported["plan_kept"]);
  EXPECT_TRUE(has_change(exported, "MindFormers runs the interleaved_1f1b schedule, not the plan's zbv."))
      << exported.dump();
  EXPECT_TRUE(
      has_change(exported, "the virtual stages hold 1, 2, 2, 3 layers (stage_layers), not the plan's 1, 2, 3, 2."));
}

// The PyTorch CSV carries the partition and the schedule, not recompute: a plan with recompute is
// not kept as such, and the change says which layers to recompute; the estimate is the plan's.
TEST(ExportFit, PyTorchSaysTheRecomputeIsNotInTheProgram) {
  json r = run("export", request({{"full", {2, 0}}}, 460, "pytorch"));
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_FALSE(r["result"]["exported"]["plan_kept"]);
  EXPECT_TRUE(has_change(r["result"]["exported"], "full recompute on layers 0-1")) << r.dump();
  EXPECT_DOUBLE_EQ(r["result"]["exported"]["peak_mib"], 444);
  r = run("export", request(nullptr, 460, "pytorch"));
  EXPECT_TRUE(r["result"]["exported"]["plan_kept"]);
  EXPECT_FALSE(r["result"]["exported"]["feasible"]);  // 480 MiB on stage 0
}

// The trace is the simulated plan itself.
TEST(ExportFit, ChromeTraceKeepsThePlan) {
  const json r = run("export", request({{"layers", {{"selective", {0, 1}}}}}, 460, "chrome-trace"));
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_TRUE(r["result"]["exported"]["plan_kept"]);
  EXPECT_DOUBLE_EQ(r["result"]["exported"]["peak_mib"], 456);
}

}  // namespace
}  // namespace ppb::test
