// Import of the layer description files of the SAPP pipeline balancer shipped with MindFormers
// (toolkit/pipeline_balance) and HyperParallel (hyper_parallel/auto_parallel/sapp_ppb): a
// `layers_description` list of HEAD / BODY / TAIL entries with their time and memory, turned into
// a ppb.model.v1 document with the meaning that tool gives each field. See docs/interop.md.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ppb/core/diagnostics.hpp"

namespace ppb {

// True when `document` is an object with a `layers_description` field, the mark of a SAPP file.
bool is_sapp_file(const nlohmann::json& document);

// Converts a SAPP layer description file found at JSON Pointer `path` of the request ("" when the
// request is the file itself) into a ppb.model.v1 document. Every problem goes to `diagnostics`
// with its path inside the file; nothing is returned when there is one.
//
// Example: {"layers_description": [
//             {"name": "embedding", "type": "HEAD", "time": 2, "nb_layer": 1, "memory_parameter": 5000},
//             {"name": "decoder", "type": "BODY", "time": 10, "nb_layer": 80, "memory_parameter": 1500,
//              "memory_activation": 800, "memory_recompute": 50},
//             {"name": "lm_head", "type": "TAIL", "time": 6, "nb_layer": 1, "memory_parameter": 3000}]}
// becomes embedding (pin first, forward 2, backward 4, static 5000), 80 decoders (forward 10,
// backward 20, static 1500, activation 800, recompute "full" keeping 50 MiB and adding
// 0.5 x 20 = 10 ms) and lm_head (pin last, forward 6, backward 12, static 3000).
std::optional<nlohmann::json> sapp_model(const nlohmann::json& file, const std::string& path, Diagnostics& diagnostics);

}  // namespace ppb
