// Event simulation of one training step: one loop runs any schedule program (schedule.hpp). Every
// physical stage runs its operations one at a time in program order; an operation starts when its
// stage is free and its inputs have arrived; activations and gradients crossing physical stages
// arrive after the boundary's transfer time. The result is the step time and the span, each stage's
// busy time and activation peak, and, on request, the timeline and the memory each stage holds over
// time.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "ppb/model/pipeline_shape.hpp"
#include "ppb/plan/stage_costs.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb {

// A pipeline shape with what each of its virtual stages costs per micro batch.
struct SimulationInput : PipelineShape {
  std::vector<VirtualStageCost> costs;  // one per virtual stage, size pp x vpp
  // The program to run; null: the shape's schedule_program. A caller that simulates one shape many
  // times (the balancer) builds it once.
  const Program* program = nullptr;
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
  std::int32_t virtual_stage = 0;  // F&B: the forward's
  std::int32_t micro_batch = 0;    // F&B: the forward's
  OpKind kind = OpKind::F;
  bool weight_apart = false;  // B (or F&B's backward) computes only the input gradient; a W follows
  double start_ms = 0;
  double end_ms = 0;
  std::int32_t backward_virtual_stage = -1;  // F&B only
  std::int32_t backward_micro_batch = -1;    // F&B only
};

struct MemoryPoint {
  double time_ms = 0;
  double activation_mib = 0;  // held from this time on
};

struct StageSimulation {
  double busy_ms = 0;   // operations plus the stage's tail
  double start_ms = 0;  // when its first operation starts
  double end_ms = 0;    // when its last operation ends, before the tail
  double activation_peak_mib = 0;
  int peak_in_flight = 0;  // most (virtual stage, micro batch) full activations held at once (F start to B end)
  std::vector<MemoryPoint> memory;  // step function, kept with the timeline
};

struct SimulationResult {
  double step_time_ms = 0;  // the last end (tails included); every stage starts at 0
  double span_ms = 0;       // the longest stage span: last end (tail included) - first start
  std::vector<StageSimulation> stages;
  std::vector<TimedOp> timeline;    // by start time, kept on request
  std::int64_t operations = 0;      // operations run
  bool timeline_truncated = false;  // the timeline holds only the first max_timeline_ops of them
  bool aborted = false;
};

// Runs simulations, keeping its buffers (and the program it generates when the input brings none)
// from one run to the next: a caller that simulates many plans holds one, and a warm run then
// allocates only its result. Natively this matters: a fresh simulation of 262,144 operations spent
// most of its time in the kernel handing freshly mapped pages to its buffers (docs/benchmarks.md).
class Simulator {
 public:
  Simulator();
  ~Simulator();
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;
  SimulationResult run(const SimulationInput& input);

  struct Buffers;

 private:
  std::unique_ptr<Buffers> buffers_;
};

// One simulation, with buffers of its own (Simulator().run(input)).
SimulationResult simulate(const SimulationInput& input);

}  // namespace ppb
