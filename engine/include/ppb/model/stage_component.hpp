// A per-stage cost from outside the pipeline model, once per step: for example the data-parallel
// gradient synchronisation or the optimizer step after a stage's last backward, and memory such as
// communication buffers. Values are per physical stage, or one value for every stage.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ppb {

struct StageComponent {
  std::string name;
  std::vector<double> step_ms;     // time after the stage's last operation
  std::vector<double> memory_mib;  // added to the stage's peak

  [[nodiscard]] double step_at(int stage) const { return value_at(step_ms, stage); }
  [[nodiscard]] double memory_at(int stage) const { return value_at(memory_mib, stage); }

 private:
  static double value_at(const std::vector<double>& values, int stage) {
    if (values.empty()) return 0;
    return values.size() == 1 ? values[0] : values[static_cast<std::size_t>(stage)];
  }
};

// Per physical stage: the components' time after the last operation, and their memory.
std::vector<double> component_tail_ms(const std::vector<StageComponent>& components, int pp_degree);
std::vector<double> component_memory_mib(const std::vector<StageComponent>& components, int pp_degree);

}  // namespace ppb
