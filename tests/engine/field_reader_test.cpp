// The field reader every request parser reads through: codes, paths and sentences for types and
// ranges, required fields, lists, and unknown-field warnings that never repeat a hostile name.
#include "core/field_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "helpers.hpp"

namespace ppb::test {
namespace {

const Diagnostic* find(const std::vector<Diagnostic>& list, const std::string& path) {
  auto it = std::find_if(list.begin(), list.end(), [&](const Diagnostic& d) { return d.path == path; });
  return it == list.end() ? nullptr : &*it;
}

TEST(FieldReader, TypeNamesSayTheKindOfValue) {
  EXPECT_STREQ(type_name(json(nullptr)), "null");
  EXPECT_STREQ(type_name(json::object()), "an object");
  EXPECT_STREQ(type_name(json::array()), "an array");
  EXPECT_STREQ(type_name(json("x")), "a string");
  EXPECT_STREQ(type_name(json(true)), "a boolean");
  EXPECT_STREQ(type_name(json(-3)), "a number");
  EXPECT_STREQ(type_name(json(3u)), "a number");
  EXPECT_STREQ(type_name(json(2.5)), "a number");
}

// Whole numbers in full, fractions with at most three decimals and no trailing zeros, the very large
// and very small in exponent form.
TEST(FieldReader, NumberTextIsShortAndExact) {
  EXPECT_EQ(number_text(1e12), "1000000000000");
  EXPECT_EQ(number_text(-8), "-8");
  EXPECT_EQ(number_text(2.5), "2.5");
  EXPECT_EQ(number_text(3.14159), "3.142");
  EXPECT_EQ(number_text(0.125), "0.125");
  EXPECT_EQ(number_text(1e300), "1e+300");
}

// Short plain text is quoted; markup, quotes, control characters and long text are not repeated.
TEST(FieldReader, QuotedInputRepeatsOnlyShortPlainText) {
  EXPECT_EQ(quoted_input("2f2b"), "\"2f2b\"");
  EXPECT_EQ(quoted_input(""), "\"\"");
  EXPECT_EQ(quoted_input("<img src=x onerror=alert(1)>"), "(a 28-byte text, not repeated here)");
  EXPECT_EQ(quoted_input("a\"b"), "(a 3-byte text, not repeated here)");
  EXPECT_EQ(quoted_input(std::string("bell\a")), "(a 5-byte text, not repeated here)");
  // Built by appending: GCC 12's -Wrestrict misfires on "\"" + std::string + "\"" under ASan.
  std::string quoted_64 = "\"";
  quoted_64.append(64, 'a').append("\"");
  EXPECT_EQ(quoted_input(std::string(64, 'a')), quoted_64);
  EXPECT_EQ(quoted_input(std::string(65, 'a')), "(a 65-byte text, not repeated here)");
  // Printable non-ASCII is repeated (a layer named in Chinese, 层); broken UTF-8, C1 controls and the
  // characters that hide or reorder text are not.
  EXPECT_EQ(quoted_input("\xe5\xb1\x82"), "\"\xe5\xb1\x82\"");
  EXPECT_EQ(quoted_input("d\xc3\xa9j\xc3\xa0"), "\"d\xc3\xa9j\xc3\xa0\"");        // déjà
  EXPECT_EQ(quoted_input("\xe5\xb1"), "(a 2-byte text, not repeated here)");      // cut short
  EXPECT_EQ(quoted_input("\xc0\xbc"), "(a 2-byte text, not repeated here)");      // overlong "<"
  EXPECT_EQ(quoted_input("\xed\xa0\x80"), "(a 3-byte text, not repeated here)");  // a surrogate
  EXPECT_EQ(quoted_input("\xc2\x85"), "(a 2-byte text, not repeated here)");      // NEL, a C1 control
  EXPECT_EQ(quoted_input("a\xe2\x80\xae"
                         "b"),
            "(a 5-byte text, not repeated here)");  // right-to-left override
  EXPECT_EQ(quoted_input("a\xe2\x80\x8b"
                         "b"),
            "(a 5-byte text, not repeated here)");  // zero-width space
}

TEST(FieldReader, UnknownFieldsAreWarningsThatNeverEchoAHostileName) {
  const std::string long_name(2000, 'k');
  const json object = {{"known", 1},       {"colour", "blue"}, {"<script>alert(1)</script>", 2},
                       {"line\nbreak", 3}, {long_name, 4},     {"a/b~c", 5}};
  Diagnostics d;
  {
    FieldReader f(object, "/device", d);
    EXPECT_EQ(f.integer("known", {0, 10}), 1);
  }
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d.warnings().size(), 5u);
  for (const Diagnostic& w : d.warnings()) {
    EXPECT_EQ(w.code, "UNKNOWN_FIELD");
    EXPECT_EQ(w.message.find('<'), std::string::npos) << w.message;
    EXPECT_EQ(w.message.find('\n'), std::string::npos) << w.message;
    EXPECT_EQ(w.message.find(long_name), std::string::npos);
  }
  ASSERT_TRUE(find(d.warnings(), "/device/colour"));
  EXPECT_EQ(find(d.warnings(), "/device/colour")->message, "field \"colour\" is not part of ppb.v1 and was ignored.");
  // The path holds the name in full, escaped by RFC 6901 ("~" is "~0", "/" is "~1").
  ASSERT_TRUE(find(d.warnings(), "/device/a~1b~0c"));
  const Diagnostic* script = find(d.warnings(), "/device/<script>alert(1)<~1script>");
  ASSERT_TRUE(script);
  EXPECT_EQ(
      script->message,
      "a field is not part of ppb.v1 and was ignored; its name (25 bytes) is not repeated here, the path holds it.");
  ASSERT_TRUE(find(d.warnings(), "/device/" + long_name));
}

// The owner names what the field is not part of; allowed fields and allow_all() silence warnings.
TEST(FieldReader, OwnerAndAllowedFields) {
  const json object = {{"a", 1}, {"b", 2}, {"c", 3}};
  Diagnostics d;
  {
    FieldReader f(object, "/transformer", d, "the transformer description");
    f.allow({"a", "b"});
  }
  ASSERT_EQ(d.warnings().size(), 1u);
  EXPECT_EQ(d.warnings()[0].path, "/transformer/c");
  EXPECT_EQ(d.warnings()[0].message, "field \"c\" is not part of the transformer description and was ignored.");
  Diagnostics none;
  {
    FieldReader f(object, "/x", none);
    f.allow_all();
  }
  EXPECT_TRUE(none.warnings().empty());
}

// Below the minimum is NEGATIVE for a value under 0 and OUT_OF_RANGE otherwise; above the maximum
// is the range's code, a cap ("above the cap of") or a bound of the meaning ("at most").
TEST(FieldReader, NumberRangesAndTheirCodes) {
  const json object = {{"minus", -2}, {"zero", 0}, {"huge", 1e300}, {"two", 2}, {"text", "5"}, {"ok", 0.5}};
  Diagnostics d;
  FieldReader f(object, "/s", d);
  EXPECT_FALSE(f.number("minus"));
  EXPECT_FALSE(f.number("zero", {.min_exclusive = true}));
  EXPECT_FALSE(f.number("huge"));
  EXPECT_FALSE(f.number("two", {.min = 0, .min_exclusive = true, .max = 1, .over_code = "OUT_OF_RANGE"}));
  EXPECT_FALSE(f.number("text"));
  EXPECT_EQ(f.number("ok", {.max = 1, .over_code = "OUT_OF_RANGE"}), 0.5);
  EXPECT_FALSE(f.number("absent"));  // absent is not an error
  const auto& e = d.errors();
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[0].code, "NEGATIVE");
  EXPECT_EQ(e[0].message, "minus is -2; it must be at least 0.");
  EXPECT_EQ(e[1].code, "OUT_OF_RANGE");
  EXPECT_EQ(e[1].message, "zero is 0; it must be above 0.");
  EXPECT_EQ(e[2].code, "TOO_LARGE");
  EXPECT_EQ(e[2].message, "huge is 1e+300, above the cap of 1000000000000.");
  EXPECT_EQ(e[3].code, "OUT_OF_RANGE");
  EXPECT_EQ(e[3].message, "two is 2; it must be at most 1.");
  EXPECT_EQ(e[4].code, "TYPE_MISMATCH");
  EXPECT_EQ(e[4].path, "/s/text");
  EXPECT_EQ(e[4].message, "text must be a number, not a string.");
}

