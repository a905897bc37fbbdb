// The device presets and the caps a page checks early, as JSON, each read from its one place.
#include "ppb/io/catalogue_writer.hpp"

#include <nlohmann/json.hpp>

#include "ppb/core/json_text.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/model/device_presets.hpp"

namespace ppb {

using nlohmann::json;

std::string device_presets_json() {
  json list = json::array();
  for (const DevicePreset& p : device_presets()) {
    list.push_back({{"id", p.id},
                    {"name", p.name},
                    {"memory_limit_mib", p.memory_limit_mib},
                    {"reserved_mib", p.reserved_mib},
                    {"peak_tflops", p.peak_tflops},
                    {"peak_tflops_fp8", p.peak_tflops_fp8 ? json(*p.peak_tflops_fp8) : json(nullptr)},
                    {"gpus_per_node", p.gpus_per_node},
                    {"intra_node_gbs", p.intra_node_gbs},
                    {"inter_node_gbs", p.inter_node_gbs}});
  }
  return json_text(json{{"devices", list}});
}

std::string limits_json() {
  return json_text(json{{"max_input_bytes", limits::max_input_bytes}, {"max_layers", limits::max_layers}});
}

}  // namespace ppb
