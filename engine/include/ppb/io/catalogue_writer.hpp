// What the engine knows before any request, as JSON, for a page that must keep no copy of it: the
// device presets (id, the vendor's name and their figures) and the caps a page checks before it
// sends a document (a file too large to read, a model over the cap on layers, refused at once
// rather than after the engine has parsed megabytes).
//   device_presets_json()  // {"devices": [{"id": "h100_sxm", "name": "NVIDIA H100 SXM5 80 GB",
//                          //   "memory_limit_mib": 81920, ...}, ...]}
//   limits_json()          // {"max_input_bytes": 67108864, "max_layers": 100000}
#pragma once

#include <string>

namespace ppb {

// Every device preset in the order device_presets() lists them, with every figure it fills.
std::string device_presets_json();

// The caps on a request's text (limits::max_input_bytes, INPUT_TOO_LARGE) and on a model's layers
// (limits::max_layers, LAYER_LIMIT).
std::string limits_json();

}  // namespace ppb
