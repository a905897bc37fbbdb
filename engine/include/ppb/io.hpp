// The JSON edge of the engine: requests in, responses out. Parsing checks every field's type and
// range and collects all problems as diagnostics; the algorithms never see JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "ppb/diagnostics.hpp"
#include "ppb/estimate.hpp"
#include "ppb/request.hpp"

namespace ppb {

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
