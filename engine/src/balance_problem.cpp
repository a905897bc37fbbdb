// The balancing problem's tables: prefix sums, held micro batches, stage memory. See balance_problem.hpp.
#include "balance_problem.hpp"

#include "ppb/schedule.hpp"

namespace ppb::balancer {
namespace {

// Most micro batches of each virtual stage its physical stage holds at once, read off the program:
// full activations from F to B (the weight parts kept from B to W under split schedules are not
// counted here).
std::vector<double> held_per_virtual_stage(const PipelineShape& shape) {
  const int pp = shape.pp_degree, V = shape.virtual_stages();
  std::vector<double> held(static_cast<std::size_t>(V), 0);
  for (int s = 0; s < pp; ++s) {
    std::vector<int> now(static_cast<std::size_t>(V), 0);
    const auto take = [&](int v) {
      int& n = now[static_cast<std::size_t>(v)];
      held[static_cast<std::size_t>(v)] = std::max<double>(held[static_cast<std::size_t>(v)], ++n);
    };
    for (const Op& op : stage_program(shape, s)) {
      if (op.kind == OpKind::F || op.kind == OpKind::FB) take(op.virtual_stage);
      if (op.kind == OpKind::B) --now[static_cast<std::size_t>(op.virtual_stage)];
      if (op.kind == OpKind::FB) --now[static_cast<std::size_t>(op.backward_virtual_stage)];
    }
  }
  return held;
}

}  // namespace

BalanceProblem::BalanceProblem(const Model& model_, const Device& device_, const PipelineShape& shape_,
                               const BalanceOptions& options_)
    : model(model_), device(device_), shape(shape_), options(options_) {
  L = model.layer_count();
  pp = shape.pp_degree;
  V = shape.virtual_stages();
  m = static_cast<double>(shape.micro_batch_num);
  split = splits_weight_gradient(shape.schedule);
  limit = device.memory_limit_mib ? *device.memory_limit_mib - device.reserved_mib : kInf;
  min_size = options.allow_empty_stages ? 0 : 1;
  component_memory = component_memory_mib(options.components, pp);
  tail = component_tail_ms(options.components, pp);
  const auto n = static_cast<std::size_t>(L) + 1;
  for (auto* prefix : {&prefix_f, &prefix_b, &prefix_w, &prefix_static, &prefix_act, &prefix_least_act})
    prefix->assign(n, 0);
  min_send = kInf;
  for (int i = 0; i < L; ++i) {
    const Layer& l = layer(i);
    const auto k = static_cast<std::size_t>(i);
    prefix_f[k + 1] = prefix_f[k] + l.forward_ms;
    prefix_b[k + 1] = prefix_b[k] + l.backward_ms;
    prefix_w[k + 1] = prefix_w[k] + l.weight_backward_ms;
    prefix_static[k + 1] = prefix_static[k] + l.static_mib();
    double least = l.activation_mib;
    for (int o : options.recompute_options)
      if (const auto& r = l.recompute[static_cast<std::size_t>(o)]) least = std::min(least, r->activation_mib);
    prefix_act[k + 1] = prefix_act[k] + l.activation_mib;
    prefix_least_act[k + 1] = prefix_least_act[k] + least;
    min_send = std::min(min_send, transfer_ms(device, l.send_mib));
  }
  if (pp == 1 || min_send == kInf) min_send = 0;
  held = held_per_virtual_stage(shape);
  drain_additive = !split && std::all_of(tail.begin(), tail.end(), [](double t) { return t == 0; });
}

double BalanceProblem::send_after(int end) const {
  if (end <= 0) return device.p2p_latency_ms;
  return transfer_ms(device, layer(end - 1).send_mib);
}

std::vector<int> BalanceProblem::even_ends() const { return ends_of(even_stage_layers(model, V)); }

std::vector<int> ends_of(const std::vector<int>& stage_layers) {
  std::vector<int> ends;
  int a = 0;
  for (int n : stage_layers) ends.push_back(a += n);
  return ends;
}

}  // namespace ppb::balancer
