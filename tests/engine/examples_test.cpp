// Every file in examples/ loads, estimates and balances: the files a person opens first must work.
// The directory is listed, so a new example is covered without touching this test; SAPP files go
// through `import` first, as a user would take them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace ppb::test {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> example_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(PPB_SOURCE_DIR) / "examples"))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

json read_json(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return json::parse(file);
}

// Layers the file describes, counted from the file itself: ppb.model.v1 entries stand for `count`
// layers (default 1); SAPP BODY entries for `nb_layer`, HEAD and TAIL for one each.
int described_layers(const json& document) {
  int layers = 0;
  if (document.contains("layers_description")) {
    for (const auto& entry : document["layers_description"])
      layers += entry["type"] == "BODY" ? entry["nb_layer"].get<int>() : 1;
  } else {
    for (const auto& entry : document["layers"]) layers += entry.value("count", 1);
  }
  return layers;
}

int sum(const json& numbers) {
  int total = 0;
  for (const auto& n : numbers) total += n.get<int>();
  return total;
}

TEST(Examples, DirectoryHoldsTheDocumentedExamples) {
  const auto files = example_files();
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(f.filename().string());
  for (const char* expected :
       {"dense-8l.json", "dense-profiled-24l.json", "llama2-70b.json", "moe-16x.json", "sapp-llama-80l.json"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
}

TEST(Examples, EveryExampleLoadsEstimatesAndBalances) {
  const auto files = example_files();
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    const json document = read_json(path);
    const int layers = described_layers(document);
    ASSERT_GT(layers, 0);

    json model = document;
    if (document.contains("layers_description")) {
      const json imported = run("import", document);
      ASSERT_TRUE(imported["ok"]) << imported.dump();
      EXPECT_EQ(imported["result"]["source"], "sapp");
      model = imported["result"]["model"];
    }

    // Every recompute option the model offers is open to the balancer.
    json options = json::array();
    for (const auto& entry : model["layers"])
      if (entry.contains("recompute"))
        for (const auto& [name, _] : entry["recompute"].items())
          if (std::find(options.begin(), options.end(), name) == options.end()) options.push_back(name);

    const int pp = 4;
    json request = {{"model", model},
                    {"device", {{"memory_limit_mib", 81920}, {"p2p_bandwidth_gbs", 25}, {"p2p_latency_ms", 0.02}}},
                    {"pipeline", {{"pp_degree", pp}, {"micro_batch_num", 4 * pp}}},
                    {"balance", {{"recompute_options", options}}}};
    // Symbolic examples state the bytes per parameter their `params` were counted with.
    if (model.contains("bytes_per_param")) request["training"] = {{"bytes_per_param", model["bytes_per_param"]}};

    const json estimated = run("estimate", request);
    ASSERT_TRUE(estimated["ok"]) << estimated.dump();
    const json& e = estimated["result"];
    EXPECT_EQ(e["stages"].size(), static_cast<std::size_t>(pp));
    EXPECT_EQ(sum(e["stage_layers"]), layers);
    EXPECT_EQ(e["stage_partition"].size(), static_cast<std::size_t>(layers));
    EXPECT_GT(e["step_time_ms"].get<double>(), 0);

    const json balanced = run("balance", request);
    ASSERT_TRUE(balanced["ok"]) << balanced.dump();
    const json& b = balanced["result"];
    EXPECT_EQ(sum(b["stage_layers"]), layers);
    EXPECT_EQ(b["stage_partition"].size(), static_cast<std::size_t>(layers));
    ASSERT_TRUE(b.contains("baseline"));
    EXPECT_EQ(sum(b["baseline"]["stage_layers"]), layers);
    // The even split is one of the plans PPB considers, so a feasible even split is never beaten
    // by a slower answer.
    if (b["baseline"]["feasible"] == true) {
      EXPECT_TRUE(b["feasible"]);
      EXPECT_LE(b["step_time_ms"].get<double>(), b["baseline"]["step_time_ms"].get<double>() * (1 + 1e-12));
    }
  }
}

// The requests of examples/requests/ (models teams train in 2025-26, with the settings their authors
// or NVIDIA's recipes publish; docs/modelling.md compares PPB's plans with them): each estimates the
// published plan and balances to a plan that fits the device's memory, and each model holds its
// published parameter total (the derivations are in transformer_architectures_test.cpp).
TEST(Examples, RequestsOfTodaysModelsRunAsPublished) {
  const std::vector<std::pair<std::string, double>> totals = {
      {"deepseek-v3.json", 671.03e9}, {"llama31-405b.json", 405.85e9}, {"qwen3-235b-a22b.json", 235.09e9}};
  for (const auto& [file, total] : totals) {
    SCOPED_TRACE(file);
    const json request = read_json(fs::path(PPB_SOURCE_DIR) / "examples" / "requests" / file);
    const json imported = run("import", request);
    ASSERT_TRUE(imported["ok"]) << imported.dump();
    EXPECT_NEAR(imported["result"]["model"]["total_params"].get<double>(), total, 0.001 * total);
    const json estimated = run("estimate", request);
    ASSERT_TRUE(estimated["ok"]) << estimated.dump();
    EXPECT_FALSE(estimated.contains("warnings")) << estimated["warnings"].dump();
    const json balanced = run("balance", request);
    ASSERT_TRUE(balanced["ok"]) << balanced.dump();
    EXPECT_TRUE(balanced["result"]["feasible"]);
  }
}

}  // namespace
}  // namespace ppb::test
