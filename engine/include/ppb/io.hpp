// The JSON edge of the engine: requests in, responses out. Parsing checks every field's type and
// range and collects all problems as diagnostics; the algorithms never see JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "ppb/diagnostics.hpp"
#include "ppb/estimate.hpp"
#include "ppb/request.hpp"

namespace ppb {

// Parses request text under the input caps of limits.hpp: its size (INPUT_TOO_LARGE), nesting depth
// (JSON_TOO_DEEP) and number of values (JSON_TOO_MANY_VALUES) are checked before the parser
// allocates anything; a syntax error is JSON_SYNTAX. Returns nothing after reporting the problem.
//   Diagnostics d;
//   if (auto document = parse_json_text(R"({"model": {}})", d)) { ... }
std::optional<nlohmann::json> parse_json_text(std::string_view text, Diagnostics& diagnostics);

// Parses a request document (model, training, device, pipeline). Problems go to `diagnostics`;
// the returned request is meaningful only when diagnostics.ok().
Request parse_request(const nlohmann::json& document, Diagnostics& diagnostics);

// Parses a ppb.model.v1 document found at `path` of the request.
Model parse_model(const nlohmann::json& document, const std::string& path, const BytesPerParam& bytes_per_param,
                  Diagnostics& diagnostics);

nlohmann::json estimate_json(const Estimate& estimate, const Model& model, bool include_timeline);
nlohmann::json errors_json(const Diagnostics& diagnostics);
nlohmann::json warnings_json(const Diagnostics& diagnostics);

}  // namespace ppb
