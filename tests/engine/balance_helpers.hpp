// Builders shared by the balancer's tests: devices for the random trials and exhaustive search over every
// partition and recompute assignment (the ground truth the balancer is held to). Their models and shapes
// (random_model, shape_of) are in test_models.hpp.
#pragma once

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ppb/balance/balance.hpp"
#include "ppb/simulate/estimate.hpp"
#include "test_models.hpp"

namespace ppb::test {

// A schedule and shape for the random trials, and the micro batch counts they take in turn (each one the schedule
// accepts on that shape).
struct Case {
  Schedule schedule;
  int pp, vpp;
  std::vector<std::int64_t> micro_batches;
};

// n choose k, as a double (the partitions of n + 1 layers into k + 1 stages).
inline double binomial(int n, int k) {
  double c = 1;
  for (int i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return c;
}

struct Exhaustive {
  bool feasible = false;
  double best_ms = 0;
  std::int64_t plans = 0;
  Plan best;  // a plan of the least step time
};

// Calls visit(sizes) for every contiguous partition of the model's layers into `parts` parts of at least
// `min_size` layers each (0: empty stages allowed) that keeps the pins (the first part holds the layers
// pinned first, the last part those pinned last).
inline void for_each_partition(const Model& model, int parts, const std::function<void(const std::vector<int>&)>& visit,
                               int min_size = 1) {
  const int L = model.layer_count();
  std::vector<int> sizes(static_cast<std::size_t>(parts));
  std::function<void(int, int)> place = [&](int v, int start) {
    if (v == parts - 1) {
      sizes[static_cast<std::size_t>(v)] = L - start;
      if (L - start >= min_size && (parts == 1 || start <= model.body_end()) && sizes[0] >= model.pinned_first)
        visit(sizes);
      return;
    }
    for (int n = min_size; start + n <= L - min_size * (parts - 1 - v) && start + n <= model.body_end(); ++n) {
      if (v == 0 && n < model.pinned_first) continue;
      sizes[static_cast<std::size_t>(v)] = n;
      place(v + 1, start + n);
    }
  };
  place(0, 0);
}

// One partition (layers per virtual stage) under every recompute assignment of every layer among "none"
// and the options allowed, each simulated: the fastest that fits is kept in `out` (plans counted).
inline void best_of_partition(const Model& model, const Device& device, const Plan& shape,
                              const std::vector<int>& options, const std::vector<int>& stage_layers, Exhaustive& out,
                              const std::vector<StageComponent>& components = {}) {
  const int L = model.layer_count();
  Plan plan = shape;
  plan.stage_layers = stage_layers;
  plan.recompute.assign(static_cast<std::size_t>(L), -1);
  std::function<void(int)> choose = [&](int i) {
    if (i == L) {
      ++out.plans;
      const Estimate e = estimate(model, device, plan, false, components);
      if (e.feasible && (!out.feasible || e.step_time_ms < out.best_ms)) {
        out.best_ms = e.step_time_ms;
        out.best = plan;
      }
      out.feasible = out.feasible || e.feasible;
      return;
    }
    plan.recompute[static_cast<std::size_t>(i)] = -1;
    choose(i + 1);
    for (int o : options)
      if (model.layers[static_cast<std::size_t>(i)].recompute[static_cast<std::size_t>(o)]) {
        plan.recompute[static_cast<std::size_t>(i)] = o;
        choose(i + 1);
      }
    plan.recompute[static_cast<std::size_t>(i)] = -1;
  };
  choose(0);
}

// Every contiguous partition (stages of at least min_size layers, pins respected) and every recompute
// assignment of every layer among "none" and the options allowed, each simulated.
inline Exhaustive exhaustive(const Model& model, const Device& device, const Plan& shape,
                             const std::vector<int>& options, const std::vector<StageComponent>& components = {},
                             int min_size = 1) {
  Exhaustive out;
  for_each_partition(
      model, shape.virtual_stages(),
      [&](const std::vector<int>& stage_layers) {
        best_of_partition(model, device, shape, options, stage_layers, out, components);
      },
      min_size);
  return out;
}

// The transfers of the random trials: 10 GB/s with a 0.05 ms latency.
inline void add_transfers(Device& device) {
  device.p2p_bandwidth_gbs = 10;
  device.p2p_latency_ms = 0.05;
}

// A device for a random trial: transfers on half of them (one coin drawn from rng), no limit yet.
inline Device random_device(std::mt19937& rng) {
  Device device;
  if (std::uniform_int_distribution<int>(0, 1)(rng)) add_transfers(device);
  return device;
}

// A memory limit between "everything fits" and "nothing fits" most of the time: `tightness` x the
// model's static memory and its activations x `held` micro batches, shared by pp stages, rounded.
inline double limit_between(const Model& model, double held, int pp, double tightness) {
  double total_static = 0, total_act = 0;
  for (const auto& l : model.layers) total_static += l.static_mib(), total_act += l.activation_mib;
  return std::round(tightness * (total_static + total_act * held) / pp);
}

}  // namespace ppb::test
