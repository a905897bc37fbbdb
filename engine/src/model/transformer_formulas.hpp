// The transformer model's formulas (internal to the engine): parameter counts, FLOPs and activation
// bytes per layer, per device and per micro batch, as pure functions of the description.
// docs/transformer-model.md derives each one; the comments name the terms.
#pragma once

#include "transformer_description.hpp"

namespace ppb {

// Per device, per micro batch, for one layer.
struct LayerFigures {
  double params = 0;                // parameters held
  double expert_params = 0;         // the routed experts' part of params
  double active_params = 0;         // weights each token is multiplied by: forward matmul FLOPs = 2 x this x tokens
  double fp8_active_params = 0;     // the part of active_params whose matmuls run in FP8 (training.precision fp8)
  double core_flops = 0;            // attention core forward (QK^T and attention x V), no weights
  double kept_bytes = 0;            // activations kept for the backward, attention scores excluded
  double score_bytes = 0;           // the attention-score activations selective recompute drops
  double mask_bytes = 0;            // dropout masks in kept_bytes: the weight-gradient pass W needs none of them
  double full_recompute_bytes = 0;  // the layer input, what full recompute keeps
  double send_bytes = 0;
};

// Shared quantities of the description.
struct Shape {
  double s, b, h, a, g, f, fe, experts, k, shared, fs, padded_vocab;
  double d;           // head width (query, key and value; MLA: see below)
  bool mla;           // multi-head latent attention
  double rq, rkv;     // MLA: query and key/value ranks (rq 0: queries at full rank)
  double dr, dn, dv;  // MLA: each head's rotary and non-rotary query/key widths, its value width
  double dqk, dvo;    // query/key and value/output width of a head: d and d, or dn + dr and dv with MLA
  bool qkv_bias, qk_norm;
  double norms;       // norms per decoder layer
  bool fp8;           // the decoder layers' linear layers run in FP8
  double t, u, c, e;  // tp, the TP split of token-sized tensors (t with SP, else 1), cp, ep
  double et;          // the experts' tensor parallelism
  double q;           // bytes per activation element
  double mask;        // bytes per dropout-mask element, 0 without dropout
  bool flash;         // FlashAttention: no score matrix kept
  double norm_params_per_norm;
  double mlp_matrices;    // 3 for gated (gate, up, down), 2 otherwise
  double mlp_kept_per_f;  // intermediate tensors of width f kept: gated 3 (gate, up, product), else 2
  double tokens;          // b s / c: tokens of one micro batch on one context-parallel rank
};

// The description's sizes as doubles, with the parallel splits applied.
Shape shape_of(const Description& m);

// The attention block's parameters: `split` over the tensor-parallel ranks, `replicated` on each.
struct AttentionParams {
  double split = 0, replicated = 0;
  double matmul_split = 0, matmul_replicated = 0;  // the matrices among them (what FLOPs count)
  [[nodiscard]] double per_device(double t) const { return split / t + replicated; }
  [[nodiscard]] double total() const { return split + replicated; }
};
// Q a d x h, K and V g d x h each, O h x a d (and their biases, the per-head norms); MLA: the
// down- and up-projections of queries and keys/values and their norms.
AttentionParams attention_params(const Shape& x);
// The parts every decoder layer shares: attention, two norms, attention-score activations.
LayerFigures decoder_common(const Shape& x);
LayerFigures dense_decoder(const Shape& x);
LayerFigures moe_decoder(const Shape& x);
LayerFigures embedding(const Shape& x);
// The final norm, the output projection (its weights only when `head_holds_weights`) and the loss.
LayerFigures final_norm_lm_head(const Shape& x, bool head_holds_weights);
// One multi-token prediction module (DeepSeek-V3 Section 2.2): two norms and a 2h x h projection in
// front of a decoder layer `block`, then the shared final norm, output head and loss; the
// embedding's weights when `holds_embedding` (a copy on the last stage when pp > 1).
LayerFigures mtp_module(const Shape& x, const LayerFigures& block, bool holds_embedding);
// The whole model's parameters, unsharded, tied embeddings counted once, the MTP modules left out
// (as the published totals count them: DeepSeek-V3's 671B is its main model).
double total_params(const Description& m, const Shape& x);
// The MTP modules' own parameters, unsharded (their embedding and head are the main model's).
double mtp_params(const Description& m, const Shape& x);

}  // namespace ppb
