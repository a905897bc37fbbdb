// The caveats of an estimate: what the simulator does not count, said where it matters.
#include "ppb/simulate/caveats.hpp"

#include <algorithm>
#include <cmath>

#include "core/message_text.hpp"

namespace ppb {

namespace {

std::string percent_text(double fraction) { return figure_text(fraction * 100) + "%"; }

bool states_communication(const Model& model) {
  return std::any_of(model.layers.begin(), model.layers.end(),
                     [](const Layer& l) { return l.forward_comm_ms > 0 || l.backward_comm_ms > 0; });
}

bool sends_anything(const Model& model) {
  return std::any_of(model.layers.begin(), model.layers.end(), [](const Layer& l) { return l.send_mib > 0; });
}

bool has_step_time(const std::vector<StageComponent>& components) {
  return std::any_of(components.begin(), components.end(), [](const StageComponent& c) {
    return std::any_of(c.step_ms.begin(), c.step_ms.end(), [](double ms) { return ms > 0; });
  });
}

}  // namespace

std::vector<std::string> estimate_caveats(const Request& request, const Estimate* estimate) {
  const Model& model = request.model;
  const Device& device = request.device;
  std::vector<std::string> out;
  if (request.training.dp_degree.value_or(2) > 1)
    out.push_back(
        "The data-parallel gradient reduction after the last backward is not in the step time (Megatron-LM "
        "overlaps most of it with the backward).");
  if (!has_step_time(request.components))
    out.push_back("The optimizer step is not in the step time (a component with step_ms adds it).");
  if (request.source.description && !request.source.links)
    out.push_back(
        "Tensor-, context- and expert-parallel communication take no time: give device.preset, or "
        "device.gpus_per_node, intra_node_gbs and inter_node_gbs, to add them.");
  else if (!request.source.description && !states_communication(model))
    out.push_back(
        "No layer states its communication time (forward_comm_ms, backward_comm_ms): what a schedule could hide "
        "of it (dualpipev, interleaved_1f1b_overlap) is not credited.");
  if (request.source.description)
    out.push_back(
        "Layer times are the model's FLOPs at the device's peak times compute_efficiency, not measured; "
        "a profile of one layer is the surest correction.");
  if (sends_anything(model) && !device.p2p_bandwidth_gbs)
    out.push_back("Stage-to-stage transfers cost only their latency: device.p2p_bandwidth_gbs is not given.");
  if (device.memory_limit_mib && device.reserved_mib == 0)
    out.push_back(
        "No memory is kept back for the CUDA context, communication buffers and workspaces (device.reserved_mib "
        "is 0; about 2 GiB on current stacks, which device.preset fills in).");
  if (device.memory_limit_mib)
    out.push_back("The allocator's fragmentation is not modelled: a plan should leave device.memory_margin (" +
                  percent_text(device.memory_margin) + " of the limit) free.");
  if (estimate && device.memory_limit_mib) {
    std::vector<int> close;
    for (const auto& st : estimate->stages)
      if (tight(device, st.memory.peak_mib)) close.push_back(st.stage);
    if (!close.empty()) {
      std::string stages;
      for (std::size_t i = 0; i < close.size() && i < 4; ++i) stages += (i ? ", " : "") + std::to_string(close[i]);
      if (close.size() > 4) stages += " and " + std::to_string(close.size() - 4) + " more";
      out.push_back("Tight: stage" + std::string(close.size() > 1 ? "s " : " ") + stages + " leave" +
                    (close.size() > 1 ? "" : "s") + " less than " + percent_text(device.memory_margin) + " of the " +
                    figure_text(*device.memory_limit_mib) + " MiB limit free.");
    }
  }
  return out;
}

}  // namespace ppb
