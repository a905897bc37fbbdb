// The step time of a plan under a fixed schedule program, for the balancer (internal to the engine):
// the simulator's arithmetic (timing.hpp's rules) without its bookkeeping. The program is read once into one execution
// order that respects every dependency (each stage's program order and every input), so that each
// plan is one pass over a flat list into buffers kept between plans: no allocation, no ready queue,
// no memory tracking (the balancer reads memory off the program). The step is a max-plus system, so
// any such order gives the simulator's times exactly (`PlanReplay.EqualsTheSimulator`).
#pragma once

#include <cstdint>
#include <vector>

#include "ppb/simulate/simulate.hpp"
#include "ppb/simulate/timing.hpp"

namespace ppb::balancer {

class PlanReplay {
 public:
  // `program` is the shape's schedule program; `tail_ms` per stage as in SimulationInput.
  PlanReplay(const PipelineShape& shape, const Program& program, std::vector<double> tail_ms);

  // The step time of `costs` (one per virtual stage), or a value above `abort_above_ms` as soon as an
  // operation ends later than that (the plan cannot be better; `aborted` is then set).
  double step_time(const std::vector<VirtualStageCost>& costs, double abort_above_ms, bool& aborted);

  // One operation of the execution order, with its physical stage.
  struct Step {
    Op op;
    std::int32_t stage;
  };
  // The execution order: each stage's operations in program order, every operation after its inputs
  // (the whole-plan bound's path rows walk the same order, program_paths.hpp).
  [[nodiscard]] const std::vector<Step>& order() const { return order_; }

 private:
  int pp_, V_;
  std::int64_t m_;
  std::vector<Step> order_;
  std::vector<double> tail_;
  std::vector<double> f_end_, b_end_, free_;  // per (virtual stage, micro batch); per stage
};

}  // namespace ppb::balancer
