// Schedule programs: the dispatch to each schedule's generator and each schedule's conditions.
#include "ppb/schedule/schedule.hpp"

#include <algorithm>
#include <stdexcept>

#include "schedule_programs.hpp"

namespace ppb {

const char* op_name(OpKind kind) {
  switch (kind) {
    case OpKind::F: return "F";
    case OpKind::B: return "B";
    case OpKind::W: return "W";
    case OpKind::FB: return "F&B";
  }
  return "?";
}

bool splits_weight_gradient(Schedule schedule) {
  return schedule == Schedule::zb_h1 || schedule == Schedule::zb_h2 || schedule == Schedule::zbv ||
         schedule == Schedule::dualpipev || schedule == Schedule::zb_auto || schedule == Schedule::v_half ||
         schedule == Schedule::v_min || schedule == Schedule::interleaved_zero_bubble;
}

namespace {

// Appends stage `stage`'s operations to `ops`.
void append_stage(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  switch (shape.schedule) {
    case Schedule::gpipe: return programs::gpipe(shape, stage, ops);
    case Schedule::one_f_one_b: return programs::one_f_one_b(shape, stage, ops);
    case Schedule::interleaved_1f1b: return programs::interleaved_1f1b(shape, stage, ops);
    case Schedule::zb_h1: return programs::zb_h1(shape, stage, ops);
    case Schedule::zb_h2: return programs::zb_h2(shape, stage, ops);
    case Schedule::zbv: return programs::zbv(shape, stage, ops);
    case Schedule::dualpipev: return programs::dualpipev(shape, stage, ops);
    case Schedule::interleaved_1f1b_overlap: return programs::interleaved_1f1b_overlap(shape, stage, ops);
    case Schedule::v_half: return programs::v_half(shape, stage, ops);
    case Schedule::v_min: return programs::v_min(shape, stage, ops);
    case Schedule::interleaved_zero_bubble: return programs::interleaved_zero_bubble(shape, stage, ops);
    case Schedule::looped_bfs: return programs::looped_bfs(shape, stage, ops);
    case Schedule::zb_auto: break;
  }
  throw std::logic_error(std::string(schedule_name(shape.schedule)) +
                         "'s program depends on the stage costs: build it with zb_auto_program (simulate/zb_auto.hpp)");
}

}  // namespace

std::vector<Op> stage_program(const PipelineShape& shape, int stage) {
  std::vector<Op> ops;
  append_stage(shape, stage, ops);
  return ops;
}

void schedule_program(const PipelineShape& shape, Program& program) {
  program.ops_.clear();
  program.begin_.assign(1, 0);
  // Every (virtual stage, micro batch) has an F and a B, and a W where backwards split: reserving
  // that up front spares the list's growth (a program has fewer when F&B pairs merge operations).
  const auto pairs = static_cast<std::size_t>(shape.virtual_stages()) * static_cast<std::size_t>(shape.micro_batch_num);
  program.ops_.reserve(pairs * (splits_weight_gradient(shape.schedule) ? 3 : 2));
  program.begin_.reserve(static_cast<std::size_t>(shape.pp_degree) + 1);
  for (int s = 0; s < shape.pp_degree; ++s) {
    append_stage(shape, s, program.ops_);
    program.begin_.push_back(program.ops_.size());
  }
}

Program Program::from_stages(const std::vector<std::vector<Op>>& stages) {
  Program program;
  for (const std::vector<Op>& ops : stages) {
    program.ops_.insert(program.ops_.end(), ops.begin(), ops.end());
    program.begin_.push_back(program.ops_.size());
  }
  return program;
}

Program schedule_program(const PipelineShape& shape) {
  Program program;
  schedule_program(shape, program);
  return program;
}

namespace {

// PyTorch's ScheduleInterleavedZeroBubble runs max(1, m / pp) rounds of micro batches and raises a
// ValueError unless the round count divides m (schedules.py, its __init__).
std::int64_t zero_bubble_rounds(const PipelineShape& shape) {
  return std::max<std::int64_t>(1, shape.micro_batch_num / std::max(1, shape.pp_degree));
}

}  // namespace

bool schedule_accepts(const PipelineShape& shape) {
  switch (shape.schedule) {
    case Schedule::looped_bfs: return shape.vpp_degree >= 2;
    case Schedule::interleaved_zero_bubble:
      return shape.vpp_degree >= 2 && shape.micro_batch_num % zero_bubble_rounds(shape) == 0;
    case Schedule::interleaved_1f1b:
    case Schedule::interleaved_1f1b_overlap:
      return shape.vpp_degree >= 2 && shape.pp_degree >= 1 && shape.micro_batch_num % shape.pp_degree == 0;
    case Schedule::zbv:
    case Schedule::v_half:
    case Schedule::v_min: return shape.vpp_degree == 2;
    case Schedule::dualpipev: return shape.vpp_degree == 2 && shape.micro_batch_num >= 2LL * shape.pp_degree;
    default: return shape.vpp_degree == 1;
  }
}

std::vector<ScheduleProblem> schedule_problems(const PipelineShape& shape) {
  std::vector<ScheduleProblem> problems;
  const std::string name = schedule_name(shape.schedule);
  const std::string vpp = std::to_string(shape.vpp_degree);
  const std::string m = std::to_string(shape.micro_batch_num);
  const std::string pp = std::to_string(shape.pp_degree);
  if (is_interleaved(shape.schedule)) {
    if (shape.vpp_degree < 2)
      problems.push_back({"SCHEDULE_NEEDS_VPP", "/pipeline/vpp_degree",
                          name + " needs vpp_degree of 2 or more (model chunks per stage); it is " + vpp + "."});
    if (shape.pp_degree >= 1 && shape.micro_batch_num % shape.pp_degree != 0)
      problems.push_back({"MICRO_BATCH_NOT_MULTIPLE", "/pipeline/micro_batch_num",
                          name + " runs micro batches in groups of pp_degree, so micro_batch_num (" + m +
                              ") must be a multiple of pp_degree (" + pp + ")."});
  } else if (shape.schedule == Schedule::looped_bfs || shape.schedule == Schedule::interleaved_zero_bubble) {
    // PyTorch's multi-stage (looped) classes; torchtitan builds them with at least two stages per rank.
    if (shape.vpp_degree < 2)
      problems.push_back(
          {"SCHEDULE_NEEDS_VPP", "/pipeline/vpp_degree",
           name + " needs vpp_degree of 2 or more (model chunks per stage, PyTorch's looped stages); it is " + vpp +
               "."});
    if (shape.schedule == Schedule::interleaved_zero_bubble && shape.micro_batch_num >= 1 &&
        shape.micro_batch_num % zero_bubble_rounds(shape) != 0) {
      const std::string rounds = std::to_string(zero_bubble_rounds(shape));
      problems.push_back(
          {"MICRO_BATCH_NOT_MULTIPLE", "/pipeline/micro_batch_num",
           "interleaved_zero_bubble runs micro batches in max(1, micro_batch_num / pp_degree) = " + rounds +
               " rounds of equal size, as PyTorch's ScheduleInterleavedZeroBubble does, so "
               "micro_batch_num (" +
               m + ") must be a multiple of " + rounds + " (a multiple of pp_degree always is: " +
               std::to_string(zero_bubble_rounds(shape) * shape.pp_degree) + " is)."});
    }
  } else if (is_v_shape(shape.schedule)) {
    if (shape.vpp_degree != 2)
      problems.push_back({"SCHEDULE_NEEDS_TWO_CHUNKS", "/pipeline/vpp_degree",
                          name +
                              " runs exactly two model chunks per stage (the V shape), so vpp_degree must be 2 "
                              "or left out; it is " +
                              vpp + "."});
    // DualPipeV.step asserts num_chunks >= 2 x num_ranks (deepseek-ai/DualPipe, dualpipev.py).
    if (shape.schedule == Schedule::dualpipev && shape.micro_batch_num < 2LL * shape.pp_degree)
      problems.push_back(
          {"MICRO_BATCH_TOO_FEW", "/pipeline/micro_batch_num",
           "dualpipev needs micro_batch_num of at least 2 x pp_degree = " + std::to_string(2LL * shape.pp_degree) +
               " (DualPipeV's own condition); it is " + m + ". Raise micro_batch_num or lower pp_degree."});
  } else if (shape.vpp_degree > 1) {
    problems.push_back({"VPP_NEEDS_INTERLEAVED", "/pipeline/schedule",
                        "vpp_degree " + vpp +
                            " needs schedule \"interleaved_1f1b\", \"interleaved_1f1b_overlap\", "
                            "\"interleaved_zero_bubble\" or \"looped_bfs\" (or, for two chunks, \"zbv\", "
                            "\"dualpipev\", \"v_half\" or \"v_min\"); \"" +
                            name + "\" runs one model chunk per stage."});
  }
  return problems;
}

}  // namespace ppb
