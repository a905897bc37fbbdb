// The device presets' figures; docs/devices.md gives the source of each.
#include "ppb/model/device_presets.hpp"

#include <string>

#include "core/message_text.hpp"

namespace ppb {

namespace {

// HBM capacities are binary: an "80 GB" stack holds 80 GiB = 81,920 MiB.
constexpr double gib(double g) { return g * 1024; }

// The runtime's share, kept back from every device: the CUDA (or CANN / ROCm) context and kernels,
// the communication library's buffers for the few communicators a 4D-parallel job opens, and the
// GEMM libraries' workspaces; about 2 GiB on the stacks of 2025-26 (docs/devices.md). Allocator
// fragmentation is not in it: device.memory_margin keeps that free.
constexpr double kReservedMib = 2048;

}  // namespace

const std::vector<DevicePreset>& device_presets() {
  static const std::vector<DevicePreset> presets = {
      {"h100_sxm", "NVIDIA H100 SXM5 80 GB", gib(80), kReservedMib, 989.4, 1978.9, 8, 450, 50},
      {"h200", "NVIDIA H200 SXM 141 GB", gib(141), kReservedMib, 989.4, 1978.9, 8, 450, 50},
      {"h800", "NVIDIA H800 SXM5 80 GB", gib(80), kReservedMib, 989.4, 1978.9, 8, 200, 50},
      {"b200", "NVIDIA B200 180 GB (HGX B200)", gib(180), kReservedMib, 2250, 4500, 8, 900, 50},
      {"a100_80gb", "NVIDIA A100 SXM4 80 GB", gib(80), kReservedMib, 312, std::nullopt, 8, 300, 25},
      {"mi300x", "AMD Instinct MI300X 192 GB", gib(192), kReservedMib, 1307.4, 2614.9, 8, 448, 50},
      {"ascend_910b", "Huawei Ascend 910B 64 GB", gib(64), kReservedMib, 320, std::nullopt, 8, 196, 25},
  };
  return presets;
}

const DevicePreset* find_device_preset(std::string_view id) {
  for (const DevicePreset& p : device_presets())
    if (id == p.id) return &p;
  return nullptr;
}

void apply_device_preset(nlohmann::json& request, Diagnostics& d) {
  if (!request.is_object()) return;
  auto device = request.find("device");
  if (device == request.end() || !device->is_object()) return;
  auto preset_field = device->find("preset");
  if (preset_field == device->end()) return;
  if (!preset_field->is_string()) {
    d.error("TYPE_MISMATCH", "/device/preset",
            "device.preset must be a string naming a device, e.g. \"h100_sxm\", not " +
                std::string(type_name(*preset_field)) + ".");
    return;
  }
  const std::string id = preset_field->get<std::string>();
  const DevicePreset* preset = find_device_preset(id);
  if (!preset) {
    std::string known;
    for (const DevicePreset& p : device_presets()) known += (known.empty() ? "" : ", ") + std::string(p.id);
    d.error("DEVICE_PRESET_UNKNOWN", "/device/preset",
            "device preset " + quoted_input(id) + " is not known; use one of " + known +
                ", or leave the preset out and give the device's figures.");
    return;
  }
  const auto fill = [&](const char* key, double value) {
    if (!device->contains(key)) (*device)[key] = value;
  };
  fill("memory_limit_mib", preset->memory_limit_mib);
  fill("reserved_mib", preset->reserved_mib);
  fill("peak_tflops", preset->peak_tflops);
  if (preset->peak_tflops_fp8) fill("peak_tflops_fp8", *preset->peak_tflops_fp8);
  fill("gpus_per_node", preset->gpus_per_node);
  fill("intra_node_gbs", preset->intra_node_gbs);
  fill("inter_node_gbs", preset->inter_node_gbs);
  fill("p2p_bandwidth_gbs", preset->inter_node_gbs);
}

}  // namespace ppb
