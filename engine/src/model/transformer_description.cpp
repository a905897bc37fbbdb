// Reading the transformer description: sizes, MoE, parallel degrees, training and device, with the
// divisibility rules of tensor, sequence, context and expert parallelism (docs/transformer-model.md).
#include "transformer_description.hpp"

#include <algorithm>
#include <cctype>

#include "core/field_reader.hpp"
#include "ppb/core/limits.hpp"
#include "training_state.hpp"

namespace ppb {

using nlohmann::json;

namespace {

// Any size or count in a description: large enough for every real model, small enough that the
// products below (s^2 a b at most ~1e36) stay far inside double range.
constexpr std::int64_t kMaxDimension = 1'000'000'000;

std::string str(std::int64_t x) { return std::to_string(x); }

// Unknown fields of the sections the generator reads are "not part of the transformer description".
constexpr const char* kOwner = "the transformer description";

// A whole number in `range`; when `what_it_is` is given the field is required and its absence says
// what it is.
std::optional<std::int64_t> integer(FieldReader& f, const char* key, const IntegerRange& range,
                                    const char* what_it_is = nullptr) {
  if (what_it_is && !f.require(key, std::string(key) + " is required (" + what_it_is + ").")) return std::nullopt;
  return f.integer(key, range);
}

struct ReadOk {
  bool heads = false, groups = false, ffn = false, seq = false, expert_ffn = false;
};

// moe.layer_freq: Megatron-LM's --moe-layer-freq, an interval or one 0/1 per decoder layer.
void read_layer_freq(FieldReader& moe, Description& m, Diagnostics& d) {
  const json* freq = moe.get("layer_freq");
  if (!freq) return;
  const std::string path = moe.at("layer_freq");
  if (freq->is_array()) {
    if (static_cast<std::int64_t>(freq->size()) != m.num_layers) {
      d.error("MOE_LAYER_FREQ_LENGTH", path,
              "layer_freq lists " + str(static_cast<std::int64_t>(freq->size())) + " layers but the model has " +
                  str(m.num_layers) + "; give one 1 (MoE) or 0 (dense) per decoder layer, or an interval.");
      return;
    }
    m.moe_layer_pattern.clear();
    for (std::size_t i = 0; i < freq->size(); ++i) {
      const json& v = (*freq)[i];
      if (!v.is_number_integer() || (v.get<std::int64_t>() != 0 && v.get<std::int64_t>() != 1)) {
        d.error("TYPE_MISMATCH", path + "/" + std::to_string(i),
                "each entry of layer_freq is 1 (a MoE layer) or 0 (a dense layer), not " + v.dump() + ".");
        return;
      }
      m.moe_layer_pattern.push_back(v.get<std::int64_t>() == 1);
    }
  } else if (auto interval = moe.integer("layer_freq", {1, kMaxDimension})) {
    m.moe_layer_interval = *interval;
  }
}

void read_moe(FieldReader& t, Description& m, ReadOk& ok, Diagnostics& d) {
  const json* moe_json = t.object("moe");
  if (!moe_json) return;
  FieldReader moe(moe_json, t.at("moe"), d, kOwner);
  const auto experts = moe.integer("num_experts", {0, kMaxDimension});
  const auto top_k = moe.integer("top_k", {0, kMaxDimension});
  // 0, as the contract's dense example states it, means the same as leaving it out: ffn_hidden_size.
  const auto expert_ffn = moe.integer("expert_ffn_hidden_size", {0, kMaxDimension});
  const auto first_dense = moe.integer("first_dense_layers", {0, kMaxDimension});
  const auto shared = moe.integer("shared_experts", {0, kMaxDimension});
  const auto shared_ffn = moe.integer("shared_expert_ffn_hidden_size", {1, kMaxDimension});
  read_layer_freq(moe, m, d);
  m.num_experts = experts.value_or(0);
  if (m.num_experts == 0) return;  // a dense model; the other MoE fields do not apply
  if (!moe.get("top_k"))
    d.error("REQUIRED", moe.at("top_k"),
            "a MoE model (num_experts " + str(m.num_experts) +
                ") needs top_k, the number of experts each token is "
                "routed to.");
  else if (top_k && (*top_k == 0 || *top_k > m.num_experts))
    d.error("TOP_K_INVALID", moe.at("top_k"),
            "top_k is " + str(*top_k) + "; each token goes to between 1 and num_experts (" + str(m.num_experts) +
                ") experts.");
  m.top_k = top_k.value_or(1);
  const bool own_width = expert_ffn && *expert_ffn > 0;
  m.expert_ffn_hidden_size = own_width ? *expert_ffn : m.ffn_hidden_size;
  ok.expert_ffn = own_width || ((expert_ffn || !moe.get("expert_ffn_hidden_size")) && ok.ffn);
  m.first_dense_layers = first_dense.value_or(0);
  if (first_dense && *first_dense > m.num_layers)
    d.error("OUT_OF_RANGE", moe.at("first_dense_layers"),
            "first_dense_layers is " + str(*first_dense) + " but the model has " + str(m.num_layers) +
                " layers; give at most num_layers.");
  m.shared_experts = shared.value_or(0);
  m.shared_expert_ffn_hidden_size = shared_ffn.value_or(m.expert_ffn_hidden_size);
}

// transformer.mla: the ranks and head widths of multi-head latent attention.
void read_mla(FieldReader& t, Description& m, Diagnostics& d) {
  const json* object = t.object("mla");
  if (!object) return;
  FieldReader f(object, t.at("mla"), d, kOwner);
  Description::Mla mla;
  mla.q_lora_rank = f.integer("q_lora_rank", {0, kMaxDimension}).value_or(0);
  const IntegerRange width{1, kMaxDimension};
  mla.kv_lora_rank = integer(f, "kv_lora_rank", width, "the rank of the compressed keys and values").value_or(1);
  mla.qk_rope_head_dim = integer(f, "qk_rope_head_dim", width, "the width of each head's rotary part").value_or(1);
  mla.qk_nope_head_dim =
      integer(f, "qk_nope_head_dim", width, "the width of each head's part without rotary embedding").value_or(1);
  mla.v_head_dim = integer(f, "v_head_dim", width, "the width of each value head").value_or(1);
  m.mla = mla;
}

void read_transformer(const json* object, Description& m, ReadOk& ok, Diagnostics& d) {
  FieldReader t(object, "/transformer", d, kOwner);
  if (auto name = t.string("name")) m.name = *name;
  // With the embedding and the head the model may hold limits::max_layers layers.
  const auto layers =
      integer(t, "num_layers", {1, limits::max_layers - 2, "LAYER_LIMIT"}, "the number of decoder layers");
  const auto hidden = integer(t, "hidden_size", {1, kMaxDimension}, "the model width h");
  const auto heads = integer(t, "num_attention_heads", {1, kMaxDimension}, "attention heads a");
  const auto groups = t.integer("num_query_groups", {1, kMaxDimension});
  const auto ffn = t.integer("ffn_hidden_size", {1, kMaxDimension});
  const auto vocab = integer(t, "vocab_size", {1, kMaxDimension}, "the tokenizer's vocabulary");
  const auto multiple = t.integer("make_vocab_size_divisible_by", {1, kMaxDimension});
  const auto seq = integer(t, "seq_length", {1, kMaxDimension}, "tokens per sample s");
  const auto head_dim = t.integer("head_dim", {1, kMaxDimension});
  const auto norms = t.integer("norms_per_layer", {0, 16});
  const auto mtp = t.integer("mtp_layers", {0, 16});
  m.num_layers = layers.value_or(1);
  m.hidden_size = hidden.value_or(1);
  m.num_attention_heads = heads.value_or(1);
  m.num_query_groups = groups.value_or(m.num_attention_heads);
  m.ffn_hidden_size = ffn.value_or(4 * m.hidden_size);
  m.vocab_size = vocab.value_or(1);
  m.make_vocab_size_divisible_by = multiple.value_or(128);
  m.seq_length = seq.value_or(1);
  m.head_dim = head_dim.value_or(m.hidden_size / std::max<std::int64_t>(1, m.num_attention_heads));
  m.norms_per_layer = norms.value_or(2);
  m.mtp_layers = mtp.value_or(0);
  m.qkv_bias = t.boolean("qkv_bias").value_or(false);
  m.qk_norm = t.boolean("qk_norm").value_or(false);
  read_mla(t, m, d);
  ok.heads = heads.has_value();
  ok.groups = groups ? ok.heads : !t.get("num_query_groups") && ok.heads;
  ok.ffn = ffn ? true : !t.get("ffn_hidden_size") && hidden;
  ok.seq = seq.has_value();
  m.gated_mlp = t.boolean("gated_mlp").value_or(false);
  m.dropout = t.boolean("dropout").value_or(true);
  if (auto attention = t.string("attention")) {
    if (*attention == "flash" || *attention == "eager")
      m.flash_attention = *attention == "flash";
    else
      d.error("ATTENTION_UNKNOWN", t.at("attention"),
              "attention " + quoted_input(*attention) +
                  " is not known; use \"flash\" (FlashAttention, the default) or \"eager\" (the score matrix kept).");
  }
  m.tied_embeddings = t.boolean("tied_embeddings").value_or(true);
  if (auto norm = t.string("normalization")) {
    std::string lower = *norm;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "rmsnorm")
      m.rmsnorm = true;
    else if (lower != "layernorm")
      d.error("NORMALIZATION_UNKNOWN", t.at("normalization"),
              "normalization " + quoted_input(*norm) + " is not known; use \"layernorm\" or \"rmsnorm\".");
  }
  if (hidden && heads && !head_dim && !m.mla && *hidden % *heads != 0)
    d.error("HIDDEN_NOT_DIVISIBLE_BY_HEADS", t.at("hidden_size"),
            "hidden_size " + str(*hidden) + " is not divisible by num_attention_heads " + str(*heads) +
                "; every head needs hidden_size / num_attention_heads channels, unless head_dim says how many.");
  if (heads && groups && (*groups > *heads || *heads % *groups != 0))
    d.error("HEADS_NOT_DIVISIBLE_BY_GROUPS", t.at("num_query_groups"),
            "num_query_groups " + str(*groups) + " does not divide num_attention_heads " + str(*heads) +
                "; each key/value group serves the same number of query heads (num_query_groups = heads for "
                "multi-head attention, 1 for multi-query).");
  read_moe(t, m, ok, d);
}

std::optional<RecomputeOption> recompute_option_from_name(const std::string& name) {
  if (name == "full") return RecomputeOption::full;
  if (name == "selective") return RecomputeOption::selective;
  return std::nullopt;
}

void read_training(const json* object, const std::optional<std::int64_t>& parallel_dp, Description& m, Diagnostics& d) {
  FieldReader tr(object, "/training", d, kOwner);
  // The request's and the search's fields, not the generator's.
  tr.allow({"global_batch_size", "world_size", "tp_degree", "cp_degree", "ep_degree"});
  m.micro_batch_size = tr.integer("micro_batch_size", {1, limits::max_batch}).value_or(1);
  if (auto training_dp = tr.integer("dp_degree", {1, limits::max_batch})) {
    if (parallel_dp && *parallel_dp != *training_dp)
      d.error("DP_DEGREE_CONFLICT", "/parallel/dp_degree",
              "parallel.dp_degree is " + str(*parallel_dp) + " but training.dp_degree is " + str(*training_dp) +
                  "; give one of them, or the same number in both.");
    if (!parallel_dp) m.dp_degree = *training_dp;
  }
  const StatedTrainingState state = read_training_state(tr);
  m.precision = state.precision.value_or(Precision::bf16);
  m.sharding = state.sharding.value_or(Sharding::none);
  if (const json* options = tr.array("recompute_options", "\"full\" and \"selective\"")) {
    m.recompute_options.clear();
    for (std::size_t i = 0; i < options->size(); ++i) {
      const std::string path = tr.at("recompute_options") + "/" + std::to_string(i);
      const auto name = read_string((*options)[i], path, "each recompute option", d);
      if (!name) continue;
      const auto option = recompute_option_from_name(*name);
      if (!option)
        d.error("RECOMPUTE_OPTION_UNKNOWN", path,
                "recompute option " + quoted_input(*name) +
                    " is not offered by the transformer model; use \"full\" or "
                    "\"selective\".");
      else if (std::find(m.recompute_options.begin(), m.recompute_options.end(), *option) != m.recompute_options.end())
        d.error("RECOMPUTE_OPTION_DUPLICATE", path, "recompute option " + quoted_input(*name) + " is listed twice.");
      else
        m.recompute_options.push_back(*option);
    }
  }
  // The shard group is the data-parallel ranks with the context-parallel ones, the experts' the
  // expert data-parallel ranks (training.hpp).
  const StateRule rule = state.rule(m.cp_degree, m.tp_degree, m.ep_degree * m.expert_tp_degree);
  const std::int64_t group = m.dp_degree * m.cp_degree;
  m.bytes_per_param = held_bytes_per_param(rule.unsharded, m.sharding, group);
  m.expert_bytes_per_param = held_bytes_per_param(rule.unsharded, m.sharding, expert_shard_group(rule, group));
}

void read_device(const json* object, Description& m, Diagnostics& d) {
  FieldReader dev(object, "/device", d, kOwner);
  dev.allow({"memory_limit_mib", "reserved_mib", "p2p_bandwidth_gbs", "p2p_latency_ms", "preset"});  // the estimator's
  if (dev.require("peak_tflops",
                  "peak_tflops is required (the device's peak dense TFLOP/s in the training precision, "
                  "e.g. 989 for an H100 in bf16)."))
    m.peak_tflops = dev.number("peak_tflops", {.min_exclusive = true}).value_or(1);
  // Read after training: with fp8 compute the decoder layers' matrix multiplications run at this peak.
  if (m.precision == Precision::fp8)
    dev.require("peak_tflops_fp8",
                "training.precision is fp8: give device.peak_tflops_fp8, the device's peak dense FP8 TFLOP/s "
                "(1979 for an H100 SXM), or a device.preset.");
  m.peak_tflops_fp8 = dev.number("peak_tflops_fp8", {.min_exclusive = true});
  m.gpus_per_node = dev.integer("gpus_per_node", {1, 1'000'000});
  m.intra_node_gbs = dev.number("intra_node_gbs", {.min_exclusive = true});
  m.inter_node_gbs = dev.number("inter_node_gbs", {.min_exclusive = true});
  const int links = dev.has("gpus_per_node") + dev.has("intra_node_gbs") + dev.has("inter_node_gbs");
  if (links > 0 && links < 3)
    d.error("LINKS_INCOMPLETE", dev.path(),
            "communication time needs gpus_per_node, intra_node_gbs and inter_node_gbs together (or a "
            "device.preset); give all three, or none for a model without communication time.");
  m.compute_efficiency =
      dev.number("compute_efficiency", {.min = 0, .min_exclusive = true, .max = 1, .over_code = "OUT_OF_RANGE"})
          .value_or(0.5);
}

// Megatron-LM's divisibility rules for tensor, sequence, context and expert parallelism.
void check_parallel_rules(const Description& m, const ReadOk& ok, Diagnostics& d) {
  const std::int64_t t = m.tp_degree;
  if (t > 1 && ok.heads && m.num_attention_heads % t != 0)
    d.error("HEADS_NOT_DIVISIBLE_BY_TP", "/parallel/tp_degree",
            "num_attention_heads " + str(m.num_attention_heads) + " is not divisible by tp_degree " + str(t) +
                "; tensor parallelism gives every rank the same number of heads.");
  if (t > 1 && ok.groups && m.num_query_groups % t != 0)
    d.error("GROUPS_NOT_DIVISIBLE_BY_TP", "/parallel/tp_degree",
            "num_query_groups " + str(m.num_query_groups) + " is not divisible by tp_degree " + str(t) +
                "; tensor parallelism gives every rank the same number of key/value groups.");
  // One error for both FFN widths: two at the same code and path would be de-duplicated to the first.
  std::string ffn_problem;
  if (t > 1 && ok.ffn && m.ffn_hidden_size % t != 0)
    ffn_problem = "ffn_hidden_size " + str(m.ffn_hidden_size) + " is not divisible by tp_degree " + str(t);
  const std::int64_t et = m.expert_tp_degree;
  if (et > 1 && m.num_experts > 0 && ok.expert_ffn && m.expert_ffn_hidden_size % et != 0) {
    if (!ffn_problem.empty()) ffn_problem += "; ";
    ffn_problem += "expert_ffn_hidden_size " + str(m.expert_ffn_hidden_size) + " is not divisible by expert_tp_degree " +
                   str(et) + " (experts are split over their tensor-parallel ranks too; expert_tp_degree is tp_degree "
                   "unless stated)";
  }
  if (!ffn_problem.empty()) d.error("FFN_NOT_DIVISIBLE_BY_TP", "/parallel/tp_degree", ffn_problem + ".");
  if (ok.seq && m.cp_degree > 1 && m.seq_length % (2 * m.cp_degree) != 0)
    d.error("SEQ_NOT_DIVISIBLE_BY_CP", "/parallel/cp_degree",
            "seq_length " + str(m.seq_length) + " is not divisible by 2 x cp_degree = " + str(2 * m.cp_degree) +
                "; context parallelism cuts the sequence into 2 x cp_degree chunks to balance causal attention.");
  else if (ok.seq && m.sequence_parallel && t > 1 && (m.seq_length / m.cp_degree) % t != 0)
    d.error("SEQ_NOT_DIVISIBLE_BY_TP", "/parallel/sequence_parallel",
            "sequence parallelism splits the " + str(m.seq_length / m.cp_degree) + " tokens of a rank over tp_degree " +
                str(t) + " ranks; seq_length / cp_degree must be divisible by tp_degree.");
  if (m.num_experts > 0 && m.num_experts % m.ep_degree != 0)
    d.error("EXPERTS_NOT_DIVISIBLE_BY_EP", "/parallel/ep_degree",
            "num_experts " + str(m.num_experts) + " is not divisible by ep_degree " + str(m.ep_degree) +
                "; expert parallelism gives every rank the same number of experts.");
  if (m.num_experts == 0 && m.ep_degree > 1)
    d.warning("EP_UNUSED", "/parallel/ep_degree",
              "ep_degree is " + str(m.ep_degree) + " but the model has no experts; it was ignored.");
}

}  // namespace

