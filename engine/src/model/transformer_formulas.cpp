// The transformer model's formulas: parameters, FLOPs and activation bytes of each kind of layer.
// docs/transformer-model.md derives them (Korthikanti et al. 2022, Table 2, extended to GQA, SwiGLU,
// MoE and context parallelism).
#include "transformer_formulas.hpp"

namespace ppb {

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
  x.flash = m.flash_attention;
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
  // Eager attention: Korthikanti et al. Table 2's 5as^2b, the softmax output (q), dropout mask (1)
  // and dropout output (q). FlashAttention keeps none of them (its backward recomputes the scores
  // block by block, the dropout mask from the RNG state): only the softmax statistics, one fp32
  // log-sum-exp per query row and head (Dao et al. 2022, Algorithm 2's L; Dao 2023, FlashAttention-2).
  if (x.flash) {
    l.score_bytes = 4 * x.a * x.b * (x.s / x.c) / x.t;
  } else {
    const double per_score = x.mask > 0 ? 2 * x.q + x.mask : x.q;
    l.score_bytes = x.a * x.b * x.s * (x.s / x.c) * per_score / x.t;
  }
  // Token-sized tensors split by t only with SP: inputs of the two norms, of QKV and of the MLP (4q),
  // attention and MLP dropout masks (2 mask).
  const double replicated = x.tokens * x.h * (4 * x.q + 2 * x.mask) / x.u;
  l.mask_bytes = x.tokens * x.h * 2 * x.mask / x.u;
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
  l.mask_bytes = x.tokens * x.h * x.mask / x.u;
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

}  // namespace ppb
