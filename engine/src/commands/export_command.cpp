// The `export` command: an estimate request plus {"export": {"to": ...}}; the plan is checked,
// estimated and written out for MindFormers, Megatron-LM, PyTorch pipelining, torchtitan or as a Chrome trace,
// with the written plan's own estimate (result.exported), or refused when no plan the launcher
// expresses fits (export_fit.hpp).
#include <string>

#include "command_support.hpp"
#include "core/field_reader.hpp"
#include "ppb/interop/export.hpp"
#include "ppb/interop/export_fit.hpp"
#include "ppb/interop/trace.hpp"
#include "ppb/io/request_reader.hpp"
#include "ppb/io/response_writer.hpp"
#include "ppb/plan/checked_plan.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb::detail {

using nlohmann::json;

namespace {

constexpr const char* kTargets[] = {"mindformers", "megatron", "chrome-trace", "pytorch", "torchtitan"};

// The export target, or "" after reporting why there is none.
std::string export_target(const json& document, Diagnostics& d) {
  const std::string choices = "\"mindformers\", \"megatron\", \"chrome-trace\", \"pytorch\" or \"torchtitan\"";
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
  d.error("EXPORT_TARGET_UNKNOWN", f.at("to"),
          "export.to is " + quoted_input(*target) + "; it must be " + choices + ".");
  return "";
}

// result.exported: the exported plan's own estimate and what differs from the request's plan.
json exported_json(const ExportedEstimate& e) {
  return {{"plan_kept", e.plan_kept}, {"feasible", e.feasible},     {"step_time_ms", e.step_time_ms},
          {"peak_mib", e.peak_mib},   {"peak_stage", e.peak_stage}, {"changes", e.changes}};
}

}  // namespace

CommandOutput run_export(json document, const RequestClock& /*clock*/) {
  Diagnostics d;
  Request request = parse_request(document, d);
  const std::string target = export_target(document, d);
  auto plan = checked_plan(request, d);
  if (!plan || !d.ok()) return invalid(d);
  json result = {{"to", target}};
  if (target == "chrome-trace") {  // the simulated plan itself: kept by definition
    const Estimate e = estimate(request.model, request.device, *plan, true, request.components);
    json events = chrome_trace(e, request.model);
    result["text"] = events.dump();
    result["json"] = std::move(events);
    result["exported"] = exported_json(exported_estimate(e));
    return ok_response("export", std::move(result), d);
  }
  const MegatronRun run = megatron_run(document);
  const Launcher launcher = target == "mindformers" ? Launcher::mindformers
                            : target == "megatron"  ? Launcher::megatron
                            : target == "pytorch"   ? Launcher::pytorch
                                                    : Launcher::torchtitan;
  const ExportFit fit = fit_export(launcher, request, *plan);
  if (fit.refusal) {
    d.error("EXPORT_PLAN_DOES_NOT_FIT", "/export/to", *fit.refusal);
    return invalid(d);
  }
  ExportOutput out;
  switch (launcher) {
    case Launcher::mindformers: out = export_mindformers(fit.plan, request.model, run.stated ? &run : nullptr); break;
    case Launcher::megatron: out = export_megatron(fit.plan, request.model, run.stated ? &run : nullptr); break;
    case Launcher::pytorch:
      out = export_pytorch(fit.plan, plan_program(request.model, request.device, fit.plan, request.components));
      break;
    default:
      out = export_torchtitan(fit.plan, plan_program(request.model, request.device, fit.plan, request.components),
                              request.model, &run);
      break;
  }
  if (launcher == Launcher::mindformers) comment_changes(out, fit.exported.changes);
  result["json"] = std::move(out.json);
  result["text"] = std::move(out.text);
  result["exported"] = exported_json(fit.exported);
  return ok_response("export", std::move(result), d);
}

}  // namespace ppb::detail
