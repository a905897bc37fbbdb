// Model look-ups.
#include "ppb/model/model.hpp"

namespace ppb {

int Model::option_index(const std::string& option) const {
  for (std::size_t i = 0; i < recompute_options.size(); ++i)
    if (recompute_options[i] == option) return static_cast<int>(i);
  return -1;
}

void Model::set_bytes_per_param(const BytesPerParam& bytes) {
  constexpr double kMiB = 1048576.0;
  for (Layer& layer : layers) {
    if (layer.params <= 0) continue;
    layer.weights_mib = layer.params * bytes.weights / kMiB;
    layer.grads_mib = layer.params * bytes.grads / kMiB;
    layer.optimizer_mib = layer.params * bytes.optimizer / kMiB;
  }
}

}  // namespace ppb
