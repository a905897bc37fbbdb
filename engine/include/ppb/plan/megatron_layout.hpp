// Megatron-LM's pipeline layout string (--pipeline-model-parallel-layout), both ways: read as a
// partition form (`pipeline.megatron_layout`), and written for a plan (the export, the estimate
// result). The grammar is Megatron-LM's PipelineParallelLayerLayout.parse_str_to_list: virtual
// stages in order separated by "|"; "E" the embedding, "t" a decoder layer, "m" an MTP layer, "L"
// the loss; "x*n" repeats a character and "(...)*n" a group (up to the first ")"); commas are
// cosmetic. As Megatron-LM's validate_layer_layout requires, the layout opens with E and closes with
// L, each once, and no decoder layer follows an MTP layer. docs/partition.md has examples.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ppb/core/diagnostics.hpp"
#include "ppb/model/model.hpp"
#include "ppb/plan/plan.hpp"

namespace ppb {

// Body layers ("t" and "m") of each virtual stage of a layout; E and L stand for the model's pinned
// layers, always on the first and the last virtual stage. Every problem is a diagnostic at `path`
// (MEGATRON_LAYOUT_SYNTAX for the grammar, MEGATRON_LAYOUT_ENDS for the embedding, loss and MTP
// order, TOO_LARGE for a layout expanding beyond 4 x limits::max_layers characters); nothing is
// returned when there is one.
//   parse_megatron_layout("Et*3|(tt|)*2,t*3L", "/pipeline/megatron_layout", d) == {3, 2, 2, 3}
//   parse_megatron_layout("Et*3|(tt|)*29,m|L", ...): 32 virtual stages, 3, 29 x 2, 1 (the MTP), 0
std::optional<std::vector<int>> parse_megatron_layout(std::string_view layout, const std::string& path,
                                                      Diagnostics& diagnostics);

// The plan's layout string: "E" opens virtual stage 0, "t" or "t*n" gives each stage's body layers,
// "L" closes the last stage, and runs of equal stages before the last become "(token|)*k", as in
// Megatron-LM's own examples. Body 4 3 5 4 | 2 4 4 4 over pp 4, vpp 2 gives
// "Et*4|t*3|t*5|t*4|t*2|(t*4|)*2,t*4L".
std::string megatron_layout(const Plan& plan, const Model& model);

}  // namespace ppb
