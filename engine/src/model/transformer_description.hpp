// The transformer description read (internal to the engine): the request's `transformer`,
// `parallel`, `training` and `device` sections as plain values with defaults applied, every field
// and every parallel-divisibility rule of Megatron-LM checked. transformer.cpp turns it into layers.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ppb/core/diagnostics.hpp"
#include "ppb/model/training.hpp"
#include "ppb/model/transformer.hpp"

namespace ppb {

enum class RecomputeOption { full, selective };

// The description with defaults applied; valid only when no error was reported.
struct Description {
  std::string name = "transformer";
  std::int64_t num_layers = 1;
  std::int64_t hidden_size = 1;
  std::int64_t num_attention_heads = 1;
  std::int64_t num_query_groups = 1;
  std::int64_t ffn_hidden_size = 4;
  bool gated_mlp = false;
  bool rmsnorm = false;
  bool dropout = true;
  // FlashAttention (the default: every current training stack runs it) keeps no score matrix;
  // eager attention keeps Korthikanti et al.'s softmax output, dropout mask and dropout output.
  bool flash_attention = true;
  std::int64_t vocab_size = 1;
  std::int64_t make_vocab_size_divisible_by = 128;
  std::int64_t seq_length = 1;
  bool tied_embeddings = true;
  std::int64_t num_experts = 0;  // 0: every layer dense
  std::int64_t top_k = 0;
  std::int64_t expert_ffn_hidden_size = 0;
  std::int64_t first_dense_layers = 0;
  std::int64_t shared_experts = 0;

  std::int64_t tp_degree = 1;
  bool sequence_parallel = false;
  std::int64_t cp_degree = 1;
  std::int64_t ep_degree = 1;
  std::int64_t dp_degree = 1;
  std::optional<std::int64_t> pp_degree;  // from the request's pipeline section, when it states one

  std::int64_t micro_batch_size = 1;
  Precision precision = Precision::bf16;
  Sharding sharding = Sharding::none;
  std::vector<RecomputeOption> recompute_options = {RecomputeOption::full, RecomputeOption::selective};
  BytesPerParam bytes_per_param;

  double peak_tflops = 1;
  double compute_efficiency = 0.5;
};

// Which sizes were read without a problem; cross-field rules only look at those, so one bad

// Reads the description; nothing (with every problem reported) when any field or rule is wrong.
std::optional<Description> read_description(const nlohmann::json& request, Diagnostics& diagnostics);

}  // namespace ppb
