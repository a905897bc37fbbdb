// The schedules' facts as JSON, each read from the one place that decides it.
#include "ppb/io/schedules_writer.hpp"

#include <nlohmann/json.hpp>

#include "ppb/core/json_text.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/model/schedule_names.hpp"
#include "ppb/schedule/schedule.hpp"
#include "ppb/schedule/shape_rules.hpp"

namespace ppb {

using nlohmann::json;

std::string schedules_json() {
  json list = json::array();
  for (Schedule schedule : all_schedules) {
    int min = 0, max = 0;
    for (int vpp = 1; vpp <= static_cast<int>(limits::max_vpp_degree); ++vpp) {
      if (!vpp_runs(vpp, schedule)) continue;
      if (min == 0) min = vpp;
      max = vpp;
    }
    list.push_back({{"name", schedule_name(schedule)},
                    {"vpp_degree", {{"min", min}, {"max", max}, {"default", default_vpp_degree(schedule)}}},
                    {"weight_apart", splits_weight_gradient(schedule)},
                    {"v_shape", is_v_shape(schedule)},
                    {"cost_aware", needs_costs(schedule)}});
  }
  return json_text(json{{"schedules", list}});
}

}  // namespace ppb
