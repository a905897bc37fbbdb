// Shared pieces of the command implementations (internal to the engine): the response envelope
// and the declarations of each command, one source file per command.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ppb/commands.hpp"
#include "ppb/diagnostics.hpp"
#include "ppb/plan.hpp"
#include "ppb/request.hpp"

namespace ppb::detail {

// {"ok": true, "command": ..., "result": ...}, with warnings when there are any.
CommandOutput ok_response(const std::string& command, nlohmann::json result, const Diagnostics& diagnostics);
// {"ok": false, "errors": [...]}, exit status 2.
CommandOutput invalid(const Diagnostics& diagnostics);
// resolve_plan plus the simulation size cap.
std::optional<Plan> checked_plan(const Request& request, Diagnostics& diagnostics);
// Whether the plan's checks against the model (partition, offsets, recompute, degrees) can run
// beside the errors found so far, so that one answer lists them too: not when the model, the
// training batch sizes, the pipeline, the components or the request as a whole have errors, which
// the checks read.
bool plan_checks_apply(const Diagnostics& diagnostics);

CommandOutput run_estimate(const nlohmann::json& document);
CommandOutput run_import(const nlohmann::json& document);
CommandOutput run_export(const nlohmann::json& document);
CommandOutput run_balance(const nlohmann::json& document);
CommandOutput run_search(const nlohmann::json& document);
CommandOutput run_compare(const nlohmann::json& document);

}  // namespace ppb::detail
