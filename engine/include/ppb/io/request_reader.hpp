// The request in: the JSON sections every command reads (model or transformer, training, parallel's
// dp_degree, device, components, pipeline) read into a Request of plain values. Each command's own
// section (balance, search, export) is read by that command.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ppb/core/diagnostics.hpp"
#include "ppb/model/request.hpp"

namespace ppb {

// Reads a request document. Every problem of every section goes to `diagnostics` (type and range
// errors, unknown fields as warnings); the request is meaningful only when there is no error. The
// plan's checks against the model (partition, recompute, degrees) are resolve_plan's (plan.hpp).
//   Diagnostics d;
//   Request r = parse_request(json::parse(R"({"model": {...}, "pipeline": {"pp_degree": 4}})"), d);
Request parse_request(const nlohmann::json& document, Diagnostics& diagnostics);

// pipeline.program fixes the order of operations, which balance, compare and search do not take (they
// run each schedule's own generator): PROGRAM_NOT_SUPPORTED, naming `command`, when the request
// brings one.
void refuse_program(const nlohmann::json& document, const std::string& command, Diagnostics& diagnostics);

}  // namespace ppb
