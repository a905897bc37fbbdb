// The caps of limits.hpp (docs/limits.md): each one at its edge, with its own error code, and the
// timeline cap, which cuts what is returned but not what is estimated.
#include "ppb/core/limits.hpp"

#include <gtest/gtest.h>

#include <string>

#include "helpers.hpp"
#include "ppb/simulate/simulate.hpp"

namespace ppb::test {
namespace {

json small_request() {
  return {{"model", uniform_model(8, 1, 2, 10, 5, true)}, {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 4}}}};
}

json run_text(const std::string& command, const std::string& text) {
  const auto out = run_command(command, text);
  const json response = json::parse(out.json);  // always JSON, whatever came in
  EXPECT_EQ(out.exit_code, response["ok"] ? 0 : 2) << out.json.substr(0, 500);
  return response;
}

std::string nested(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']');
}

TEST(Limits, InputAboveTheByteCapIsRejectedBeforeParsing) {
  // Whitespace is valid JSON padding, so only the size can be wrong here.
  std::string text = small_request().dump();
  text.append(static_cast<std::size_t>(limits::max_input_bytes) - text.size(), ' ');
  EXPECT_TRUE(run_text("estimate", text)["ok"]);
  text.push_back(' ');
  const json r = run_text("estimate", text);
  EXPECT_EQ(error_codes(r), std::vector<std::string>{"INPUT_TOO_LARGE"});
  EXPECT_NE(r["errors"][0]["message"].get<std::string>().find("more than 67108864 bytes"), std::string::npos);
}

TEST(Limits, NestingDepthIsCappedAtSixtyFour) {
  const json at_cap = run_text("estimate", R"({"model": )" + nested(limits::max_json_depth - 1) + "}");
  EXPECT_TRUE(has_error(at_cap, "TYPE_MISMATCH", "/model")) << at_cap.dump();
  const json over = run_text("estimate", R"({"model": )" + nested(limits::max_json_depth) + "}");
  EXPECT_EQ(error_codes(over), std::vector<std::string>{"JSON_TOO_DEEP"});
  // Brackets inside strings are text, not nesting.
  const json in_string = run_text("estimate", R"({"model": {"name": ")" + std::string(1000, '[') + R"("}})");
  EXPECT_FALSE(has_error(in_string, "JSON_TOO_DEEP", "")) << in_string.dump().substr(0, 300);
}

TEST(Limits, ValueCountIsCapped) {
  // [0,0,...]: one value for the array, one per comma, so max - 1 commas is exactly at the cap.
  std::string at_cap = "[0";
  for (std::int64_t i = 2; i < limits::max_json_values; ++i) at_cap += ",0";
  at_cap += "]";
  EXPECT_TRUE(has_error(run_text("estimate", at_cap), "TYPE_MISMATCH", ""));
  const std::string over = at_cap.substr(0, at_cap.size() - 1) + ",0]";
  EXPECT_EQ(error_codes(run_text("estimate", over)), std::vector<std::string>{"JSON_TOO_MANY_VALUES"});
}

TEST(Limits, NumberBeyondDoubleIsAnErrorNotAnException) {
  // Found by the fuzzer: nlohmann reports 1e400 as out_of_range, not as a parse error.
  const json r = run_text("estimate", R"({"model": {"layers": [{"name": "a", "forward_ms": 1e400}]}})");
  EXPECT_EQ(error_codes(r), std::vector<std::string>{"JSON_NUMBER_RANGE"});
}

TEST(Limits, SyntaxErrorMessagesQuoteOnlyPrintableAscii) {
  const json r = run_text("estimate", std::string("{\"model\": \"\xff\xfe\"}"));
  ASSERT_EQ(error_codes(r), std::vector<std::string>{"JSON_SYNTAX"});
  for (unsigned char c : r["errors"][0]["message"].get<std::string>()) EXPECT_TRUE(c >= 0x20 && c < 0x7f);
  // A command name that is not UTF-8 is echoed without breaking the response.
  const json unknown = run_text(std::string("\xc3\x28"), "{}");
  EXPECT_EQ(error_codes(unknown), std::vector<std::string>{"COMMAND_UNKNOWN"});
}

