// The text of requests and responses: a request's text parsed under the input caps, and a response
// written as text. Everything between (what the fields mean) is the readers' and writers' business.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "ppb/core/diagnostics.hpp"

namespace ppb {

// Parses request text under the input caps of limits.hpp: its size (INPUT_TOO_LARGE), nesting depth
// (JSON_TOO_DEEP) and number of values (JSON_TOO_MANY_VALUES) are checked before the parser
// allocates anything; a syntax error is JSON_SYNTAX, a number beyond double's range
// JSON_NUMBER_RANGE. Returns nothing after reporting the problem.
//   Diagnostics d;
//   if (auto document = parse_json_text(R"({"model": {}})", d)) { ... }
// With `defer`, each object in a layer list stays its text (checked, not built) until read_deferred()
// builds it: what a reader that takes the entries one by one and keeps nothing of them (the model
// reader) wants of a profiler's file of 100,000 entries. Only for readers that do not write the
// document back out.
enum class DeferLayers : char {
  none,
  model_layers,  // the objects in /model/layers: a request
  any_layers,    // those and the objects in /layers: a document that is a model or a request holding one
};
std::optional<nlohmann::json> parse_json_text(std::string_view text, Diagnostics& diagnostics,
                                              DeferLayers defer = DeferLayers::none);

// A value as parse_json_text gave it: an entry it kept as text is parsed into `storage` and that is
// returned; any other value is returned as it is.
const nlohmann::json& read_deferred(const nlohmann::json& value, nlohmann::json& storage);

// The text json::dump() gives (compact, UTF-8 kept, invalid UTF-8 an error), written straight into
// one string: nlohmann's serializer makes a virtual call per piece of output and decodes every byte
// of every string, which compiled to WebAssembly was a fifth of a small estimate's time.
//   json_text(json{{"ok", true}}) == R"({"ok":true})"
std::string json_text(const nlohmann::json& value);

}  // namespace ppb
