// Proof check with several chunks per stage: a claimed optimum under interleaved_1f1b is re-verified
// by an optimum computed without any of the balancer's parts (no frontiers, tables, prices or
// search), on models larger than the exhaustive property test takes.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <random>
#include <string>

#include "balance_helpers.hpp"
#include "ppb/balance/balance.hpp"
#include "ppb/plan/stage_costs.hpp"
#include "ppb/simulate/estimate.hpp"
#include "ppb/simulate/simulate.hpp"

namespace ppb::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using Extras = std::vector<double>;  // the recompute time added to each chunk of a stage

// The per-chunk recompute times of physical stage s that fit its memory as the estimate reports it,
// every assignment of its layers tried (the other stages' layers without recompute: a stage's memory
// depends on its own layers alone), keeping those no other beats in every chunk.
std::vector<Extras> stage_choices(const Model& model, const Device& device, const Plan& plan, int s,
                                  const std::vector<std::pair<int, int>>& chunks, const std::vector<int>& options) {
  Plan trial = plan;
  trial.recompute.assign(static_cast<std::size_t>(model.layer_count()), -1);
  std::vector<int> layers, chunk_of;
  for (std::size_t c = 0; c < chunks.size(); ++c)
    for (int i = chunks[c].first; i < chunks[c].second; ++i) {
      layers.push_back(i);
      chunk_of.push_back(static_cast<int>(c));
    }
  std::vector<Extras> kept;
  Extras extras(chunks.size(), 0);
  const auto beats = [](const Extras& x, const Extras& y) {  // x no worse than y in every chunk
    for (std::size_t c = 0; c < x.size(); ++c)
      if (x[c] > y[c]) return false;
    return true;
  };
  std::function<void(std::size_t)> choose = [&](std::size_t k) {
    if (k == layers.size()) {
      const Estimate e = estimate(model, device, trial, false);
      if (e.stages[static_cast<std::size_t>(s)].memory.peak_mib > *device.memory_limit_mib + 1e-9) return;
      for (const Extras& x : kept)
        if (beats(x, extras)) return;
      std::erase_if(kept, [&](const Extras& x) { return beats(extras, x); });
      kept.push_back(extras);
      return;
    }
    const int i = layers[k];
    const auto c = static_cast<std::size_t>(chunk_of[k]);
    trial.recompute[static_cast<std::size_t>(i)] = -1;
    choose(k + 1);
    for (int o : options)
      if (const auto& r = model.layers[static_cast<std::size_t>(i)].recompute[static_cast<std::size_t>(o)]) {
        trial.recompute[static_cast<std::size_t>(i)] = o;
        extras[c] += r->extra_ms;
        choose(k + 1);
        extras[c] -= r->extra_ms;
      }
    trial.recompute[static_cast<std::size_t>(i)] = -1;
  };
  choose(0);
  return kept;
}

// The optimum: for every partition, every combination of the stages' kept choices simulated with each
// chunk's backward grown by its recompute time (the step time grows with every backward, so a choice
// another beats in every chunk is never faster). kInf when no plan fits.
double independent_optimum(const Model& model, const Device& device, const Plan& shape,
                           const std::vector<int>& options) {
  const int L = model.layer_count(), pp = shape.pp_degree;
  double best = kInf;
  for_each_partition(model, shape.virtual_stages(), [&](const std::vector<int>& sizes) {
    Plan plan = shape;
    plan.stage_layers = sizes;
    plan.recompute.assign(static_cast<std::size_t>(L), -1);
    const std::vector<VirtualStageCost> base = virtual_stage_costs(model, device, plan);
    std::vector<std::vector<Extras>> choices;
    for (int s = 0; s < pp; ++s) {
      std::vector<std::pair<int, int>> chunks;
      for (int c = 0; c < shape.vpp_degree; ++c) {
        const int u = shape.virtual_stage(s, c);
        int a = 0;
        for (int k = 0; k < u; ++k) a += sizes[static_cast<std::size_t>(k)];
        chunks.emplace_back(a, a + sizes[static_cast<std::size_t>(u)]);
      }
      choices.push_back(stage_choices(model, device, plan, s, chunks, options));
      if (choices.back().empty()) return;
    }
    SimulationInput in;
    static_cast<PipelineShape&>(in) = shape;
    std::vector<std::size_t> pick(static_cast<std::size_t>(pp), 0);
    for (;;) {
      in.costs = base;
      for (int s = 0; s < pp; ++s)
        for (int c = 0; c < shape.vpp_degree; ++c)
          in.costs[static_cast<std::size_t>(shape.virtual_stage(s, c))].backward_ms +=
              choices[static_cast<std::size_t>(s)][pick[static_cast<std::size_t>(s)]][static_cast<std::size_t>(c)];
      best = std::min(best, simulate(in).step_time_ms);
      int s = 0;  // the next combination, stage 0 fastest
      while (s < pp && ++pick[static_cast<std::size_t>(s)] == choices[static_cast<std::size_t>(s)].size())
        pick[static_cast<std::size_t>(s++)] = 0;
      if (s == pp) break;
    }
  });
  return best;
}

// interleaved_1f1b, pp 2, vpp 2, m 4, 10 to 12 layers with full and selective recompute, transfers, a
// limit under which most plans recompute several layers: a claimed optimum equals the independent
// one, and so does the stated lower bound.
TEST(BalanceProof, InterleavedOptimumMeetsAnIndependentOne) {
  std::mt19937 rng(1812);
  int checked = 0;
  for (int trial = 0; trial < 10; ++trial) {
    std::uniform_int_distribution<int> layers_d(10, 12);
    const Model model = random_model(rng, layers_d(rng));
    const Plan shape = shape_of(2, 4, Schedule::interleaved_1f1b, 2);
    Device device;
    add_transfers(device);
    device.memory_limit_mib = limit_between(model, 4, 2, 0.5);
    BalanceOptions options;
    options.recompute_options = {0, 1};
    const BalanceResult got = balance(model, device, shape, options);
    const double optimum = independent_optimum(model, device, shape, options.recompute_options);
    const std::string label = "trial " + std::to_string(trial);
    if (optimum == kInf) {
      EXPECT_FALSE(got.feasible) << label;
      continue;
    }
    ASSERT_TRUE(got.feasible) << label;
    ASSERT_TRUE(got.proven_optimal) << label;
    EXPECT_NEAR(got.step_time_ms, optimum, 1e-9 * optimum) << label;
    EXPECT_NEAR(got.lower_bound_ms, optimum, 1e-9 * optimum) << label;
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

}  // namespace
}  // namespace ppb::test
