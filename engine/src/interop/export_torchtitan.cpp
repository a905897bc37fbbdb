// The torchtitan export: the plan as torchtitan's [parallelism] keys (torchtitan/config/configs.py,
// ParallelismConfig, pytorch/torchtitan of 2026-08; the same names as its TOML job files of 2025 and
// its --parallelism.<key> command-line overrides) with the schedule as the CSV its
// pipeline_parallel_schedule_csv loads (the pytorch export's), the partition as
// module_fqns_per_model_part, and activation checkpointing where one policy covers the plan.
#include <string>

#include "ppb/interop/export.hpp"

namespace ppb {

using nlohmann::json;

namespace {

// The schedule torchtitan is told, which decides how it places the stages on the ranks (one per rank,
// looped, or the V) before the CSV gives the order of operations.
const char* placement_schedule(const Plan& plan) {
  if (is_v_shape(plan.schedule)) return plan.schedule == Schedule::dualpipev ? "DualPipeV" : "ZBVZeroBubble";
  // PyTorch's own looped schedules run by their class names (ScheduleLoopedBFS,
  // ScheduleInterleavedZeroBubble); their placement is Interleaved1F1B's.
  if (plan.schedule == Schedule::looped_bfs) return "LoopedBFS";
  if (plan.schedule == Schedule::interleaved_zero_bubble) return "InterleavedZeroBubble";
  if (plan.vpp_degree > 1) return "Interleaved1F1B";
  return plan.schedule == Schedule::gpipe ? "GPipe" : "1F1B";
}

// torchtitan's module names of a Llama-style model: tok_embeddings, layers.<i>, norm, output.
json model_parts(const Plan& plan, const Model& model, json& notes) {
  json parts = json::array();
  int begin = 0;
  for (int v = 0; v < plan.virtual_stages(); ++v) {
    json part = json::array();
    const int end = begin + plan.stage_layers[static_cast<std::size_t>(v)];
    for (int i = begin; i < end; ++i) {
      if (i < model.body_begin()) {
        if (i == 0) part.push_back("tok_embeddings");
      } else if (i < model.body_end()) {
        part.push_back("layers." + std::to_string(i - model.body_begin()));
      } else if (i == model.body_end()) {
        part.push_back("norm");
        part.push_back("output");
      }
    }
    parts.push_back(std::move(part));
    begin = end;
  }
  if (model.pinned_first > 1 || model.pinned_last > 1)
    notes.push_back("torchtitan names the embedding tok_embeddings and the head norm and output; the model's " +
                    std::to_string(model.pinned_first + model.pinned_last) +
                    " pinned layers are written as those, so check the parts against the model's modules.");
  return parts;
}

}  // namespace

ExportOutput export_torchtitan(const Plan& plan, const Program& order, const Model& model, const MegatronRun* run) {
  json notes = json::array();
  const ExportOutput program = export_pytorch(plan, order);
  json parallelism = json::object();
  parallelism["pipeline_parallel_degree"] = plan.pp_degree;
  parallelism["pipeline_parallel_schedule"] = placement_schedule(plan);
  parallelism["pipeline_parallel_schedule_csv"] = "ppb_schedule.csv";
  parallelism["num_pp_microbatches"] = plan.micro_batch_num;
  parallelism["module_fqns_per_model_part"] = model_parts(plan, model, notes);
  if (run && run->stated) {
    parallelism["tensor_parallel_degree"] = run->tp;
    parallelism["enable_sequence_parallel"] = run->sequence_parallel;
    parallelism["context_parallel_degree"] = run->cp;
    if (run->ep > 1 || run->num_experts.value_or(0) > 0) parallelism["expert_parallel_degree"] = run->ep;
    if (run->dp) {
      // torchtitan's FSDP (data_parallel_shard_degree) shards weights, gradients and optimizer state:
      // ZeRO-3. Without sharding the ranks replicate (DDP).
      const bool shard = !run->sharding.empty() && run->sharding != "none";
      parallelism[shard ? "data_parallel_shard_degree" : "data_parallel_replicate_degree"] = *run->dp;
      if (shard) parallelism["data_parallel_replicate_degree"] = 1;
      if (run->sharding == "optimizer" || run->sharding == "optimizer_and_grads")
        notes.push_back(
            "torchtitan shards with FSDP, which also shards the weights (ZeRO-3): the run holds less "
            "than the plan's " +
            run->sharding +
            " sharding and gathers the weights, which the "
            "estimate does not time.");
    }
  }
  // One activation checkpointing policy covers every decoder layer: full, selective, or none.
  const int full = model.option_index("full"), selective = model.option_index("selective");
  int n_full = 0, n_selective = 0, n_other = 0;
  for (int i = model.body_begin(); i < model.body_end(); ++i) {
    const int o = plan.recompute[static_cast<std::size_t>(i)];
    if (o < 0) continue;
    (o == full ? n_full : o == selective ? n_selective : n_other) += 1;
  }
  std::string ac = "none";
  if (n_full == model.body_count()) ac = "full";
  if (n_selective == model.body_count()) ac = "selective";
  if (ac == "none" && n_full + n_selective + n_other > 0)
    notes.push_back("torchtitan applies one activation checkpointing policy to every layer; the plan recomputes " +
                    std::to_string(n_full + n_selective + n_other) + " of " + std::to_string(model.body_count()) +
                    " layers, so mode \"none\" is written: apply the plan's recompute when building the model.");

  std::string toml =
      "# PPB plan for torchtitan: save its schedule CSV (result.json.csv, the pytorch export) as ppb_schedule.csv\n"
      "[parallelism]\n";
  for (const auto& [key, value] : parallelism.items()) toml += key + " = " + flow_text(value) + "\n";
  toml += "\n[activation_checkpoint]\nmode = \"" + ac + "\"\n";
  json overrides = json::array();
  for (const auto& [key, value] : parallelism.items()) {
    if (key == "module_fqns_per_model_part") continue;  // a list of lists: the config file carries it
    overrides.push_back("--parallelism." + key);
    overrides.push_back(value.is_string() ? value.get<std::string>() : value.dump());
  }
  ExportOutput out;
  out.json = {{"parallelism", parallelism},
              {"activation_checkpoint", ac},
              {"overrides", overrides},
              {"csv", program.text},
              {"stage_to_rank", program.json["stage_to_rank"]},
              {"notes", std::move(notes)}};
  out.text = std::move(toml);
  return out;
}

}  // namespace ppb
