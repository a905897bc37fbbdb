// What one micro batch costs on each virtual stage under a plan: forward, backward (recompute
// included) and its weight-gradient part, the activation kept, and the transfer to the next stage.
// The simulator runs on these numbers alone.
#pragma once

#include <vector>

#include "ppb/device.hpp"
#include "ppb/model.hpp"

namespace ppb {

struct Plan;

struct VirtualStageCost {
  double forward_ms = 0;
  double backward_ms = 0;  // full backward including recompute; split schedules run backward_ms - weight_ms as B
  double weight_ms = 0;    // weight-gradient part, run as W by zero-bubble schedules
  double activation_mib = 0;
  double send_ms = 0;  // transfer to the next virtual stage (and the gradient back); 0 on the same device
};

// One cost per virtual stage, in order.
std::vector<VirtualStageCost> virtual_stage_costs(const Model& model, const Device& device, const Plan& plan);

}  // namespace ppb
