// Communication inside a transformer layer; docs/transformer-model.md, "Communication".
#include "transformer_comm.hpp"

#include <algorithm>

namespace ppb {

namespace {

// Milliseconds to move `bytes` at `gbs` GB/s (10^9 bytes per second).
double ms_at(double bytes, double gbs) { return bytes / (gbs * 1e9) * 1e3; }

// The bandwidth of a group whose ranks sit `stride` apart in the rank order (tensor parallel
// innermost, then context, then expert parallel, as Megatron-LM orders them): inside a node when the
// group's span fits in one.
double group_gbs(const Description& m, std::int64_t size, std::int64_t stride) {
  return size * stride <= *m.gpus_per_node ? *m.intra_node_gbs : *m.inter_node_gbs;
}

}  // namespace

bool has_links(const Description& m) { return m.gpus_per_node && m.intra_node_gbs && m.inter_node_gbs; }

LayerComm tensor_parallel_comm(const Description& m, const Shape& x) {
  if (!has_links(m) || m.tp_degree == 1 || m.tp_comm_overlap) return {};
  // Ring all-reduce moves 2 (t - 1) / t of the buffer per rank, all-gather and reduce-scatter
  // (t - 1) / t each (NCCL's bus-bandwidth factors): 4 (t - 1) / t of b s / c x h x q either way.
  const double buffer = x.tokens * x.h * x.q;
  const double one_way = 4 * (x.t - 1) / x.t * buffer;
  const double ms = ms_at(one_way, group_gbs(m, m.tp_degree, 1));
  return {ms, ms};
}

LayerComm context_parallel_comm(const Description& m, const Shape& x, double core_ms) {
  if (!has_links(m) || m.cp_degree == 1) return {};
  // Keys and values of this rank's b s / c tokens, its heads' share: g (dqk + dvo) / t wide, or
  // a (dqk + dvo) / t with MLA (its keys and values are per head).
  const double kv_heads = x.mla ? x.a : x.g;
  const double chunk = x.tokens * kv_heads * (x.dqk + x.dvo) / x.t * x.q;
  const double gbs = group_gbs(m, m.cp_degree, m.tp_degree);
  const double forward = (x.c - 1) * ms_at(chunk, gbs);
  const double backward = 2 * forward;  // the keys and values again, and their gradients
  return {std::max(0.0, forward - core_ms), std::max(0.0, backward - 2 * core_ms)};
}

LayerComm expert_parallel_comm(const Description& m, const Shape& x) {
  if (!has_links(m) || m.ep_degree == 1 || m.num_experts == 0) return {};
  // Each rank sends top_k copies of its tokens' hidden states; with balanced routing a copy goes to
  // each of the e ranks alike: (L - 1) / e of them to ranks of its node, (e - L) / e to other nodes,
  // L the expert-parallel ranks a node holds: gpus_per_node / tp, at most e (Megatron-LM folds the
  // expert layers' ranks as expert tensor parallel, its default tp, innermost, then expert parallel).
  const double copies = x.tokens / x.u * x.k * x.h * x.q;
  const std::int64_t per_node = std::clamp<std::int64_t>(*m.gpus_per_node / m.tp_degree, 1, m.ep_degree);
  const double e = x.e, local = static_cast<double>(per_node);
  const double all_to_all =
      std::max(ms_at(copies * (local - 1) / e, *m.intra_node_gbs), ms_at(copies * (e - local) / e, *m.inter_node_gbs));
  // Dispatch and combine forward; the gradients of both backward.
  return {2 * all_to_all, 2 * all_to_all};
}

}  // namespace ppb
