// Per-stage breakdowns around one schedule simulation.
#include "ppb/simulate/estimate.hpp"

#include <algorithm>
#include <numeric>

#include "ppb/core/limits.hpp"
#include "ppb/model/stage_component.hpp"
#include "ppb/plan/stage_costs.hpp"
#include "ppb/simulate/zb_auto.hpp"

namespace ppb {

namespace {

// What the simulation of a plan runs on: its shape, stage costs and the components' tails.
SimulationInput simulation_input(const Model& model, const Device& device, const Plan& plan,
                                 const std::vector<StageComponent>& components) {
  SimulationInput input;
  static_cast<PipelineShape&>(input) = plan;
  input.costs = virtual_stage_costs(model, device, plan);
  input.stage_tail_ms = component_tail_ms(components, plan.pp_degree);
  input.program = plan.program.get();  // the user's, when the plan brings one (it outlives the input)
  return input;
}

}  // namespace

Program plan_program(const Model& model, const Device& device, const Plan& plan,
                     const std::vector<StageComponent>& components) {
  if (plan.program) return *plan.program;
  return program_for(simulation_input(model, device, plan, components));
}

Estimate estimate(const Model& model, const Device& device, const Plan& plan, bool keep_timeline,
                  const std::vector<StageComponent>& components) {
  Estimate out;
  out.plan = plan;
  SimulationInput input = simulation_input(model, device, plan, components);
  const std::vector<VirtualStageCost>& costs = input.costs;
  input.keep_timeline = keep_timeline;
  input.max_timeline_ops = limits::max_timeline_ops;
  out.simulation = simulate(input);
  out.step_time_ms = out.simulation.step_time_ms;
  out.span_ms = out.simulation.span_ms;

  const auto starts = plan.stage_starts();
  double bubble_sum = 0;
  std::vector<double> compute(static_cast<std::size_t>(plan.pp_degree), 0.0);
  for (int s = 0; s < plan.pp_degree; ++s) {
    StageEstimate st;
    st.stage = s;
    for (int chunk = 0; chunk < plan.vpp_degree; ++chunk) {
      const int v = plan.virtual_stage(s, chunk);
      st.virtual_stages.push_back(v);
      st.layers.emplace_back(starts[static_cast<std::size_t>(v)], starts[static_cast<std::size_t>(v) + 1]);
      for (int i = starts[static_cast<std::size_t>(v)]; i < starts[static_cast<std::size_t>(v) + 1]; ++i) {
        const Layer& layer = model.layers[static_cast<std::size_t>(i)];
        st.memory.weights_mib += layer.weights_mib;
        st.memory.grads_mib += layer.grads_mib;
        st.memory.optimizer_mib += layer.optimizer_mib;
        st.memory.static_mib += layer.static_mib();
        st.time.forward_ms += layer.forward_ms;
        st.time.backward_ms += layer.backward_ms;
        const int option = plan.recompute[static_cast<std::size_t>(i)];
        if (option >= 0) st.time.recompute_ms += layer.recompute[static_cast<std::size_t>(option)]->extra_ms;
        for (const ComponentCost& c : layer.components) {
          ComponentTotals& t = st.components[model.component_names[static_cast<std::size_t>(c.component)]];
          t.forward_ms += c.forward_ms;
          t.backward_ms += c.backward_ms;
          t.static_mib += c.static_mib;
          t.activation_mib += c.activation_mib;
        }
      }
      st.time.send_ms += costs[static_cast<std::size_t>(v)].send_ms;
    }
    const auto& sim = out.simulation.stages[static_cast<std::size_t>(s)];
    st.memory.reserved_mib = device.reserved_mib;
    st.memory.activation_mib = sim.activation_peak_mib;
    st.memory.in_flight_micro_batches = sim.peak_in_flight;
    for (const auto& c : components) {
      ComponentTotals& t = st.components[c.name];
      t.step_ms += c.step_at(s);
      t.memory_mib += c.memory_at(s);
      st.memory.components_mib += c.memory_at(s);
      st.time.components_step_ms += c.step_at(s);
    }
    st.memory.peak_mib =
        st.memory.static_mib + st.memory.reserved_mib + st.memory.activation_mib + st.memory.components_mib;
    st.memory.limit_mib = device.memory_limit_mib;
    st.time.busy_ms = sim.busy_ms;
    st.time.bubble_ms = out.step_time_ms - sim.busy_ms;
    bubble_sum += st.time.bubble_ms;
    compute[static_cast<std::size_t>(s)] = st.time.forward_ms + st.time.backward_ms + st.time.recompute_ms;
    if (device.memory_limit_mib && st.memory.peak_mib > *device.memory_limit_mib) {
      out.feasible = false;
      out.violations.push_back({s, st.memory.peak_mib, *device.memory_limit_mib});
    }
    out.stages.push_back(std::move(st));
  }
  out.bubble_fraction = out.step_time_ms > 0 ? bubble_sum / (plan.pp_degree * out.step_time_ms) : 0.0;
  double busiest = 0;
  for (const auto& sim : out.simulation.stages) busiest = std::max(busiest, sim.busy_ms);
  out.bubble_span_fraction = out.span_ms > 0 ? (out.span_ms - busiest) / out.span_ms : 0.0;
  const auto [lo, hi] = std::minmax_element(compute.begin(), compute.end());
  const double mean = std::accumulate(compute.begin(), compute.end(), 0.0) / static_cast<double>(compute.size());
  out.imbalance_max_over_mean = mean > 0 ? *hi / mean : 1.0;
  out.imbalance_max_minus_min_ms = *hi - *lo;
  const double m = static_cast<double>(plan.micro_batch_num), step_s = out.step_time_ms / 1000.0;
  bool all_flops = true;
  double flops = 0;
  for (const Layer& layer : model.layers) {
    all_flops = all_flops && layer.flops.has_value();
    flops += layer.flops.value_or(0);
  }
  if (all_flops && device.peak_tflops && step_s > 0)
    out.mfu = 3 * flops * m / (plan.pp_degree * *device.peak_tflops * 1e12 * step_s);
  if (model.device_tokens_per_micro_batch && step_s > 0)
    out.tokens_per_s_per_device = *model.device_tokens_per_micro_batch * m / (plan.pp_degree * step_s);
  return out;
}

}  // namespace ppb
