// Kept models (io/kept_models.hpp): a request that names a model kept before answers exactly as the
// same request holding the model's document, for every command that reads a model, problems included;
// the kept text's own faults are the whole answer, as in a request's text; ids are not reused.
#include "ppb/io/kept_models.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "helpers.hpp"
#include "ppb/commands/work_session.hpp"
#include "ppb/core/json_text.hpp"

namespace ppb::test {
namespace {

std::string example(const std::string& name) {
  std::ifstream in(std::string(PPB_SOURCE_DIR) + "/examples/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The request `rest` with `model_text` put in as its "model", as the page's worker spliced it before.
std::string spliced(const std::string& model_text, const json& rest) {
  json holder = rest;
  holder.erase("model");
  const std::string tail = holder.dump();
  std::string text = "{\"model\":";
  text.append(model_text);
  if (tail != "{}") text.push_back(',');
  text.append(tail, 1, std::string::npos);  // "}" or the members and "}"
  return text;
}

// A model whose reading reports: an unknown field (a warning) and, in `broken`, a weight backward
// longer than the backward (an error), with a pinned embedding and head.
std::string small_model(bool broken) {
  json layers = json::array();
  layers.push_back(
      {{"name", "embedding"}, {"pin", "first"}, {"forward_ms", 1}, {"static_mib", 500}, {"colour", "red"}});
  layers.push_back({{"name", "decoder"},
                    {"count", 12},
                    {"forward_ms", 2},
                    {"backward_ms", 4},
                    {"weight_backward_ms", broken ? 5 : 2},
                    {"params", 200'000'000},
                    {"activation_mib", 300},
                    {"recompute", {{"full", {{"activation_mib", 20}, {"extra_ms", 2}}}}}});
  layers.push_back({{"name", "head"}, {"pin", "last"}, {"forward_ms", 3}, {"static_mib", 800}});
  return json{{"format", "ppb.model.v1"}, {"name", "small"}, {"layers", layers}}.dump();
}

const json kRest = {{"training", {{"precision", "bf16"}, {"sharding", "optimizer"}, {"dp_degree", 4}}},
                    {"device", {{"memory_limit_mib", 20000}, {"p2p_bandwidth_gbs", 25}}},
                    {"pipeline", {{"pp_degree", 4}, {"micro_batch_num", 8}}}};

TEST(KeptModels, AnswerAsTheRequestHoldingTheModelForEveryCommand) {
  const json search = {{"pp_degree", {2, 4}}, {"micro_batch_num", {8}}, {"schedule", {"1f1b"}}};
  for (const std::string& model : {small_model(false), small_model(true), example("llama2-70b.json")}) {
    const KeptModelId id = keep_model(model);
    for (const std::string command : {"estimate", "balance", "compare", "export", "search", "cluster"}) {
      json rest = kRest;
      if (command == "export") rest["export"] = {{"to", "megatron"}};
      if (command == "search") rest["search"] = search;
      if (command == "cluster")
        rest["training"] = {{"world_size", 64}, {"global_batch_size", 64}, {"micro_batch_size", 1}};
      const CommandOutput held = run_command(command, spliced(model, rest));
      const CommandOutput named = run_command(command, rest.dump(), id);
      EXPECT_EQ(named.exit_code, held.exit_code) << command;
      if (command == "search") {  // all but the time it took
        json a = json::parse(named.json), b = json::parse(held.json);
        for (json* response : {&a, &b})
          if (response->contains("result")) response->at("result").erase("elapsed_ms");
        EXPECT_EQ(a, b);
      } else {
        EXPECT_EQ(named.json, held.json) << command;
      }
    }
    EXPECT_TRUE(drop_model(id));
  }
}

// The broken model's error and the unknown field's warning come through, at the model's paths.
TEST(KeptModels, ReportWhatReadingTheModelFound) {
  const KeptModelId id = keep_model(small_model(true));
  const json response = json::parse(run_command("estimate", kRest.dump(), id).json);
  EXPECT_TRUE(has_error(response, "WEIGHT_BACKWARD_EXCEEDS", "/model/layers/1/weight_backward_ms")) << response;
  ASSERT_TRUE(response.contains("warnings")) << response;
  EXPECT_EQ(response["warnings"][0]["path"], "/model/layers/0/colour");
  drop_model(id);
}

// A model document and a request holding it (a file as a person drops either) keep the same model.
TEST(KeptModels, KeepAModelDocumentOrARequestHoldingOne) {
  const std::string model = example("llama2-70b.json");
  const KeptModelId alone = keep_model(model);
  const KeptModelId within = keep_model(spliced(model, kRest));
  EXPECT_NE(alone, within);
  EXPECT_EQ(run_command("balance", kRest.dump(), alone).json, run_command("balance", kRest.dump(), within).json);
  EXPECT_EQ(find_kept_model(within)->parsed.model.layer_count(), 82);  // embedding, 80 decoders, head
  drop_model(alone);
  drop_model(within);
}

// A fault in the kept text is the answer alone, as one in a request's text is (nothing else is read):
// here the request's own unknown schedule is not reported.
TEST(KeptModels, ATextFaultIsTheWholeAnswer) {
  const KeptModelId id = keep_model(R"({"layers": [{"name": "a",, "forward_ms": 1}]})");
  json rest = kRest;
  rest["pipeline"]["schedule"] = "no such schedule";
  const json response = json::parse(run_command("estimate", rest.dump(), id).json);
  EXPECT_EQ(error_codes(response), std::vector<std::string>{"JSON_SYNTAX"});
  // Counted in the kept text: the second comma is its 26th byte.
  EXPECT_NE(response["errors"][0]["message"].get<std::string>().find("(byte 26)"), std::string::npos) << response;
  drop_model(id);
}

TEST(KeptModels, AnIdNoModelHasIsRefusedAndIdsAreNotReused) {
  const KeptModelId first = keep_model(small_model(false));
  const std::size_t kept = kept_model_count();
  EXPECT_TRUE(drop_model(first));
  EXPECT_FALSE(drop_model(first));
  EXPECT_EQ(kept_model_count(), kept - 1);
  const json response = json::parse(run_command("estimate", kRest.dump(), first).json);
  EXPECT_TRUE(has_error(response, "MODEL_NOT_KEPT", "/model")) << response;
  EXPECT_EQ(run_command("estimate", kRest.dump(), first).exit_code, 2);
  const KeptModelId second = keep_model(small_model(false));
  EXPECT_GT(second, first);
  // import writes its document back out: it takes none.
  EXPECT_TRUE(has_error(json::parse(run_command("import", "{}", second).json), "MODEL_NOT_KEPT", "/model"));
  drop_model(second);
}

// The sliced commands take a kept model the same way.
TEST(KeptModels, WorkSessionsTakeAKeptModel) {
  const std::string model = example("llama2-70b.json");
  const KeptModelId id = keep_model(model);
  WorkSession work("balance", kRest.dump(), id);
  ASSERT_TRUE(work.error().json.empty()) << work.error().json;
  while (!work.step(40).finished) {
  }
  EXPECT_EQ(work.result(false).json, run_command("balance", spliced(model, kRest)).json);
  drop_model(id);
  WorkSession gone("balance", kRest.dump(), id);
  EXPECT_TRUE(has_error(json::parse(gone.error().json), "MODEL_NOT_KEPT", "/model"));
}

// With DeferLayers::any_layers the entries of /layers (a model document) stay text as those of
// /model/layers do, and the document built is json::parse's.
TEST(KeptModels, AModelDocumentsLayersAreDeferred) {
  const std::string text = R"({"name": "m", "layers": [{"name": "a", "tags": [{"x": "}"}]}, 3, {"name": "b"}],
    "other": [{"name": "c"}]})";
  Diagnostics d;
  const auto parsed = parse_json_text(text, d, DeferLayers::any_layers);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE((*parsed)["layers"][0].is_binary());
  EXPECT_EQ((*parsed)["layers"][1], 3);
  EXPECT_TRUE((*parsed)["layers"][2].is_binary());
  EXPECT_TRUE((*parsed)["other"][0].is_object());
  json storage;
  EXPECT_EQ(read_deferred((*parsed)["layers"][0], storage), json::parse(R"({"name": "a", "tags": [{"x": "}"}]})"));
  // A request's /layers is not a model's: only /model/layers is deferred there.
  const auto request = parse_json_text(text, d, DeferLayers::model_layers);
  ASSERT_TRUE(request);
  EXPECT_TRUE((*request)["layers"][0].is_object());
}

}  // namespace
}  // namespace ppb::test
