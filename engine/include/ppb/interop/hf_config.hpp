// Import of a Hugging Face transformers `config.json` (the architecture file beside a checkpoint on
// the Hugging Face Hub) into PPB's `transformer` description (docs/transformer-model.md), for the
// families llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3,
// gemma2 and gemma3 (its text model). Each config field read, the description field it fills and
// the fields left out are tabled in docs/interop.md.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ppb/core/diagnostics.hpp"

namespace ppb {

// True when `document` is an object with `model_type` and `architectures` or `hidden_size`, the mark
// of a config.json.
bool is_hf_config(const nlohmann::json& document);

// What the import takes from the request besides the config: the training sequence length (a config
// states the longest context the model accepts, not the length it trains at) and the name.
struct HfImportOptions {
  std::optional<std::int64_t> seq_length;  // 4096 and warning SEQ_LENGTH_ASSUMED when absent
  std::optional<std::string> name;         // the config's model_type when absent
};

// A description and, for each field set from the config, where the config holds it: a JSON Pointer
// inside the description ("/moe/num_experts") and one into the request ("/hf_config/num_local_experts").
struct HfDescription {
  nlohmann::json transformer;
  std::string config_path;  // the config's own path in the request
  std::vector<std::pair<std::string, std::string>> origins;
};

// Reads the config found at JSON Pointer `path` of the request ("" when the request is the config)
// into a description. Every problem goes to `diagnostics` with its path in the config (REQUIRED for
// a missing size, HF_MODEL_TYPE_UNKNOWN for a family it does not know), and one HF_FIELDS_NOT_MODELLED
// warning names the fields that change the architecture in ways the description cannot say; nothing
// is returned when there is an error.
//
// Example: {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "num_hidden_layers": 32,
//           "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
//           "intermediate_size": 14336, "vocab_size": 128256, "tie_word_embeddings": false}
// with seq_length 8192 becomes {"name": "llama", "num_layers": 32, "hidden_size": 4096,
// "num_attention_heads": 32, "num_query_groups": 8, "ffn_hidden_size": 14336, "vocab_size": 128256,
// "seq_length": 8192, "tied_embeddings": false, "normalization": "rmsnorm", "gated_mlp": true,
// "dropout": false}.
std::optional<HfDescription> hf_transformer(const nlohmann::json& config, const std::string& path,
                                            const HfImportOptions& options, Diagnostics& diagnostics);

// Checks the description with the symbolic generator (transformer_model) and, when `sections` (the
// request's `parallel`, `training`, `device` and `pipeline`, an object) has a `device`, returns the
// ppb.model.v1 document it generates. The generator's problems with the description are reported at
// the config fields they came from; without a device nothing is returned and nothing else reported.
std::optional<nlohmann::json> hf_model(const HfDescription& description, const nlohmann::json& sections,
                                       Diagnostics& diagnostics);

}  // namespace ppb
