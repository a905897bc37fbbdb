// Request text in and response text out: the writer gives exactly the text of nlohmann's dump(), and
// the parse reports its problems as diagnostics.
#include "ppb/core/json_text.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// dump() is the reference: every kind of value, numbers whole, negative, unsigned, fractional, tiny,
// huge and not finite (null), and strings that are plain, quoted, escaped, non-ASCII or markup.
TEST(JsonText, WritesExactlyWhatDumpWrites) {
  const json value = {
      {"null", nullptr},
      {"bools", {true, false}},
      {"integers", {0, -7, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::uint64_t>::max()}},
      {"floats", {0.5, 1.0 / 3, 123456789.125, 2.5e-300, 1e300, -0.0, std::numeric_limits<double>::infinity()}},
      {"strings", {"plain", "quote \" and \\ backslash", "tab\tnewline\n\u0001", "m\u00fcll \u4e2d", "<b>&amp;</b>"}},
      {"empty", {{"object", json::object()}, {"array", json::array()}, {"string", ""}}},
      {"nested", {{{"a", {{"b", {1, 2, {{"c", nullptr}}}}}}}}}};
  EXPECT_EQ(json_text(value), value.dump());
  EXPECT_EQ(json_text(json("x")), "\"x\"");
  EXPECT_EQ(json_text(json(3)), "3");
}

TEST(JsonText, ParseReportsSyntaxAndKeepsValidText) {
  Diagnostics d;
  EXPECT_FALSE(parse_json_text("{\"model\": ", d));
  ASSERT_EQ(d.errors().size(), 1u);
  EXPECT_EQ(d.errors()[0].code, "JSON_SYNTAX");
  EXPECT_EQ(d.errors()[0].path, "");
  Diagnostics ok;
  const auto parsed = parse_json_text(R"({"pipeline": {"pp_degree": 4}})", ok);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ((*parsed)["pipeline"]["pp_degree"], 4);
}

// Every value of a document parsed with /model/layers kept as text, each kept entry built by read_deferred.
json built(const json& value) {
  json storage;
  const json& v = read_deferred(value, storage);
  if (v.is_object()) {
    json out = json::object();
    for (const auto& [key, element] : v.items()) out[key] = built(element);
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const auto& element : v) out.push_back(built(element));
    return out;
  }
  return v;
}

// The deferred parse gives the document json::parse gives once each kept entry is built, and keeps
// exactly the objects of /model/layers as text: not a number among them, not "layers" elsewhere
// (top level, deeper, under another key), and every "model" and "layers" of a document that repeats
// its keys (the last wins, as in json::parse). Strings that hold brackets, commas, colons and escaped
// quotes do not move the spans.
TEST(JsonText, DeferredLayersBuildTheSameDocument) {
  const std::string text = R"({"layers": [{"name": "top"}],
    "model": {"layers": [{"name": "old"}]},
    "model": {"name": "m \"}{\" ,:[", "layers": [
        {"name": "a,]}\\", "forward_ms": 1.5, "recompute": {"full": {"activation_mib": 0.2, "extra_ms": 1}}},
        7,
        {"name": "b", "tags": [{"x": [1, {"y": "}"}]}], "count": 3},
        {}],
      "other": [{"name": "not a layer"}]},
    "pipeline": {"recompute": {"layers": {"full": [1, 2]}}, "pp_degree": 2}})";
  // /model/layers an object, or /model an array: nothing is kept as text.
  for (const std::string other : {R"({"model": {"layers": {"a": {"name": "x"}}}})", R"({"model": [{"layers": [{}]}]})",
                                  R"([{"model": {"layers": [{}]}}])"}) {
    Diagnostics fine;
    const auto parsed = parse_json_text(other, fine, DeferLayers::model_layers);
    ASSERT_TRUE(parsed) << other;
    EXPECT_EQ(*parsed, json::parse(other)) << other;
  }
  Diagnostics d;
  const auto deferred = parse_json_text(text, d, DeferLayers::model_layers);
  ASSERT_TRUE(deferred) << d.errors().front().message;
  const json& layers = (*deferred)["model"]["layers"];
  ASSERT_EQ(layers.size(), 4u);
  EXPECT_TRUE(layers[0].is_binary());
  EXPECT_EQ(layers[1], 7);
  EXPECT_TRUE(layers[2].is_binary());
  EXPECT_TRUE(layers[3].is_binary());
  EXPECT_TRUE((*deferred)["layers"][0].is_object());
  EXPECT_TRUE((*deferred)["model"]["other"][0].is_object());
  EXPECT_TRUE((*deferred)["pipeline"]["recompute"]["layers"].is_object());
  json storage;
  EXPECT_EQ(read_deferred(layers[0], storage)["name"], "a,]}\\");
  EXPECT_EQ(read_deferred(layers[2], storage)["tags"][0]["x"][1]["y"], "}");
  EXPECT_EQ(built(*deferred), json::parse(text));
  // Without the option nothing is kept as text.
  const auto whole = parse_json_text(text, d);
  ASSERT_TRUE(whole);
  EXPECT_TRUE((*whole)["model"]["layers"][0].is_object());
}

// A key on the way to /model/layers written with an escape is not decoded by the pass that finds the
// spans: that document is parsed whole, to the same value.
TEST(JsonText, DeferredLayersFallBackWhereAKeyIsEscaped) {
  const std::string text = R"({"model": {"lay\u0065rs": [{"name": "a"}]}})";
  Diagnostics d;
  const auto parsed = parse_json_text(text, d, DeferLayers::model_layers);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE((*parsed)["model"]["layers"][0].is_object());
  EXPECT_EQ(*parsed, json::parse(text));
}

// A fault inside an entry kept as text is found by the parse, not later by the reader: the same code
// and message as without the option.
TEST(JsonText, DeferredLayersReportFaultsInsideEntries) {
  for (const std::string text :
       {R"({"model": {"layers": [{"name": "a",, "count": 1}]}})",
        R"({"model": {"layers": [{"name": "a", "forward_ms": 1e400}]}})", R"({"model": {"layers": [{"name": "a"})"}) {
    Diagnostics deferred, whole;
    EXPECT_FALSE(parse_json_text(text, deferred, DeferLayers::model_layers)) << text;
    EXPECT_FALSE(parse_json_text(text, whole)) << text;
    ASSERT_EQ(deferred.errors().size(), 1u) << text;
    ASSERT_EQ(whole.errors().size(), 1u) << text;
    EXPECT_EQ(deferred.errors()[0].code, whole.errors()[0].code) << text;
    EXPECT_EQ(deferred.errors()[0].message, whole.errors()[0].message) << text;
  }
  Diagnostics d;
  parse_json_text(R"({"model": {"layers": [{"name": "a",, "count": 1}]}})", d, DeferLayers::model_layers);
  // nlohmann names the byte it stopped at, counted from 1: the second comma is the 36th.
  EXPECT_NE(d.errors()[0].message.find("(byte 36)"), std::string::npos) << d.errors()[0].message;
}

}  // namespace
}  // namespace ppb::test
