// Interop: SAPP layer files in, MindFormers / Megatron-LM settings and Chrome traces out. Expected
// values are worked out by hand from the SAPP tool's rules (hyper_parallel sapp_ppb layer.py and
// sapp_solver.py), MindFormers' LayerSetting and Megatron-LM's layout and argument rules; the
// comments say how.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <numeric>

#include "helpers.hpp"
#include "ppb/interop/export.hpp"
#include "ppb/interop/sapp.hpp"

namespace ppb::test {
namespace {

// HEAD, `body` BODY layers and TAIL, all four recompute kinds with explicit coefficients.
json sapp_file(int body = 80) {
  return {{"name", "llama test"},
          {"pre_defined_layer", {{"embedding", 0}, {"lm_head", -1}}},
          {"auto_partition_layer", {{"decoder", body}}},
          {"layers_description",
           {{{"name", "embedding"}, {"type", "HEAD"}, {"time", 2}, {"nb_layer", 1}, {"memory_parameter", 5000}},
            {{"name", "decoder"},
             {"type", "BODY"},
             {"time", 10},
             {"nb_layer", body},
             {"memory_parameter", 1500},
             {"memory_activation", 800},
             {"memory_recompute", 50},
             {"memory_select_rec", 600},
             {"memory_select_comm", 700},
             {"memory_both_comm_select", 500},
             {"recompute_coef", 0.6},
             {"select_rec_coef", 0.05},
             {"select_comm_coef", 0.1},
             {"both_comm_select_coef", 0.15}},
            {{"name", "lm_head"}, {"type", "TAIL"}, {"time", 6}, {"nb_layer", 1}, {"memory_parameter", 3000}}}}};
}

// Same keys, numbers equal to within a few ulps, everything else equal.
void expect_same(const json& actual, const json& expected, const std::string& at = "") {
  if (expected.is_number()) {
    ASSERT_TRUE(actual.is_number()) << at << ": " << actual;
    EXPECT_DOUBLE_EQ(actual.get<double>(), expected.get<double>()) << at;
    return;
  }
  if (expected.is_object()) {
    ASSERT_TRUE(actual.is_object()) << at << ": " << actual;
    for (auto it = actual.begin(); it != actual.end(); ++it)
      EXPECT_TRUE(expected.contains(it.key())) << at << ": unexpected field " << it.key();
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      ASSERT_TRUE(actual.contains(it.key())) << at << ": missing field " << it.key();
      expect_same(actual[it.key()], it.value(), at + "/" + it.key());
    }
    return;
  }
  if (expected.is_array()) {
    ASSERT_TRUE(actual.is_array()) << at;
    ASSERT_EQ(actual.size(), expected.size()) << at;
    for (std::size_t i = 0; i < expected.size(); ++i) expect_same(actual[i], expected[i], at + "/" + std::to_string(i));
    return;
  }
  EXPECT_EQ(actual, expected) << at;
}

json imported_model(const json& file) {
  const json r = run("import", file);
  EXPECT_TRUE(r["ok"]) << r.dump();
  return r["result"]["model"];
}

// SAPP (layer.py compute_internal_time): forward = time, backward = 2 x time, a recompute kind's
// backward = (1 + coef) x backward, so its extra time is coef x 20 ms here; memory_* fields are
// the activation each kind keeps, memory_parameter the static memory; HEAD pinned first and
// priced time / 2 x time (sapp_solver.py _max_stage_bound_head_tail), TAIL likewise, pinned last.
TEST(Interop, SappImportGivesTheModelFieldByField) {
  const json r = run("import", sapp_file());
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["source"], "sapp");
  EXPECT_FALSE(r.contains("warnings")) << r.dump();
  const json expected = {{"format", "ppb.model.v1"},
                         {"name", "llama test"},
                         {"layers",
                          {{{"name", "embedding"},
                            {"kind", "HEAD"},
                            {"pin", "first"},
                            {"forward_ms", 2},
                            {"backward_ms", 4},
                            {"static_mib", 5000}},
                           {{"name", "decoder"},
                            {"kind", "BODY"},
                            {"count", 80},
                            {"forward_ms", 10},
                            {"backward_ms", 20},
                            {"static_mib", 1500},
                            {"activation_mib", 800},
                            {"recompute",
                             {{"full", {{"activation_mib", 50}, {"extra_ms", 0.6 * 20}}},
                              {"selective", {{"activation_mib", 600}, {"extra_ms", 0.05 * 20}}},
                              {"comm", {{"activation_mib", 700}, {"extra_ms", 0.1 * 20}}},
                              {"selective_comm", {{"activation_mib", 500}, {"extra_ms", 0.15 * 20}}}}}},
                           {{"name", "lm_head"},
                            {"kind", "TAIL"},
                            {"pin", "last"},
                            {"forward_ms", 6},
                            {"backward_ms", 12},
                            {"static_mib", 3000}}}}};
  expect_same(r["result"]["model"], expected);
}

