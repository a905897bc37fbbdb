// The balancing problem as PPB's parts read it (internal to the engine): prefix sums of the layers'
// times and memory, how many micro batches each virtual stage holds at its peak, each physical
// stage's memory for layers, transfer times and the ends a virtual stage may take. Built once per
// balance, then only read.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ppb/balance/balance.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb::balancer {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// used <= budget, allowing for the rounding of sums of doubles.
inline bool fits(double used, double budget) { return used <= budget + 1e-9 * std::max(1.0, std::fabs(budget)); }

// The options a balance of this shape uses: the request's, less the recompute option "full" under
// interleaved_1f1b_overlap (Megatron-LM refuses full recompute with --overlap-moe-expert-parallel-comm,
// transformer_config.py).
BalanceOptions options_for_schedule(const Model& model, const PipelineShape& shape, const BalanceOptions& options);

struct BalanceProblem {
  BalanceProblem(const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options);

  const Model& model;
  const Device& device;
  const PipelineShape& shape;
  const BalanceOptions& options;
  int L = 0;              // expanded layers
  int pp = 1;             // physical stages
  int V = 1;              // virtual stages, pp x vpp
  int min_size = 1;       // layers a virtual stage must hold (0 with allow_empty_stages)
  double m = 1;           // micro batches
  bool split = false;     // the schedule runs W apart from B
  bool overlaps = false;  // the schedule runs F&B pairs, which hide communication (runs_fb_pairs)
  // The program every part of the balancer reads. zb_auto's depends on the stage costs; the one for
  // the even split without recompute stands for every plan here, so what the balancer proves holds
  // for that program, not for the one the estimate of its answer writes (balance_answer.cpp says so),
  // and each stage is charged the cap's worth of activation, the most any zb_auto program holds.
  Program program;
  double limit = kInf;  // memory limit less reserved
  double min_send = 0;  // the cheapest transfer of any layer's output (0 with one stage)
  // Whether every stage bound grows by exactly what the backward drain before its stage grows by:
  // no split weight gradient (whose drain is not counted) and no outside tails (max(drain, tail)).
  bool drain_additive = true;
  std::vector<double> component_memory, tail;  // per physical stage, from outside components
  // Prefix sums over the layers (size L + 1): forward, backward, weight gradient, static memory,
  // activation kept without recompute and with the most-saving option allowed.
  std::vector<double> prefix_f, prefix_b, prefix_w, prefix_static, prefix_act, prefix_least_act;
  // Forward and backward communication inside the layers' times (size L + 1): what DualPipeV's
  // F&B pairs can hide.
  std::vector<double> prefix_fcomm, prefix_bcomm;
  // With one chunk per stage: the most micro batches of each virtual stage its physical stage holds
  // at once, counting a micro batch from the start of its forward to the end of its backward or, when
  // its weight gradient runs apart, of its W. With several chunks per stage: the largest count of
  // each chunk over the program (their sum over chunks can exceed the stage's true peak).
  std::vector<double> held;
  // Per physical stage, the counts of every chunk (in chunk order) at each forward start whose
  // counts no other forward start exceeds in every chunk: the stage's activation peak is the largest
  // over these of sum_c count_c x activation_c (docs/ppb.md, memory is timing-free).
  std::vector<std::vector<std::vector<double>>> peaks;
  // Forwards physical stage s runs before its first backward (read off the program).
  std::vector<double> forwards_before_backward;
  // Whether the memory charged is the estimate's: false when a layer states a weight activation
  // below the activation it may keep, whose weight part (held until W) is then charged in full.
  bool memory_exact = true;

  [[nodiscard]] const Layer& layer(int i) const { return model.layers[static_cast<std::size_t>(i)]; }
  [[nodiscard]] static double range(const std::vector<double>& prefix, int a, int b) {
    return prefix[static_cast<std::size_t>(b)] - prefix[static_cast<std::size_t>(a)];
  }
  // Memory a physical stage may use for layers: the limit less reserved and component memory.
  [[nodiscard]] double limit_for(int s) const { return limit - component_memory[static_cast<std::size_t>(s)]; }
  [[nodiscard]] double held_at(int v) const { return held[static_cast<std::size_t>(v)]; }
  // Transfer after a virtual stage that ends at layer `end`.
  [[nodiscard]] double send_after(int end) const;
  // The physical stage of virtual stage v (the V placement of zbv and dualpipev included) and the
  // virtual stage of a stage's chunk: the pipeline shape's, never v mod pp.
  [[nodiscard]] int stage_of(int v) const { return shape.physical_stage(v); }
  [[nodiscard]] int virtual_of(int s, int chunk) const { return shape.virtual_stage(s, chunk); }
  // The chunk of virtual stage v: v / pp under both placements (in a V, v >= pp is chunk 1).
  [[nodiscard]] int chunk_of(int v) const { return v / pp; }
  // Whether virtual stage v sends to a different physical stage.
  [[nodiscard]] bool crosses(int v) const { return v + 1 < V && stage_of(v) != stage_of(v + 1); }
  // The least and largest end of virtual stage v when it starts at layer a (pins and non-empty
  // stages respected).
  [[nodiscard]] int first_end(int v, int a) const {
    int b = a + min_size;
    if (v == 0) b = std::max(b, model.pinned_first);
    if (v == V - 1) b = L;
    return b;
  }
  [[nodiscard]] int last_end(int v) const {
    if (v == V - 1) return L;
    return std::min(model.body_end(), L - min_size * (V - 1 - v));
  }
  // The stage ends of the contract's even split.
  [[nodiscard]] std::vector<int> even_ends() const;
};

// Stage ends (one per virtual stage) from layers per virtual stage.
std::vector<int> ends_of(const std::vector<int>& stage_layers);

}  // namespace ppb::balancer
