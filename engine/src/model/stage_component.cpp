// Stage components summed per physical stage.
#include "ppb/model/stage_component.hpp"

namespace ppb {

std::vector<double> component_tail_ms(const std::vector<StageComponent>& components, int pp_degree) {
  std::vector<double> tail(static_cast<std::size_t>(pp_degree), 0);
  for (const auto& c : components)
    for (int s = 0; s < pp_degree; ++s) tail[static_cast<std::size_t>(s)] += c.step_at(s);
  return tail;
}

std::vector<double> component_memory_mib(const std::vector<StageComponent>& components, int pp_degree) {
  std::vector<double> memory(static_cast<std::size_t>(pp_degree), 0);
  for (const auto& c : components)
    for (int s = 0; s < pp_degree; ++s) memory[static_cast<std::size_t>(s)] += c.memory_at(s);
  return memory;
}

}  // namespace ppb
