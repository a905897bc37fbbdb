// The command entry point: JSON syntax errors, unknown commands, never an exception.
#include "ppb/commands/commands.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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

// Responses are written by the engine's own writer, which must give exactly the text of nlohmann's
// dump(): every kind of value, numbers whole, fractional, tiny and huge, names with quotes, control
// characters, non-ASCII and markup (the ones written through dump()), and an error response.
TEST(Commands, ResponsesAreExactlyWhatDumpWrites) {
  json layers = json::array();
  layers.push_back(
      {{"name", "emb \"quoted\" \\ \t\u00e9\u4e2d <b>"}, {"pin", "first"}, {"forward_ms", 0.1}, {"static_mib", 1e-7}});
  layers.push_back({{"name", "decoder"},
                    {"count", 6},
                    {"forward_ms", 1.0 / 3},
                    {"backward_ms", 123456789.125},
                    {"activation_mib", 2.5e-300},
                    {"send_mib", 8},
                    {"recompute", {{"full", {{"activation_mib", 0}, {"extra_ms", 1e-3}}}}}});
  layers.push_back({{"name", "head"}, {"pin", "last"}, {"forward_ms", 7}});
  const json request = {
      {"model", {{"name", "m\u00fcll"}, {"layers", layers}}},
      {"device", {{"memory_limit_mib", 1}}},
      {"pipeline",
       {{"pp_degree", 2}, {"micro_batch_num", 3}, {"include_timeline", true}, {"recompute", {{"full", {1, 2}}}}}},
      {"unknown", {{"x", nullptr}}}};
  for (const char* command : {"estimate", "balance", "search", "export"}) {
    json r = request;
    if (std::string(command) == "export") r["export"] = {{"to", "chrome-trace"}};
    const auto out = run_command(command, r.dump());
    EXPECT_EQ(out.json, json::parse(out.json).dump()) << command;
  }
  const auto bad = run_command("estimate", R"({"model": {"layers": [{"name": "\u0001", "forward_ms": -1}]}})");
  ASSERT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.json, json::parse(bad.json).dump());
}

// Errors outside what the plan's checks read (device, balance, export sections) do not hold those
// checks back: one answer lists both kinds.
TEST(Commands, PlanErrorsComeWithOtherSectionsErrors) {
  json req = {{"model", uniform_model(10, 1, 2, 0, 1)},
              {"device", {{"memory_limit_mib", -5}}},
              {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 4}, {"layer_offset", {1, 1}}}}};
  for (const char* command : {"estimate", "export"}) {
    json r = req;
    if (std::string(command) == "export") r["export"] = {{"to", "pdf"}};
    const json out = run(command, r);
    EXPECT_TRUE(has_error(out, "NEGATIVE", "/device/memory_limit_mib")) << command << out.dump();
    EXPECT_TRUE(has_error(out, "OFFSET_SUM", "/pipeline/layer_offset")) << command << out.dump();
    if (std::string(command) == "export") {
      EXPECT_TRUE(has_error(out, "EXPORT_TARGET_UNKNOWN", "/export/to")) << out.dump();
    }
  }
  json balance = req;
  balance["pipeline"] = {{"pp_degree", 11}, {"micro_batch_num", 4}};  // 11 stages, 10 layers
  balance["balance"] = {{"tolerance", 5}};
  const json out = run("balance", balance);
  EXPECT_TRUE(has_error(out, "NEGATIVE", "/device/memory_limit_mib")) << out.dump();
  EXPECT_TRUE(has_error(out, "OUT_OF_RANGE", "/balance/tolerance")) << out.dump();
  EXPECT_TRUE(has_error(out, "PP_EXCEEDS_LAYERS", "/pipeline/pp_degree")) << out.dump();
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
  const json req = {{"transformer",
                     {{"num_layers", 8},
                      {"hidden_size", 1024},
                      {"num_attention_heads", 16},
                      {"vocab_size", 32000},
                      {"seq_length", 1024}}},
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

namespace ppb::test {
namespace {

// Every parser reads through one field reader: an unknown field is the same warning wherever it is
// (balance, export, the transformer's sections, a SAPP file and its wrapper), and its sentence never
// repeats a name holding markup; the path holds the name, escaped.
TEST(Commands, UnknownFieldsAreOneWarningEverywhere) {
  const std::string hostile = "<img src=x onerror=alert(1)>";
  const json plain_model = uniform_model(4, 1, 2, 0, 0);
  json estimate_request = {{"model", plain_model}, {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 2}}}};
  json balance = estimate_request;
  balance["balance"] = {{hostile, 1}, {"colour", 2}};
  json exported = estimate_request;
  exported["export"] = {{"to", "megatron"}, {hostile, 1}, {"colour", 2}};
  const json transformer = {{"transformer",
                             {{"num_layers", 4},
                              {"hidden_size", 256},
                              {"num_attention_heads", 4},
                              {"vocab_size", 1024},
                              {"seq_length", 128},
                              {hostile, 1},
                              {"colour", 2}}},
                            {"device", {{"peak_tflops", 100}}}};
  const json sapp_file = {
      {"layers_description",
       {{{"name", "decoder"}, {"type", "BODY"}, {"time", 1}, {"nb_layer", 4}, {hostile, 1}, {"colour", 2}}}}};
  const json wrapped = {
      {"sapp", {{"layers_description", {{{"name", "decoder"}, {"type", "BODY"}, {"time", 1}, {"nb_layer", 4}}}}}},
      {hostile, 1},
      {"colour", 2}};
  const std::string escaped = "<img src=x onerror=alert(1)>";  // holds no "/" or "~": the path keeps it as is
  const struct {
    const char* command;
    json request;
    std::string section;  // path of the object holding the unknown fields
    std::string owner;
  } cases[] = {
      {"balance", balance, "/balance", "ppb.v1"},
      {"export", exported, "/export", "ppb.v1"},
      {"import", transformer, "/transformer", "the transformer description"},
      {"import", sapp_file, "/layers_description/0", "a SAPP layer description"},
      {"import", wrapped, "", "an import of a SAPP file"},
  };
  for (const auto& c : cases) {
    const json r = run(c.command, c.request);
    ASSERT_TRUE(r["ok"]) << c.section << r.dump();
    const json warnings = r["warnings"];
    ASSERT_EQ(warnings.size(), 2u) << c.section << r.dump();
    for (const json& w : warnings) {
      EXPECT_EQ(w["code"], "UNKNOWN_FIELD");
      EXPECT_EQ(w["message"].get<std::string>().find('<'), std::string::npos) << w.dump();
    }
    std::vector<std::string> paths;
    for (const json& w : warnings) paths.push_back(w["path"]);
    EXPECT_NE(std::find(paths.begin(), paths.end(), c.section + "/" + escaped), paths.end()) << r.dump();
    const auto colour = std::find_if(warnings.begin(), warnings.end(),
                                     [&](const json& w) { return w["path"] == c.section + "/colour"; });
    ASSERT_NE(colour, warnings.end()) << r.dump();
    EXPECT_EQ((*colour)["message"], "field \"colour\" is not part of " + c.owner + " and was ignored.");
  }
}

// A rejected value of a closed set is repeated only when it is short plain text.
TEST(Commands, RejectedValuesAreNotRepeatedWhenHostile) {
  json req = {{"model", uniform_model(4, 1, 2, 0, 0)},
              {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 2}, {"schedule", "<b>2f2b</b>"}}}};
  json r = run("estimate", req);
  ASSERT_TRUE(has_error(r, "SCHEDULE_UNKNOWN", "/pipeline/schedule")) << r.dump();
  EXPECT_EQ(r["errors"][0]["message"].get<std::string>().rfind(
                "schedule (a 11-byte text, not repeated here) is not known", 0),
            0u)
      << r.dump();
  req["pipeline"]["schedule"] = "2f2b";
  r = run("estimate", req);
  EXPECT_EQ(r["errors"][0]["message"].get<std::string>().rfind("schedule \"2f2b\" is not known", 0), 0u) << r.dump();
}

