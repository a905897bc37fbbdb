// Hugging Face config.json -> the `transformer` description. A field the file leaves out takes the
// default of the family's transformers configuration class
// (src/transformers/models/<family>/configuration_<family>.py), except the sizes that define the
// model, which are required: a class's default sizes describe one particular checkpoint (a 7B), not
// the one the file is for. The MoE layer patterns follow the families' modeling files.
// docs/interop.md tables every field.
#include "ppb/interop/hf_config.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "core/field_reader.hpp"
#include "core/message_text.hpp"
#include "hf_families.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/model/transformer.hpp"

namespace ppb {

using nlohmann::json;

namespace {

using hf::Family;
using hf::FamilyFacts;
using hf::kBookkeeping;
using hf::kFamilies;
using hf::SizeDefaults;

// The description's cap on a size (transformer_description.cpp): a size it would refuse is refused
// here, at the config's field.
constexpr std::int64_t kMaxSize = 1'000'000'000;
constexpr IntegerRange kSize{1, kMaxSize};
constexpr IntegerRange kCount{0, kMaxSize};
constexpr std::int64_t kAssumedSeqLength = 4096;
constexpr const char* kOwner = "a Hugging Face config.json as PPB reads it";

void allow_bookkeeping(FieldReader& r, const json& object) {
  for (std::string_view key : kBookkeeping) r.allow(key);
  for (auto it = object.begin(); it != object.end(); ++it)
    if (!it.key().empty() && it.key().front() == '_') r.allow(it.key());
}

// A field transformers may write as null (Python's None): the class's "not set" then.
const json* present(FieldReader& r, std::string_view key) {
  const json* value = r.get(key);
  return value && !value->is_null() ? value : nullptr;
}

std::optional<std::int64_t> read_whole(FieldReader& r, const char* key, const IntegerRange& range = kSize) {
  const json* value = present(r, key);
  if (!value) return std::nullopt;
  return read_integer(*value, r.at(key), key, range, r.diagnostics());
}

// A size the description cannot do without: REQUIRED when absent or null, unless the family has a
// default for it.
std::optional<std::int64_t> read_size(FieldReader& r, const char* key, std::optional<std::int64_t> fallback,
                                      const char* what, const IntegerRange& range = kSize) {
  if (present(r, key)) return read_whole(r, key, range);
  if (fallback) return fallback;
  r.diagnostics().error("REQUIRED", r.at(key), std::string(key) + " is required (" + what + ").");
  return std::nullopt;
}

std::optional<bool> read_flag(FieldReader& r, const char* key) {
  if (!present(r, key)) return std::nullopt;
  return r.boolean(key);
}

std::optional<double> read_amount(FieldReader& r, const char* key, const NumberRange& range) {
  const json* value = present(r, key);
  if (!value) return std::nullopt;
  return read_number(*value, r.at(key), key, range, r.diagnostics());
}

// Writes the description from one text model's fields (the config, or gemma3's text_config).
class Mapping {
 public:
  Mapping(const FamilyFacts& facts, FieldReader& r, std::string prefix, HfDescription& out)
      : f_(facts), r_(r), prefix_(std::move(prefix)), out_(out) {}

  void read(std::int64_t seq_length);
  // "field value (what the description assumes instead)", one per architectural feature left out.
  std::vector<std::string> not_modelled;

 private:
  // A description field from the config's `key`, or ("") from the family's rule or default.
  void set(const char* pointer, json value, std::string_view key) {
    out_.transformer[json::json_pointer(pointer)] = std::move(value);
    out_.origins.emplace_back(pointer, key.empty() ? r_.path() : r_.at(key));
  }
  void note(std::string_view key, const std::string& value, const std::string& assumed) {
    not_modelled.push_back(prefix_ + std::string(key) + " " + value + " (" + assumed + ")");
  }
  [[nodiscard]] bool deepseek() const { return f_.family == Family::deepseek_v2 || f_.family == Family::deepseek_v3; }
  [[nodiscard]] bool qwen() const {
    return f_.family == Family::qwen2 || f_.family == Family::qwen2_moe || f_.family == Family::qwen3 ||
           f_.family == Family::qwen3_moe;
  }
  void read_attention(std::optional<std::int64_t> hidden, std::optional<std::int64_t> heads);
  void read_moe(std::optional<std::int64_t> layers, std::optional<std::int64_t> ffn);
  void read_mla();
  void read_not_modelled(std::int64_t seq_length);
  void set_moe_layers(std::int64_t layers, const std::vector<bool>& moe, std::string_view key);

