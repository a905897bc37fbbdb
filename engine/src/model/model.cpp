// Model look-ups.
#include "ppb/model/model.hpp"

namespace ppb {

int Model::option_index(const std::string& option) const {
  for (std::size_t i = 0; i < recompute_options.size(); ++i)
    if (recompute_options[i] == option) return static_cast<int>(i);
  return -1;
}

void Model::set_bytes_per_param(const BytesPerParam& bytes, const BytesPerParam& expert_bytes) {
  constexpr double kMiB = 1048576.0;
  for (Layer& layer : layers) {
    if (layer.params <= 0) continue;
    const double dense = layer.params - layer.expert_params, experts = layer.expert_params;
    layer.weights_mib = (dense * bytes.weights + experts * expert_bytes.weights) / kMiB;
    layer.grads_mib = (dense * bytes.grads + experts * expert_bytes.grads) / kMiB;
    layer.optimizer_mib = (dense * bytes.optimizer + experts * expert_bytes.optimizer) / kMiB;
  }
}

}  // namespace ppb
