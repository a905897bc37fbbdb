// Per-stage memory and time of a plan: static memory from the layers a stage holds, activation
// memory and step time from the schedule simulation, violations of the device memory limit.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ppb/model/model.hpp"
#include "ppb/model/request.hpp"
#include "ppb/plan/plan.hpp"
#include "ppb/simulate/simulate.hpp"

namespace ppb {

struct StageMemory {
  double weights_mib = 0;
  double grads_mib = 0;
  double optimizer_mib = 0;
  double static_mib = 0;  // weights + grads + optimizer + profiled static memory not split into them
  double reserved_mib = 0;
  double activation_mib = 0;  // activation peak over the step
  double components_mib = 0;  // stage components' memory
  double peak_mib = 0;        // static + reserved + activation peak + components
  std::optional<double> limit_mib;
  int in_flight_micro_batches = 0;
};

struct StageTime {  // per micro batch, except busy_ms and bubble_ms (per step)
  double forward_ms = 0;
  double backward_ms = 0;         // without recompute
  double recompute_ms = 0;        // added to the backward by the chosen recompute options
  double send_ms = 0;             // outgoing activation transfers (the gradient coming back costs the same)
  double components_step_ms = 0;  // stage components' time per step, after the last operation
  double busy_ms = 0;
  double bubble_ms = 0;
};

// What one named outside component adds on a stage (layer components per micro batch, stage
// components per step).
struct ComponentTotals {
  double forward_ms = 0;
  double backward_ms = 0;
  double static_mib = 0;
  double activation_mib = 0;  // per micro batch
  double step_ms = 0;
  double memory_mib = 0;
};

struct StageEstimate {
  int stage = 0;
  std::vector<int> virtual_stages;
  std::vector<std::pair<int, int>> layers;  // [begin, end) per virtual stage
  StageMemory memory;
  StageTime time;
  std::map<std::string, ComponentTotals> components;  // included in memory and time above
};

struct Violation {
  int stage = 0;
  double peak_mib = 0;
  double limit_mib = 0;
};

struct Estimate {
  Plan plan;
  bool feasible = true;
  double step_time_ms = 0;
  double span_ms = 0;  // the longest stage span (last end - first start), the iteration time when steps overlap
  double bubble_fraction = 0;
  double bubble_span_fraction = 0;     // (span_ms - the busiest stage's busy time) / span_ms
  double imbalance_max_over_mean = 1;  // of per-micro-batch stage compute (forward + backward + recompute)
  double imbalance_max_minus_min_ms = 0;
  // Model FLOPs utilisation: the step's model FLOPs (3 x every layer's forward flops x micro batches,
  // recompute not counted) over pp_degree devices at device.peak_tflops for the step time; none
  // when a layer states no flops or the device no peak. Tokens per second per device from the
  // model's device_tokens_per_micro_batch.
  std::optional<double> mfu;
  std::optional<double> tokens_per_s_per_device;
  std::vector<StageEstimate> stages;
  std::vector<Violation> violations;
  SimulationResult simulation;
};

Estimate estimate(const Model& model, const Device& device, const Plan& plan, bool keep_timeline,
                  const std::vector<StageComponent>& components = {});

// The program the estimate of `plan` runs: the schedule's, or zb_auto's for the plan's stage costs
// (the exports write this one).
Program plan_program(const Model& model, const Device& device, const Plan& plan,
                     const std::vector<StageComponent>& components = {});

}  // namespace ppb
