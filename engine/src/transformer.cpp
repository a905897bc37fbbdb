// The symbolic transformer model: validation of the description, then parameter counts, FLOPs and
// activation bytes per layer. The formulas and their sources are in docs/transformer-model.md; the
// comments here name the terms, the document derives them.
#include "ppb/transformer.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>
#include <vector>

#include "field_reader.hpp"
#include "ppb/limits.hpp"

namespace ppb {

using nlohmann::json;

std::optional<Precision> precision_from_name(const std::string& name) {
  if (name == "bf16") return Precision::bf16;
  if (name == "fp16") return Precision::fp16;
  if (name == "fp32") return Precision::fp32;
  return std::nullopt;
}

BytesPerParam bytes_per_param_for(Precision precision, bool distributed_optimizer, std::int64_t dp_degree) {
  const double d = distributed_optimizer ? static_cast<double>(std::max<std::int64_t>(dp_degree, 1)) : 1.0;
  switch (precision) {
    case Precision::bf16: return {2, 4, 12 / d};
    case Precision::fp16: return {2, 2, 16 / d};
    case Precision::fp32: return {4, 4, 8 / d};
  }
  return {};
}

namespace {

// Any size or count in a description: large enough for every real model, small enough that the
// products below (s^2 a b at most ~1e36) stay far inside double range.
constexpr std::int64_t kMaxDimension = 1'000'000'000;
constexpr double kMiB = 1048576.0;

std::string str(std::int64_t x) { return std::to_string(x); }

// Unknown fields of the sections the generator reads are "not part of the transformer description".
constexpr const char* kOwner = "the transformer description";

// A whole number in `range`; when `what_it_is` is given the field is required and its absence says
// what it is.
std::optional<std::int64_t> integer(FieldReader& f, const char* key, const IntegerRange& range,
                                    const char* what_it_is = nullptr) {
  if (what_it_is && !f.require(key, std::string(key) + " is required (" + what_it_is + ")."))
    return std::nullopt;
  return f.integer(key, range);
}

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
  bool distributed_optimizer = false;
  std::vector<RecomputeOption> recompute_options = {RecomputeOption::full, RecomputeOption::selective};
  BytesPerParam bytes_per_param;

