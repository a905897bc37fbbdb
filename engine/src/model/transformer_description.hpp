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
  std::int64_t head_dim = 1;         // hidden_size / num_attention_heads unless stated
  bool qkv_bias = false;             // biases on the query, key and value projections (Qwen2)
  bool qk_norm = false;              // a norm over each query and key head (Qwen3, Gemma 3)
  std::int64_t norms_per_layer = 2;  // 4 with post-norms (Gemma 2 and 3)
  // Multi-head latent attention (DeepSeek-V2 and V3): queries and keys/values through low-rank
  // projections; q_lora_rank 0 projects the queries at full rank.
  struct Mla {
    std::int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_rope_head_dim = 0, qk_nope_head_dim = 0, v_head_dim = 0;
  };
  std::optional<Mla> mla;
  std::int64_t mtp_layers = 0;  // multi-token prediction modules after the head (DeepSeek-V3)
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
  std::int64_t shared_expert_ffn_hidden_size = 0;  // each shared expert's width
  // Which decoder layers past first_dense_layers hold experts: Megatron-LM's --moe-layer-freq, an
  // interval (layer i is MoE when i % interval == 0) or one 0/1 per layer.
  std::int64_t moe_layer_interval = 1;
  std::vector<bool> moe_layer_pattern;  // when stated as a list: one per decoder layer

  std::int64_t tp_degree = 1;
  bool sequence_parallel = false;
  bool tp_comm_overlap = false;  // Megatron-LM's --tp-comm-overlap: TP collectives hidden under the GEMMs
  std::int64_t cp_degree = 1;
  std::int64_t ep_degree = 1;
  std::int64_t expert_tp_degree = 1;  // the experts' tensor parallelism: tp unless stated (Megatron-LM's default)
  std::int64_t dp_degree = 1;
  std::optional<std::int64_t> pp_degree;  // from the request's pipeline section, when it states one

  std::int64_t micro_batch_size = 1;
  Precision precision = Precision::bf16;
  Sharding sharding = Sharding::none;
  std::vector<RecomputeOption> recompute_options = {RecomputeOption::full, RecomputeOption::selective};
  BytesPerParam bytes_per_param;
  BytesPerParam expert_bytes_per_param;  // sharded over the expert data-parallel group

  double peak_tflops = 1;
  std::optional<double> peak_tflops_fp8;  // required when precision is fp8
  // The links communication time comes from; none stated: no communication time.
  std::optional<std::int64_t> gpus_per_node;
  std::optional<double> intra_node_gbs, inter_node_gbs;
  double compute_efficiency = 0.5;
};

// Whether decoder layer i (0-based) holds experts.
bool is_moe_layer(const Description& m, std::int64_t i);

// Reads the description; nothing (with every problem reported) when any field or rule is wrong.
std::optional<Description> read_description(const nlohmann::json& request, Diagnostics& diagnostics);

}  // namespace ppb
