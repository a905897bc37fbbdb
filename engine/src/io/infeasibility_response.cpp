// The infeasibility explanation as JSON.
#include "infeasibility_response.hpp"

namespace ppb::detail {

using nlohmann::json;

json infeasibility_json(const std::optional<Infeasibility>& infeasibility) {
  if (!infeasibility) return nullptr;
  const Infeasibility& i = *infeasibility;
  return {{"proven", i.proven},
          {"message", i.message},
          {"limit_mib", i.limit_mib},
          {"lower_bound_mib", i.bound.peak_mib},
          {"static_share_mib", i.bound.static_share_mib},
          {"static_total_mib", i.bound.static_total_mib},
          {"memory_needed_mib", i.memory_needed_mib},
          {"min_pp_degree", i.min_pp_degree ? json(*i.min_pp_degree) : json(nullptr)},
          {"min_pp_degree_checked", i.min_pp_degree_checked},
          {"recompute_option", i.recompute_option ? json(*i.recompute_option) : json(nullptr)},
          {"recompute_option_checked", i.recompute_option_checked},
          {"suggestions", i.suggestions}};
}

}  // namespace ppb::detail
