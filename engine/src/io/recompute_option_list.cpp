// The recompute options a request lets the balancer use.
#include "recompute_option_list.hpp"

#include <algorithm>

#include "core/field_reader.hpp"

namespace ppb {

std::vector<int> read_recompute_option_list(const nlohmann::json& list, const std::string& path, const Model& model,
                                            Diagnostics& d) {
  std::vector<int> options;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = path + "/" + std::to_string(i);
    const auto name = read_string(list[i], at, "each recompute option", d);
    if (!name || *name == "none") continue;  // "none" is always available
    const int index = model.option_index(*name);
    if (index < 0) {
      d.error("RECOMPUTE_OPTION_UNKNOWN", at,
              "no layer of the model offers recompute option " + quoted_input(*name) + ".");
      continue;
    }
    // Listed twice is allowed once: every copy would multiply the balancer's work.
    if (std::find(options.begin(), options.end(), index) == options.end()) options.push_back(index);
  }
  return options;
}

}  // namespace ppb
