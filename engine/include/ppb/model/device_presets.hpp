// Device presets: the accelerators people train on, with the figures a plan needs (memory, peak
// dense throughput in bf16 and FP8, the links inside and between nodes, what the runtime keeps back),
// each from its vendor's datasheet as docs/devices.md lists. `device.preset` fills the device
// section's fields the request leaves out; a field the request states wins.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ppb/core/diagnostics.hpp"

namespace ppb {

struct DevicePreset {
  const char* id;    // the value of device.preset, e.g. "h100_sxm"
  const char* name;  // as the vendor names it
  double memory_limit_mib;
  double reserved_mib;                    // CUDA/CANN context, communication buffers, workspaces
  double peak_tflops;                     // dense bf16
  std::optional<double> peak_tflops_fp8;  // dense FP8; none where the device has no FP8 units
  int gpus_per_node;
  double intra_node_gbs;  // each device's bandwidth into the node's fabric, one direction, GB/s
  double inter_node_gbs;  // each device's network bandwidth between nodes, one direction, GB/s
};

const std::vector<DevicePreset>& device_presets();
const DevicePreset* find_device_preset(std::string_view id);

// Fills request["device"]'s missing fields from its "preset" (and p2p_bandwidth_gbs from the
// inter-node bandwidth: pipeline stages sit on different nodes). An unknown preset is an error
// (DEVICE_PRESET_UNKNOWN at /device/preset, listing the known ones); a request without one is left
// as it is.
void apply_device_preset(nlohmann::json& request, Diagnostics& diagnostics);

}  // namespace ppb
