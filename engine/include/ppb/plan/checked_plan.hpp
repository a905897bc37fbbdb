// A request's plan with every check a command runs before simulating it: resolve_plan's checks of the
// partition and degrees, the components' lengths, and the simulation size cap.
//   Diagnostics d;
//   if (auto plan = checked_plan(request, d)) simulate_it(*plan);  // else d lists every problem
#pragma once

#include <optional>

#include "ppb/core/diagnostics.hpp"
#include "ppb/model/request.hpp"
#include "ppb/plan/plan.hpp"

namespace ppb {

// resolve_plan plus the components' lengths and the simulation size cap. Every check whose inputs
// were read runs, whatever else is wrong, so one answer lists every problem; the plan is returned
// only when there is none at all.
std::optional<Plan> checked_plan(const Request& request, Diagnostics& diagnostics);

}  // namespace ppb
