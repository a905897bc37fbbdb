// Megatron-LM's pipeline layout string as a partition form: its grammar (Megatron-LM's
// parse_str_to_list), its order rules (validate_layer_layout) and the plan checks against the model.
// Expected values are counted by hand from the strings.
#include "ppb/plan/megatron_layout.hpp"

#include <gtest/gtest.h>

#include "helpers.hpp"

namespace ppb::test {
namespace {

const std::string kPath = "/pipeline/megatron_layout";

std::optional<std::vector<int>> parse(const std::string& layout, Diagnostics& d) {
  return parse_megatron_layout(layout, kPath, d);
}

std::vector<std::string> codes(const Diagnostics& d) {
  std::vector<std::string> out;
  for (const auto& e : d.errors()) out.push_back(e.code);
  return out;
}

// Megatron-LM's documented example for DeepSeek-V3 at PP16 VPP2 ("Custom Pipeline Model Parallel
// Layout"): "Et*3|(tt|)*29,m|L" unrolls to Ettt| then tt| 29 times, then m|L: 32 virtual stages
// with 3, 2 (x29), 1 (the MTP) and 0 body layers, 3 + 58 + 1 = 62 in all.
TEST(MegatronLayout, ReadsMegatronsDeepSeekExample) {
  Diagnostics d;
  const auto body = parse("Et*3|(tt|)*29,m|L", d);
  ASSERT_TRUE(body) << (d.errors().empty() ? "" : d.errors()[0].message);
  ASSERT_EQ(body->size(), 32u);
  EXPECT_EQ((*body)[0], 3);
  for (std::size_t v = 1; v <= 29; ++v) EXPECT_EQ((*body)[v], 2) << v;
  EXPECT_EQ((*body)[30], 1);
  EXPECT_EQ((*body)[31], 0);
}

// The unrolling examples of parse_str_to_list's comments, in layer characters: a group repeats up
// to its ")" wherever it stands, "x*n" repeats one character, commas are dropped.
TEST(MegatronLayout, UnrollsGroupsAndCharactersAsMegatronDoes) {
  Diagnostics d;
  // "Et(tt|mm|tt)*2,tL" would put t after m; with t only: Et + (tt|tt|tt)*2 + tL =
  // Ettt|tt|tttt|tt|tttL: body 3, 2, 4, 2, 3.
  EXPECT_EQ(parse("Et(tt|tt|tt)*2,tL", d), (std::vector<int>{3, 2, 4, 2, 3}));
  // (t)*3 -> ttt; E,(t|)*2,tL -> Et|t|tL.
  EXPECT_EQ(parse("E(t)*3L", d), (std::vector<int>{3}));
  EXPECT_EQ(parse("E,(t|)*2,tL", d), (std::vector<int>{1, 1, 1}));
  // (|t)*2,tL after E: E|t|ttL: body 0, 1, 2 (an empty first stage is the plan's to allow or not).
  EXPECT_EQ(parse("E(|t)*2,tL", d), (std::vector<int>{0, 1, 2}));
  // "t*12" is twelve t, "E*1" one E; digits after "*" only count once ("t*3*2" leaves "*2").
  EXPECT_EQ(parse("E*1t*12|t*0L", d), (std::vector<int>{12, 0}));
  EXPECT_TRUE(d.ok());
  EXPECT_FALSE(parse("Et*3*2L", d));
  EXPECT_EQ(codes(d), std::vector<std::string>{"MEGATRON_LAYOUT_SYNTAX"});
}

TEST(MegatronLayout, ReportsWhatIsNotALayout) {
  Diagnostics d;
  EXPECT_FALSE(parse("Et*3|x", d));
  ASSERT_EQ(d.errors().size(), 1u);
  EXPECT_EQ(d.errors()[0].path, kPath);
  EXPECT_EQ(d.errors()[0].message.rfind("megatron_layout holds \"x\" in virtual stage 1;", 0), 0u)
      << d.errors()[0].message;
  // An unclosed group is a "(" left in the text, which is not a layer.
  Diagnostics unclosed;
  EXPECT_FALSE(parse("E(tt|L", unclosed));
  EXPECT_EQ(codes(unclosed), std::vector<std::string>{"MEGATRON_LAYOUT_SYNTAX"});
  // Markup is not repeated in the message.
  Diagnostics markup;
  EXPECT_FALSE(parse("Et<b>L", markup));
  ASSERT_EQ(markup.errors().size(), 1u);
  EXPECT_EQ(markup.errors()[0].message.find('<'), std::string::npos);
  // A count that would expand beyond 4 x 100,000 characters is a cap, found before expanding.
  Diagnostics huge;
  EXPECT_FALSE(parse("Et*99999999999L", huge));
  EXPECT_EQ(codes(huge), std::vector<std::string>{"TOO_LARGE"});
  Diagnostics huge_group;
  EXPECT_FALSE(parse("E(tttttttttt|)*50000L", huge_group));
  EXPECT_EQ(codes(huge_group), std::vector<std::string>{"TOO_LARGE"});
}

// validate_layer_layout: the first layer is E and the last L, each once; no t after an m.
TEST(MegatronLayout, EmbeddingFirstLossLastMtpAfterDecoders) {
  for (const char* layout : {"tE|tL", "Et|tL|L", "EEt|tL", "Et|t", "Et|Lt", "Em|tL", ""}) {
    Diagnostics d;
    EXPECT_FALSE(parse(layout, d)) << layout;
    EXPECT_EQ(codes(d), std::vector<std::string>{"MEGATRON_LAYOUT_ENDS"}) << layout;
  }
  Diagnostics d;
  EXPECT_EQ(parse("Ett|tm|L", d), (std::vector<int>{2, 2, 0}));
  EXPECT_TRUE(d.ok());
}

// The writer gives each stage's body layers, E on stage 0, L on the last, and groups equal stages:
// dense-8l-like (pinned embedding and head, 8 decoders) on pp 3 with body 2 | 4 | 2.
TEST(MegatronLayout, WritesThePlan) {
  Diagnostics d;
  const Model model = parse_model(uniform_model(8, 1, 2, 0, 0, true), "/model", BytesPerParam{}, d).model;
  Plan plan;
  plan.pp_degree = 3;
  plan.stage_layers = {3, 4, 3};
  EXPECT_EQ(megatron_layout(plan, model), "Et*2|t*4|t*2L");
  plan.pp_degree = 4;
  plan.stage_layers = {2, 2, 2, 4};  // body 1 2 2 3: stages 1 and 2 are equal and grouped
  EXPECT_EQ(megatron_layout(plan, model), "Et|(t*2|)*2,t*3L");
  plan.stage_layers = {3, 3, 2, 2};  // body 2 3 2 1
  EXPECT_EQ(megatron_layout(plan, model), "Et*2|t*3|t*2|tL");
  plan.pp_degree = 2;
  plan.vpp_degree = 2;
  plan.stage_layers = {2, 1, 1, 6};  // body 1 1 1 5: stage 0's "Et" is not stage 1's "t"
  EXPECT_EQ(megatron_layout(plan, model), "Et|(t|)*2,t*5L");
}

// As a partition form: E and L are the model's pinned layers, t and m its body layers.
TEST(MegatronLayout, IsAPartitionForm) {
  const json model = uniform_model(8, 1, 2, 0, 0, true);  // embedding, 8 decoders, head
  json pipeline = {{"pp_degree", 3}, {"micro_batch_num", 6}, {"megatron_layout", "Et*2|t*4|t*2L"}};
  json r = run("estimate", {{"model", model}, {"pipeline", pipeline}});
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["stage_layers"], json({3, 4, 3}));
  EXPECT_EQ(r["result"]["layer_offset"], json({0, 2, 0}));  // base floor(8 / 3) = 2
  EXPECT_EQ(r["result"]["megatron_layout"], "Et*2|t*4|t*2L");

