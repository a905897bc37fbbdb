// The transformer model's formulas (internal to the engine): parameter counts, FLOPs and activation
// bytes per layer, per device and per micro batch, as pure functions of the description.
// docs/transformer-model.md derives each one; the comments name the terms.
#pragma once

#include "transformer_description.hpp"

namespace ppb {

// Per device, per micro batch, for one layer.
struct LayerFigures {
  double params = 0;                // parameters held
  double active_params = 0;         // weights each token is multiplied by: forward matmul FLOPs = 2 x this x tokens
  double core_flops = 0;            // attention core forward (QK^T and attention x V), no weights
  double kept_bytes = 0;            // activations kept for the backward, attention scores excluded
  double score_bytes = 0;           // the attention-score activations selective recompute drops
  double mask_bytes = 0;            // dropout masks in kept_bytes: the weight-gradient pass W needs none of them
  double full_recompute_bytes = 0;  // the layer input, what full recompute keeps
  double send_bytes = 0;
};

// Shared quantities of the description.
struct Shape {
  double s, b, h, a, g, f, fe, experts, k, shared, padded_vocab;
  double t, u, c, e;  // tp, the TP split of token-sized tensors (t with SP, else 1), cp, ep
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

// Q and O are h x h; K and V are h x (g h / a) each.
double attention_params(const Shape& x);
// The parts every decoder layer shares: attention, two norms, attention-score activations.
LayerFigures decoder_common(const Shape& x);
LayerFigures dense_decoder(const Shape& x);
LayerFigures moe_decoder(const Shape& x);
LayerFigures embedding(const Shape& x);
// The final norm, the output projection (its weights only when `head_holds_weights`) and the loss.
LayerFigures final_norm_lm_head(const Shape& x, bool head_holds_weights);
// The whole model's parameters, unsharded, tied embeddings counted once.
double total_params(const Description& m, const Shape& x);

}  // namespace ppb
