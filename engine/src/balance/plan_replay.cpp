// One pass over a program's execution order per plan. See plan_replay.hpp.
#include "plan_replay.hpp"

#include <algorithm>
#include <stdexcept>

namespace ppb::balancer {

PlanReplay::PlanReplay(const PipelineShape& shape, const Program& program, std::vector<double> tail_ms)
    : pp_(shape.pp_degree), V_(shape.virtual_stages()), m_(shape.micro_batch_num), tail_(std::move(tail_ms)) {
  tail_.resize(static_cast<std::size_t>(pp_), 0.0);
  const auto slots = static_cast<std::size_t>(V_ * m_);
  f_end_.assign(slots, 0);
  b_end_.assign(slots, 0);
  free_.assign(static_cast<std::size_t>(pp_), 0);
  // An execution order: visit the stages round robin, each running its next operations while their
  // inputs are done (forward of the virtual stage before; backward of the one after, or the stage's
  // own forward at the last; W after its own B).
  std::vector<char> f_done(slots, 0), b_done(slots, 0);
  const auto at = [&](int v, std::int32_t mb) { return static_cast<std::size_t>(v * m_ + mb); };
  const auto forward_ready = [&](int v, std::int32_t mb) { return v == 0 || f_done[at(v - 1, mb)]; };
  const auto backward_ready = [&](int v, std::int32_t mb) {
    return v == V_ - 1 ? f_done[at(v, mb)] != 0 : b_done[at(v + 1, mb)] != 0;
  };
  std::vector<std::size_t> next(static_cast<std::size_t>(pp_), 0);
  std::size_t total = 0;
  for (const auto& ops : program) total += ops.size();
  order_.reserve(total);
  bool moved = true;
  while (moved) {
    moved = false;
    for (int s = 0; s < pp_; ++s) {
      const auto& ops = program[static_cast<std::size_t>(s)];
      std::size_t& k = next[static_cast<std::size_t>(s)];
      for (; k < ops.size(); ++k) {
        const Op& op = ops[k];
        bool ready = false;
        switch (op.kind) {
          case OpKind::F: ready = forward_ready(op.virtual_stage, op.micro_batch); break;
          case OpKind::B: ready = backward_ready(op.virtual_stage, op.micro_batch); break;
          case OpKind::W: ready = b_done[at(op.virtual_stage, op.micro_batch)] != 0; break;
          case OpKind::FB:
            ready = forward_ready(op.virtual_stage, op.micro_batch) &&
                    backward_ready(op.backward_virtual_stage, op.backward_micro_batch);
            break;
        }
        if (!ready) break;
        if (op.kind == OpKind::F || op.kind == OpKind::FB) f_done[at(op.virtual_stage, op.micro_batch)] = 1;
        if (op.kind == OpKind::B) b_done[at(op.virtual_stage, op.micro_batch)] = 1;
        if (op.kind == OpKind::FB) b_done[at(op.backward_virtual_stage, op.backward_micro_batch)] = 1;
        order_.push_back({op.kind, op.weight_apart, s, op.virtual_stage, op.micro_batch, op.backward_virtual_stage,
                          op.backward_micro_batch});
        moved = true;
      }
    }
  }
  if (order_.size() != total) throw std::logic_error("plan replay: schedule deadlocked");
}

double PlanReplay::step_time(const std::vector<VirtualStageCost>& costs, double abort_above_ms, bool& aborted) {
  aborted = false;
  std::fill(free_.begin(), free_.end(), 0.0);
  std::vector<double>& f_end = f_end_;
  std::vector<double>& b_end = b_end_;
  const VirtualStageCost* c = costs.data();
  const std::int64_t m = m_;
  const int last = V_ - 1;
  // The simulator's inputs and durations, term for term (simulate.cpp), so that times are equal.
  const auto forward_input = [&](int v, std::int32_t mb) {
    return v == 0 ? 0.0 : f_end[static_cast<std::size_t>((v - 1) * m + mb)] + c[v - 1].send_ms;
  };
  const auto backward_input = [&](int v, std::int32_t mb) {
    return v == last ? f_end[static_cast<std::size_t>(v * m + mb)]
                     : b_end[static_cast<std::size_t>((v + 1) * m + mb)] + c[v].send_ms;
  };
  const auto backward_ms = [](const VirtualStageCost& x, bool apart) {
    return apart ? x.backward_ms - x.weight_ms : x.backward_ms;
  };
  for (const Step& op : order_) {
    double& free_at = free_[static_cast<std::size_t>(op.stage)];
    double input = 0, duration = 0;
    const VirtualStageCost& x = c[op.v];
    switch (op.kind) {
      case OpKind::F:
        input = forward_input(op.v, op.mb);
        duration = x.forward_ms;
        break;
      case OpKind::B:
        input = backward_input(op.v, op.mb);
        duration = backward_ms(x, op.weight_apart);
        break;
      case OpKind::W:
        input = b_end[static_cast<std::size_t>(op.v * m + op.mb)];
        duration = x.weight_ms;
        break;
      case OpKind::FB: {
        input = std::max(forward_input(op.v, op.mb), backward_input(op.bv, op.bmb));
        const VirtualStageCost& xb = c[op.bv];
        const double b = backward_ms(xb, op.weight_apart);
        const double f_comm = std::min(x.forward_comm_ms, x.forward_ms);
        const double b_comm = std::min(xb.backward_comm_ms, b);
        const double f_c = x.forward_ms - f_comm, b_c = b - b_comm;
        duration = f_c + b_c + std::max(0.0, f_comm - b_c) + std::max(0.0, b_comm - f_c);
        break;
      }
    }
    const double end = std::max(free_at, input) + duration;
    free_at = end;
    switch (op.kind) {
      case OpKind::F: f_end[static_cast<std::size_t>(op.v * m + op.mb)] = end; break;
      case OpKind::B: b_end[static_cast<std::size_t>(op.v * m + op.mb)] = end; break;
      case OpKind::W: break;
      case OpKind::FB:
        f_end[static_cast<std::size_t>(op.v * m + op.mb)] = end;
        b_end[static_cast<std::size_t>(op.bv * m + op.bmb)] = end;
        break;
    }
    if (end > abort_above_ms) {
      aborted = true;
      return end;
    }
  }
  double step = 0;
  for (int s = 0; s < pp_; ++s)
    step = std::max(step, free_[static_cast<std::size_t>(s)] + tail_[static_cast<std::size_t>(s)]);
  if (step > abort_above_ms) aborted = true;
  return step;
}

}  // namespace ppb::balancer
