// The model: an ordered list of layers with their compute, memory and communication costs,
// expanded from a ppb.model.v1 document (an entry with `count` N becomes N layers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ppb/model/training.hpp"

namespace ppb {

enum class Pin { none, first, last };

// What a recompute option does to one layer: the activation it keeps per micro batch and the
// time it adds to that layer's backward pass.
struct RecomputeCost {
  double activation_mib = 0;
  double extra_ms = 0;
};

// Time and memory that come from outside the pipeline model (for example tensor-parallel or
// expert-parallel communication measured by another estimator), added to a layer under a name so
// that the totals can be read back per component.
struct ComponentCost {
  int component = 0;  // index into Model::component_names
  double forward_ms = 0;
  double backward_ms = 0;
  double static_mib = 0;
  double activation_mib = 0;
};

struct Layer {
  std::string name;
  std::string kind;
  Pin pin = Pin::none;
  double forward_ms = 0;
  double backward_ms = 0;         // full backward: input and weight gradients
  double weight_backward_ms = 0;  // the weight-gradient part of backward_ms
  double params = 0;              // parameters on one device, when the layer states them (then the next three follow)
  double expert_params = 0;       // the routed experts' part of params (sharded over the expert data-parallel group)
  double weights_mib = 0;
  double grads_mib = 0;
  double optimizer_mib = 0;
  double other_static_mib = 0;  // profiled `static_mib` that is not split into the three parts
  double activation_mib = 0;    // kept per in-flight micro batch without recompute
  // The part of the activation the weight gradient W still needs after B (the zero-bubble paper's
  // M_W); none: all of it (the contract's safe default). Used where B and W run apart.
  std::optional<double> weight_activation_mib;
  double forward_comm_ms = 0;   // communication inside forward_ms (an F&B pair can hide it)
  double backward_comm_ms = 0;  // communication inside backward_ms
  double send_mib = 0;          // output size per micro batch when a stage boundary follows
  // Indexed like Model::recompute_options; empty where the layer does not offer that option.
  std::vector<std::optional<RecomputeCost>> recompute;
  int entry = 0;                          // index of the document entry this layer was expanded from
  std::vector<ComponentCost> components;  // already included in the figures above

  [[nodiscard]] double static_mib() const { return weights_mib + grads_mib + optimizer_mib + other_static_mib; }
};

struct Model {
  std::string name;
  std::vector<Layer> layers;                   // expanded, in model order
  std::vector<std::string> recompute_options;  // every option name offered by some layer
  std::vector<std::string> component_names;    // every outside component named by some layer
  int pinned_first = 0;                        // layers [0, pinned_first) are pinned to the first virtual stage
  int pinned_last = 0;                         // the last pinned_last layers are pinned to the last virtual stage

  [[nodiscard]] int layer_count() const { return static_cast<int>(layers.size()); }
  [[nodiscard]] int body_count() const { return layer_count() - pinned_first - pinned_last; }
  [[nodiscard]] int body_begin() const { return pinned_first; }
  [[nodiscard]] int body_end() const { return layer_count() - pinned_last; }
  // Index in recompute_options, or -1 when no layer offers the option.
  [[nodiscard]] int option_index(const std::string& option) const;
  // The weights, gradients and optimizer state of every layer that states its params, at `bytes`
  // per parameter (training.hpp), its expert_params at `expert_bytes`; layers that state MiB keep them.
  void set_bytes_per_param(const BytesPerParam& bytes, const BytesPerParam& expert_bytes);
  void set_bytes_per_param(const BytesPerParam& bytes) { set_bytes_per_param(bytes, bytes); }
};

}  // namespace ppb