bool is_moe_layer(const Description& m, std::int64_t i) {
  if (m.num_experts == 0 || i < m.first_dense_layers) return false;
  if (!m.moe_layer_pattern.empty()) return m.moe_layer_pattern[static_cast<std::size_t>(i)];
  return i % m.moe_layer_interval == 0;
}

std::optional<Description> read_description(const json& request, Diagnostics& d) {
  if (!request.is_object()) {
    d.error("TYPE_MISMATCH", "", "the request must be a JSON object, not " + std::string(type_name(request)) + ".");
    return std::nullopt;
  }
  if (!request.contains("transformer")) {
    d.error("TRANSFORMER_MISSING", "/transformer",
            "the request needs a \"transformer\" section describing the model (num_layers, hidden_size, "
            "num_attention_heads, vocab_size, seq_length, ...).");
    return std::nullopt;
  }
  if (!request["transformer"].is_object()) {
    d.error("TYPE_MISMATCH", "/transformer",
            "transformer must be an object describing the model, not " +
                std::string(type_name(request["transformer"])) + ".");
    return std::nullopt;
  }
  const std::size_t errors_before = d.errors().size();
  // A section that is present but not an object is reported once and read as missing.
  const auto section = [&](const char* key) { return request_section(request, key, d); };

  Description m;
  ReadOk ok;
  read_transformer(section("transformer"), m, ok, d);
  std::optional<std::int64_t> parallel_dp;
  {
    FieldReader p(section("parallel"), "/parallel", d, kOwner);
    m.tp_degree = p.integer("tp_degree", {1, kMaxDimension}).value_or(1);
    m.sequence_parallel = p.boolean("sequence_parallel").value_or(false);
    m.tp_comm_overlap = p.boolean("tp_comm_overlap").value_or(false);
    m.cp_degree = p.integer("cp_degree", {1, kMaxDimension}).value_or(1);
    m.ep_degree = p.integer("ep_degree", {1, kMaxDimension}).value_or(1);
    m.expert_tp_degree = p.integer("expert_tp_degree", {1, kMaxDimension}).value_or(m.tp_degree);
    parallel_dp = p.integer("dp_degree", {1, limits::max_batch});
    m.dp_degree = parallel_dp.value_or(1);
  }
  read_training(section("training"), parallel_dp, m, d);
  read_device(section("device"), m, d);
  // The pipeline section belongs to the request parser; only a stated pp_degree of 1 matters here.
  if (auto it = request.find("pipeline"); it != request.end() && it->is_object()) {
    if (auto pp = it->find("pp_degree"); pp != it->end() && pp->is_number_integer())
      m.pp_degree = pp->get<std::int64_t>();
  }
  check_parallel_rules(m, ok, d);
  if (d.errors().size() != errors_before) return std::nullopt;
  return m;
}

}  // namespace ppb
