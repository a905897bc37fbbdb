// The balancing problem's tables: prefix sums, held micro batches, stage memory. See balance_problem.hpp.
#include "balance_problem.hpp"

#include <algorithm>

#include "ppb/plan/plan.hpp"
#include "ppb/plan/stage_costs.hpp"
#include "ppb/schedule/schedule.hpp"
#include "ppb/simulate/zb_auto.hpp"

namespace ppb::balancer {
namespace {

// Reads the program once: for each physical stage, the counts of its chunks' micro batches held at
// every forward start (full activations from F to B, and under split schedules the weight parts from
// B to W, charged as full activations), the non-dominated ones kept; and the forwards before its
// first backward. Memory changes only when the stage's own operations start or end, so these counts
// are the same whatever the durations.
void read_program(BalanceProblem& p) {
  const PipelineShape& shape = p.shape;
  const int pp = shape.pp_degree, vpp = shape.vpp_degree;
  p.held.assign(static_cast<std::size_t>(p.V), 0);
  p.peaks.assign(static_cast<std::size_t>(pp), {});
  p.forwards_before_backward.assign(static_cast<std::size_t>(pp), 0);
  std::vector<int> chunk_of(static_cast<std::size_t>(p.V), 0);
  for (int s = 0; s < pp; ++s)
    for (int c = 0; c < vpp; ++c) chunk_of[static_cast<std::size_t>(shape.virtual_stage(s, c))] = c;
  for (int s = 0; s < pp; ++s) {
    std::vector<double> now(static_cast<std::size_t>(vpp), 0);
    std::vector<std::vector<double>>& peaks = p.peaks[static_cast<std::size_t>(s)];
    bool backward_seen = false;
    const auto chunk = [&](int v) -> double& {
      return now[static_cast<std::size_t>(chunk_of[static_cast<std::size_t>(v)])];
    };
    const auto take = [&](int v) {
      chunk(v) += 1;
      if (!backward_seen) p.forwards_before_backward[static_cast<std::size_t>(s)] += 1;
      for (int c = 0; c < vpp; ++c) {
        double& h = p.held[static_cast<std::size_t>(shape.virtual_stage(s, c))];
        h = std::max(h, now[static_cast<std::size_t>(c)]);
      }
      const auto covers = [](const std::vector<double>& x, const std::vector<double>& y) {
        for (std::size_t c = 0; c < x.size(); ++c)
          if (x[c] < y[c]) return false;
        return true;
      };
      for (const auto& kept : peaks)
        if (covers(kept, now)) return;
      peaks.erase(std::remove_if(peaks.begin(), peaks.end(), [&](const auto& kept) { return covers(now, kept); }),
                  peaks.end());
      peaks.push_back(now);
    };
    // The backward frees the full activation; with its weight gradient apart, the weight part stays
    // until W (charged as a whole micro batch).
    const auto give_back = [&](int v, bool weight_apart) {
      backward_seen = true;
      if (!weight_apart) chunk(v) -= 1;
    };
    for (const Op& op : p.program[static_cast<std::size_t>(s)]) {
      switch (op.kind) {
        case OpKind::F: take(op.virtual_stage); break;
        case OpKind::FB:
          take(op.virtual_stage);
          give_back(op.backward_virtual_stage, op.weight_apart);
          break;
        case OpKind::B: give_back(op.virtual_stage, op.weight_apart); break;
        case OpKind::W: chunk(op.virtual_stage) -= 1; break;
      }
    }
  }
}

// The schedule's program; zb_auto's for the costs of the even split without recompute.
Program program_of(const Model& model, const Device& device, const PipelineShape& shape,
                   const std::vector<double>& tail) {
  if (!needs_costs(shape.schedule)) return schedule_program(shape);
  Plan even(shape);
  even.stage_layers = even_stage_layers(model, shape.virtual_stages());
  even.recompute.assign(static_cast<std::size_t>(model.layer_count()), -1);
  SimulationInput in;
  static_cast<PipelineShape&>(in) = shape;
  in.costs = virtual_stage_costs(model, device, even);
  in.stage_tail_ms = tail;
  return zb_auto_program(in);
}

}  // namespace

BalanceOptions options_for_schedule(const Model& model, const PipelineShape& shape, const BalanceOptions& options) {
  BalanceOptions out = options;
  if (shape.schedule == Schedule::interleaved_1f1b_overlap) {
    const int full = model.option_index("full");
    std::erase(out.recompute_options, full);
  }
  return out;
}

BalanceProblem::BalanceProblem(const Model& model_, const Device& device_, const PipelineShape& shape_,
                               const BalanceOptions& options_)
    : model(model_), device(device_), shape(shape_), options(options_) {
  L = model.layer_count();
  pp = shape.pp_degree;
  V = shape.virtual_stages();
  m = static_cast<double>(shape.micro_batch_num);
  split = splits_weight_gradient(shape.schedule);
  overlaps = runs_fb_pairs(shape.schedule);
  limit = device.memory_limit_mib ? *device.memory_limit_mib - device.reserved_mib : kInf;
  min_size = options.allow_empty_stages ? 0 : 1;
  component_memory = component_memory_mib(options.components, pp);
  tail = component_tail_ms(options.components, pp);
  const auto n = static_cast<std::size_t>(L) + 1;
  for (auto* prefix :
       {&prefix_f, &prefix_b, &prefix_w, &prefix_static, &prefix_act, &prefix_least_act, &prefix_fcomm, &prefix_bcomm})
    prefix->assign(n, 0);
  min_send = kInf;
  for (int i = 0; i < L; ++i) {
    const Layer& l = layer(i);
    const auto k = static_cast<std::size_t>(i);
    prefix_f[k + 1] = prefix_f[k] + l.forward_ms;
    prefix_b[k + 1] = prefix_b[k] + l.backward_ms;
    prefix_w[k + 1] = prefix_w[k] + l.weight_backward_ms;
    prefix_static[k + 1] = prefix_static[k] + l.static_mib();
    prefix_fcomm[k + 1] = prefix_fcomm[k] + l.forward_comm_ms;
    prefix_bcomm[k + 1] = prefix_bcomm[k] + l.backward_comm_ms;
    double least = l.activation_mib, most = l.activation_mib;
    for (int o : options.recompute_options)
      if (const auto& r = l.recompute[static_cast<std::size_t>(o)]) {
        least = std::min(least, r->activation_mib);
        most = std::max(most, r->activation_mib);
      }
    // The weight part a layer keeps is min(kept, weight activation): all of it unless stated lower.
    if (split && l.weight_activation_mib && *l.weight_activation_mib < most) memory_exact = false;
    prefix_act[k + 1] = prefix_act[k] + l.activation_mib;
    prefix_least_act[k + 1] = prefix_least_act[k] + least;
    min_send = std::min(min_send, transfer_ms(device, l.send_mib));
  }
  // An empty first stage sends only the latency (send_after(0)), which may be the cheapest transfer.
  if (min_size == 0 && model.pinned_first == 0) min_send = std::min(min_send, device.p2p_latency_ms);
  if (pp == 1 || min_send == kInf) min_send = 0;
  program = program_of(model, device, shape, tail);
  read_program(*this);
  if (needs_costs(shape.schedule)) {
    // The plan's own zb_auto program may hold more than the even split's, but never more than the
    // cap's worth (zb_auto.hpp): charging that keeps every plan the balancer finds within the limit.
    const double most = std::min(static_cast<double>(shape.in_flight_cap()), m);
    for (double& h : held) h = std::max(h, most);
    for (auto& stage_peaks : peaks) stage_peaks.assign(1, std::vector<double>(1, most));
    memory_exact = false;
  }
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