// Defaults of recompute.py DEFAULT_COEF (select 0.04, comm 0.125, both 0.165, full 0.5) times the
// 2 x time = 20 ms backward; backward_coef 0.1 makes the plain backward 1.1 x 20 = 22 and each kind's
// extra (coef - 0.1) x 20; explicit *_time fields are whole backward times, so the extra is the
// difference to backward_time.
TEST(Interop, SappDefaultCoefficientsAndExplicitTimes) {
  json file = sapp_file();
  json& body = file["layers_description"][1];
  for (const char* coef : {"recompute_coef", "select_rec_coef", "select_comm_coef", "both_comm_select_coef"})
    body.erase(coef);
  json layer = imported_model(file)["layers"][1];
  EXPECT_DOUBLE_EQ(layer["recompute"]["full"]["extra_ms"], 10);
  EXPECT_DOUBLE_EQ(layer["recompute"]["selective"]["extra_ms"], 0.8);
  EXPECT_DOUBLE_EQ(layer["recompute"]["comm"]["extra_ms"], 2.5);
  EXPECT_DOUBLE_EQ(layer["recompute"]["selective_comm"]["extra_ms"], 3.3);

  body["backward_coef"] = 0.1;
  layer = imported_model(file)["layers"][1];
  EXPECT_DOUBLE_EQ(layer["backward_ms"], 22);
  EXPECT_DOUBLE_EQ(layer["recompute"]["full"]["extra_ms"], 8);  // (0.5 - 0.1) x 20

  body.erase("backward_coef");
  body["forward_time"] = 9;
  body["backward_time"] = 25;
  body["recompute_time"] = 40;
  const json r = run("import", file);
  ASSERT_TRUE(r["ok"]) << r.dump();
  layer = r["result"]["model"]["layers"][1];
  EXPECT_DOUBLE_EQ(layer["forward_ms"], 9);
  EXPECT_DOUBLE_EQ(layer["backward_ms"], 25);
  EXPECT_DOUBLE_EQ(layer["recompute"]["full"]["extra_ms"], 15);  // 40 - 25
  // selective: (1 + 0.04) x 20 = 20.8 < 25, a faster backward: imported as 0 with a warning.
  EXPECT_DOUBLE_EQ(layer["recompute"]["selective"]["extra_ms"], 0);
  EXPECT_TRUE(has_error({{"errors", r.value("warnings", json::array())}}, "SAPP_RECOMPUTE_FASTER",
                        "/layers_description/1/select_rec_coef"))
      << r.dump();
}

// SAPP sorts layers by type: a TAIL listed first still closes the model, a HEAD listed last opens it.
TEST(Interop, SappHeadAndTailArePinnedWhereverListed) {
  json file = sapp_file(4);
  json& list = file["layers_description"];
  file["layers_description"] = {list[2], list[1], list[0]};
  const json layers = imported_model(file)["layers"];
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[0]["name"], "embedding");
  EXPECT_EQ(layers[0]["pin"], "first");
  EXPECT_EQ(layers[2]["name"], "lm_head");
  EXPECT_EQ(layers[2]["pin"], "last");
}