  double peak_tflops = 1;
  double compute_efficiency = 0.5;
};

// Which sizes were read without a problem; cross-field rules only look at those, so one bad
// field does not cascade into errors about the fields it is compared with.
struct ReadOk {
  bool heads = false, groups = false, ffn = false, seq = false, expert_ffn = false;
};

void read_moe(FieldReader& t, Description& m, ReadOk& ok, Diagnostics& d) {
  const json* moe_json = t.object("moe");
  if (!moe_json) return;
  FieldReader moe(moe_json, t.at("moe"), d, kOwner);
  const auto experts = moe.integer("num_experts", {0, kMaxDimension});
  const auto top_k = moe.integer("top_k", {0, kMaxDimension});
  // 0, as interface.md's dense example states it, means the same as leaving it out: ffn_hidden_size.
  const auto expert_ffn = moe.integer("expert_ffn_hidden_size", {0, kMaxDimension});
  const auto first_dense = moe.integer("first_dense_layers", {0, kMaxDimension});
  const auto shared = moe.integer("shared_experts", {0, kMaxDimension});
  m.num_experts = experts.value_or(0);
  if (m.num_experts == 0) return;  // a dense model; the other MoE fields do not apply
  if (!moe.get("top_k"))
    d.error("REQUIRED", moe.at("top_k"),
            "a MoE model (num_experts " + str(m.num_experts) + ") needs top_k, the number of experts each token is "
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
}

void read_transformer(const json* object, Description& m, ReadOk& ok, Diagnostics& d) {
  FieldReader t(object, "/transformer", d, kOwner);
  if (auto name = t.string("name")) m.name = *name;
  // With the embedding and the head the model may hold limits::max_layers layers.
  const auto layers = integer(t, "num_layers", {1, limits::max_layers - 2, "LAYER_LIMIT"}, "the number of decoder layers");
  const auto hidden = integer(t, "hidden_size", {1, kMaxDimension}, "the model width h");
  const auto heads = integer(t, "num_attention_heads", {1, kMaxDimension}, "attention heads a");
  const auto groups = t.integer("num_query_groups", {1, kMaxDimension});
  const auto ffn = t.integer("ffn_hidden_size", {1, kMaxDimension});
  const auto vocab = integer(t, "vocab_size", {1, kMaxDimension}, "the tokenizer's vocabulary");
  const auto multiple = t.integer("make_vocab_size_divisible_by", {1, kMaxDimension});
  const auto seq = integer(t, "seq_length", {1, kMaxDimension}, "tokens per sample s");
  m.num_layers = layers.value_or(1);
  m.hidden_size = hidden.value_or(1);
  m.num_attention_heads = heads.value_or(1);
  m.num_query_groups = groups.value_or(m.num_attention_heads);
  m.ffn_hidden_size = ffn.value_or(4 * m.hidden_size);
  m.vocab_size = vocab.value_or(1);
  m.make_vocab_size_divisible_by = multiple.value_or(128);
  m.seq_length = seq.value_or(1);
  ok.heads = heads.has_value();
  ok.groups = groups ? ok.heads : !t.get("num_query_groups") && ok.heads;
  ok.ffn = ffn ? true : !t.get("ffn_hidden_size") && hidden;
  ok.seq = seq.has_value();
  m.gated_mlp = t.boolean("gated_mlp").value_or(false);
  m.dropout = t.boolean("dropout").value_or(true);
  m.tied_embeddings = t.boolean("tied_embeddings").value_or(true);
  if (auto norm = t.string("normalization")) {
    std::string lower = *norm;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "rmsnorm") m.rmsnorm = true;
    else if (lower != "layernorm")
      d.error("NORMALIZATION_UNKNOWN", t.at("normalization"),
              "normalization " + quoted_input(*norm) + " is not known; use \"layernorm\" or \"rmsnorm\".");
  }
  if (hidden && heads && *hidden % *heads != 0)
    d.error("HIDDEN_NOT_DIVISIBLE_BY_HEADS", t.at("hidden_size"),
            "hidden_size " + str(*hidden) + " is not divisible by num_attention_heads " + str(*heads) +
                "; every head needs hidden_size / num_attention_heads channels.");
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

void read_training(const json* object, const std::optional<std::int64_t>& parallel_dp, Description& m,
                   Diagnostics& d) {
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
  if (auto precision = tr.string("precision")) {
    if (auto pr = precision_from_name(*precision)) m.precision = *pr;
    else
      d.error("PRECISION_UNKNOWN", tr.at("precision"),
              "precision " + quoted_input(*precision) + " is not known; use \"bf16\", \"fp16\" or \"fp32\".");
  }
  m.distributed_optimizer = tr.boolean("distributed_optimizer").value_or(false);
  if (const json* options = tr.array("recompute_options", "\"full\" and \"selective\"")) {
    m.recompute_options.clear();
    for (std::size_t i = 0; i < options->size(); ++i) {
      const std::string path = tr.at("recompute_options") + "/" + std::to_string(i);
      const auto name = read_string((*options)[i], path, "each recompute option", d);
      if (!name) continue;
      const auto option = recompute_option_from_name(*name);
      if (!option)
        d.error("RECOMPUTE_OPTION_UNKNOWN", path,
                "recompute option " + quoted_input(*name) + " is not offered by the transformer model; use \"full\" or "
                "\"selective\".");
      else if (std::find(m.recompute_options.begin(), m.recompute_options.end(), *option) != m.recompute_options.end())
        d.error("RECOMPUTE_OPTION_DUPLICATE", path, "recompute option " + quoted_input(*name) + " is listed twice.");
      else
        m.recompute_options.push_back(*option);
    }
  }
  m.bytes_per_param = bytes_per_param_for(m.precision, m.distributed_optimizer, m.dp_degree);
  if (const json* bpp = tr.object("bytes_per_param")) {
    FieldReader b(bpp, tr.at("bytes_per_param"), d, kOwner);
    if (auto v = b.number("weights")) m.bytes_per_param.weights = *v;
    if (auto v = b.number("grads")) m.bytes_per_param.grads = *v;
    if (auto v = b.number("optimizer")) m.bytes_per_param.optimizer = *v;
  }
}

void read_device(const json* object, Description& m, Diagnostics& d) {
  FieldReader dev(object, "/device", d, kOwner);
  dev.allow({"memory_limit_mib", "reserved_mib", "p2p_bandwidth_gbs", "p2p_latency_ms"});  // the estimator's
  if (dev.require("peak_tflops", "peak_tflops is required (the device's peak dense TFLOP/s in the training precision, "
                                 "e.g. 989 for an H100 in bf16)."))
    m.peak_tflops = dev.number("peak_tflops", {.min_exclusive = true}).value_or(1);
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
  if (t > 1 && m.num_experts > 0 && ok.expert_ffn && m.expert_ffn_hidden_size % t != 0) {
    if (!ffn_problem.empty()) ffn_problem += "; ";
    ffn_problem += "expert_ffn_hidden_size " + str(m.expert_ffn_hidden_size) + " is not divisible by tp_degree " +
                   str(t) + " (experts are split over the tensor-parallel ranks too)";
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
            "transformer must be an object describing the model, not " + std::string(type_name(request["transformer"])) + ".");
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
    m.cp_degree = p.integer("cp_degree", {1, kMaxDimension}).value_or(1);
    m.ep_degree = p.integer("ep_degree", {1, kMaxDimension}).value_or(1);
    parallel_dp = p.integer("dp_degree", {1, limits::max_batch});
    m.dp_degree = parallel_dp.value_or(1);
  }
  read_training(section("training"), parallel_dp, m, d);
  read_device(section("device"), m, d);
  // The pipeline section belongs to the request parser; only a stated pp_degree of 1 matters here.
  if (auto it = request.find("pipeline"); it != request.end() && it->is_object()) {
    if (auto pp = it->find("pp_degree"); pp != it->end() && pp->is_number_integer()) m.pp_degree = pp->get<std::int64_t>();
  }
  check_parallel_rules(m, ok, d);
  if (d.errors().size() != errors_before) return std::nullopt;
  return m;
}

// Per device, per micro batch, for one layer.
struct LayerFigures {
  double params = 0;             // parameters held
  double active_params = 0;      // weights each token is multiplied by: forward matmul FLOPs = 2 x this x tokens
  double core_flops = 0;         // attention core forward (QK^T and attention x V), no weights
  double kept_bytes = 0;         // activations kept for the backward, attention scores excluded
  double score_bytes = 0;        // the attention-score activations selective recompute drops
  double full_recompute_bytes = 0;  // the layer input, what full recompute keeps
  double send_bytes = 0;
};

// Shared quantities of the description.
struct Shape {
  double s, b, h, a, g, f, fe, experts, k, shared, padded_vocab;
  double t, u, c, e;  // tp, the TP split of token-sized tensors (t with SP, else 1), cp, ep
  double q;           // bytes per activation element
  double mask;        // bytes per dropout-mask element, 0 without dropout
  double norm_params_per_norm;
  double mlp_matrices;       // 3 for gated (gate, up, down), 2 otherwise
  double mlp_kept_per_f;     // intermediate tensors of width f kept: gated 3 (gate, up, product), else 2
  double tokens;             // b s / c: tokens of one micro batch on one context-parallel rank
};

Shape shape_of(const Description& m) {
  Shape x{};
  x.s = static_cast<double>(m.seq_length);
  x.b = static_cast<double>(m.micro_batch_size);
  x.h = static_cast<double>(m.hidden_size);
  x.a = static_cast<double>(m.num_attention_heads);
  x.g = static_cast<double>(m.num_query_groups);
  x.f = static_cast<double>(m.ffn_hidden_size);
  x.fe = static_cast<double>(m.expert_ffn_hidden_size);
  x.experts = static_cast<double>(m.num_experts);
  x.k = static_cast<double>(m.top_k);
  x.shared = static_cast<double>(m.shared_experts);
  const std::int64_t multiple = m.make_vocab_size_divisible_by * m.tp_degree;
  x.padded_vocab = static_cast<double>((m.vocab_size + multiple - 1) / multiple * multiple);
  x.t = static_cast<double>(m.tp_degree);
  x.u = m.sequence_parallel ? x.t : 1.0;
  x.c = static_cast<double>(m.cp_degree);
  x.e = static_cast<double>(m.ep_degree);
  x.q = m.precision == Precision::fp32 ? 4 : 2;
  x.mask = m.dropout ? 1 : 0;
  x.norm_params_per_norm = m.rmsnorm ? x.h : 2 * x.h;
  x.mlp_matrices = m.gated_mlp ? 3 : 2;
  x.mlp_kept_per_f = m.gated_mlp ? 3 : 2;
  x.tokens = x.b * x.s / x.c;
  return x;
}

// Q and O are h x h; K and V are h x (g h / a) each.
double attention_params(const Shape& x) { return 2 * x.h * x.h * (1 + x.g / x.a); }

// Parts every decoder layer shares: attention, two norms, attention-score activations.
LayerFigures decoder_common(const Shape& x) {
  LayerFigures l;
  l.params = attention_params(x) / x.t + 2 * x.norm_params_per_norm;
  l.active_params = attention_params(x) / x.t;
  // 4 b s^2 h for QK^T and scores x V, halved for causal masking; each CP rank holds s/c queries.
  l.core_flops = 4 * x.b * x.s * x.s * x.h / (x.t * x.c) / 2;
  // Korthikanti et al. Table 2's 5as^2b: softmax output (q), dropout mask (1), dropout output (q).
  const double per_score = x.mask > 0 ? 2 * x.q + x.mask : x.q;
  l.score_bytes = x.a * x.b * x.s * (x.s / x.c) * per_score / x.t;
  // Token-sized tensors split by t only with SP: inputs of the two norms, of QKV and of the MLP (4q),
  // attention and MLP dropout masks (2 mask).
  const double replicated = x.tokens * x.h * (4 * x.q + 2 * x.mask) / x.u;
  // Split by t: Q (q), K and V (2q g/a), the output projection's input (q).
  const double split = x.tokens * x.h * x.q * (2 + 2 * x.g / x.a) / x.t;
  l.kept_bytes = replicated + split;
  l.full_recompute_bytes = x.tokens * x.h * x.q / x.u;
  l.send_bytes = x.tokens * x.h * x.q / x.u;
  return l;
}

LayerFigures dense_decoder(const Shape& x) {
  LayerFigures l = decoder_common(x);
  const double mlp = x.mlp_matrices * x.h * x.f;
  l.params += mlp / x.t;
  l.active_params += mlp / x.t;
  l.kept_bytes += x.tokens * x.f * x.q * x.mlp_kept_per_f / x.t;
  return l;
}

LayerFigures moe_decoder(const Shape& x) {
  LayerFigures l = decoder_common(x);
  const double expert = x.mlp_matrices * x.h * x.fe;
  const double router = x.h * x.experts;  // replicated on every tensor-parallel rank
  l.params += router + (x.experts / x.e) * expert / x.t + x.shared * expert / x.t;
  // With balanced routing every rank's experts process k x (its tokens), whatever ep is.
  l.active_params += router + (x.k + x.shared) * expert / x.t;
  // Router scores (q per expert), each routed copy's expert input and output (2q h per copy).
  l.kept_bytes += x.tokens * (x.experts * x.q + x.k * 2 * x.q * x.h) / x.u;
  l.kept_bytes += x.tokens * x.fe * x.q * x.mlp_kept_per_f * (x.k + x.shared) / x.t;
  return l;
}

LayerFigures embedding(const Shape& x) {
  LayerFigures l;
  l.params = x.padded_vocab * x.h / x.t;  // vocabulary-parallel
  // A lookup: no matmul FLOPs. Kept: int64 token ids (8 bytes) and the embedding dropout mask.
  l.kept_bytes = 8 * x.tokens + x.tokens * x.h * x.mask / x.u;
  l.send_bytes = x.tokens * x.h * x.q / x.u;
  return l;
}

LayerFigures final_norm_lm_head(const Shape& x, bool head_holds_weights) {
  LayerFigures l;
  const double head = x.padded_vocab * x.h / x.t;
  l.params = x.norm_params_per_norm + (head_holds_weights ? head : 0);
  l.active_params = head;
  // Final norm input and LM head input (q each), and the fp32 logits the cross entropy keeps (4 bytes).
  l.kept_bytes = 2 * x.tokens * x.h * x.q / x.u + 4 * x.tokens * x.padded_vocab / x.t;
  return l;
}

struct Emitter {
  const Description& m;
  const Shape& x;
  double flops_per_ms;
  bool too_large = false;

