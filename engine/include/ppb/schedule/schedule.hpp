// Pipeline schedules as programs: for every physical stage, the ordered list of operations it runs.
// One generator per schedule writes the lists (schedule_*.cpp); the simulator (simulate.hpp) runs any
// program and holds no schedule policy of its own. Adding a schedule means adding one generator.
//
// Operations: F (forward), B (backward: only the input gradient when `weight_apart`, the full
// backward otherwise), W (the weight gradient of an earlier B with `weight_apart`) and FB (DualPipeV's
// overlapped pair: one micro batch's forward on one chunk and another's backward on the other chunk).
//   stage_program({.pp_degree = 2, .micro_batch_num = 2}, 0)  // 1f1b: F0 F1 B0 B1 on virtual stage 0
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
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

// Every physical stage's operations, stage after stage in one list: program[s] is stage s's, in
// order. One list, not one per stage, so that a program can be generated again into the same storage
// (schedule_program(shape, program)) without allocating: a simulation that runs many shapes keeps one.
class Program {
 public:
  Program() = default;
  // A program from every stage's list, stage 0 first (a generator that decides all stages together,
  // as zb_auto's does).
  static Program from_stages(const std::vector<std::vector<Op>>& stages);
  [[nodiscard]] std::size_t size() const { return begin_.size() - 1; }  // physical stages
  [[nodiscard]] std::span<const Op> operator[](std::size_t stage) const {
    return {ops_.data() + begin_[stage], begin_[stage + 1] - begin_[stage]};
  }
  [[nodiscard]] std::size_t operations() const { return ops_.size(); }

  // The stages' lists in order, for range for.
  class Iterator {
   public:
    Iterator(const Program& program, std::size_t stage) : program_(&program), stage_(stage) {}
    std::span<const Op> operator*() const { return (*program_)[stage_]; }
    Iterator& operator++() { return ++stage_, *this; }
    bool operator!=(const Iterator& other) const { return stage_ != other.stage_; }

   private:
    const Program* program_;
    std::size_t stage_;
  };
  [[nodiscard]] Iterator begin() const { return {*this, 0}; }
  [[nodiscard]] Iterator end() const { return {*this, size()}; }

 private:
  friend void schedule_program(const PipelineShape& shape, Program& program);
  std::vector<Op> ops_;
  std::vector<std::size_t> begin_{0};  // stage s's operations are ops_[begin_[s], begin_[s + 1])
};

// The operations physical stage `stage` runs, in order. The shape must meet the schedule's
// conditions (schedule_problems is empty), and its program must not depend on the stage costs
// (needs_costs, schedule_names.hpp: zb_auto's is written by simulate/zb_auto.hpp; asking here for it
// is a broken invariant).
std::vector<Op> stage_program(const PipelineShape& shape, int stage);
// Every stage's operations, generated into `program`'s storage (kept, so a second call allocates
// nothing when the shape is no larger).
void schedule_program(const PipelineShape& shape, Program& program);
Program schedule_program(const PipelineShape& shape);

// True for schedules that run some weight gradients apart from their backward (zb_h1, zb_h2, zbv,
// dualpipev, zb_auto).
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
