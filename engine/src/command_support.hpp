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
// resolve_plan plus the components' lengths and the simulation size cap. Every check whose inputs
// were read runs, whatever else is wrong, so one answer lists every problem; the plan is returned
// only when there is none at all.
std::optional<Plan> checked_plan(const Request& request, Diagnostics& diagnostics);

CommandOutput run_estimate(const nlohmann::json& document);
CommandOutput run_import(const nlohmann::json& document);
CommandOutput run_export(const nlohmann::json& document);
CommandOutput run_balance(const nlohmann::json& document);
CommandOutput run_search(const nlohmann::json& document);
CommandOutput run_compare(const nlohmann::json& document);

}  // namespace ppb::detail
