// Model look-ups.
#include "ppb/model/model.hpp"

namespace ppb {

int Model::option_index(const std::string& option) const {
  for (std::size_t i = 0; i < recompute_options.size(); ++i)
    if (recompute_options[i] == option) return static_cast<int>(i);
  return -1;
}

}  // namespace ppb
