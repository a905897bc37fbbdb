// Command dispatch: JSON text in, the contract's response JSON out. Catches everything, so neither
// the CLI nor the WASM boundary ever sees an exception.
#include "ppb/commands.hpp"

#include "command_support.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>

#include "ppb/estimate.hpp"
#include "ppb/json_text.hpp"
#include "ppb/limits.hpp"
#include "ppb/plan.hpp"
#include "ppb/request_reader.hpp"
#include "ppb/response_writer.hpp"

namespace ppb {

using nlohmann::json;

namespace detail {

CommandOutput ok_response(const std::string& command, json result, const Diagnostics& d) {
  json out = {{"ok", true}, {"command", command}, {"result", std::move(result)}};
  if (!d.warnings().empty()) out["warnings"] = warnings_json(d);
  return {json_text(out), 0};
}

CommandOutput invalid(const Diagnostics& d) {
  json out = {{"ok", false}, {"errors", errors_json(d)}};
  if (!d.warnings().empty()) out["warnings"] = warnings_json(d);
  return {json_text(out), 2};
}

std::optional<Plan> checked_plan(const Request& request, Diagnostics& d) {
  // Component lengths need only pp_degree, so they are checked beside the plan's own problems.
  if (!request.unread.degrees && !request.unread.components && request.pipeline.pp_degree >= 1) {
    const int pp = request.pipeline.pp_degree;
    for (std::size_t i = 0; i < request.components.size(); ++i) {
      const auto& c = request.components[i];
      for (auto [key, values] : {std::pair{"step_ms", &c.step_ms}, std::pair{"memory_mib", &c.memory_mib}})
        if (values->size() > 1 && values->size() != static_cast<std::size_t>(pp))
          d.error("COMPONENT_LENGTH", "/components/" + std::to_string(i) + "/" + key,
                  std::string(key) + " of component \"" + c.name + "\" has " + std::to_string(values->size()) +
                      " values; give one, or one per stage (" + std::to_string(pp) + ").");
    }
  }
  auto plan = resolve_plan(request, d);
  if (!plan) return std::nullopt;
  const std::int64_t pairs = static_cast<std::int64_t>(plan->virtual_stages()) * plan->micro_batch_num;
  if (pairs > limits::max_simulated_pairs) {
    d.error("SIMULATION_LIMIT", "/pipeline/micro_batch_num",
            "pp_degree x vpp_degree x micro_batch_num = " + std::to_string(pairs) + " exceeds the cap of " +
                std::to_string(limits::max_simulated_pairs) + " simulated (virtual stage, micro batch) pairs.");
    return std::nullopt;
  }
  if (!d.ok()) return std::nullopt;
  return plan;
}

CommandOutput run_estimate(json document, const RequestClock& /*clock*/) {
  Diagnostics d;
  Request request = parse_request(document, d);
  auto plan = checked_plan(request, d);
  if (!plan || !d.ok()) return invalid(d);
  const Estimate e =
      estimate(request.model, request.device, *plan, request.pipeline.include_timeline, request.components);
  return ok_response("estimate", estimate_json(e, request.model, request.pipeline.include_timeline), d);
}

}  // namespace detail

CommandOutput run_command(std::string_view command, std::string_view request_json) {
  try {
    const detail::RequestClock clock;
    static const std::map<std::string, std::function<CommandOutput(json, const detail::RequestClock&)>, std::less<>>
        commands = {
            {"estimate", detail::run_estimate}, {"import", detail::run_import}, {"export", detail::run_export},
            {"balance", detail::run_balance},   {"search", detail::run_search}, {"compare", detail::run_compare},
        };
    auto it = commands.find(command);
    if (it == commands.end()) {
      std::string known;
      for (const auto& [name, _] : commands) known += (known.empty() ? "" : ", ") + name;
      json out = {
          {"ok", false},
          {"errors",
           {{{"code", "COMMAND_UNKNOWN"},
             {"path", ""},
             {"message", "command \"" + std::string(command) + "\" is not available; commands: " + known + "."}}}}};
      return {out.dump(-1, ' ', false, json::error_handler_t::replace), 2};  // the name may be any bytes
    }
    // Size, nesting depth and value count are checked before parsing (limits.hpp).
    Diagnostics d;
    auto document = parse_json_text(request_json, d);
    if (!document) return detail::invalid(d);
    return it->second(std::move(*document), clock);
  } catch (...) {
    return failure_output(std::current_exception());
  }
}

CommandOutput failure_output(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::bad_alloc&) {
    json out = {
        {"ok", false},
        {"errors",
         {{{"code", "OUT_OF_MEMORY"}, {"path", ""}, {"message", "the engine ran out of memory on this request."}}}}};
    return {out.dump(), 1};
  } catch (const std::exception& e) {
    json out = {
        {"ok", false},
        {"errors", {{{"code", "INTERNAL"}, {"path", ""}, {"message", std::string("internal error: ") + e.what()}}}}};
    return {out.dump(-1, ' ', false, json::error_handler_t::replace), 1};  // what() may quote any bytes
  } catch (...) {
    json out = {{"ok", false}, {"errors", {{{"code", "INTERNAL"}, {"path", ""}, {"message", "internal error."}}}}};
    return {out.dump(), 1};
  }
}

}  // namespace ppb
