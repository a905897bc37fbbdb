// Writing the infeasibility explanation as the `infeasibility` field of the balance and search
// results (docs/contract.md): null when there is nothing to explain.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "ppb/search/infeasibility.hpp"

namespace ppb::detail {

nlohmann::json infeasibility_json(const std::optional<Infeasibility>& infeasibility);

}  // namespace ppb::detail
