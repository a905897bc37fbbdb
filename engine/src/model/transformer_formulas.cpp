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
  x.fs = static_cast<double>(m.shared_expert_ffn_hidden_size);
  const std::int64_t multiple = m.make_vocab_size_divisible_by * m.tp_degree;
  x.padded_vocab = static_cast<double>((m.vocab_size + multiple - 1) / multiple * multiple);
  x.d = static_cast<double>(m.head_dim);
  x.mla = m.mla.has_value();
  if (m.mla) {
    x.rq = static_cast<double>(m.mla->q_lora_rank);
    x.rkv = static_cast<double>(m.mla->kv_lora_rank);
    x.dr = static_cast<double>(m.mla->qk_rope_head_dim);
    x.dn = static_cast<double>(m.mla->qk_nope_head_dim);
    x.dv = static_cast<double>(m.mla->v_head_dim);
    x.dqk = x.dn + x.dr;
    x.dvo = x.dv;
  } else {
    x.dqk = x.dvo = x.d;
  }
  x.qkv_bias = m.qkv_bias;
  x.qk_norm = m.qk_norm;
  x.norms = static_cast<double>(m.norms_per_layer);
  x.fp8 = m.precision == Precision::fp8;
  x.t = static_cast<double>(m.tp_degree);
  x.u = m.sequence_parallel ? x.t : 1.0;
  x.c = static_cast<double>(m.cp_degree);
  x.e = static_cast<double>(m.ep_degree);
  x.et = static_cast<double>(m.expert_tp_degree);
  x.q = m.precision == Precision::fp32 ? 4 : 2;
  x.mask = m.dropout ? 1 : 0;
  x.flash = m.flash_attention;
  x.norm_params_per_norm = m.rmsnorm ? x.h : 2 * x.h;
  x.mlp_matrices = m.gated_mlp ? 3 : 2;
  x.mlp_kept_per_f = m.gated_mlp ? 3 : 2;
  x.tokens = x.b * x.s / x.c;
  return x;
}

AttentionParams attention_params(const Shape& x) {
  AttentionParams p;
  if (x.mla) {
    // Megatron-LM's MLA: the down-projections (and their norms) on every tensor-parallel rank, the
    // up-projections and the output split. Keys share one rotary part of width dr across heads.
    const double down = (x.rq > 0 ? x.h * x.rq : 0) + x.h * (x.rkv + x.dr);
    const double up = (x.rq > 0 ? x.rq : x.h) * x.a * x.dqk + x.rkv * x.a * (x.dn + x.dv);
    p.matmul_replicated = down;
    p.matmul_split = up + x.a * x.dv * x.h;
    p.replicated = down + (x.rq > 0 ? x.rq : 0) + x.rkv;  // RMSNorm weights of the two latents
    p.split = p.matmul_split;
  } else {
    p.matmul_split = 2 * x.h * x.d * (x.a + x.g);
    p.split = p.matmul_split + (x.qkv_bias ? (x.a + 2 * x.g) * x.d : 0);
    p.replicated = x.qk_norm ? 2 * x.d : 0;  // one RMSNorm weight per head width, for queries and keys
  }
  return p;
}

// Parts every decoder layer shares: attention, its norms, attention-score activations.
LayerFigures decoder_common(const Shape& x) {
  LayerFigures l;
  const AttentionParams attention = attention_params(x);
  l.params = attention.per_device(x.t) + x.norms * x.norm_params_per_norm;
  l.active_params = attention.matmul_split / x.t + attention.matmul_replicated;
  if (x.fp8) l.fp8_active_params = l.active_params;
  // QK^T (2 b s^2 a dqk) and scores x V (2 b s^2 a dv), halved for causal masking; each CP rank holds
  // s/c queries. Multi-head attention: 4 b s^2 h / 2.
  l.core_flops = x.b * x.s * x.s * x.a * (x.dqk + x.dvo) / (x.t * x.c);
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
  // Token-sized tensors split by t only with SP: the norms' inputs, the input of QKV and of the MLP
  // (4q with two norms), attention and MLP dropout masks (2 mask).
  const double replicated = x.tokens * x.h * ((x.norms + 2) * x.q + 2 * x.mask) / x.u;
  l.mask_bytes = x.tokens * x.h * 2 * x.mask / x.u;
  // Split by t: Q, K, V and the output projection's input, a dqk + g dqk + g dvo + a dvo wide
  // (2 h + 2 h g / a in Korthikanti's terms); MLA's keys and values have a heads each. The per-head
  // norms also keep their inputs (Q and K before the norm).
  const double kv_heads = x.mla ? x.a : x.g;
  double split_width = x.a * x.dqk + kv_heads * x.dqk + kv_heads * x.dvo + x.a * x.dvo;
  if (x.qk_norm) split_width += (x.a + kv_heads) * x.dqk;
  const double split = x.tokens * split_width * x.q / x.t;
  // MLA's latents, on every rank: each low-rank norm's input and the up-projection's input (2 rq,
  // 2 rkv) and the keys' shared rotary part (dr).
  const double latent = x.mla ? x.tokens * x.q * ((x.rq > 0 ? 2 * x.rq : 0) + 2 * x.rkv + x.dr) : 0;
  l.kept_bytes = replicated + split + latent;
  l.full_recompute_bytes = x.tokens * x.h * x.q / x.u;
  l.send_bytes = x.tokens * x.h * x.q / x.u;
  return l;
}

