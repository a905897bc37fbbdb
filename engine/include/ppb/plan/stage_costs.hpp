// What one micro batch costs on each virtual stage under a plan: forward, backward (recompute
// included) and its weight-gradient part, their communication parts, the activation kept and the part
// of it the weight gradient needs, and the transfer to the next stage. The simulator runs on these
// numbers alone.
#pragma once

#include <vector>

#include "ppb/model/device.hpp"
#include "ppb/model/model.hpp"

namespace ppb {

struct Plan;

struct VirtualStageCost {
  double forward_ms = 0;
  double backward_ms = 0;  // full backward including recompute; split schedules run backward_ms - weight_ms as B
  double weight_ms = 0;    // weight-gradient part, run as W by zero-bubble schedules
  double activation_mib = 0;
  double send_ms = 0;                // transfer to the next virtual stage (and the gradient back); 0 on the same device
  double weight_activation_mib = 0;  // the part of activation_mib held from the end of B to the end of W
  double forward_comm_ms = 0;        // communication inside forward_ms
  double backward_comm_ms = 0;       // communication inside backward_ms
};

// One cost per virtual stage, in order. A layer's weight activation is its weight_activation_mib (all
// of its activation when not stated), at most the activation it keeps under its recompute option.
std::vector<VirtualStageCost> virtual_stage_costs(const Model& model, const Device& device, const Plan& plan);

}  // namespace ppb
