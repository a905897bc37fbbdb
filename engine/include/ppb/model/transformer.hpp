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

enum class Precision { bf16, fp16, fp32 };

// "bf16", "fp16" or "fp32"; nothing for any other name.
std::optional<Precision> precision_from_name(const std::string& name);

// Bytes of static memory per parameter as Megatron-LM's distributed-optimizer guide gives them,
// split so that weights + grads + optimizer is the published total:
//   bf16 params, fp32 grads:  weights 2, grads 4, optimizer 12 (fp32 master copy + Adam m, v) = 18;
//                             distributed over d ranks: 2 + 4 + 12/d = 6 + 12/d
//   fp16 params, fp16 grads:  weights 2, grads 2, optimizer 16 (fp32 master copy, fp32 main grads,
//                             Adam m, v) = 20; distributed: 2 + 2 + 16/d = 4 + 16/d
//   fp32 params, fp32 grads:  weights 4, grads 4, optimizer 8 (Adam m, v) = 16;
//                             distributed: 4 + 4 + 8/d = 8 + 8/d
// Only the optimizer part is sharded over the data-parallel ranks. dp_degree below 1 counts as 1.
// Example: bytes_per_param_for(Precision::bf16, true, 8) == {2, 4, 1.5}.
BytesPerParam bytes_per_param_for(Precision precision, bool distributed_optimizer, std::int64_t dp_degree);

// Reads the request's `transformer`, `parallel`, `training` and `device` sections and returns a
// ppb.model.v1 document: an `embedding` layer pinned first, the decoder layers as `count` entries
// ("decoder" for dense, "moe_decoder" for MoE layers, the first_dense_layers dense ones first),
// and `final_norm_lm_head` (final norm, output projection, loss) pinned last. Every quantity is per
// device: `params` after tensor, expert and vocabulary parallelism; times and activations per
// micro batch. Besides the contract's fields the document carries
//   "bytes_per_param": {"weights", "grads", "optimizer"}  the figures the request's
//                      training.bytes_per_param should hold (the request's own where it gives them,
//                      bytes_per_param_for(precision, distributed_optimizer, dp_degree) otherwise);
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
