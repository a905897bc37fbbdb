// Per-virtual-stage costs of a plan: the sums over its layers, with the chosen recompute options,
// and the transfer to the next virtual stage when that one is on another device.
#include "ppb/plan/stage_costs.hpp"

#include <algorithm>

#include "ppb/plan/plan.hpp"

namespace ppb {

std::vector<VirtualStageCost> virtual_stage_costs(const Model& model, const Device& device, const Plan& plan) {
  const int virtual_stages = plan.virtual_stages();
  const auto starts = plan.stage_starts();
  std::vector<VirtualStageCost> costs(static_cast<std::size_t>(virtual_stages));
  for (int v = 0; v < virtual_stages; ++v) {
    auto& c = costs[static_cast<std::size_t>(v)];
    for (int i = starts[static_cast<std::size_t>(v)]; i < starts[static_cast<std::size_t>(v) + 1]; ++i) {
      const Layer& layer = model.layers[static_cast<std::size_t>(i)];
      const int option = plan.recompute[static_cast<std::size_t>(i)];
      c.forward_ms += layer.forward_ms;
      c.backward_ms += layer.backward_ms;
      c.weight_ms += layer.weight_backward_ms;
      c.forward_comm_ms += layer.forward_comm_ms;
      c.backward_comm_ms += layer.backward_comm_ms;
      double kept = layer.activation_mib;
      if (option >= 0) {
        const RecomputeCost& r = *layer.recompute[static_cast<std::size_t>(option)];
        c.backward_ms += r.extra_ms;
        kept = r.activation_mib;
      }
      c.activation_mib += kept;
      c.weight_activation_mib += std::min(kept, layer.weight_activation_mib.value_or(kept));
    }
    const int end = starts[static_cast<std::size_t>(v) + 1];
    const bool crosses = v + 1 < virtual_stages && plan.physical_stage(v) != plan.physical_stage(v + 1);
    // An empty virtual stage forwards what it received: the last layer before it sets the size.
    if (crosses && end > 0)
      c.send_ms = transfer_ms(device, model.layers[static_cast<std::size_t>(end) - 1].send_mib);
    else if (crosses)
      c.send_ms = device.p2p_latency_ms;
  }
  return costs;
}

}  // namespace ppb