  const FamilyFacts& f_;
  FieldReader& r_;
  std::string prefix_;  // the text model's place in the config, for the warning ("text_config/")
  HfDescription& out_;
};

void Mapping::read(std::int64_t seq_length) {
  const SizeDefaults* s = f_.sizes;
  const auto fallback = [s](std::int64_t SizeDefaults::*size) {
    return s ? std::optional<std::int64_t>(s->*size) : std::nullopt;
  };
  // With the embedding and the head the model may hold limits::max_layers layers.
  const auto layers = read_size(r_, "num_hidden_layers", fallback(&SizeDefaults::layers),
                                "the number of decoder layers", {1, limits::max_layers - 2, "LAYER_LIMIT"});
  const auto hidden = read_size(r_, "hidden_size", fallback(&SizeDefaults::hidden), "the model width");
  const auto heads = read_size(r_, "num_attention_heads", fallback(&SizeDefaults::heads), "attention heads");
  const auto ffn = read_size(r_, "intermediate_size", fallback(&SizeDefaults::ffn), "the MLP width");
  const auto vocab = read_size(r_, "vocab_size", fallback(&SizeDefaults::vocab), "the tokenizer's vocabulary");
  if (layers) set("/num_layers", *layers, "num_hidden_layers");
  if (hidden) set("/hidden_size", *hidden, "hidden_size");
  if (heads) set("/num_attention_heads", *heads, "num_attention_heads");
  if (ffn) set("/ffn_hidden_size", *ffn, "intermediate_size");
  if (vocab) set("/vocab_size", *vocab, "vocab_size");
  out_.transformer["seq_length"] = seq_length;
  out_.origins.emplace_back("/seq_length", "/seq_length");
  read_attention(hidden, heads);

  // Every family here normalises with RMSNorm and gates its MLP (SiLU, or GELU for gemma).
  set("/normalization", "rmsnorm", "");
  set("/gated_mlp", true, "");
  const auto tied = read_flag(r_, "tie_word_embeddings");
  set("/tied_embeddings", tied.value_or(f_.tied), tied ? "tie_word_embeddings" : "");
  const auto dropout = read_amount(r_, "attention_dropout", {.max = 1, .over_code = "OUT_OF_RANGE"});
  set("/dropout", dropout.value_or(0) > 0, dropout ? "attention_dropout" : "");
  if (f_.norms_per_layer != 2) set("/norms_per_layer", f_.norms_per_layer, "");
  if (f_.family == Family::mixtral || f_.family == Family::qwen2_moe || f_.family == Family::qwen3_moe || deepseek())
    read_moe(layers, ffn);
  if (deepseek()) read_mla();
  if (f_.family == Family::deepseek_v3) {
    if (const auto mtp = read_whole(r_, "num_nextn_predict_layers", kCount); mtp && *mtp > 0)
      set("/mtp_layers", *mtp, "num_nextn_predict_layers");
  }
  read_not_modelled(seq_length);
}

void Mapping::read_attention(std::optional<std::int64_t> hidden, std::optional<std::int64_t> heads) {
  // num_key_value_heads: null is num_attention_heads in every class (__post_init__); absent, the
  // class's default, which for some classes is a number of its own (MistralConfig's 8).
  const json* kv = r_.get("num_key_value_heads");
  if (kv && !kv->is_null()) {
    if (auto groups = read_whole(r_, "num_key_value_heads")) set("/num_query_groups", *groups, "num_key_value_heads");
  } else if (heads) {
    set("/num_query_groups", kv || f_.kv_heads == 0 ? *heads : f_.kv_heads, kv ? "num_key_value_heads" : "");
  }
  // DeepSeek's attention is MLA (the mla section); its head_dim is derived, not read.
  if (!deepseek()) {
    const json* raw = r_.get("head_dim");
    std::optional<std::int64_t> head_dim;
    if (raw && !raw->is_null())
      head_dim = read_whole(r_, "head_dim");
    else if (!raw && f_.head_dim > 0)
      head_dim = f_.head_dim;
    if (head_dim && hidden && heads && (*hidden % *heads != 0 || *head_dim != *hidden / *heads))
      set("/head_dim", *head_dim, raw ? "head_dim" : "");
  }
  // Bias on the q, k and v projections: Qwen2's attention always has it; Qwen2MoeConfig's qkv_bias
  // (true unless the file says otherwise) sets it; attention_bias elsewhere (it also puts a bias on
  // the output projection, h numbers a layer, which the description does not count).
  bool qkv_bias = false;
  std::string_view bias_key;
  if (f_.family == Family::qwen2) {
    qkv_bias = true;
  } else if (f_.family == Family::qwen2_moe) {
    const auto stated = read_flag(r_, "qkv_bias");
    qkv_bias = stated.value_or(true);
    if (stated) bias_key = "qkv_bias";
  } else if (f_.family != Family::mistral && f_.family != Family::mixtral) {
    const auto stated = read_flag(r_, "attention_bias");
    qkv_bias = stated.value_or(false);
    if (stated) bias_key = "attention_bias";
  }
  if (qkv_bias) set("/qkv_bias", true, bias_key);
  if (f_.qk_norm) set("/qk_norm", true, "");
}

// The MoE layers as the description says them: none (a dense model), every layer, the first ones
// dense (first_dense_layers), or any other pattern as a list of 0/1 per layer.
void Mapping::set_moe_layers(std::int64_t layers, const std::vector<bool>& moe, std::string_view key) {
  const auto first_moe = std::find(moe.begin(), moe.end(), true);
  const auto leading_dense = first_moe - moe.begin();
  if (std::all_of(first_moe, moe.end(), [](bool m) { return m; })) {
    if (leading_dense > 0 && leading_dense < layers) set("/moe/first_dense_layers", leading_dense, key);
    return;
  }
  json flags = json::array();
  for (bool m : moe) flags.push_back(m ? 1 : 0);
  set("/moe/layer_freq", std::move(flags), key);
}

void Mapping::read_moe(std::optional<std::int64_t> layers, std::optional<std::int64_t> ffn) {
  std::optional<std::int64_t> experts;
  std::string_view experts_key;
  if (f_.family == Family::mixtral) {
    experts = read_size(r_, "num_local_experts", std::nullopt, "experts per MoE layer", kCount);
    experts_key = "num_local_experts";
  } else if (deepseek()) {
    // DeepSeek's modeling code builds dense layers only when n_routed_experts is null; the expert
    // fields then say nothing.
    const json* raw = r_.get("n_routed_experts");
    if (raw && raw->is_null()) {
      r_.allow({"num_experts_per_tok", "moe_intermediate_size", "n_shared_experts", "first_k_dense_replace",
                "moe_layer_freq"});
      return;
    }
    experts = read_size(r_, "n_routed_experts", std::nullopt, "routed experts per MoE layer", kCount);
    experts_key = "n_routed_experts";
  } else {
    experts = read_size(r_, "num_experts", std::nullopt, "experts per MoE layer", kCount);
    experts_key = "num_experts";
  }
  const auto top_k = read_size(r_, "num_experts_per_tok", std::nullopt, "experts each token is routed to");
  // Mixtral's experts are intermediate_size wide; the others have their own width.
  std::optional<std::int64_t> width = ffn;
  if (f_.family != Family::mixtral)
    width = read_size(r_, "moe_intermediate_size", std::nullopt, "the width of one expert's MLP");
  std::optional<std::int64_t> shared, shared_width;
  std::string_view shared_key;
  if (f_.family == Family::qwen2_moe) {
    // One shared expert of its own width (Qwen2MoeSparseMoeBlock.shared_expert).
    shared_width = read_size(r_, "shared_expert_intermediate_size", std::nullopt,
                             "the width of the shared expert, 0 for none", kCount);
    if (shared_width && *shared_width > 0) shared = 1;
    shared_key = "shared_expert_intermediate_size";
  } else if (deepseek()) {
    // n_shared_experts experts as wide as a routed one (DeepSeek builds them as one MLP that many
    // times as wide: the same weights and work).
    const json* raw = r_.get("n_shared_experts");
    if (!raw || !raw->is_null())
      shared = read_size(r_, "n_shared_experts", std::nullopt, "shared experts, null for none", kCount);
    shared_key = "n_shared_experts";
  }
  // Which layers are MoE. Qwen2Moe/Qwen3Moe decoder layers: not in mlp_only_layers and
  // (i + 1) % decoder_sparse_step == 0. DeepSeek's: i >= first_k_dense_replace and i % moe_layer_freq == 0.
  std::vector<bool> moe;
  std::string_view pattern_key;
  if (layers) moe.assign(static_cast<std::size_t>(*layers), true);
  if (qwen()) {
    const auto step = read_whole(r_, "decoder_sparse_step").value_or(1);
    std::vector<std::int64_t> dense;
    if (const json* list = present(r_, "mlp_only_layers"))
      dense = read_integers(*list, r_.at("mlp_only_layers"), "mlp_only_layers", kCount, r_.diagnostics())
                  .value_or(std::vector<std::int64_t>{});
    for (std::size_t i = 0; i < moe.size(); ++i) {
      const auto layer = static_cast<std::int64_t>(i);
      moe[i] = std::find(dense.begin(), dense.end(), layer) == dense.end() && (layer + 1) % step == 0;
    }
    pattern_key = dense.empty() ? "decoder_sparse_step" : "mlp_only_layers";
  } else if (deepseek()) {
    const auto first_dense =
        read_whole(r_, "first_k_dense_replace", kCount).value_or(f_.family == Family::deepseek_v3 ? 3 : 0);
    const auto frequency = read_whole(r_, "moe_layer_freq").value_or(1);
    for (std::size_t i = 0; i < moe.size(); ++i) {
      const auto layer = static_cast<std::int64_t>(i);
      moe[i] = layer >= first_dense && layer % frequency == 0;
    }
    pattern_key = "first_k_dense_replace";
  }
  if (!experts || *experts == 0 || (layers && std::none_of(moe.begin(), moe.end(), [](bool m) { return m; })))
    return;  // a dense model
  set("/moe/num_experts", *experts, experts_key);
  if (top_k) set("/moe/top_k", *top_k, "num_experts_per_tok");
  if (width)
    set("/moe/expert_ffn_hidden_size", *width,
        f_.family == Family::mixtral ? "intermediate_size" : "moe_intermediate_size");
  if (shared && *shared > 0) set("/moe/shared_experts", *shared, shared_key);
  if (shared && shared_width) set("/moe/shared_expert_ffn_hidden_size", *shared_width, shared_key);
  if (layers) set_moe_layers(*layers, moe, pattern_key);
}

void Mapping::read_mla() {
  // q_lora_rank null: the queries are projected without compression (DeepSeek-V2-Lite).
  const json* q_rank = r_.get("q_lora_rank");
  if (!q_rank)
    r_.diagnostics().error("REQUIRED", r_.at("q_lora_rank"),
                           "q_lora_rank is required (the rank of the query compression, null for none).");
  else if (auto rank = read_whole(r_, "q_lora_rank"))
    set("/mla/q_lora_rank", *rank, "q_lora_rank");
  if (auto rank = read_size(r_, "kv_lora_rank", std::nullopt, "the rank of the key-value compression"))
    set("/mla/kv_lora_rank", *rank, "kv_lora_rank");
  if (auto dim = read_size(r_, "qk_rope_head_dim", std::nullopt, "the rotary part of a query or key head"))
    set("/mla/qk_rope_head_dim", *dim, "qk_rope_head_dim");
  if (auto dim = read_size(r_, "qk_nope_head_dim", std::nullopt, "the part of a query or key head without rotary"))
    set("/mla/qk_nope_head_dim", *dim, "qk_nope_head_dim");
  if (auto dim = read_size(r_, "v_head_dim", std::nullopt, "a value head")) set("/mla/v_head_dim", *dim, "v_head_dim");
}

// What these families can do that the description cannot say. Softcapping and the sliding window
// change element-wise work and the attention core's span, not the weights.
void Mapping::read_not_modelled(std::int64_t seq_length) {
  std::int64_t window = 0;
  if (qwen()) {
    // Qwen's classes keep sliding_window only with use_sliding_window (Qwen2Config.__post_init__).
    const auto stated = read_whole(r_, "sliding_window", kCount);
    if (read_flag(r_, "use_sliding_window").value_or(false)) window = stated.value_or(4096);
  } else {
    const json* raw = r_.get("sliding_window");
    window = raw ? read_whole(r_, "sliding_window", kCount).value_or(0) : f_.sliding_window;
  }
  if (window > 0 && window < seq_length)
    note("sliding_window", std::to_string(window),
         "every layer is taken to attend over all " + std::to_string(seq_length) +
             " tokens of the sequence; the windowed layers' attention time is overestimated");
  if (f_.family == Family::gemma2 || f_.family == Family::gemma3) {
    // Gemma2Config soft-caps scores at 50 and logits at 30 unless told null; Gemma3TextConfig does not.
    const bool gemma2 = f_.family == Family::gemma2;
    const json* raw = r_.get("attn_logit_softcapping");
    const auto attention =
        raw ? read_amount(r_, "attn_logit_softcapping", {}) : (gemma2 ? 50.0 : std::optional<double>());
    if (attention)
      note("attn_logit_softcapping", number_text(*attention),
           "plain attention scores: the tanh cap's element-wise work is not counted");
    raw = r_.get("final_logit_softcapping");
    const auto logits =
        raw ? read_amount(r_, "final_logit_softcapping", {}) : (gemma2 ? 30.0 : std::optional<double>());
    if (logits)
      note("final_logit_softcapping", number_text(*logits),
           "plain logits: the tanh cap's element-wise work is not counted");
    if (read_flag(r_, "use_bidirectional_attention").value_or(false))
      note("use_bidirectional_attention", "true", "causal attention, half the attention core's work");
  }
  if (f_.family == Family::llama || f_.family == Family::deepseek_v2) {
    if (read_flag(r_, "mlp_bias").value_or(false))
      note("mlp_bias", "true", "MLP projections without biases, 2 x intermediate_size + hidden_size numbers a layer");
  }
}

const FamilyFacts* family_of(std::string_view model_type) {
  for (const FamilyFacts& f : kFamilies)
    if (f.model_type == model_type) return &f;
  return nullptr;
}

std::string family_list() {
  std::string list;
  for (const FamilyFacts& f : kFamilies) list += (list.empty() ? "" : ", ") + std::string(f.model_type);
  return list;
}

// The config's path for a diagnostic the generator gave at `path` of the description it was handed.
std::string origin_of(const HfDescription& description, const std::string& path) {
  constexpr std::string_view kSection = "/transformer";
  if (path.compare(0, kSection.size(), kSection) != 0 ||
      (path.size() > kSection.size() && path[kSection.size()] != '/'))
    return path;  // the request's own parallel, training, device or pipeline
  const std::string inner = path.substr(kSection.size());
  const std::pair<std::string, std::string>* best = nullptr;
  for (const auto& origin : description.origins) {
    const std::string& field = origin.first;
    const bool within = inner == field || (inner.compare(0, field.size(), field) == 0 && inner[field.size()] == '/');
    if (within && (!best || field.size() > best->first.size())) best = &origin;
  }
  return best ? best->second : description.config_path;
}

}  // namespace

bool is_hf_config(const json& document) {
  return document.is_object() && document.contains("model_type") &&
         (document.contains("architectures") || document.contains("hidden_size"));
}

std::optional<HfDescription> hf_transformer(const json& config, const std::string& path, const HfImportOptions& options,
                                            Diagnostics& d) {
  if (!config.is_object()) {
    d.error("TYPE_MISMATCH", path, "a config.json is a JSON object, not " + std::string(type_name(config)) + ".");
    return std::nullopt;
  }
  const std::size_t errors_before = d.errors().size();
  FieldReader top(config, path, d, kOwner);
  allow_bookkeeping(top, config);
  const auto model_type = top.string("model_type");
  if (!model_type) {
    if (!top.has("model_type"))
      d.error("REQUIRED", top.at("model_type"), "model_type is required (the model family, such as \"llama\").");
    return std::nullopt;
  }
  const FamilyFacts* facts = family_of(*model_type);
  if (!facts) {
    top.allow_all();  // another family's fields are not worth a warning each
    d.error("HF_MODEL_TYPE_UNKNOWN", top.at("model_type"),
            "model_type " + quoted_input(*model_type) + " is not a family PPB imports; it reads " + family_list() +
                ". Describe the model as a \"transformer\" section instead.");
    return std::nullopt;
  }
  const std::int64_t seq_length = options.seq_length.value_or(kAssumedSeqLength);
  HfDescription out;
  out.config_path = path;
  out.transformer["name"] = options.name.value_or(*model_type);
  std::vector<std::string> not_modelled;
  if (*model_type == "gemma3") {
    // Gemma3ForConditionalGeneration: the text decoder is text_config; the vision tower is left out.
    if (top.has("vision_config"))
      not_modelled.emplace_back(
          "vision_config (the vision encoder and its projection: PPB plans the text decoder only)");
    const json* text = top.object("text_config");
    if (!text) {
      if (!top.has("text_config"))
        d.error("REQUIRED", top.at("text_config"), "text_config is required (gemma3's text decoder).");
      return std::nullopt;
    }
    FieldReader inner(*text, top.at("text_config"), d, kOwner);
    allow_bookkeeping(inner, *text);
    Mapping mapping(*facts, inner, "text_config/", out);
    mapping.read(seq_length);
    not_modelled.insert(not_modelled.end(), mapping.not_modelled.begin(), mapping.not_modelled.end());
  } else {
    Mapping mapping(*facts, top, "", out);
    mapping.read(seq_length);
    not_modelled = std::move(mapping.not_modelled);
  }
  if (d.errors().size() != errors_before) return std::nullopt;
  if (!options.seq_length)
    d.warning("SEQ_LENGTH_ASSUMED", "/seq_length",
              "the request gives no seq_length, so the description trains on 4096 tokens per sample. A config's "
              "max_position_embeddings is the longest context the model accepts, not the length it trains at; give "
              "seq_length, the tokens per sample of your training.");
  if (!not_modelled.empty()) {
    std::string list;
    for (const auto& item : not_modelled) list += (list.empty() ? "" : "; ") + item;
    d.warning("HF_FIELDS_NOT_MODELLED", path,
              "the description leaves out what these fields of the config add, and assumes instead: " + list + ".");
  }
  return out;
}

std::optional<json> hf_model(const HfDescription& description, const json& sections, Diagnostics& d) {
  // Without sections the generator still checks the description, on a stand-in device whose costs
  // are dropped: an import's description is always one the generator takes.
  const bool wanted = sections.is_object();
  json request = wanted ? sections : json::object();
  request["transformer"] = description.transformer;
  if (!wanted) request["device"] = {{"peak_tflops", 1000}};
  Diagnostics generated;
  auto model = transformer_model(request, generated);
  const auto relay = [&](const Diagnostic& problem, bool error) {
    const std::string path = origin_of(description, problem.path);
    const std::string message =
        path == problem.path ? problem.message : "in the description imported: " + problem.message;
    if (error)
      d.error(problem.code, path, message);
    else
      d.warning(problem.code, path, message);
  };
  for (const Diagnostic& e : generated.errors())
    if (wanted || e.code != "MODEL_TOO_LARGE") relay(e, true);
  for (const Diagnostic& w : generated.warnings()) relay(w, false);
  if (!wanted || !d.ok()) return std::nullopt;
  return model;
}

}  // namespace ppb
