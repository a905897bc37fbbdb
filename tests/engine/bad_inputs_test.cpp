// The bad-input corpus (tests/bad-inputs/, listed with the expected code in expected.txt): every
// malformed or hostile request gets the contract's error JSON, or a result, never an exception.
// The same files go through the CLI and the WASM module in tests/bad-inputs.test.mjs; the inputs
// too large to keep in the repository are made here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "ppb/core/limits.hpp"

namespace ppb::test {
namespace {

const std::string kCorpus = std::string(PPB_SOURCE_DIR) + "/tests/bad-inputs";

std::string read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file) << path;
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// expected.txt: "FILE EXPECT [example]  # why", EXPECT an error code, "warning:CODE" or "ok".
std::map<std::string, std::string> expected_codes() {
  std::map<std::string, std::string> expected;
  std::istringstream lines(read_bytes(kCorpus + "/expected.txt"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string file, code;
    fields >> file >> code;
    EXPECT_FALSE(expected.count(file)) << file << " is listed twice in expected.txt";
    expected[file] = code;
  }
  return expected;
}

// Checks the envelope and the expected outcome: "ok" (a result), "warning:CODE" (a result whose
// warnings hold CODE) or an error code; returns the parsed response.
json check(const std::string& command, const std::string& text, const std::string& code, const std::string& what) {
  const auto out = run_command(command, text);
  EXPECT_TRUE(json::accept(out.json)) << what << ": the response is not JSON";
  if (!json::accept(out.json)) return json();
  const json response = json::parse(out.json);
  const std::string warning_prefix = "warning:";
  if (code == "ok" || code.rfind(warning_prefix, 0) == 0) {
    EXPECT_EQ(response["ok"], true) << what << ": " << out.json.substr(0, 400);
    EXPECT_EQ(out.exit_code, 0) << what;
    if (code != "ok") {
      const std::string warning = code.substr(warning_prefix.size());
      std::vector<std::string> warnings;
      for (const auto& w : response.value("warnings", json::array())) {
        EXPECT_TRUE(w["path"].is_string() && w["message"].is_string()) << what;
        warnings.push_back(w.value("code", ""));
      }
      EXPECT_NE(std::find(warnings.begin(), warnings.end(), warning), warnings.end())
          << what << ": expected the warning " << warning << ", got " << out.json.substr(0, 400);
    }
  } else {
    EXPECT_EQ(response["ok"], false) << what;
    EXPECT_EQ(out.exit_code, 2) << what << ": " << out.json.substr(0, 400);
    const auto codes = error_codes(response);
    EXPECT_NE(std::find(codes.begin(), codes.end(), code), codes.end())
        << what << ": expected " << code << ", got " << out.json.substr(0, 400);
    for (const auto& e : response.value("errors", json::array())) {
      EXPECT_NE(e["code"], "INTERNAL") << what;
      EXPECT_TRUE(e["path"].is_string() && e["message"].is_string()) << what;
    }
  }
  return response;
}

TEST(BadInputs, CorpusHasSixtyDistinctFilesAllListed) {
  const auto expected = expected_codes();
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus)) {
    const std::string name = entry.path().filename().string();
    if (name == "expected.txt" || name == "README.md") continue;
    ++files;
    EXPECT_TRUE(expected.count(name)) << name << " is not in expected.txt";
  }
  EXPECT_EQ(files, expected.size()) << "expected.txt lists a file that does not exist";
  EXPECT_GE(files, 60u);
}

TEST(BadInputs, EveryFileGetsItsExpectedAnswer) {
  for (const auto& [file, code] : expected_codes()) {
    const std::string command = file.substr(0, file.find('.'));
    check(command, read_bytes(kCorpus + "/" + file), code, file);
  }
}

// Made here rather than kept: a 50 MB document of each kind.
TEST(BadInputs, FiftyMegabyteName) {
  json request = {{"model", uniform_model(4, 1, 2, 0, 0)}, {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 2}}}};
  request["model"]["name"] = std::string(50'000'000, 'x');
  const json r = check("estimate", request.dump(), "TOO_LONG", "50 MB model name");
  // The message names the length, not the name.
  for (const auto& e : r["errors"]) EXPECT_LT(e["message"].get<std::string>().size(), 200u);
}

TEST(BadInputs, FiftyMegabytesOfWhitespaceAroundAValidRequest) {
  const std::string request =
      json({{"model", uniform_model(4, 1, 2, 0, 0)}, {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 2}}}}).dump();
  const std::string padding(25'000'000, ' ');
  check("estimate", padding + request + padding, "ok", "50 MB of whitespace");
}

TEST(BadInputs, FiftyMegabytesOfValues) {
  std::string text = R"({"model": {"layers": [)";
  text.reserve(50'000'100);
  while (text.size() < 50'000'000) text += "0,";
  text += "0]}}";
  check("estimate", text, "JSON_TOO_MANY_VALUES", "50 MB of numbers");
}

TEST(BadInputs, FiftyMegabytesOfLayers) {
  // 3.5 million layer entries would be 50 MB; the value cap stops it before parsing.
  std::string text = R"({"model": {"layers": [)";
  while (text.size() < 50'000'000) text += R"({"name":"l","forward_ms":1},)";
  text += R"({"name":"l","forward_ms":1}]}, "pipeline": {"micro_batch_num": 1}})";
  check("estimate", text, "JSON_TOO_MANY_VALUES", "50 MB of layers");
}

TEST(BadInputs, AboveTheInputCap) {
  std::string text(static_cast<std::size_t>(limits::max_input_bytes) + 1, ' ');
  check("import", text, "INPUT_TOO_LARGE", "64 MiB + 1 byte");
}

TEST(BadInputs, HundredThousandLevelsDeep) {
  check("balance", std::string(100'000, '[') + std::string(100'000, ']'), "JSON_TOO_DEEP", "100,000 nested arrays");
  check("search", std::string(100'000, '{'), "JSON_TOO_DEEP", "100,000 open objects");
}

}  // namespace
}  // namespace ppb::test
