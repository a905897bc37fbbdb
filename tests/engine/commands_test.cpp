// The command entry point: JSON syntax errors, unknown commands, never an exception.
#include "ppb/commands.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "helpers.hpp"

namespace ppb::test {
namespace {

TEST(Commands, MalformedJsonIsAnError) {
  const auto out = run_command("estimate", "{\"model\": ");
  EXPECT_EQ(out.exit_code, 2);
  const json r = json::parse(out.json);
  EXPECT_FALSE(r["ok"]);
  EXPECT_EQ(error_codes(r), std::vector<std::string>{"JSON_SYNTAX"});
}

TEST(Commands, UnknownCommandIsAnError) {
  const auto out = run_command("fly", "{}");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(error_codes(json::parse(out.json)), std::vector<std::string>{"COMMAND_UNKNOWN"});
}

TEST(Commands, RequestMustBeAnObject) {
  for (const char* text : {"[]", "3", "null", "\"x\""}) {
    const auto out = run_command("estimate", text);
    EXPECT_EQ(out.exit_code, 2) << text;
    EXPECT_TRUE(has_error(json::parse(out.json), "TYPE_MISMATCH", "")) << text;
  }
}

TEST(Commands, EstimatesTheBundledExample) {
  std::ifstream file(std::string(PPB_SOURCE_DIR) + "/examples/dense-8l.json");
  ASSERT_TRUE(file);
  const json model = json::parse(file);
  const json r = run("estimate", {{"model", model}, {"pipeline", {{"pp_degree", 4}, {"micro_batch_num", 8}}}});
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["stage_layers"], json({3, 2, 2, 3}));
}

TEST(Commands, TimelineOnRequest) {
  json req = {{"model", uniform_model(4, 1, 2, 0, 1)}, {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 3}}}};
  EXPECT_FALSE(run("estimate", req)["result"].contains("timeline"));
  req["pipeline"]["include_timeline"] = true;
  const json r = run("estimate", req);
  EXPECT_EQ(r["result"]["timeline"].size(), 12u);
  EXPECT_EQ(r["result"]["memory_timeline"].size(), 2u);
}

}  // namespace
}  // namespace ppb::test

namespace ppb::test {
namespace {

// A transformer description stands wherever a model does: the estimate runs on its generated layers.
TEST(Commands, TransformerDescriptionStandsForTheModel) {
  const json req = {{"transformer", {{"num_layers", 8}, {"hidden_size", 1024}, {"num_attention_heads", 16},
                                     {"vocab_size", 32000}, {"seq_length", 1024}}},
                    {"training", {{"micro_batch_size", 1}}},
                    {"device", {{"peak_tflops", 989}}},
                    {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 4}}}};
  const json r = run("estimate", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_FALSE(r.contains("warnings")) << r.dump();
  // Embedding pinned first, 8 decoders, head pinned last: 10 layers, 4 + 1 per stage.
  EXPECT_EQ(r["result"]["stage_layers"], json({5, 5}));
  json both = req;
  both["model"] = uniform_model(2, 1, 2, 0, 0);
  EXPECT_TRUE(has_error(run("estimate", both), "MODEL_CONFLICT", "/transformer"));
}

}  // namespace
}  // namespace ppb::test
