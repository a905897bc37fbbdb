// Communication inside a transformer layer (internal to the engine): tensor-parallel collectives,
// the context-parallel ring exchange of keys and values, and the MoE expert-parallel all-to-all, as
// milliseconds per micro batch from the links of device.gpus_per_node, intra_node_gbs and
// inter_node_gbs. docs/transformer-model.md derives each term (NCCL's bus-bandwidth factors, the
// DeepSeek-V3 report's dispatch and combine).
#pragma once

#include "transformer_description.hpp"
#include "transformer_formulas.hpp"

namespace ppb {

// A layer's communication, forward and backward (inside its forward_ms / backward_ms).
struct LayerComm {
  double forward_ms = 0, backward_ms = 0;
};

// Whether the description states the links; without them every layer's communication is 0.
bool has_links(const Description& m);

// Tensor-parallel collectives of a decoder layer: two all-reduces (or, with sequence parallelism,
// two all-gathers and two reduce-scatters) of the layer's b s / c x h activations each way; none
// when parallel.tp_comm_overlap hides them under the GEMMs.
LayerComm tensor_parallel_comm(const Description& m, const Shape& x);
// The context-parallel ring: each rank passes its keys and values to the next c - 1 times forward,
// keys, values and their gradients backward, overlapped with the attention core (core_ms forward,
// twice that backward), of which only the excess is counted.
LayerComm context_parallel_comm(const Description& m, const Shape& x, double core_ms);
// The expert-parallel all-to-all of a MoE layer: dispatch and combine forward, their gradients
// backward, top_k copies of each token, the share bound for other ranks of the node over
// intra_node_gbs and for other nodes over inter_node_gbs, at the same time.
LayerComm expert_parallel_comm(const Description& m, const Shape& x);

}  // namespace ppb