// SAPP's memory model (MindFormers toolkit/pipeline_balance readme, sapp_solver.py
// stage_param_memory / stage_active_memory, activation_nums = pp - s for 1F1B):
//   M_s = body_s x memory_parameter + (pp - s) x sum over the stage's layers of the kept activation
//         + HEAD memory_parameter on stage 0 + TAIL memory_parameter on the last stage.
// pp 4, layer_offset [-2, 0, 1, 1] -> body 18, 20, 21, 21 (base 20). Recompute counts:
//   s0: full 4, selective 2, 12 plain -> 12 x 800 + 4 x 50 + 2 x 600 = 11000 per micro batch, x 4 = 44000;
//       static 18 x 1500 + 5000 = 32000
//   s1: full 2, comm 3, 15 plain -> 12000 + 100 + 2100 = 14200, x 3 = 42600; static 30000
//   s2: selective_comm 5, 16 plain -> 12800 + 2500 = 15300, x 2 = 30600; static 31500
//   s3: 21 plain -> 16800, x 1; static 31500 + 3000 = 34500
TEST(Interop, SappModelEstimatesToSappMemoryFormula) {
  const json model = imported_model(sapp_file());
  const json request = {{"model", model},
                        {"pipeline",
                         {{"pp_degree", 4},
                          {"micro_batch_num", 8},
                          {"layer_offset", {-2, 0, 1, 1}},
                          {"recompute",
                           {{"full", {4, 2, 0, 0}},
                            {"selective", {2, 0, 0, 0}},
                            {"comm", {0, 3, 0, 0}},
                            {"selective_comm", {0, 0, 5, 0}}}}}}};
  const json r = run("estimate", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const double statics[] = {32000, 30000, 31500, 34500};
  const double activations[] = {44000, 42600, 30600, 16800};
  for (int s = 0; s < 4; ++s) {
    EXPECT_DOUBLE_EQ(r["result"]["stages"][s]["memory"]["static_mib"], statics[s]) << s;
    EXPECT_DOUBLE_EQ(r["result"]["stages"][s]["memory"]["activation_mib"], activations[s]) << s;
  }
}

TEST(Interop, BadSappFilesGiveCodesAndPaths) {
  struct Case {
    const char* what;
    json request;
    const char* code;
    const char* path;
  };
  json no_nb = sapp_file();
  no_nb["layers_description"][1].erase("nb_layer");
  json negative = sapp_file();
  negative["layers_description"][1]["memory_activation"] = -5;
  json wrong_type = sapp_file();
  wrong_type["layers_description"][1]["time"] = "10";
  json unknown = sapp_file();
  unknown["layers_description"][0]["type"] = "MIDDLE";
  json no_body = sapp_file();
  no_body["layers_description"].erase(1);
  json not_list = sapp_file();
  not_list["layers_description"] = {{"decoder", 1}};
  const std::vector<Case> cases = {
      {"missing layers_description", {{"sapp", {{"name", "x"}}}}, "REQUIRED", "/sapp/layers_description"},
      {"BODY without nb_layer", no_nb, "REQUIRED", "/layers_description/1/nb_layer"},
      {"negative memory", negative, "NEGATIVE", "/layers_description/1/memory_activation"},
      {"time as text", wrong_type, "TYPE_MISMATCH", "/layers_description/1/time"},
      {"unknown type", unknown, "SAPP_TYPE_UNKNOWN", "/layers_description/0/type"},
      {"no BODY", no_body, "SAPP_BODY_MISSING", "/layers_description"},
      {"layers_description not a list", not_list, "TYPE_MISMATCH", "/layers_description"},
      {"wrapped file, negative memory",
       {{"sapp", negative}},
       "NEGATIVE",
       "/sapp/layers_description/1/memory_activation"},
  };
  for (const auto& c : cases) {
    const auto out = run_command("import", c.request.dump());
    EXPECT_EQ(out.exit_code, 2) << c.what;
    const json r = json::parse(out.json);
    EXPECT_FALSE(r["ok"]) << c.what;
    EXPECT_TRUE(has_error(r, c.code, c.path)) << c.what << ": " << r.dump();
  }
}

TEST(Interop, BadSappFileReportsEveryProblem) {
  json file = sapp_file();
  file["layers_description"][0]["memory_parameter"] = -1;
  file["layers_description"][1].erase("nb_layer");
  file["layers_description"][2]["time"] = nullptr;
  const json r = run("import", file);
  EXPECT_TRUE(has_error(r, "NEGATIVE", "/layers_description/0/memory_parameter")) << r.dump();
  EXPECT_TRUE(has_error(r, "REQUIRED", "/layers_description/1/nb_layer")) << r.dump();
  EXPECT_TRUE(has_error(r, "TYPE_MISMATCH", "/layers_description/2/time")) << r.dump();
}

TEST(Interop, ImportPassesModelDocumentsThroughAfterValidation) {
  const json model = uniform_model(4, 1, 2, 0, 1, true);
  for (const json& request : {model, json{{"model", model}}}) {
    const json r = run("import", request);
    ASSERT_TRUE(r["ok"]) << r.dump();
    EXPECT_EQ(r["result"]["source"], "ppb.model.v1");
    EXPECT_EQ(r["result"]["model"], model);
  }
  json bad = model;
  bad["layers"][1]["forward_ms"] = -1;
  EXPECT_TRUE(has_error(run("import", {{"model", bad}}), "NEGATIVE", "/model/layers/1/forward_ms"));
  EXPECT_TRUE(has_error(run("import", json::object()), "IMPORT_SOURCE_UNKNOWN", ""));
  EXPECT_TRUE(has_error(run("import", {{"model", model}, {"sapp", sapp_file()}}), "IMPORT_SOURCE_CONFLICT", ""));
}

// The transformer section goes to the symbolic generator (transformer.hpp); its own tests check
// the numbers, this one the routing: 2 decoder layers come back as one entry of count 2.
TEST(Interop, ImportRunsTheTransformerGenerator) {
  const json r = run("import", {{"transformer",
                                 {{"num_layers", 2},
                                  {"hidden_size", 64},
                                  {"num_attention_heads", 4},
                                  {"vocab_size", 1000},
                                  {"seq_length", 128}}},
                                {"device", {{"peak_tflops", 100}}}});
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["source"], "transformer");
  EXPECT_EQ(r["result"]["model"]["layers"][1]["count"], 2);
}