// A field that may be negative down to a bound is OUT_OF_RANGE below it, not NEGATIVE (SAPP's
// backward_coef, above -1).
TEST(FieldReader, BelowANegativeMinimumIsOutOfRange) {
  const json object = {{"coef", -2}, {"at_bound", -1}, {"ok", -0.5}};
  Diagnostics d;
  FieldReader f(object, "", d);
  EXPECT_FALSE(f.number("coef", {.min = -1, .min_exclusive = true}));
  EXPECT_FALSE(f.number("at_bound", {.min = -1, .min_exclusive = true}));
  EXPECT_EQ(f.number("ok", {.min = -1, .min_exclusive = true}), -0.5);
  ASSERT_EQ(d.errors().size(), 2u);
  EXPECT_EQ(d.errors()[0].code, "OUT_OF_RANGE");
  EXPECT_EQ(d.errors()[0].message, "coef is -2; it must be above -1.");
  EXPECT_EQ(d.errors()[1].code, "OUT_OF_RANGE");
}

// A section of the request read by its own parser: absent is nothing, not an object is one error.
TEST(FieldReader, RequestSections) {
  const json request = {{"balance", {{"mode", "optimal"}}}, {"export", "megatron"}};
  Diagnostics d;
  EXPECT_NE(request_section(request, "balance", d), nullptr);
  EXPECT_EQ(request_section(request, "search", d), nullptr);
  EXPECT_EQ(request_section(request, "export", d), nullptr);
  EXPECT_EQ(request_section(json::array(), "export", d), nullptr);
  ASSERT_EQ(d.errors().size(), 1u);
  EXPECT_EQ(d.errors()[0].path, "/export");
  EXPECT_EQ(d.errors()[0].message, "export must be an object, not a string.");
}

