// Chrome trace event output of a simulated step.
#include "ppb/interop/trace.hpp"

#include <stdexcept>
#include <string>

#include "ppb/core/limits.hpp"
#include "ppb/core/version.hpp"
#include "ppb/io/response_writer.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb {

using nlohmann::json;

namespace {

// The trace format counts in microseconds; the engine in milliseconds.
double us(double ms) { return ms * 1000.0; }

json metadata(const char* name, int tid, json args) {
  return {{"name", name}, {"ph", "M"}, {"pid", 0}, {"tid", tid}, {"args", std::move(args)}};
}

}  // namespace

json chrome_trace(const Estimate& e, const Model& model) {
  const SimulationResult& sim = e.simulation;
  if (sim.timeline.empty())
    throw std::invalid_argument("chrome_trace needs an estimate made with keep_timeline = true");
  const Plan& plan = e.plan;
  json events = json::array();
  events.push_back(metadata("process_name", 0, {{"name", "pipeline"}}));
  if (!model.name.empty()) events.push_back(metadata("process_labels", 0, {{"labels", model.name}}));
  for (int s = 0; s < plan.pp_degree; ++s) {
    events.push_back(metadata("thread_name", s, {{"name", "stage " + std::to_string(s)}}));
    events.push_back(metadata("thread_sort_index", s, {{"sort_index", s}}));
  }
  for (const TimedOp& op : sim.timeline) {
    const std::string kind = op_name(op.kind);
    json args = {{"micro_batch", op.micro_batch}, {"virtual_stage", op.virtual_stage}, {"op", kind}};
    std::string name = kind + std::to_string(op.micro_batch);
    if (op.kind == OpKind::FB) {
      // Both halves of the pair: the forward's micro batch and chunk, and the backward's.
      name = "F";
      name += std::to_string(op.micro_batch);
      name += "&B";
      name += std::to_string(op.backward_micro_batch);
    }
    write_op_details(args, op);
    events.push_back({{"name", std::move(name)},
                      {"cat", kind},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", op.stage},
                      {"ts", us(op.start_ms)},
                      {"dur", us(op.end_ms - op.start_ms)},
                      {"args", std::move(args)}});
  }
  for (std::size_t s = 0; s < sim.stages.size(); ++s) {
    const auto& memory = sim.stages[s].memory;
    const std::string name = "memory stage " + std::to_string(s);
    for (std::size_t i = 0; i < memory.size(); ++i) {
      // Several changes at one instant (a backward frees, the next forward takes): the trace
      // keeps the level after the last of them, as the half-open accounting holds it.
      if (i + 1 < memory.size() && memory[i + 1].time_ms == memory[i].time_ms) continue;
      events.push_back({{"name", name},
                        {"ph", "C"},
                        {"pid", 0},
                        {"tid", static_cast<int>(s)},
                        {"ts", us(memory[i].time_ms)},
                        {"args", {{"activation_mib", memory[i].activation_mib}}}});
    }
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"generator", std::string("ppb ") + version()},
            {"model", model.name},
            {"pp_degree", plan.pp_degree},
            {"vpp_degree", plan.vpp_degree},
            {"micro_batch_num", plan.micro_batch_num},
            {"schedule", schedule_name(plan.schedule)},
            {"step_time_ms", e.step_time_ms},
            {"span_ms", e.span_ms},
            // Long simulations are traced up to limits::max_timeline_ops operations.
            {"timeline_truncated", sim.timeline_truncated},
            {"timeline_operations", sim.operations},
            {"timeline_limit", limits::max_timeline_ops}}}};
}

}  // namespace ppb
