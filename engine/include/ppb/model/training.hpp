// Training settings the pipeline needs: batch sizes (which fix the micro batch count) and the bytes
// each parameter costs in weights, gradients and optimizer state.
#pragma once

#include <cstdint>
#include <optional>

namespace ppb {

struct BytesPerParam {
  // Megatron-LM's mixed-precision accounting: bf16 weights (2), fp32 gradients (4),
  // fp32 master weights and two Adam moments (12); 18 bytes per parameter in all.
  double weights = 2;
  double grads = 4;
  double optimizer = 12;
};

struct Training {
  std::optional<std::int64_t> global_batch_size;
  std::optional<std::int64_t> micro_batch_size;
  std::optional<std::int64_t> dp_degree;
  BytesPerParam bytes_per_param;
};

}  // namespace ppb
