// A plan written out in the settings of the frameworks that run it: MindFormers (offset and
// per-stage recompute counts, as YAML), Megatron-LM (command-line arguments, including the
// pipeline layout string) and PyTorch pipelining (the schedule program as actions and CSV). What a
// framework cannot express is said in `notes`, never dropped silently; which plan the written
// settings then run, and whether it fits, is export_fit.hpp's. Sources and mappings: docs/interop.md.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ppb/model/model.hpp"
#include "ppb/plan/plan.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb {

struct MegatronRun;  // below

struct ExportOutput {
  nlohmann::json json;  // machine-readable form, with a "notes" list of sentences
  std::string text;     // ready to paste: YAML for MindFormers, a command-line fragment for Megatron-LM
};

// MindFormers: json {"offset", "recompute", "select_recompute", "select_comm_recompute",
// "pipeline_stage", "pp_interleave_num", "num_layers", "micro_batch_num", "notes"}; the four lists
// are per stage ([pp]) or, when vpp > 1, [vpp][pp] with virtual stage v = chunk x pp + stage.
// offset is against floor(body / (pp x vpp)) and sums to the remainder; each recompute count N
// means the first N layers of the stage. Model options map by name: "full" -> recompute,
// "selective" -> select_recompute, "comm" -> select_comm_recompute, "selective_comm" -> both
// select lists; the counts are cumulative as MindFormers applies them (select_recompute =
// full + selective_comm + selective, as SAPP writes them).
//
// Example: pp 2, 10 body layers split 4 | 6, full recompute on the first 2 layers of stage 0:
// offset [-1, 1], recompute [2, 0], select_recompute [2, 0], select_comm_recompute [2, 0].
ExportOutput export_mindformers(const Plan& plan, const Model& model, const MegatronRun* run = nullptr);

// MindFormers' recompute counts of a plan, per virtual stage in the plan's order (full,
// select = full + selective_comm + selective, select_comm = full + selective_comm + comm), and the
// virtual stages where those counts, applied to the first layers, do not reproduce the plan.
struct MindFormersCounts {
  std::vector<int> recompute, select, select_comm;
  std::vector<int> moved;  // recomputed layers other than the first ones of the stage
  std::vector<int> mixed;  // select-only and comm-only layers on one stage
};
MindFormersCounts mindformers_counts(const Plan& plan, const Model& model);

// Megatron-LM: json {"args": [...], "layout": "E...|...L", "notes": [...]}, text the arguments
// joined for a shell. Arguments: --num-layers, --pipeline-model-parallel-size, then the partition
// as an even split (with --num-virtual-stages-per-pipeline-rank when vpp > 1), as
// --decoder-first/last-pipeline-num-layers when those reproduce it, or else as
// --pipeline-model-parallel-layout; and the recompute arguments when the plan's recompute has a
// Megatron-LM form (full on every layer: uniform; full on the first N layers of every virtual
// stage: block N; selective on every layer: selective).
//
// Example: pp 4, embedding + 2 decoders | 3 decoders | 2 decoders | 3 decoders + head is not an even
// split nor one with only the first and last stages different, so the args are --num-layers 10
// --pipeline-model-parallel-size 4 --pipeline-model-parallel-layout 'Et*2|t*3|t*2|t*3L'.
ExportOutput export_megatron(const Plan& plan, const Model& model, const MegatronRun* run = nullptr);

// What a Megatron-LM launch needs beyond the plan, as the request states it (parallel, training and
// transformer sections; export_megatron_run.cpp): what is not stated is not written.
struct MegatronRun {
  bool stated = false;  // the request states the run (a transformer, parallel sizes, batch sizes, precision, sharding)
  std::int64_t tp = 1, cp = 1, ep = 1;
  std::optional<std::int64_t> expert_tp;  // parallel.expert_tp_degree when stated
  bool sequence_parallel = false, tp_comm_overlap = false;
  std::optional<std::int64_t> micro_batch_size, global_batch_size, world_size, dp;
  std::optional<std::int64_t> num_experts, seq_length;
  std::string precision;  // "bf16", "fp16", "fp8", "fp32"; empty: not stated
  std::string sharding;   // "none", "optimizer", "optimizer_and_grads", "full"; empty: not stated
};
MegatronRun megatron_run(const nlohmann::json& request);

