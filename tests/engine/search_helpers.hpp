// Builders for the search tests that state a search as values, without JSON.
#pragma once

#include <string>

#include "ppb/model/model.hpp"
#include "ppb/search/search_evaluate.hpp"

namespace ppb::test {

// `count` identical layers with no recompute option: forward F, full backward B (its weight part
// B / 2, the contract's default), static and activation memory per layer.
inline Model equal_layers(int count, double forward_ms, double backward_ms, double static_mib, double activation_mib) {
  Model model;
  model.name = "equal";
  for (int i = 0; i < count; ++i) {
    Layer layer;
    layer.name = "layer";
    layer.forward_ms = forward_ms;
    layer.backward_ms = backward_ms;
    layer.weight_backward_ms = backward_ms / 2;
    layer.other_static_mib = static_mib;
    layer.activation_mib = activation_mib;
    model.layers.push_back(layer);
  }
  return model;
}

// A balanced candidate with only the figures ranking reads.
inline SearchCandidate ranked(double step_time_ms, double peak_mib, double time_per_sample_ms = 0) {
  SearchCandidate c;
  c.feasible = true;
  c.figures = CandidateFigures{};
  c.figures->step_time_ms = step_time_ms;
  c.figures->peak_mib = peak_mib;
  c.figures->time_per_sample_ms = time_per_sample_ms;
  return c;
}

// An infeasible candidate over the limit by `over_mib`.
inline SearchCandidate over(double over_mib, const std::string& group = "every stage over the memory limit") {
  SearchCandidate c;
  c.feasible = false;
  c.over_mib = over_mib;
  c.infeasible_group = group;
  c.reasons = {group};
  return c;
}

}  // namespace ppb::test
