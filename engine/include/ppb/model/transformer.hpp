// The symbolic transformer model: a `transformer` description (architecture, parallelism,
// training, device) turned into a ppb.model.v1 document, for users with no profiling data. Layer
// times come from FLOP counts, static memory from parameter counts, activation memory from
// Korthikanti et al. 2022, Table 2, extended to GQA, SwiGLU, MoE and context parallelism.
// docs/transformer-model.md derives every formula used here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ppb/core/diagnostics.hpp"
#include "ppb/model/request.hpp"

namespace ppb {

// Reads the request's `transformer`, `parallel`, `training` and `device` sections and returns a
// ppb.model.v1 document: an `embedding` layer pinned first, the decoder layers as `count` entries
// ("decoder" for dense, "moe_decoder" for MoE layers, the first_dense_layers dense ones first),
// and `final_norm_lm_head` (final norm, output projection, loss) pinned last. Every quantity is per
// device: `params` after tensor, expert and vocabulary parallelism; times and activations per
// micro batch. Besides the contract's fields the document carries
//   "bytes_per_param": {"weights", "grads", "optimizer"}  the figures the request's
//                      training.bytes_per_param should hold (the request's own where it gives them,
//                      held_bytes_per_param(bytes_for_precision(precision), sharding,
//                      dp_degree x cp_degree) otherwise, training.hpp);
//   "total_params":    the model's parameter count, unsharded, tied embeddings counted once.
// Every problem goes to `diagnostics` (errors with code, JSON Pointer path and message; unknown
// fields as UNKNOWN_FIELD warnings); nothing is returned when there is any error.
//
// Example:
//   Diagnostics d;
//   auto model = transformer_model(json::parse(R"({"transformer": {"num_layers": 2, "hidden_size": 64,
//       "num_attention_heads": 4, "vocab_size": 1000, "seq_length": 128},
//       "device": {"peak_tflops": 100}})"), d);
//   // (*model)["layers"][1]["count"] == 2
std::optional<nlohmann::json> transformer_model(const nlohmann::json& request, Diagnostics& diagnostics);

}  // namespace ppb