  double ms(double flops) const { return flops / flops_per_ms; }

  double checked(double value) {
    if (!(value <= limits::max_quantity)) too_large = true;
    return value;
  }

  json layer(const std::string& name, const std::string& kind, std::int64_t count, const char* pin,
             const LayerFigures& l, bool offers_recompute) {
    const double matmul_flops = 2 * l.active_params * x.tokens;
    const double forward_ms = ms(matmul_flops + l.core_flops);
    // Backward: input gradients (matmuls and the attention core again, twice: scores and values) and
    // weight gradients (matmuls only), twice the forward in all.
    const double backward_ms = 2 * forward_ms;
    const double weight_backward_ms = ms(matmul_flops);
    json out = {{"name", name}, {"kind", kind}};
    if (count != 1) out["count"] = count;
    if (pin) out["pin"] = pin;
    out["forward_ms"] = checked(forward_ms);
    out["backward_ms"] = checked(backward_ms);
    out["weight_backward_ms"] = checked(weight_backward_ms);
    out["params"] = static_cast<std::int64_t>(std::llround(checked(l.params)));
    out["activation_mib"] = checked((l.kept_bytes + l.score_bytes) / kMiB);
    out["send_mib"] = checked(l.send_bytes / kMiB);
    if (offers_recompute && !m.recompute_options.empty()) {
      json recompute = json::object();
      for (RecomputeOption option : m.recompute_options) {
        if (option == RecomputeOption::full)
          recompute["full"] = {{"activation_mib", l.full_recompute_bytes / kMiB}, {"extra_ms", forward_ms}};
        else
          recompute["selective"] = {{"activation_mib", l.kept_bytes / kMiB}, {"extra_ms", ms(l.core_flops)}};
      }
      out["recompute"] = recompute;
    }
    return out;
  }
};

double total_params(const Description& m, const Shape& x) {
  const double norms = 2 * x.norm_params_per_norm;
  const double dense = attention_params(x) + x.mlp_matrices * x.h * x.f + norms;
  const double expert = x.mlp_matrices * x.h * x.fe;
  const double moe = attention_params(x) + x.h * x.experts + (x.experts + x.shared) * expert + norms;
  const double moe_layers = m.num_experts > 0 ? static_cast<double>(m.num_layers - m.first_dense_layers) : 0;
  const double dense_layers = static_cast<double>(m.num_layers) - moe_layers;
  const double embeddings = x.padded_vocab * x.h * (m.tied_embeddings ? 1 : 2);
  return embeddings + dense_layers * dense + moe_layers * moe + x.norm_params_per_norm;
}

}  // namespace

