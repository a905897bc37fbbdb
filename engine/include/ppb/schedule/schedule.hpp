// Pipeline schedules as programs: for every physical stage, the ordered list of operations it runs.
// One generator per schedule writes the lists (schedule_*.cpp); the simulator (simulate.hpp) runs any
// program and holds no schedule policy of its own. Adding a schedule means adding one generator.
//
// Operations: F (forward), B (backward: only the input gradient when `weight_apart`, the full
// backward otherwise), W (the weight gradient of an earlier B with `weight_apart`) and FB (DualPipeV's
// overlapped pair: one micro batch's forward on one chunk and another's backward on the other chunk).
//   stage_program({.pp_degree = 2, .micro_batch_num = 2}, 0)  // 1f1b: F0 F1 B0 B1 on virtual stage 0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ppb/model/pipeline_shape.hpp"

namespace ppb {

enum class OpKind : std::uint8_t { F, B, W, FB };

// "F", "B", "W" and "F&B" (the timeline's and the Chrome trace's names).
const char* op_name(OpKind kind);

struct Op {
  OpKind kind = OpKind::F;
  bool weight_apart = false;                 // B, or FB's backward: its weight gradient runs later as a W
  std::int32_t virtual_stage = 0;            // FB: the forward's
  std::int32_t micro_batch = 0;              // FB: the forward's
  std::int32_t backward_virtual_stage = -1;  // FB only
  std::int32_t backward_micro_batch = -1;    // FB only
};

// One list of operations per physical stage.
using Program = std::vector<std::vector<Op>>;

// The operations physical stage `stage` runs, in order. The shape must meet the schedule's
// conditions (schedule_problems is empty).
std::vector<Op> stage_program(const PipelineShape& shape, int stage);
// Every stage's operations.
Program schedule_program(const PipelineShape& shape);

// True for schedules that run some weight gradients apart from their backward (zb_h1, zb_h2, zbv,
// dualpipev).
bool splits_weight_gradient(Schedule schedule);

// What keeps a schedule from running a shape: a contract error code, the request field at fault and a
// sentence a person can act on.
struct ScheduleProblem {
  std::string code;
  std::string path;
  std::string message;
};
// Every condition of the schedule that the degrees and micro batch count break (empty: it runs).
// Degrees below 1 are left to the caller.
std::vector<ScheduleProblem> schedule_problems(const PipelineShape& shape);
// The same answer without the sentences: true when schedule_problems is empty (cheap, for hot paths).
bool schedule_accepts(const PipelineShape& shape);

}  // namespace ppb
