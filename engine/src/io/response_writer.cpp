// Responses as JSON: an estimate result in the contract's shape, and the error and warning lists.
#include "ppb/io/response_writer.hpp"

#include <cmath>

#include "core/message_text.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/plan/megatron_layout.hpp"
#include "ppb/plan/plan.hpp"
#include "ppb/simulate/caveats.hpp"

namespace ppb {

using nlohmann::json;

namespace {

json recompute_map(const std::map<std::string, std::vector<int>>& m) {
  json out = json::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

}  // namespace

json plan_json(const Plan& plan, const Model& model) {
  json recompute = json::object();
  for (const auto& [k, v] : recompute_layers_of(plan, model)) recompute[k] = v;
  json counts = json::object();
  for (const auto& [k, v] : recompute_counts_of(plan, model)) counts[k] = v;
  return {{"stage_layers", plan.stage_layers},
          {"layer_offset", layer_offset_of(plan, model)},
          {"layer_recompute", recompute},
          {"recompute_counts", counts}};
}

json throughput_json(double samples_per_s, const Estimate& e) {
  return {{"samples_per_s", samples_per_s},
          {"tokens_per_s_per_device", e.tokens_per_s_per_device ? json(*e.tokens_per_s_per_device) : json(nullptr)},
          {"mfu", e.mfu ? json(*e.mfu) : json(nullptr)}};
}

void write_op_details(json& out, const TimedOp& op) {
  // A backward whose W runs apart computes only the input gradient; an F&B pair also names its backward.
  if (op.kind == OpKind::B || op.kind == OpKind::FB) out["weight_apart"] = op.weight_apart;
  if (op.kind == OpKind::FB) {
    out["backward_virtual_stage"] = op.backward_virtual_stage;
    out["backward_micro_batch"] = op.backward_micro_batch;
  }
}

namespace {

// The timeline and its memory, each in a function of its own rather than inlined: the loops over
// thousands of operations are what runs hot, and a WASM engine compiles a hot function again with
// its optimizing tier, at a cost that grows with the function's size (estimate_json whole took
// 0.2 s of a core, on the page's opening).
[[gnu::noinline]] json timeline_json(const SimulationResult& simulation) {
  json timeline = json::array();
  for (const auto& op : simulation.timeline) {
    json entry = {{"stage", op.stage},      {"virtual_stage", op.virtual_stage}, {"micro_batch", op.micro_batch},
                  {"op", op_name(op.kind)}, {"start_ms", op.start_ms},           {"end_ms", op.end_ms}};
    write_op_details(entry, op);
    timeline.push_back(std::move(entry));
  }
  return timeline;
}

[[gnu::noinline]] json memory_timeline_json(const SimulationResult& simulation) {
  json memory = json::array();
  for (const auto& st : simulation.stages) {
    json points = json::array();
    for (const auto& p : st.memory) points.push_back({p.time_ms, p.activation_mib});
    memory.push_back(points);
  }
  return memory;
}

}  // namespace

json estimate_json(const Estimate& e, const Request& request, bool include_timeline) {
  const Model& model = request.model;
  const Plan& plan = e.plan;
  json r;
  r["feasible"] = e.feasible;
  r["pp_degree"] = plan.pp_degree;
  r["vpp_degree"] = plan.vpp_degree;
  r["micro_batch_num"] = plan.micro_batch_num;
  r["schedule"] = schedule_name(plan.schedule);
  r["step_time_ms"] = e.step_time_ms;
  r["span_ms"] = e.span_ms;
  json per_stage = json::array();
  for (const auto& st : e.stages) per_stage.push_back(st.time.bubble_ms);
  r["bubble"] = {
      {"fraction", e.bubble_fraction}, {"span_fraction", e.bubble_span_fraction}, {"per_stage_ms", per_stage}};
  r["imbalance"] = {{"max_over_mean", e.imbalance_max_over_mean}, {"max_minus_min_ms", e.imbalance_max_minus_min_ms}};
  const double samples_per_micro_batch =
      static_cast<double>(request.training.micro_batch_size.value_or(1) * request.training.dp_degree.value_or(1));
  r["throughput"] = throughput_json(
      e.step_time_ms > 0 ? samples_per_micro_batch * static_cast<double>(plan.micro_batch_num) * 1000 / e.step_time_ms
                         : 0.0,
      e);
  r["caveats"] = estimate_caveats(request, &e);
  r["stage_partition"] = stage_partition_of(plan);
  r["stage_layers"] = plan.stage_layers;
  r["layer_offset"] = layer_offset_of(plan, model);
  r["megatron_layout"] = megatron_layout(plan, model);
  r["layer_recompute"] = recompute_map(recompute_layers_of(plan, model));
  r["recompute_counts"] = recompute_map(recompute_counts_of(plan, model));
  json stages = json::array();
  for (const auto& st : e.stages) {
    json layers = json::array();
    for (const auto& [b, en] : st.layers) layers.push_back({b, en});
    json mem = {{"weights_mib", st.memory.weights_mib},
                {"grads_mib", st.memory.grads_mib},
                {"optimizer_mib", st.memory.optimizer_mib},
                {"static_mib", st.memory.static_mib},
                {"reserved_mib", st.memory.reserved_mib},
                {"activation_mib", st.memory.activation_mib},
                {"components_mib", st.memory.components_mib},
                {"peak_mib", st.memory.peak_mib},
                {"limit_mib", st.memory.limit_mib ? json(*st.memory.limit_mib) : json(nullptr)},
                {"in_flight_micro_batches", st.memory.in_flight_micro_batches}};
    json time = {{"forward_ms", st.time.forward_ms},
                 {"backward_ms", st.time.backward_ms},
                 {"recompute_ms", st.time.recompute_ms},
                 {"send_ms", st.time.send_ms},
                 {"components_step_ms", st.time.components_step_ms},
                 {"busy_ms", st.time.busy_ms},
                 {"bubble_ms", st.time.bubble_ms}};
    json components = json::object();
    for (const auto& [name, c] : st.components)
      components[name] = {{"forward_ms", c.forward_ms}, {"backward_ms", c.backward_ms},
                          {"static_mib", c.static_mib}, {"activation_mib", c.activation_mib},
                          {"step_ms", c.step_ms},       {"memory_mib", c.memory_mib}};
    stages.push_back({{"stage", st.stage},
                      {"virtual_stages", st.virtual_stages},
                      {"layers", layers},
                      {"memory", mem},
                      {"time", time},
                      {"components", components}});
  }
  r["stages"] = stages;
  json violations = json::array();
  for (const auto& v : e.violations) {
    const double over = v.peak_mib - v.limit_mib;
    violations.push_back(
        {{"stage", v.stage},
         {"peak_mib", v.peak_mib},
         {"limit_mib", v.limit_mib},
         {"over_mib", over},
         {"message", "stage " + std::to_string(v.stage) + " needs " + number_text(std::round(v.peak_mib)) +
                         " MiB, limit " + number_text(v.limit_mib) + " MiB (" + number_text(std::ceil(over)) +
                         " MiB over)"}});
  }
  r["violations"] = violations;
  if (include_timeline) {
    r["timeline"] = timeline_json(e.simulation);
    r["memory_timeline"] = memory_timeline_json(e.simulation);
    // Long simulations are estimated in full, but only their first operations are returned.
    r["timeline_truncated"] = e.simulation.timeline_truncated;
    r["timeline_operations"] = e.simulation.operations;
    r["timeline_limit"] = limits::max_timeline_ops;
  }
  return r;
}

namespace {

json diagnostics_json(const std::vector<Diagnostic>& listed, std::int64_t unlisted, const char* more_code,
                      const char* kind) {
  json out = json::array();
  for (const auto& e : listed) out.push_back({{"code", e.code}, {"path", e.path}, {"message", e.message}});
  if (unlisted > 0)
    out.push_back({{"code", more_code},
                   {"path", ""},
                   {"message", std::to_string(unlisted) + " more " + kind + " not listed; a response lists at most " +
                                   std::to_string(limits::max_diagnostics) + "."}});
  return out;
}

}  // namespace

json errors_json(const Diagnostics& d) {
  return diagnostics_json(d.errors(), d.unlisted_errors(), "TOO_MANY_ERRORS", "errors");
}

json warnings_json(const Diagnostics& d) {
  return diagnostics_json(d.warnings(), d.unlisted_warnings(), "TOO_MANY_WARNINGS", "warnings");
}

}  // namespace ppb
