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

}  // namespace
}  // namespace ppb::test