// One stage, one micro batch, zb_h1: F 0-1, B (backward 2 - weight 1 = 1 ms) 1-2, W 2-3. The layer's
// 10 MiB are held from F's start; at B's end the 6 MiB W does not need are freed, the 4 MiB of
// weight_activation_mib at W's end (interface: "the part W needs ... until the end of its W").
TEST(Commands, WeightActivationIsHeldUntilWAndTheSpanIsReported) {
  const json layer = {{"name", "l"},          {"forward_ms", 1},
                      {"backward_ms", 2},     {"weight_backward_ms", 1},
                      {"activation_mib", 10}, {"weight_activation_mib", 4}};
  const json request = {
      {"model", {{"layers", {layer}}}},
      {"pipeline", {{"pp_degree", 1}, {"micro_batch_num", 1}, {"schedule", "zb_h1"}, {"include_timeline", true}}}};
  const json r = run("estimate", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& result = r["result"];
  EXPECT_DOUBLE_EQ(result["step_time_ms"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(result["span_ms"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(result["bubble"]["span_fraction"].get<double>(), 0);  // the one stage is never idle
  std::vector<std::string> ops;
  for (const json& op : result["timeline"]) ops.push_back(op["op"]);
  EXPECT_EQ(ops, (std::vector<std::string>{"F", "B", "W"}));
  EXPECT_EQ(result["timeline"][1]["weight_apart"], true);
  EXPECT_FALSE(result["timeline"][0].contains("weight_apart"));  // only backwards say it
  // The memory timeline is a step function: [time, held from then on], later points winning.
  const auto held_at = [](const json& points, double t) {
    double held = 0;
    for (const json& p : points)
      if (p[0].get<double>() <= t) held = p[1].get<double>();
    return held;
  };
  const json& memory = result["memory_timeline"][0];
  EXPECT_DOUBLE_EQ(held_at(memory, 0.5), 10);
  EXPECT_DOUBLE_EQ(held_at(memory, 2.5), 4);
  EXPECT_DOUBLE_EQ(held_at(memory, 3), 0);

  // Without weight_activation_mib W keeps all 10 MiB (the safe default).
  json all_kept = request;
  all_kept["model"]["layers"][0].erase("weight_activation_mib");
  const json kept = run("estimate", all_kept)["result"]["memory_timeline"][0];
  EXPECT_DOUBLE_EQ(held_at(kept, 2.5), 10);
  EXPECT_DOUBLE_EQ(held_at(kept, 3), 0);
}

// The parts of a layer's figures that the new schedules read are checked against their wholes.
TEST(Commands, CostPartsCannotExceedTheirWholes) {
  const json layer = {{"name", "l"},          {"forward_ms", 1},        {"backward_ms", 2},
                      {"activation_mib", 10}, {"forward_comm_ms", 1.5}, {"backward_comm_ms", 2}};
  const json r =
      run("estimate", {{"model", {{"layers", {layer}}}}, {"pipeline", {{"pp_degree", 1}, {"micro_batch_num", 1}}}});
  EXPECT_TRUE(has_error(r, "COST_PART_EXCEEDS", "/model/layers/0/forward_comm_ms")) << r.dump();
  EXPECT_FALSE(has_error(r, "COST_PART_EXCEEDS", "/model/layers/0/backward_comm_ms"));  // equal is allowed
}

}  // namespace
}  // namespace ppb::test