TEST(Interop, BundledSappExampleImportsAndEstimates) {
  std::ifstream in(std::string(PPB_SOURCE_DIR) + "/examples/sapp-llama-80l.json");
  ASSERT_TRUE(in);
  const json r = run("import", json::parse(in));
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_FALSE(r.contains("warnings")) << r.dump();
  const json& layers = r["result"]["model"]["layers"];
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[1]["count"], 80);
  const json e =
      run("estimate", {{"model", r["result"]["model"]}, {"pipeline", {{"pp_degree", 8}, {"micro_batch_num", 16}}}});
  EXPECT_TRUE(e["ok"]) << e.dump();
}

// The uneven interleaved plan below: 30 body layers, pp 4, vpp 2: base floor(30 / 8) = 3, remainder
// 6. Per virtual stage (chunk-major) body 4 3 5 4 | 2 4 4 4, i.e. offset [1 0 2 1 | -1 1 1 1].
json interleaved_request() {
  return {{"model", imported_model(sapp_file(30))},
          {"pipeline",
           {{"pp_degree", 4},
            {"vpp_degree", 2},
            {"micro_batch_num", 8},
            {"schedule", "interleaved_1f1b"},
            {"layer_offset", {1, 0, 2, 1, -1, 1, 1, 1}},
            {"recompute",
             {{"full", {1, 0, 2, 0, 0, 1, 0, 0}},
              {"selective", {0, 1, 0, 0, 1, 0, 0, 0}},
              {"comm", {0, 0, 1, 0, 0, 0, 2, 0}},
              {"selective_comm", {1, 0, 0, 2, 0, 0, 0, 1}}}}}}};
}

std::vector<int> flat(const json& lists) {
  std::vector<int> out;
  for (const auto& chunk : lists)
    for (const auto& x : chunk) out.push_back(x.get<int>());
  return out;
}