LayerFigures dense_decoder(const Shape& x) {
  LayerFigures l = decoder_common(x);
  const double mlp = x.mlp_matrices * x.h * x.f;
  l.params += mlp / x.t;
  l.active_params += mlp / x.t;
  if (x.fp8) l.fp8_active_params += mlp / x.t;
  l.kept_bytes += x.tokens * x.f * x.q * x.mlp_kept_per_f / x.t;
  return l;
}

LayerFigures moe_decoder(const Shape& x) {
  LayerFigures l = decoder_common(x);
  const double expert = x.mlp_matrices * x.h * x.fe;
  const double shared = x.shared * x.mlp_matrices * x.h * x.fs;
  const double router = x.h * x.experts;  // replicated on every tensor-parallel rank
  l.expert_params = (x.experts / x.e) * expert / x.et;
  l.params += router + l.expert_params + shared / x.t;
  // With balanced routing every rank's experts process k x (its tokens), whatever ep is.
  const double experts_used = (x.k * expert + shared) / x.t;
  l.active_params += router + experts_used;
  // The router stays in high precision (DeepSeek-V3 report, Section 3.3.1: "MoE gating modules").
  if (x.fp8) l.fp8_active_params += experts_used;
  // Router scores (q per expert), each routed copy's expert input and output (2q h per copy).
  l.kept_bytes += x.tokens * (x.experts * x.q + x.k * 2 * x.q * x.h) / x.u;
  l.kept_bytes += x.tokens * x.q * x.mlp_kept_per_f * (x.k * x.fe + x.shared * x.fs) / x.t;
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

LayerFigures mtp_module(const Shape& x, const LayerFigures& block, bool holds_embedding) {
  LayerFigures l = block;
  const double projection = 2 * x.h * x.h / x.t;  // [norm(h); norm(embedding)] (2h) to h, column-parallel
  const double head = x.padded_vocab * x.h / x.t;
  l.params += projection + 3 * x.norm_params_per_norm + (holds_embedding ? head : 0);
  l.active_params += projection + head;
  // Kept besides the block's: the token ids (8 bytes), the two norms' inputs and the projection's
  // input (4h), the final norm's and the head's inputs (2h) and the fp32 logits.
  l.kept_bytes += 8 * x.tokens + 6 * x.tokens * x.h * x.q / x.u + 4 * x.tokens * x.padded_vocab / x.t;
  l.full_recompute_bytes = 0;
  l.send_bytes = 0;
  return l;
}

namespace {

double dense_layer_params(const Shape& x) {
  return attention_params(x).total() + x.mlp_matrices * x.h * x.f + x.norms * x.norm_params_per_norm;
}

double moe_layer_params(const Shape& x) {
  return attention_params(x).total() + x.h * x.experts + x.experts * x.mlp_matrices * x.h * x.fe +
         x.shared * x.mlp_matrices * x.h * x.fs + x.norms * x.norm_params_per_norm;
}

}  // namespace

double total_params(const Description& m, const Shape& x) {
  double layers = 0;
  for (std::int64_t i = 0; i < m.num_layers; ++i)
    layers += is_moe_layer(m, i) ? moe_layer_params(x) : dense_layer_params(x);
  const double embeddings = x.padded_vocab * x.h * (m.tied_embeddings ? 1 : 2);
  return embeddings + layers + x.norm_params_per_norm;
}

double mtp_params(const Description& m, const Shape& x) {
  const double block = is_moe_layer(m, m.num_layers - 1) ? moe_layer_params(x) : dense_layer_params(x);
  return static_cast<double>(m.mtp_layers) * (block + 2 * x.h * x.h + 3 * x.norm_params_per_norm);
}

}  // namespace ppb
