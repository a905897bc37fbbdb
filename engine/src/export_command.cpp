// The `export` command: an estimate request plus {"export": {"to": ...}}; the plan is checked,
// estimated and written out for MindFormers, Megatron-LM, PyTorch pipelining or as a Chrome trace.
#include <string>

#include "command_support.hpp"
#include "field_reader.hpp"
#include "ppb/estimate.hpp"
#include "ppb/export.hpp"
#include "ppb/request_reader.hpp"
#include "ppb/response_writer.hpp"
#include "ppb/trace.hpp"

namespace ppb::detail {

using nlohmann::json;

namespace {

constexpr const char* kTargets[] = {"mindformers", "megatron", "chrome-trace", "pytorch"};

// The export target, or "" after reporting why there is none.
std::string export_target(const json& document, Diagnostics& d) {
  const std::string choices = "\"mindformers\", \"megatron\", \"chrome-trace\" or \"pytorch\"";
  if (!document.is_object()) return "";
  if (!document.contains("export")) {
    d.error("EXPORT_TARGET_UNKNOWN", "/export/to", "the request needs \"export\": {\"to\": " + choices + "}.");
    return "";
  }
  const json* section = request_section(document, "export", d);
  if (!section) return "";
  FieldReader f(*section, "/export", d);
  if (!f.has("to")) {  // a missing target is an unknown one, as a missing section is
    d.error("EXPORT_TARGET_UNKNOWN", f.at("to"), "export.to must be " + choices + ".");
    return "";
  }
  const auto target = f.string("to");
  if (!target) return "";
  for (const char* known : kTargets)
    if (*target == known) return *target;
  d.error("EXPORT_TARGET_UNKNOWN", f.at("to"), "export.to is " + quoted_input(*target) + "; it must be " + choices + ".");
  return "";
}

}  // namespace

CommandOutput run_export(const json& document) {
  Diagnostics d;
  Request request = parse_request(document, d);
  const std::string target = export_target(document, d);
  auto plan = checked_plan(request, d);
  if (!plan || !d.ok()) return invalid(d);
  const bool trace = target == "chrome-trace";
  const Estimate e = estimate(request.model, request.device, *plan, trace, request.components);
  json result = {{"to", target}};
  if (trace) {
    json events = chrome_trace(e, request.model);
    result["text"] = events.dump();
    result["json"] = std::move(events);
  } else {
    ExportOutput out = target == "mindformers" ? export_mindformers(*plan, request.model)
                       : target == "megatron"  ? export_megatron(*plan, request.model)
                                               : export_pytorch(*plan);
    result["json"] = std::move(out.json);
    result["text"] = std::move(out.text);
  }
  return ok_response("export", std::move(result), d);
}

}  // namespace ppb::detail
