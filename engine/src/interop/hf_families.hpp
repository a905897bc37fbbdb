// The model families the Hugging Face import knows (internal to interop): for each transformers
// configuration class, what it assumes for a field its config.json leaves out and what its modeling
// code builds whatever the file says; and the fields of any family that change nothing PPB counts.
// Read at transformers' main branch (src/transformers/models/<family>/configuration_<family>.py).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace ppb::hf {

enum class Family {
  llama,
  mistral,
  mixtral,
  qwen2,
  qwen2_moe,
  qwen3,
  qwen3_moe,
  deepseek_v2,
  deepseek_v3,
  gemma2,
  gemma3
};

// The sizes Gemma3TextConfig gives a text model that leaves them out. transformers writes a nested
// config (gemma3's text_config) as its difference from its class's defaults, so the published files
// leave out every size equal to these (google/gemma-3-4b-pt states neither heads nor vocabulary).
struct SizeDefaults {
  std::int64_t layers, hidden, heads, ffn, vocab;
};
inline constexpr SizeDefaults kGemma3Text{26, 2304, 8, 9216, 262208};

// What a family's configuration class assumes for a field the file leaves out, and what its
// modeling code builds whatever the file says.
struct FamilyFacts {
  std::string_view model_type;
  Family family;
  std::int64_t kv_heads;         // num_key_value_heads when absent; 0: num_attention_heads (null is always that)
  std::int64_t head_dim;         // head_dim when absent; 0: hidden_size / num_attention_heads
  bool tied;                     // tie_word_embeddings when absent (PretrainedConfig's own default is true)
  bool qk_norm;                  // an RMSNorm on each head's queries and keys (q_norm, k_norm)
  std::int64_t norms_per_layer;  // gemma: input, post-attention, pre- and post-feedforward norms
  std::int64_t sliding_window;   // sliding_window when absent; 0: none
  const SizeDefaults* sizes;     // the sizes when absent; nullptr: required
};

// Read at transformers' main branch: LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config,
// Qwen2MoeConfig, Qwen3Config, Qwen3MoeConfig, DeepseekV2Config, DeepseekV3Config, Gemma2Config,
// Gemma3TextConfig (model_type gemma3_text, also Gemma-3-1B's own config).
inline constexpr std::array<FamilyFacts, 12> kFamilies = {{
    {"llama", Family::llama, 0, 0, false, false, 2, 0, nullptr},
    {"mistral", Family::mistral, 8, 0, false, false, 2, 4096, nullptr},
    {"mixtral", Family::mixtral, 8, 0, false, false, 2, 0, nullptr},
    {"qwen2", Family::qwen2, 32, 0, false, false, 2, 0, nullptr},
    {"qwen2_moe", Family::qwen2_moe, 16, 0, false, false, 2, 0, nullptr},
    {"qwen3", Family::qwen3, 32, 128, false, true, 2, 0, nullptr},
    {"qwen3_moe", Family::qwen3_moe, 4, 0, false, true, 2, 0, nullptr},
    {"deepseek_v2", Family::deepseek_v2, 0, 0, false, false, 2, 0, nullptr},
    {"deepseek_v3", Family::deepseek_v3, 128, 0, false, false, 2, 0, nullptr},
    {"gemma2", Family::gemma2, 4, 256, true, false, 4, 4096, nullptr},
    {"gemma3", Family::gemma3, 4, 256, true, true, 4, 4096, &kGemma3Text},
    {"gemma3_text", Family::gemma3, 4, 256, true, true, 4, 4096, &kGemma3Text},
}};

// Fields that describe the checkpoint, its tokenizer, inference or the router's choices, not the
// sizes PPB counts: accepted without a word (docs/interop.md says why each changes nothing here).
// Keys that start with "_" are transformers' own bookkeeping too (_name_or_path, _commit_hash).
inline constexpr std::array<std::string_view, 44> kBookkeeping = {
    // the checkpoint, the tokenizer and inference
    "architectures", "model_type", "auto_map", "torch_dtype", "dtype", "transformers_version", "use_cache",
    "bos_token_id", "eos_token_id", "pad_token_id", "initializer_range", "quantization_config", "pretraining_tp",
    "cache_implementation", "mm_tokens_per_image", "image_token_index", "boi_token_index", "eoi_token_index",
    // numerics and positions: no weights, no work PPB counts
    "rms_norm_eps", "rope_theta", "rope_scaling", "rope_parameters", "rope_interleave", "rope_local_base_freq",
    "max_position_embeddings", "hidden_act", "hidden_activation", "query_pre_attn_scalar",
    // which layers use the sliding window (sliding_window itself is read)
    "layer_types", "max_window_layers", "sliding_window_size", "sliding_window_pattern",
    // the router's choices and losses: which experts, not how many
    "output_router_logits", "router_aux_loss_coef", "router_jitter_noise", "aux_loss_alpha", "seq_aux",
    "norm_topk_prob", "routed_scaling_factor", "scoring_func", "topk_method", "n_group", "topk_group", "ep_size"};

}  // namespace ppb::hf
