// The checks every command runs on a request's plan. See checked_plan.hpp.
#include "ppb/plan/checked_plan.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "ppb/core/limits.hpp"
#include "ppb/schedule/program_import.hpp"

namespace ppb {

std::optional<Plan> checked_plan(const Request& request, Diagnostics& d) {
  // Component lengths need only pp_degree, so they are checked beside the plan's own problems.
  if (!request.unread.degrees && !request.unread.components && request.pipeline.pp_degree >= 1) {
    const int pp = request.pipeline.pp_degree;
    for (std::size_t i = 0; i < request.components.size(); ++i) {
      const auto& c = request.components[i];
      for (auto [key, values] : {std::pair{"step_ms", &c.step_ms}, std::pair{"memory_mib", &c.memory_mib}})
        if (values->size() > 1 && values->size() != static_cast<std::size_t>(pp))
          d.error("COMPONENT_LENGTH", "/components/" + std::to_string(i) + "/" + key,
                  std::string(key) + " of component \"" + c.name + "\" has " + std::to_string(values->size()) +
                      " values; give one, or one per stage (" + std::to_string(pp) + ").");
    }
  }
  auto plan = resolve_plan(request, d);
  if (!plan) return std::nullopt;
  const std::int64_t pairs = static_cast<std::int64_t>(plan->virtual_stages()) * plan->micro_batch_num;
  if (pairs > limits::max_simulated_pairs) {
    d.error("SIMULATION_LIMIT", "/pipeline/micro_batch_num",
            "pp_degree x vpp_degree x micro_batch_num = " + std::to_string(pairs) + " exceeds the cap of " +
                std::to_string(limits::max_simulated_pairs) + " simulated (virtual stage, micro batch) pairs.");
    return std::nullopt;
  }
  if (request.pipeline.program) {
    // Checked here, after the cap: its checks walk every (virtual stage, micro batch) pair.
    std::vector<ScheduleProblem> problems;
    auto program = import_program(*plan, *request.pipeline.program, "/pipeline/program", problems);
    for (const ScheduleProblem& p : problems) d.error(p.code, p.path, p.message);
    if (program) plan->program = std::make_shared<const Program>(std::move(*program));
  }
  if (!d.ok()) return std::nullopt;
  return plan;
}

}  // namespace ppb