TEST(Limits, DegreesAndMicroBatchesHaveTheirOwnCodes) {
  const auto code_for = [](const json& pipeline) {
    json request = small_request();
    request["pipeline"] = pipeline;
    return error_codes(run("estimate", request));
  };
  EXPECT_EQ(code_for({{"pp_degree", limits::max_pp_degree + 1}, {"micro_batch_num", 4}}),
            std::vector<std::string>{"PP_DEGREE_LIMIT"});
  EXPECT_EQ(code_for({{"pp_degree", 2},
                      {"vpp_degree", limits::max_vpp_degree + 1},
                      {"micro_batch_num", 4},
                      {"schedule", "interleaved_1f1b"}}),
            std::vector<std::string>{"VPP_DEGREE_LIMIT"});
  // 4096 x 4 = 16,384 virtual stages, twice the cap.
  EXPECT_EQ(
      code_for({{"pp_degree", 4096}, {"vpp_degree", 4}, {"micro_batch_num", 4096}, {"schedule", "interleaved_1f1b"}}),
      std::vector<std::string>{"VIRTUAL_STAGE_LIMIT"});
  EXPECT_EQ(code_for({{"pp_degree", 2}, {"micro_batch_num", limits::max_micro_batch_num + 1}}),
            std::vector<std::string>{"MICRO_BATCH_LIMIT"});
  json derived = small_request();
  derived["pipeline"] = {{"pp_degree", 2}};
  derived["training"] = {{"global_batch_size", 2 * (limits::max_micro_batch_num + 1)}, {"dp_degree", 2}};
  EXPECT_TRUE(has_error(run("estimate", derived), "MICRO_BATCH_LIMIT", "/training/global_batch_size"));
  derived["training"]["global_batch_size"] = 2 * limits::max_micro_batch_num;
  EXPECT_FALSE(has_error(run("estimate", derived), "MICRO_BATCH_LIMIT", "/training/global_batch_size"));
}

TEST(Limits, RecomputeOptionsAreCapped) {
  json request = small_request();
  json& options = request["model"]["layers"][1]["recompute"];
  for (int i = 1; i < limits::max_recompute_options; ++i) {
    std::string name = "o";  // built in two steps: GCC 12 warns on "o" + string (-Wrestrict)
    name += std::to_string(i);
    options[name] = {{"activation_mib", 1}};
  }
  EXPECT_TRUE(run("estimate", request)["ok"]);  // "full" plus 31 more: exactly the cap
  options["one_more"] = {{"activation_mib", 1}};
  EXPECT_TRUE(has_error(run("estimate", request), "RECOMPUTE_OPTION_LIMIT", "/model/layers/1/recompute/one_more"));
}

TEST(Limits, ErrorListIsCappedAndCountsTheRest) {
  json request = small_request();
  request["pipeline"]["stage_partition"] = json(std::vector<int>(1500, -1));
  const json r = run("estimate", request);
  // 1500 entries out of range plus PARTITION_LENGTH: the first 1000 are listed.
  ASSERT_EQ(r["errors"].size(), static_cast<std::size_t>(limits::max_diagnostics) + 1);
  const json& last = r["errors"].back();
  EXPECT_EQ(last["code"], "TOO_MANY_ERRORS");
  EXPECT_EQ(last["message"].get<std::string>().substr(0, 9), "501 more ");
}

