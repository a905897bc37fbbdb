// Text of diagnostics (internal to the engine): how a message names a JSON value's kind, writes a
// number and repeats (or declines to repeat) a user's text. The field reader, the plan checks and
// the response writer all say these things the same way.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ppb {

// The kind of a JSON value as a message says it: "a string", "an object", "null", ...
const char* type_name(const nlohmann::json& value);

// Numbers in messages: whole numbers without a fraction (1000000000000), others with up to three
// decimals (2.5, 0.125), very large or small ones in exponent form (1e+300).
std::string number_text(double x);

// Figures in notes and verdicts, written as the page writes them (web/js/format.js, `num`): from
// 1000 up grouped whole numbers (388,478), then one decimal from 100 (123.5), two from 1 (12.34,
// trailing zeros dropped), three significant digits below 1 (0.0433).
std::string figure_text(double x);

// A user's text quoted for a message ("\"2f2b\"") when it is short plain text; otherwise a note that
// it is not repeated ("(a 5000-byte text, not repeated here)"): a message never carries markup,
// control characters or megabytes of someone else's input. The path of the diagnostic still holds
// a key in full, JSON-escaped.
std::string quoted_input(std::string_view text);

// Whether quoted_input repeats `text`: at most 64 bytes of well-formed UTF-8, printable ASCII
// without the characters of markup and quoting (< > & " ' ` \) or printable non-ASCII (no C1
// control, no invisible character, none that reorders text).
bool plain_text(std::string_view text);

}  // namespace ppb
