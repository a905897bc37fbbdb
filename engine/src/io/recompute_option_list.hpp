// Reading a list of recompute option names (balance.recompute_options, search.recompute_options)
// into the options the balancer may use (internal to the engine).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ppb/core/diagnostics.hpp"
#include "ppb/model/model.hpp"

namespace ppb {

// Indices into Model::recompute_options of the names in `list` (an array, read at `path`), each once,
// in the order first listed; "none" is always available and adds nothing. A name no layer offers is
// RECOMPUTE_OPTION_UNKNOWN.
std::vector<int> read_recompute_option_list(const nlohmann::json& list, const std::string& path, const Model& model,
                                            Diagnostics& diagnostics);

}  // namespace ppb