TEST(Limits, BalanceTablesAreCapped) {
  json request = small_request();
  request["model"] = uniform_model(49'999, 1, 2, 10, 5);
  // 81 virtual stages x (49,999 layers + 1) = 4,049,981 cells, just above the cap. (At the cap the
  // balancer runs, for minutes at this size: its time budget does not cover its bound tables yet.)
  request["pipeline"] = {{"pp_degree", 81}, {"micro_batch_num", 81}};
  EXPECT_EQ(error_codes(run("balance", request)), std::vector<std::string>{"BALANCE_LIMIT"});
  EXPECT_TRUE(run("balance", small_request())["ok"]);
}

TEST(Limits, RepeatedBalanceOptionCountsOnce) {
  json request = small_request();
  request["device"] = {{"memory_limit_mib", 160}};
  request["balance"] = {{"recompute_options", {"full"}}};
  const json once = run("balance", request);
  ASSERT_TRUE(once["ok"]) << once.dump();
  request["balance"]["recompute_options"] = json(std::vector<std::string>(1000, "full"));
  const json repeated = run("balance", request);
  EXPECT_EQ(repeated["result"]["stage_layers"], once["result"]["stage_layers"]);
  EXPECT_EQ(repeated["result"]["layer_recompute"], once["result"]["layer_recompute"]);
}

// The cap keeps the first operations by start time: exactly the prefix of the full timeline.
TEST(Limits, TruncatedTimelineIsThePrefixOfTheFullOne) {
  for (Schedule schedule : {Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved_1f1b, Schedule::zb_h1}) {
    SimulationInput in;
    in.pp_degree = 4;
    in.vpp_degree = schedule == Schedule::interleaved_1f1b ? 2 : 1;
    in.micro_batch_num = 8;
    in.schedule = schedule;
    for (int v = 0; v < in.pp_degree * in.vpp_degree; ++v)  // unequal stages, so the orders interleave
      in.costs.push_back({1.0 + v % 3, 2.0 + v % 2, 0.5, 1.0 + v, 0.25});
    in.keep_timeline = true;
    const SimulationResult full = simulate(in);
    in.max_timeline_ops = 37;
    const SimulationResult cut = simulate(in);
    ASSERT_TRUE(cut.timeline_truncated) << schedule_name(schedule);
    EXPECT_FALSE(full.timeline_truncated);
    EXPECT_EQ(cut.operations, full.operations);
    EXPECT_EQ(cut.step_time_ms, full.step_time_ms);
    ASSERT_EQ(cut.timeline.size(), 37u);
    for (std::size_t i = 0; i < cut.timeline.size(); ++i) {
      EXPECT_EQ(cut.timeline[i].stage, full.timeline[i].stage) << schedule_name(schedule) << " op " << i;
      EXPECT_EQ(cut.timeline[i].micro_batch, full.timeline[i].micro_batch) << schedule_name(schedule) << " op " << i;
      EXPECT_EQ(cut.timeline[i].kind, full.timeline[i].kind) << schedule_name(schedule) << " op " << i;
      EXPECT_EQ(cut.timeline[i].start_ms, full.timeline[i].start_ms) << schedule_name(schedule) << " op " << i;
    }
    // Memory steps are kept up to the last kept start, and agree with the full run there.
    const double cutoff = cut.timeline.back().start_ms;
    for (std::size_t s = 0; s < full.stages.size(); ++s) {
      std::vector<MemoryPoint> expected;
      for (const auto& p : full.stages[s].memory)
        if (p.time_ms <= cutoff) expected.push_back(p);
      ASSERT_EQ(cut.stages[s].memory.size(), expected.size()) << schedule_name(schedule) << " stage " << s;
      for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(cut.stages[s].memory[i].time_ms, expected[i].time_ms);
        EXPECT_EQ(cut.stages[s].memory[i].activation_mib, expected[i].activation_mib);
      }
      EXPECT_EQ(cut.stages[s].activation_peak_mib, full.stages[s].activation_peak_mib);
    }
  }
}

TEST(Limits, EstimateSaysWhenItsTimelineIsCut) {
  json request = small_request();
  request["pipeline"]["include_timeline"] = true;
  // 2 stages x 4 micro batches x (F, B): 16 operations, all returned.
  json r = run("estimate", request)["result"];
  EXPECT_EQ(r["timeline"].size(), 16u);
  EXPECT_EQ(r["timeline_operations"], 16);
  EXPECT_EQ(r["timeline_truncated"], false);
  EXPECT_EQ(r["timeline_limit"], limits::max_timeline_ops);
  // 4 stages x 16,384 micro batches x 2 = 131,072 operations, above the cap.
  request["model"] = uniform_model(8, 1, 2, 10, 5);
  request["pipeline"] = {{"pp_degree", 4}, {"micro_batch_num", 16'384}, {"include_timeline", true}};
  r = run("estimate", request)["result"];
  EXPECT_EQ(r["timeline"].size(), static_cast<std::size_t>(limits::max_timeline_ops));
  EXPECT_EQ(r["timeline_operations"], 131'072);
  EXPECT_EQ(r["timeline_truncated"], true);
  // The estimate is still of the whole step. Contract, 1f1b on equal stages: (m + pp - 1)(F + B),
  // two layers per stage, F = 2 x 1 ms, B = 2 x 2 ms.
  EXPECT_DOUBLE_EQ(r["step_time_ms"].get<double>(), (16'384 + 4 - 1) * 6.0);
}

}  // namespace
}  // namespace ppb::test
