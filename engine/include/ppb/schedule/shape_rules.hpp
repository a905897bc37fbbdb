// The rules a pipeline shape must meet to run at all, whatever the model: the vpp_degree its
// schedule runs, the micro batch counts it needs, and the simulation cap. The search generates only
// shapes that meet them and counts the rest by rule; the infeasibility explanation proposes only
// shapes that meet them.
#pragma once

#include <optional>
#include <string>

#include "ppb/model/model.hpp"
#include "ppb/model/pipeline_shape.hpp"

namespace ppb {

struct ShapeRule {
  std::string group;   // the rule as a category, e.g. "interleaved_1f1b needs vpp_degree of 2 or more"
  std::string reason;  // the rule with this shape's numbers
};

// The vpp_degree a schedule runs when none is given: the least it accepts (2 for interleaved_1f1b,
// interleaved_zero_bubble, looped_bfs, zbv and dualpipev), else 1.
int default_vpp_degree(Schedule schedule);
// Why a schedule cannot run this vpp_degree, or none when it can.
std::optional<ShapeRule> vpp_rule_broken(int vpp_degree, Schedule schedule);
// Whether a schedule runs this vpp_degree (vpp_rule_broken is none), without writing the sentences: for
// the loops over every schedule and chunk count (the engine's schedule facts, the search's space).
bool vpp_runs(int vpp_degree, Schedule schedule);
// The most virtual stages a model's layers split into: its body layers, plus one for each pinned
// group (which shares a virtual stage only with body layers).
int splittable_units(const Model& model);
// Why the shape cannot run (its vpp_degree, its micro_batch_num for the schedule, the simulation
// cap), or none when it can.
std::optional<ShapeRule> shape_rule_broken(const PipelineShape& shape);

}  // namespace ppb
