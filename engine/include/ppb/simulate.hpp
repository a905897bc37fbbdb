// Event simulation of one training step. Every physical stage runs its operations one at a time;
// an operation starts when its stage is free and its input has arrived; activations and gradients
// crossing physical stages arrive after the boundary's transfer time. The result is the step time,
// each stage's busy time and activation peak, and, on request, the timeline and the memory each
// stage holds over time.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "ppb/pipeline_shape.hpp"
#include "ppb/schedule.hpp"
#include "ppb/stage_costs.hpp"

namespace ppb {

// A pipeline shape with what each of its virtual stages costs per micro batch.
struct SimulationInput : PipelineShape {
  std::vector<VirtualStageCost> costs;  // one per virtual stage, size pp x vpp
  bool keep_timeline = false;
  // The timeline keeps the first this many operations by start time, and the memory steps up to the
  // last of them; the simulation itself always runs to the end (limits::max_timeline_ops in estimate).
  std::int64_t max_timeline_ops = std::numeric_limits<std::int64_t>::max();
  // Stop as soon as an operation ends later than this (the step cannot be faster): the result is
  // then marked `aborted` and its step time is only a lower bound. Used by the balancer.
  double abort_above_ms = std::numeric_limits<double>::infinity();
  // Per physical stage, work once per step after the stage's last operation (outside components
  // such as the data-parallel gradient synchronisation); empty means none.
  std::vector<double> stage_tail_ms;
};

struct TimedOp {
  std::int32_t stage = 0;
  std::int32_t virtual_stage = 0;
  std::int32_t micro_batch = 0;
  OpKind kind = OpKind::F;
  double start_ms = 0;
  double end_ms = 0;
};

struct MemoryPoint {
  double time_ms = 0;
  double activation_mib = 0;  // held from this time on
};

struct StageSimulation {
  double busy_ms = 0;  // operations plus the stage's tail
  double end_ms = 0;   // when its last operation ends, before the tail
  double activation_peak_mib = 0;
  int peak_in_flight = 0;  // most (virtual stage, micro batch) activations held at once
  std::vector<MemoryPoint> memory;  // step function, kept with the timeline
};

struct SimulationResult {
  double step_time_ms = 0;
  std::vector<StageSimulation> stages;
  std::vector<TimedOp> timeline;  // by start time, kept on request
  std::int64_t operations = 0;      // operations run
  bool timeline_truncated = false;  // the timeline holds only the first max_timeline_ops of them
  bool aborted = false;
};

SimulationResult simulate(const SimulationInput& input);

}  // namespace ppb