  // Four stages for pp 3: Megatron-LM would need vpp 4 / 3, not whole.
  pipeline["megatron_layout"] = "Et*2|t*4|t*2|L";
  r = run("estimate", {{"model", model}, {"pipeline", pipeline}});
  EXPECT_EQ(error_codes(r), std::vector<std::string>{"MEGATRON_LAYOUT_STAGES"}) << r.dump();
  // Six stages for pp 3 would be vpp 2, which the message proposes.
  pipeline["megatron_layout"] = "Et|t|t|t|t*2|t*2L";
  r = run("estimate", {{"model", model}, {"pipeline", pipeline}});
  ASSERT_TRUE(has_error(r, "MEGATRON_LAYOUT_STAGES", kPath)) << r.dump();
  EXPECT_NE(r["errors"][0]["message"].get<std::string>().find("vpp_degree 2"), std::string::npos) << r.dump();
  // 9 body layers for a model of 8.
  pipeline["megatron_layout"] = "Et*2|t*4|t*3L";
  r = run("estimate", {{"model", model}, {"pipeline", pipeline}});
  EXPECT_EQ(error_codes(r), std::vector<std::string>{"MEGATRON_LAYOUT_LAYERS"}) << r.dump();
  // One form at a time.
  pipeline["megatron_layout"] = "Et*2|t*4|t*2L";
  pipeline["layer_offset"] = {0, 2, 0};
  r = run("estimate", {{"model", model}, {"pipeline", pipeline}});
  EXPECT_EQ(error_codes(r), std::vector<std::string>{"PARTITION_CONFLICT"}) << r.dump();
  // An empty stage is the plan's EMPTY_STAGE, at the layout's path.
  pipeline.erase("layer_offset");
  pipeline["megatron_layout"] = "Et*4||t*4L";
  r = run("estimate", {{"model", model}, {"pipeline", pipeline}});
  EXPECT_TRUE(has_error(r, "EMPTY_STAGE", kPath)) << r.dump();
  pipeline["allow_empty_stages"] = true;
  EXPECT_TRUE(run("estimate", {{"model", model}, {"pipeline", pipeline}})["ok"]);
}

// Without pinned layers E and L stand for none, so Megatron-LM's string still reads.
TEST(MegatronLayout, EmbeddingAndLossMayStandForNoLayer) {
  const json model = uniform_model(6, 1, 2, 0, 0, false);
  const json r = run(
      "estimate",
      {{"model", model}, {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 2}, {"megatron_layout", "Et*2|t*4L"}}}});
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["stage_layers"], json({2, 4}));
}

}  // namespace
}  // namespace ppb::test
