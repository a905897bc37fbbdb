// The partition and recompute forms of a request, each checked against the model and turned into
// the plan's own terms (internal to the plan room): stage_layers per virtual stage, and a recompute
// option per layer. resolve_plan (plan.cpp) picks the form the request uses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ppb/core/diagnostics.hpp"
#include "ppb/model/model.hpp"
#include "ppb/model/request.hpp"

namespace ppb::detail {

inline std::string str(std::int64_t n) { return std::to_string(n); }
inline std::string plural(std::int64_t n, const char* word) { return str(n) + " " + word + (n == 1 ? "" : "s"); }

// Pinned-first layers belong to virtual stage 0 and pinned-last ones to V - 1, so those stages'
// layer counts include them.
inline int pinned_on(const Model& model, int v, int virtual_stages) {
  int pinned = 0;
  if (v == 0) pinned += model.pinned_first;
  if (v == virtual_stages - 1) pinned += model.pinned_last;
  return pinned;
}

// Checks a stage_partition (virtual stage of every layer) and turns it into stage_layers.
std::optional<std::vector<int>> from_stage_partition(const Model& model, const std::vector<std::int64_t>& partition,
                                                     int virtual_stages, Diagnostics& diagnostics);
std::optional<std::vector<int>> from_stage_layers(const Model& model, const std::vector<std::int64_t>& counts,
                                                  int virtual_stages, Diagnostics& diagnostics);
std::optional<std::vector<int>> from_layer_offset(const Model& model, const std::vector<std::int64_t>& offset,
                                                  int virtual_stages, Diagnostics& diagnostics);
// A Megatron-LM layout's body layers per virtual stage (parsed by the request reader, E and L
// already in place) against the model: one entry per virtual stage, every body layer once.
std::optional<std::vector<int>> from_megatron_layout(const Model& model, const PipelineSpec& spec, int virtual_stages,
                                                     Diagnostics& diagnostics);
const char* partition_field(PartitionForm form);
// Recompute from per-virtual-stage counts: the first N body layers of the stage use the option.
// Several options on one stage are laid out one after another in the order of
// Model::recompute_options, so they never overlap.
bool recompute_from_counts(const Model& model, const PipelineSpec& spec, const std::vector<int>& stage_layers,
                           std::vector<int>& choice, Diagnostics& diagnostics);
bool recompute_from_layers(const Model& model, const PipelineSpec& spec, std::vector<int>& choice,
                           Diagnostics& diagnostics);

}  // namespace ppb::detail
