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