// The arguments of the run beside the plan's (megatron-LM's names, megatron/training/arguments.py of
// 2026-08): parallel sizes, batch sizes, sequence length, precision and the optimizer's sharding; and
// in `notes` each of Megatron-LM's checks (validate_args) the run fails, so that nothing is launched
// that Megatron-LM refuses.
std::vector<std::string> megatron_run_args(const Plan& plan, const MegatronRun& run, nlohmann::json& notes);

// The recompute arguments export_megatron writes for a plan: Megatron-LM takes one granularity for
// every decoder layer, and full recompute either on every layer (uniform) or on the first N layers
// of every model chunk (block N). `notes` gets what of the plan's recompute this leaves out.
struct MegatronRecompute {
  enum class Method { none, uniform, block, selective };
  Method method = Method::none;
  int block_layers = 0;  // block: N
};
MegatronRecompute megatron_recompute(const Plan& plan, const Model& model, nlohmann::json& notes);

// PyTorch's torch.distributed.pipelining: the program every rank runs, as the simulator ran it, in
// _Action's text form with the stage index our virtual stage: "3F0" forward, "3I0" input gradient
// (a B whose W runs apart), "3W0" weight gradient, "3B0" full backward, "(1F3;6B1)OVERLAP_F_B" an F&B
// pair. json {"actions": [[...] per rank], "format": "compute_only", "num_stages", "stage_to_rank",
// "notes"}; text the CSV (one row per rank, actions separated by commas) that
// _PipelineScheduleRuntime._load_csv reads and torchtitan's pipeline_parallel_schedule_csv names.
//
// Example: 1f1b, pp 2, m 2: rank 0 "0F0,0F1,0B0,0B1", rank 1 "1F0,1B0,1F1,1B1".
ExportOutput export_pytorch(const Plan& plan, const Program& program);
// The same for a schedule whose program is the shape's alone (not zb_auto: needs_costs).
ExportOutput export_pytorch(const Plan& plan);
// torchtitan: json {"parallelism": torchtitan's [parallelism] keys (pipeline degree, the schedule that
// places the stages, pipeline_parallel_schedule_csv "ppb_schedule.csv", num_pp_microbatches,
// module_fqns_per_model_part, and with a stated run the tp, sp, cp, ep and dp degrees),
// "activation_checkpoint" ("full", "selective" or "none"), "overrides" (the same as --parallelism.<key>
// command-line flags), "csv" (the pytorch export's schedule), "stage_to_rank", "notes"}; text the
// TOML of those sections. Example: 1f1b, pp 2, m 4, embedding + 2 decoders + head:
// module_fqns_per_model_part [["tok_embeddings", "layers.0"], ["layers.1", "norm", "output"]].
// `program` is the plan's (plan_program).
ExportOutput export_torchtitan(const Plan& plan, const Program& program, const Model& model, const MegatronRun* run);

// When the written plan is not the request's: `changes` (result.exported.changes) at the end of
// the MindFormers YAML as "# changed: " comments, so that the file does not travel without them.
void comment_changes(ExportOutput& out, const std::vector<std::string>& changes);

// The layers of virtual stage v that are not pinned, [first, end): what frameworks call the
// stage's decoder layers.
std::pair<int, int> body_range(const Plan& plan, const Model& model, int v);

// A JSON value in flow style, as YAML and TOML both read it: lists as [1, 2] or [["a", "b"], ["c"]],
// scalars as JSON writes them.
std::string flow_text(const nlohmann::json& value);

// One operation in PyTorch's action text form (see export_pytorch).
std::string pytorch_action(const Op& op);

}  // namespace ppb