std::optional<json> transformer_model(const json& request, Diagnostics& d) {
  const auto description = read_description(request, d);
  if (!description) return std::nullopt;
  const Description& m = *description;
  const Shape x = shape_of(m);

  Emitter emit{m, x, m.peak_tflops * 1e12 * m.compute_efficiency / 1e3};
  // Megatron-LM: tied embeddings share one matrix when embedding and head sit on one stage; with
  // pp > 1 the last stage holds its own copy (its gradient all-reduced with the first stage's).
  const bool head_holds_weights = !m.tied_embeddings || !m.pp_degree || *m.pp_degree != 1;

  json layers = json::array();
  layers.push_back(emit.layer("embedding", "embedding", 1, "first", embedding(x), false));
  const std::int64_t moe_layers = m.num_experts > 0 ? m.num_layers - m.first_dense_layers : 0;
  const std::int64_t dense_layers = m.num_layers - moe_layers;
  if (dense_layers > 0) layers.push_back(emit.layer("decoder", "decoder", dense_layers, nullptr, dense_decoder(x), true));
  if (moe_layers > 0) layers.push_back(emit.layer("moe_decoder", "moe_decoder", moe_layers, nullptr, moe_decoder(x), true));
  layers.push_back(emit.layer("final_norm_lm_head", "head", 1, "last", final_norm_lm_head(x, head_holds_weights), false));

  // The model's total may exceed the per-device cap (a trillion-parameter MoE), not an integer's range.
  const double total = total_params(m, x);
  if (!(total <= 1e15)) emit.too_large = true;
  if (emit.too_large) {
    d.error("MODEL_TOO_LARGE", "/transformer",
            "the description gives a layer cost above " + number_text(limits::max_quantity) +
                " (ms, MiB or parameters per device); check the sizes and parallel degrees.");
    return std::nullopt;
  }
  return json{{"format", "ppb.model.v1"},
              {"name", m.name},
              {"bytes_per_param",
               {{"weights", m.bytes_per_param.weights}, {"grads", m.bytes_per_param.grads},
                {"optimizer", m.bytes_per_param.optimizer}}},
              {"total_params", static_cast<std::int64_t>(std::llround(total))},
              {"layers", layers}};
}

}  // namespace ppb
