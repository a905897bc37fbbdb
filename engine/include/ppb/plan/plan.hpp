// A pipeline plan: how the model's layers are cut into virtual stages and which recompute option
// each layer uses. All partition forms of the contract (stage_partition, stage_layers,
// layer_offset, even split) and both recompute forms (per-stage counts, layer indices) resolve
// to this one representation, and every form can be read back from it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ppb/core/diagnostics.hpp"
#include "ppb/model/pipeline_shape.hpp"
#include "ppb/model/request.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb {

// A pipeline shape plus the layers of each virtual stage and the recompute option of each layer.
struct Plan : PipelineShape {
  Plan() = default;
  explicit Plan(const PipelineShape& shape) : PipelineShape(shape) {}

  std::vector<int> stage_layers;  // layers per virtual stage, pinned layers included
  std::vector<int> recompute;     // per expanded layer: index into Model::recompute_options, -1 none
  // The user's program (pipeline.program, checked by checked_plan) run instead of the schedule's
  // generator; null: the schedule's own. Shared, so that copies of a plan stay cheap.
  std::shared_ptr<const Program> program;

  // First layer of each virtual stage, plus the layer count at the end (size V + 1).
  [[nodiscard]] std::vector<int> stage_starts() const;
};

// The contract's even split: floor(B / V) body layers per virtual stage, the B mod V extra ones
// on the first virtual stages; pinned layers join the first / last virtual stage.
std::vector<int> even_stage_layers(const Model& model, int virtual_stages);

// Body (unpinned) layers of each virtual stage.
std::vector<int> body_layers_per_stage(const Model& model, const std::vector<int>& stage_layers);

// Read-backs of a plan in every form of the contract.
std::vector<int> stage_partition_of(const Plan& plan);
std::vector<int> layer_offset_of(const Plan& plan, const Model& model);
std::map<std::string, std::vector<int>> recompute_layers_of(const Plan& plan, const Model& model);
std::map<std::string, std::vector<int>> recompute_counts_of(const Plan& plan, const Model& model);

// micro_batch_num as given, or global_batch_size / (micro_batch_size x dp_degree); checks that the
// numbers fit together. Returns nothing (and reports why) when they do not.
std::optional<std::int64_t> resolve_micro_batch_num(const Training& training, const PipelineSpec& pipeline,
                                                    Diagnostics& diagnostics);

// Checks degrees and schedule rules, and turns the request's partition and recompute into a Plan.
// Every problem found goes to `diagnostics`; the plan is returned only when there are none.
std::optional<Plan> resolve_plan(const Request& request, Diagnostics& diagnostics);

}  // namespace ppb