// MindFormers' lists (SAPP yaml_from_internal): recompute = full; select_recompute = full +
// selective_comm + selective; select_comm_recompute = full + selective_comm + comm, per stage:
//   recompute             [[1, 0, 2, 0], [0, 1, 0, 0]]
//   select_recompute      [[2, 1, 2, 2], [1, 1, 0, 1]]
//   select_comm_recompute [[2, 0, 3, 2], [0, 1, 2, 1]]
// Fed back with MindFormers' prefix meaning (SAPP internal_from_yaml): full = recompute,
// selective_comm = min(S, C) - full, selective = S - min(S, C), comm = C - min(S, C).
TEST(Interop, MindFormersExportOfUnevenInterleavedPlanRoundTrips) {
  json request = interleaved_request();
  request["export"] = {{"to", "mindformers"}};
  const json r = run("export", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& out = r["result"]["json"];
  EXPECT_EQ(r["result"]["to"], "mindformers");
  EXPECT_EQ(out["offset"], json({{1, 0, 2, 1}, {-1, 1, 1, 1}}));
  const std::vector<int> offset = flat(out["offset"]);
  EXPECT_EQ(std::accumulate(offset.begin(), offset.end(), 0), 30 % 8);  // the MindFormers sum rule
  EXPECT_EQ(out["recompute"], json({{1, 0, 2, 0}, {0, 1, 0, 0}}));
  EXPECT_EQ(out["select_recompute"], json({{2, 1, 2, 2}, {1, 1, 0, 1}}));
  EXPECT_EQ(out["select_comm_recompute"], json({{2, 0, 3, 2}, {0, 1, 2, 1}}));
  EXPECT_EQ(out["pipeline_stage"], 4);
  EXPECT_EQ(out["pp_interleave_num"], 2);
  EXPECT_EQ(out["num_layers"], 30);
  // The plan lays options out in the model's option order (comm before full on virtual stage 2),
  // MindFormers takes the first layers: said in a note, in JSON and in the YAML.
  EXPECT_FALSE(out["notes"].empty());
  const std::string yaml = r["result"]["text"];
  EXPECT_NE(yaml.find("    offset: [[1, 0, 2, 1], [-1, 1, 1, 1]]\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("recompute_config:\n  recompute: [[1, 0, 2, 0], [0, 1, 0, 0]]\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("    pp_interleave_num: 2\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("# note: "), std::string::npos) << yaml;

  const std::vector<int> F = flat(out["recompute"]), S = flat(out["select_recompute"]),
                         C = flat(out["select_comm_recompute"]);
  std::vector<int> full, both, selective, comm;
  for (std::size_t v = 0; v < F.size(); ++v) {
    const int common = std::min(S[v], C[v]);
    full.push_back(F[v]);
    both.push_back(common - F[v]);
    selective.push_back(S[v] - common);
    comm.push_back(C[v] - common);
  }
  json fed_back = interleaved_request();
  fed_back["pipeline"]["layer_offset"] = offset;
  fed_back["pipeline"]["recompute"] = {
      {"full", full}, {"selective_comm", both}, {"selective", selective}, {"comm", comm}};
  const json original = run("estimate", interleaved_request());
  const json again = run("estimate", fed_back);
  ASSERT_TRUE(original["ok"]) << original.dump();
  ASSERT_TRUE(again["ok"]) << again.dump();
  EXPECT_EQ(again["result"]["stage_layers"], original["result"]["stage_layers"]);
  EXPECT_EQ(again["result"]["recompute_counts"], original["result"]["recompute_counts"]);
  EXPECT_DOUBLE_EQ(again["result"]["step_time_ms"], original["result"]["step_time_ms"]);
  for (int s = 0; s < 4; ++s)
    EXPECT_DOUBLE_EQ(again["result"]["stages"][s]["memory"]["peak_mib"],
                     original["result"]["stages"][s]["memory"]["peak_mib"]);
}

// pp 2, 10 body layers split 4 | 6 (base 5), full recompute on the first 2 layers of stage 0: the
// lists are flat and, as the plan uses the first layers, there is nothing to note.
TEST(Interop, MindFormersExportWithoutInterleaveUsesFlatLists) {
  const json request = {
      {"model", uniform_model(10, 1, 2, 0, 1, true)},
      {"pipeline",
       {{"pp_degree", 2}, {"micro_batch_num", 4}, {"layer_offset", {-1, 1}}, {"recompute", {{"full", {2, 0}}}}}},
      {"export", {{"to", "mindformers"}}}};
  const json r = run("export", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& out = r["result"]["json"];
  EXPECT_EQ(out["offset"], json({-1, 1}));
  EXPECT_EQ(out["recompute"], json({2, 0}));
  EXPECT_EQ(out["select_recompute"], json({2, 0}));
  EXPECT_EQ(out["select_comm_recompute"], json({2, 0}));
  EXPECT_TRUE(out["notes"].empty()) << out.dump();
  const std::string yaml = r["result"]["text"];
  EXPECT_EQ(yaml.find("pp_interleave_num"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("  pipeline_stage: 2\n"), std::string::npos) << yaml;
}

// One select-only and one comm-only layer on stage 0: MindFormers' lists are prefixes, so
// select_recompute [1, 0] and select_comm_recompute [1, 0] put both kinds on the first layer; said
// in a note.
TEST(Interop, MindFormersExportNotesSelectAndCommOnOneStage) {
  const json request = {
      {"model", imported_model(sapp_file(10))},
      {"pipeline",
       {{"pp_degree", 2}, {"micro_batch_num", 4}, {"recompute", {{"selective", {1, 0}}, {"comm", {1, 0}}}}}},
      {"export", {{"to", "mindformers"}}}};
  const json r = run("export", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& out = r["result"]["json"];
  EXPECT_EQ(out["recompute"], json({0, 0}));
  EXPECT_EQ(out["select_recompute"], json({1, 0}));
  EXPECT_EQ(out["select_comm_recompute"], json({1, 0}));
  ASSERT_EQ(out["notes"].size(), 1u) << out.dump();
  EXPECT_NE(out["notes"][0].get<std::string>().find("select-only and comm-only"), std::string::npos);
}

// Embedding and head pinned, 30 decoders, pp 4 vpp 2, body 4 3 5 4 | 2 4 4 4: no even split and
// no first/last form, so a layout. Virtual stages in order, "E" opening stage 0, "L" closing
// stage 7, the two equal stages 5 and 6 grouped: Et*4|t*3|t*5|t*4|t*2|(t*4|)*2,t*4L.
TEST(Interop, MegatronLayoutRoundTripsWithPinnedEmbeddingAndHead) {
  const json request = {{"model", uniform_model(30, 1, 2, 0, 1, true)},
                        {"pipeline",
                         {{"pp_degree", 4},
                          {"vpp_degree", 2},
                          {"micro_batch_num", 8},
                          {"schedule", "interleaved_1f1b"},
                          {"layer_offset", {1, 0, 2, 1, -1, 1, 1, 1}}}},
                        {"export", {{"to", "megatron"}}}};
  const json r = run("export", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const std::string layout = r["result"]["json"]["layout"];
  EXPECT_EQ(layout, "Et*4|t*3|t*5|t*4|t*2|(t*4|)*2,t*4L");
  const json args = r["result"]["json"]["args"];
  EXPECT_EQ(args, json({"--num-layers", "30", "--pipeline-model-parallel-size", "4", "--pipeline-model-parallel-layout",
                        layout}));
  EXPECT_EQ(r["result"]["text"],
            "--num-layers 30 --pipeline-model-parallel-size 4 --pipeline-model-parallel-layout "
            "'Et*4|t*3|t*5|t*4|t*2|(t*4|)*2,t*4L'");

  // The layout read back as the partition (pipeline.megatron_layout) is the plan exported.
  json pipeline = request["pipeline"];
  const json exported_layers =
      run("estimate", {{"model", request["model"]}, {"pipeline", pipeline}})["result"]["stage_layers"];
  pipeline.erase("stage_layers");
  pipeline.erase("layer_offset");
  pipeline.erase("stage_partition");
  pipeline["megatron_layout"] = layout;
  const json read_back = run("estimate", {{"model", request["model"]}, {"pipeline", pipeline}});
  ASSERT_TRUE(read_back["ok"]) << read_back.dump();
  EXPECT_EQ(read_back["result"]["stage_layers"], exported_layers);
  EXPECT_EQ(read_back["result"]["megatron_layout"], layout);
}

// Even split with virtual stages: 8 decoders over 4 x 2 virtual stages, one each, and full
// recompute on every layer: Megatron-LM's uniform method.
TEST(Interop, MegatronEvenSplitWithVirtualStagesAndUniformRecompute) {
  const json request = {{"model", uniform_model(8, 1, 2, 0, 1, true)},
                        {"pipeline",
                         {{"pp_degree", 4},
                          {"vpp_degree", 2},
                          {"micro_batch_num", 8},
                          {"schedule", "interleaved_1f1b"},
                          {"recompute", {{"full", {1, 1, 1, 1, 1, 1, 1, 1}}}}}},
                        {"export", {{"to", "megatron"}}}};
  const json r = run("export", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(
      r["result"]["json"]["args"],
      json({"--num-layers", "8", "--pipeline-model-parallel-size", "4", "--num-virtual-stages-per-pipeline-rank", "2",
            "--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1"}));
}

// Megatron-LM's all-to-all overlap: interleaved_1f1b_overlap exports the interleaved arguments with
// --overlap-moe-expert-parallel-comm and --delay-wgrad-compute (the MoE README's pair) and names the
// overlap's own conditions (transformer_config.py); whole-layer recompute, which Megatron-LM then
// refuses, is written and said to be refused.
TEST(Interop, MegatronOverlapScheduleWritesItsFlags) {
  json request = {
      {"model", uniform_model(8, 1, 2, 0, 1, true)},
      {"pipeline",
       {{"pp_degree", 4}, {"vpp_degree", 2}, {"micro_batch_num", 8}, {"schedule", "interleaved_1f1b_overlap"}}},
      {"export", {{"to", "megatron"}}}};
  json r = run("export", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["json"]["args"],
            json({"--num-layers", "8", "--pipeline-model-parallel-size", "4", "--num-virtual-stages-per-pipeline-rank",
                  "2", "--overlap-moe-expert-parallel-comm", "--delay-wgrad-compute"}));
  const auto said = [&](const std::string& words) {
    for (const auto& note : r["result"]["json"]["notes"])
      if (note.get<std::string>().find(words) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(said("needs expert parallelism (--expert-model-parallel-size above 1)")) << r.dump();
  EXPECT_FALSE(said("has no argument here")) << r.dump();
  EXPECT_FALSE(said("recomputes whole layers")) << r.dump();
  request["pipeline"]["recompute"] = {{"full", {1, 1, 1, 1, 1, 1, 1, 1}}};
  r = run("export", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_TRUE(said("recomputes whole layers, which Megatron-LM refuses")) << r.dump();
}

// 22 decoders, pp 4, body 4 6 6 6: only the first stage differs, so --decoder-first-pipeline-num-layers
// 4 (Megatron-LM then splits the other 18 evenly over 3 stages); full recompute on the first 2
// layers of every stage: block 2. Unequal counts cannot be written and are noted.
TEST(Interop, MegatronFirstStageArgumentAndBlockRecompute) {
  json request = {{"model", uniform_model(22, 1, 2, 0, 1, true)},
                  {"pipeline",
                   {{"pp_degree", 4},
                    {"micro_batch_num", 8},
                    {"stage_layers", {5, 6, 6, 7}},
                    {"recompute", {{"full", {2, 2, 2, 2}}}}}},
                  {"export", {{"to", "megatron"}}}};
  json r = run("export", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["text"],
            "--num-layers 22 --pipeline-model-parallel-size 4 --decoder-first-pipeline-num-layers 4 "
            "--recompute-granularity full --recompute-method block --recompute-num-layers 2");
  EXPECT_TRUE(r["result"]["json"]["notes"].empty()) << r.dump();

  request["pipeline"]["recompute"] = {{"full", {1, 2, 0, 0}}};
  r = run("export", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["json"]["args"].size(), 6u);  // no recompute arguments
  ASSERT_EQ(r["result"]["json"]["notes"].size(), 1u);
  EXPECT_NE(r["result"]["json"]["notes"][0].get<std::string>().find("1, 2, 0 and 0"), std::string::npos) << r.dump();
}

// pp 2, 4 decoders (F 1, B 2 each), 3 micro batches, 1F1B. Each stage holds 2 decoders: F 2 ms,
// B 4 ms. Stage 0 runs F0 at 0 (ts 0, dur 2000 us); stage 1 runs F0 when it arrives at 2 ms (ts
// 2000) and B0 right after (ts 4000, dur 4000). Activation 2 x 1 MiB per micro batch; 1F1B holds
// min(pp - s, m) micro batches: peak 4 MiB on stage 0, 2 MiB on stage 1.
TEST(Interop, ChromeTraceHasOneEventPerOperationAndNamedStages) {
  const json request = {{"model", uniform_model(4, 1, 2, 0, 1)},
                        {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 3}}},
                        {"export", {{"to", "chrome-trace"}}}};
  const json r = run("export", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json trace = json::parse(r["result"]["text"].get<std::string>());
  EXPECT_EQ(trace, r["result"]["json"]);
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  int complete = 0;
  std::map<int, std::string> thread_names;
  std::map<int, double> counter_peak;
  std::string process;
  const json* stage1_f0 = nullptr;
  const json* stage1_b0 = nullptr;
  const json* stage0_f0 = nullptr;
  for (const auto& ev : trace["traceEvents"]) {
    const std::string ph = ev["ph"];
    if (ph == "X") {
      ++complete;
      EXPECT_EQ(ev["pid"], 0);
      EXPECT_EQ(ev["cat"], ev["args"]["op"]);
      EXPECT_EQ(ev["name"], ev["args"]["op"].get<std::string>() + std::to_string(ev["args"]["micro_batch"].get<int>()));
      EXPECT_EQ(ev["args"]["virtual_stage"], ev["tid"]);
      if (ev["name"] == "F0" && ev["tid"] == 0) stage0_f0 = &ev;
      if (ev["name"] == "F0" && ev["tid"] == 1) stage1_f0 = &ev;
      if (ev["name"] == "B0" && ev["tid"] == 1) stage1_b0 = &ev;
    } else if (ph == "M" && ev["name"] == "thread_name") {
      thread_names[ev["tid"].get<int>()] = ev["args"]["name"];
    } else if (ph == "M" && ev["name"] == "process_name") {
      process = ev["args"]["name"];
    } else if (ph == "C") {
      const std::string name = ev["name"];
      const int stage = name == "memory stage 0" ? 0 : name == "memory stage 1" ? 1 : -1;
      ASSERT_GE(stage, 0) << name;
      counter_peak[stage] = std::max(counter_peak[stage], ev["args"]["activation_mib"].get<double>());
    }
  }
  EXPECT_EQ(complete, 2 * 3 * 2);  // stages x micro batches x (F, B)
  EXPECT_EQ(process, "pipeline");
  EXPECT_EQ(thread_names, (std::map<int, std::string>{{0, "stage 0"}, {1, "stage 1"}}));
  ASSERT_TRUE(stage0_f0 && stage1_f0 && stage1_b0);
  EXPECT_DOUBLE_EQ((*stage0_f0)["ts"], 0);
  EXPECT_DOUBLE_EQ((*stage0_f0)["dur"], 2000);
  EXPECT_DOUBLE_EQ((*stage1_f0)["ts"], 2000);
  EXPECT_DOUBLE_EQ((*stage1_b0)["ts"], 4000);
  EXPECT_DOUBLE_EQ((*stage1_b0)["dur"], 4000);
  EXPECT_DOUBLE_EQ(counter_peak[0], 4);
  EXPECT_DOUBLE_EQ(counter_peak[1], 2);
}

TEST(Interop, ExportNeedsAKnownTarget) {
  json request = {{"model", uniform_model(4, 1, 2, 0, 1)}, {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 2}}}};
  EXPECT_TRUE(has_error(run("export", request), "EXPORT_TARGET_UNKNOWN", "/export/to"));
  request["export"] = {{"to", "deepspeed"}};
  EXPECT_TRUE(has_error(run("export", request), "EXPORT_TARGET_UNKNOWN", "/export/to"));
  request.erase("model");
  const json r = run("export", request);  // every problem at once
  EXPECT_TRUE(has_error(r, "EXPORT_TARGET_UNKNOWN", "/export/to")) << r.dump();
  EXPECT_TRUE(has_error(r, "MODEL_MISSING", "/model")) << r.dump();
}

// MindFormers with a stated run: the parallel sizes under parallel_config (dp 4 x tp 2 x cp 1 x pp 2 =
// 16 devices, as MindFormers requires of the device count), sequence parallelism, and the sharded
// optimizer as MindSpore's parallel optimizer; a world size they do not multiply to is noted.
TEST(Interop, MindFormersWritesTheRunsParallelConfig) {
  json request = {{"model", uniform_model(8, 1, 2, 0, 1, true)},
                  {"parallel", {{"tp_degree", 2}, {"sequence_parallel", true}, {"dp_degree", 4}}},
                  {"training", {{"sharding", "optimizer"}, {"world_size", 16}}},
                  {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 4}}},
                  {"export", {{"to", "mindformers"}}}};
  json r = run("export", request);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const std::string yaml = r["result"]["text"];
  EXPECT_NE(yaml.find("parallel:\n  enable_parallel_optimizer: True\nparallel_config:\n  data_parallel: 4\n  "
                      "model_parallel: 2\n  context_parallel: 1\n  pipeline_stage: 2\n  micro_batch_num: 4\n  "
                      "use_seq_parallel: True\n"),
            std::string::npos)
      << yaml;
  EXPECT_EQ(r["result"]["json"]["parallel_config"]["data_parallel"], 4);
  EXPECT_TRUE(r["result"]["json"]["notes"].empty()) << r.dump();
  request["training"]["world_size"] = 32;
  r = run("export", request);
  ASSERT_EQ(r["result"]["json"]["notes"].size(), 1u) << r.dump();
  EXPECT_EQ(
      r["result"]["json"]["notes"][0],
      "MindFormers needs data_parallel x model_parallel x context_parallel x pipeline_stage = the device count: 4 "
      "x 2 x 1 x 2 is not the world size 32.");
}

}  // namespace
}  // namespace ppb::test