TEST(FieldReader, IntegersAndTheirCodes) {
  const json object = {{"fraction", 2.5},
                       {"zero", 0},
                       {"minus", -8},
                       {"whole_float", 3.0},
                       {"uint64_max", std::numeric_limits<std::uint64_t>::max()},
                       {"flag", true}};
  Diagnostics d;
  FieldReader f(object, "", d);
  EXPECT_FALSE(f.integer("fraction", {1, 10}));
  EXPECT_FALSE(f.integer("zero", {1, 10}));
  EXPECT_FALSE(f.integer("minus", {1, 10}));
  EXPECT_EQ(f.integer("whole_float", {1, 10}), 3);
  EXPECT_FALSE(f.integer("uint64_max", {1, 100'000, "LAYER_LIMIT"}));
  EXPECT_FALSE(f.integer("flag", {1, 10}));
  const auto& e = d.errors();
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[0].code, "NOT_INTEGER");
  EXPECT_EQ(e[0].message, "fraction must be a whole number, not 2.5.");
  EXPECT_EQ(e[1].code, "OUT_OF_RANGE");
  EXPECT_EQ(e[1].message, "zero is 0; it must be at least 1.");
  EXPECT_EQ(e[2].code, "NEGATIVE");
  EXPECT_EQ(e[3].code, "LAYER_LIMIT");
  EXPECT_EQ(e[3].path, "/uint64_max");
  EXPECT_EQ(e[4].code, "TYPE_MISMATCH");
  EXPECT_EQ(e[4].message, "flag must be a whole number, not a boolean.");
}

// Every wrong element of a list is reported at its own path, and the list is not returned.
TEST(FieldReader, IntegerListsReportEveryElement) {
  const json object = {{"offsets", {1, "x", 2.5, -4}}, {"good", {0, 1, 2}}, {"scalar", 3}};
  Diagnostics d;
  FieldReader f(object, "/pipeline", d);
  EXPECT_FALSE(f.integers("offsets", {-3, 3, "OUT_OF_RANGE"}));
  EXPECT_EQ(f.integers("good", {0, 3}), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_FALSE(f.integers("scalar", {0, 3}));
  const auto& e = d.errors();
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].path, "/pipeline/offsets/1");
  EXPECT_EQ(e[0].code, "TYPE_MISMATCH");
  EXPECT_EQ(e[1].path, "/pipeline/offsets/2");
  EXPECT_EQ(e[1].code, "NOT_INTEGER");
  EXPECT_EQ(e[2].path, "/pipeline/offsets/3");
  EXPECT_EQ(e[2].message, "offsets[3] is -4; it must be at least -3.");
  EXPECT_EQ(e[3].path, "/pipeline/scalar");
  EXPECT_EQ(e[3].message, "scalar must be a list of whole numbers, not a number.");
}

TEST(FieldReader, StringsBooleansObjectsAndArrays) {
  const json object = {{"name", std::string(1001, 'n')}, {"flag", "yes"}, {"child", 3}, {"list", {{"a", 1}}}};
  Diagnostics d;
  FieldReader f(object, "/x", d);
  EXPECT_FALSE(f.string("name"));
  EXPECT_FALSE(f.boolean("flag"));
  EXPECT_EQ(f.object("child"), nullptr);
  EXPECT_EQ(f.array("list", "option names"), nullptr);
  const auto& e = d.errors();
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].code, "TOO_LONG");
  EXPECT_EQ(e[0].message, "name is 1001 characters, above the cap of 1000.");
  EXPECT_EQ(e[1].message, "flag must be true or false, not a string.");
  EXPECT_EQ(e[2].message, "child must be an object, not a number.");
  EXPECT_EQ(e[3].message, "list must be a list of option names, not an object.");
}

// A required field is reported when absent, also in a section that is absent altogether.
TEST(FieldReader, RequiredFieldsOfAbsentSections) {
  Diagnostics d;
  {
    FieldReader f(nullptr, "/device", d);
    EXPECT_FALSE(f.require("peak_tflops", "peak_tflops is required."));
    EXPECT_FALSE(f.number("peak_tflops"));
  }
  ASSERT_EQ(d.errors().size(), 1u);
  EXPECT_EQ(d.errors()[0].code, "REQUIRED");
  EXPECT_EQ(d.errors()[0].path, "/device/peak_tflops");
  EXPECT_TRUE(d.warnings().empty());
}

}  // namespace
}  // namespace ppb::test
