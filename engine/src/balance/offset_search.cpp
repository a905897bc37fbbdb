// The offset search, nearest offsets first. See offset_search.hpp.
#include "ppb/balance/offset_search.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "ppb/balance/balance.hpp"
#include "ppb/plan/plan.hpp"

namespace ppb {

OffsetSearchResult offset_search(const Model& model, const Device& device, const PipelineShape& shape,
                                 const OffsetSearchOptions& options) {
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::microseconds(static_cast<std::int64_t>(std::min(options.time_budget_ms, 1e12) * 1000));
  const int V = shape.virtual_stages();
  const int body = model.body_count();
  const int base = body / V;
  const int remainder = body % V;
  Plan even{shape};
  even.stage_layers = even_stage_layers(model, V);
  const std::vector<int> even_offset = layer_offset_of(even, model);
  const int min_body = options.allow_empty_stages ? 0 : 1;
  // The least body a virtual stage may keep: pinned layers already make the first and last non-empty.
  auto floor_of = [&](int v) {
    const bool pinned = (v == 0 && model.pinned_first > 0) || (v == V - 1 && model.pinned_last > 0);
    return std::max(-base, (pinned ? 0 : min_body) - base);
  };
  OffsetSearchResult result;
  auto& out = result.candidates;
  auto& stop = result.stop;
  std::vector<int> offset(static_cast<std::size_t>(V));
  std::vector<int> lo(static_cast<std::size_t>(V)), hi(static_cast<std::size_t>(V));
  for (int v = 0; v < V; ++v) {
    lo[static_cast<std::size_t>(v)] = std::max(even_offset[static_cast<std::size_t>(v)] - options.range, floor_of(v));
    hi[static_cast<std::size_t>(v)] = even_offset[static_cast<std::size_t>(v)] + options.range;
  }
  // Over the stages from v on: the least and largest sum of offsets, and the largest distance from
  // the even split's offsets.
  std::vector<long long> lo_rest(static_cast<std::size_t>(V) + 1, 0), hi_rest(static_cast<std::size_t>(V) + 1, 0);
  std::vector<long long> far_rest(static_cast<std::size_t>(V) + 1, 0);
  for (int v = V - 1; v >= 0; --v) {
    const auto k = static_cast<std::size_t>(v);
    lo_rest[k] = lo_rest[k + 1] + lo[k];
    hi_rest[k] = hi_rest[k + 1] + hi[k];
    far_rest[k] = far_rest[k + 1] + std::max(hi[k] - even_offset[k], even_offset[k] - lo[k]);
  }
  auto evaluate = [&] {
    Plan plan{shape};
    plan.stage_layers.assign(static_cast<std::size_t>(V), 0);
    for (int u = 0; u < V; ++u) {
      plan.stage_layers[static_cast<std::size_t>(u)] = base + offset[static_cast<std::size_t>(u)];
      if (u == 0) plan.stage_layers[0] += model.pinned_first;
      if (u == V - 1) plan.stage_layers[static_cast<std::size_t>(u)] += model.pinned_last;
    }
    plan.recompute.assign(static_cast<std::size_t>(model.layer_count()), -1);
    plan = with_best_recompute(model, device, plan, options.recompute_options, options.components);
    out.push_back({offset, estimate(model, device, plan, false, options.components)});
  };
  // Depth-first over the stages, the offsets exactly `distance` (summed |offset - even offset|) from
  // the even split's, keeping the running sum reachable from what is left. Distances are taken in
  // increasing order, so a search cut by its limits has evaluated the smallest moves first.
  std::int64_t steps = 0;
  auto visit = [&](auto&& self, int v, long long sum, long long distance) -> void {
    if (stop != OffsetSearchStop::none) return;
    if (!out.empty() && (++steps & 63) == 0 && std::chrono::steady_clock::now() > deadline) {
      stop = OffsetSearchStop::time_budget;
      return;
    }
    if (v == V) {
      if (distance != 0) return;
      if (static_cast<std::int64_t>(out.size()) >= options.max_candidates) {
        stop = OffsetSearchStop::max_candidates;
        return;
      }
      evaluate();
      if (std::chrono::steady_clock::now() > deadline) stop = OffsetSearchStop::time_budget;
      return;
    }
    const auto k = static_cast<std::size_t>(v);
    for (int o = lo[k]; o <= hi[k]; ++o) {
      const long long rest = remainder - sum - o;
      const long long left = distance - std::abs(o - even_offset[k]);
      if (rest < lo_rest[k + 1] || rest > hi_rest[k + 1] || left < 0 || left > far_rest[k + 1]) continue;
      offset[k] = o;
      self(self, v + 1, sum + o, left);
    }
  };
  for (long long distance = 0; distance <= far_rest[0] && stop == OffsetSearchStop::none; ++distance)
    visit(visit, 0, 0, distance);
  std::stable_sort(out.begin(), out.end(), [](const OffsetCandidate& x, const OffsetCandidate& y) {
    if (x.estimate.feasible != y.estimate.feasible) return x.estimate.feasible;
    return x.estimate.step_time_ms < y.estimate.step_time_ms;
  });
  return result;
}

}  // namespace ppb
