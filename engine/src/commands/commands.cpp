// Command dispatch: JSON text in, the contract's response JSON out. Catches everything, so neither
// the CLI nor the WASM boundary ever sees an exception.
#include "ppb/commands/commands.hpp"

#include "command_support.hpp"
#include "ppb/model/device_presets.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>

#include "ppb/core/json_text.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/io/request_reader.hpp"
#include "ppb/io/response_writer.hpp"
#include "ppb/plan/plan.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {

using nlohmann::json;

namespace detail {

CommandOutput ok_response(const std::string& command, json result, const Diagnostics& d) {
  json out = {{"ok", true}, {"command", command}, {"result", std::move(result)}};
  if (!d.warnings().empty()) out["warnings"] = warnings_json(d);
  return {json_text(out), 0};
}

std::optional<json> read_request_text(std::string_view text, Diagnostics& d, bool defer_model_layers,
                                      std::optional<KeptModelId> model) {
  if (model) {
    const auto kept = find_kept_model(*model);
    if (!kept) {
      d.error("MODEL_NOT_KEPT", "/model",
              "the engine keeps no model with id " + std::to_string(*model) +
                  " (dropped, or never kept); keep the model again.");
      return std::nullopt;
    }
    if (!kept->text_problems.ok()) {  // as a fault in the model's text within the request's would be
      d.add_all(kept->text_problems);
      return std::nullopt;
    }
  }
  auto document = parse_json_text(text, d, defer_model_layers ? DeferLayers::model_layers : DeferLayers::none);
  if (document && model && document->is_object()) (*document)["model"] = kept_model_marker(*model);
  if (document) apply_device_preset(*document, d);
  if (!d.ok()) return std::nullopt;
  return document;
}

CommandOutput invalid(const Diagnostics& d) {
  json out = {{"ok", false}, {"errors", errors_json(d)}};
  if (!d.warnings().empty()) out["warnings"] = warnings_json(d);
  return {json_text(out), 2};
}

}  // namespace detail

namespace {

CommandOutput dispatch(std::string_view command, std::string_view request_json, std::optional<KeptModelId> model) {
  try {
    const detail::RequestClock clock;
    static const std::map<std::string, std::function<CommandOutput(json, const detail::RequestClock&)>, std::less<>>
        commands = {
            {"estimate", detail::run_estimate}, {"import", detail::run_import}, {"export", detail::run_export},
            {"balance", detail::run_balance},   {"search", detail::run_search}, {"compare", detail::run_compare},
            {"cluster", detail::run_cluster},
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
    if (model && command == "import") {
      d.error("MODEL_NOT_KEPT", "/model",
              "import writes its document back out and takes no kept model; send the document in the request.");
      return detail::invalid(d);
    }
    auto document = detail::read_request_text(request_json, d, command != "import", model);
    if (!document) return detail::invalid(d);
    return it->second(std::move(*document), clock);
  } catch (...) {
    return failure_output(std::current_exception());
  }
}

}  // namespace

CommandOutput run_command(std::string_view command, std::string_view request_json) {
  return dispatch(command, request_json, std::nullopt);
}

CommandOutput run_command(std::string_view command, std::string_view request_json, KeptModelId model) {
  return dispatch(command, request_json, model);
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
