// The PyTorch pipelining export: the simulated program of every rank as torch.distributed.pipelining
// actions and the compute-only CSV its runtime loads. Grammar and sources: docs/interop.md.
#include <string>

#include "ppb/interop/export.hpp"

namespace ppb {

using nlohmann::json;

namespace {

// Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on chains of string concatenation.
std::string action(int stage, const char* type, int micro_batch) {
  std::string out = std::to_string(stage);
  out += type;
  out += std::to_string(micro_batch);
  return out;
}

}  // namespace

std::string pytorch_action(const Op& op) {
  // PyTorch names a backward that computes only the input gradient I (BACKWARD_INPUT) and a full
  // one B (FULL_BACKWARD).
  const char* backward = op.weight_apart ? "I" : "B";
  switch (op.kind) {
    case OpKind::F: return action(op.virtual_stage, "F", op.micro_batch);
    case OpKind::B: return action(op.virtual_stage, backward, op.micro_batch);
    case OpKind::W: return action(op.virtual_stage, "W", op.micro_batch);
    case OpKind::FB: {
      std::string out = "(";
      out += action(op.virtual_stage, "F", op.micro_batch);
      out += ';';
      out += action(op.backward_virtual_stage, backward, op.backward_micro_batch);
      out += ")OVERLAP_F_B";
      return out;
    }
  }
  return "";
}

ExportOutput export_pytorch(const Plan& plan) { return export_pytorch(plan, schedule_program(plan)); }

ExportOutput export_pytorch(const Plan& plan, const Program& program) {
  json actions = json::array();
  std::string csv;
  for (const auto& ops : program) {
    json row = json::array();
    std::string line;
    for (const Op& op : ops) {
      const std::string a = pytorch_action(op);
      if (!line.empty()) line += ',';
      line += a;
      row.push_back(a);
    }
    actions.push_back(std::move(row));
    csv += line;
    csv += '\n';
  }
  std::vector<int> stage_to_rank;
  for (int v = 0; v < plan.virtual_stages(); ++v) stage_to_rank.push_back(plan.physical_stage(v));

  json notes = json::array();
  notes.push_back(
      "load the CSV with _PipelineScheduleRuntime._load_csv(path) (format \"compute_only\"), which checks "
      "it and adds the sends and receives; each rank must hold the stages its row names");
  if (is_v_shape(plan.schedule))
    notes.push_back(std::string(schedule_name(plan.schedule)) +
                    " places stage i >= pp on rank 2 pp - 1 - i (a V, PyTorch's style \"v\"); the loader reads this "
                    "placement from the CSV, so build rank r's two stages as stage r and stage 2 pp - 1 - r");
  if (plan.program)
    notes.push_back("the order is the request's own pipeline.program, as it was given");
  else if (needs_costs(plan.schedule))
    notes.push_back(std::string(schedule_name(plan.schedule)) +
                    "'s order was found for this plan's stage costs; PyTorch has no schedule class that writes it, so "
                    "run it from this CSV (any one-stage-per-rank schedule class places the stages)");
  if (runs_fb_pairs(plan.schedule))
    notes.push_back(
        "PyTorch's runtime runs the two halves of an OVERLAP_F_B action one after the other unless a "
        "function that overlaps them is registered for OVERLAP_F_B (register_custom_function); the "
        "simulated F&B time assumes they overlap");
  ExportOutput out;
  out.json = {{"actions", std::move(actions)},
              {"format", "compute_only"},
              {"num_stages", plan.virtual_stages()},
              {"stage_to_rank", stage_to_rank},
              {"notes", std::move(notes)}};
  out.text = std::move(csv);
  return out;
}

}  // namespace ppb
