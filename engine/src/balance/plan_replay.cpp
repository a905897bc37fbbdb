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
  // An execution order: visit the stages round robin, each running its next operations while every
  // input they wait for (timing.hpp) has run.
  std::vector<char> f_done(slots, 0), b_done(slots, 0);
  const auto at = [&](std::int32_t v, std::int32_t mb) { return static_cast<std::size_t>(v * m_ + mb); };
  const auto done = [&](const timing::Input& x) {
    return (x.backward ? b_done : f_done)[at(x.virtual_stage, x.micro_batch)] != 0;
  };
  std::vector<std::size_t> next(static_cast<std::size_t>(pp_), 0);
  order_.reserve(program.operations());
  bool moved = true;
  while (moved) {
    moved = false;
    for (int s = 0; s < pp_; ++s) {
      const auto ops = program[static_cast<std::size_t>(s)];
      std::size_t& k = next[static_cast<std::size_t>(s)];
      for (; k < ops.size(); ++k) {
        const Op& op = ops[k];
        const timing::Inputs in = timing::inputs(op, V_);
        if (in.count > 0 && !done(in.list[0])) break;
        if (in.count > 1 && !done(in.list[1])) break;
        if (op.kind == OpKind::F || op.kind == OpKind::FB) f_done[at(op.virtual_stage, op.micro_batch)] = 1;
        if (op.kind == OpKind::B) b_done[at(op.virtual_stage, op.micro_batch)] = 1;
        if (op.kind == OpKind::FB) b_done[at(op.backward_virtual_stage, op.backward_micro_batch)] = 1;
        order_.push_back({op, s});
        moved = true;
      }
    }
  }
  if (order_.size() != program.operations()) throw std::logic_error("plan replay: schedule deadlocked");
}

double PlanReplay::step_time(const std::vector<VirtualStageCost>& costs, double abort_above_ms, bool& aborted) {
  aborted = false;
  std::fill(free_.begin(), free_.end(), 0.0);
  std::vector<double>& f_end = f_end_;
  std::vector<double>& b_end = b_end_;
  const VirtualStageCost* c = costs.data();
  const std::int64_t m = m_;
  // The simulator's rules (timing.hpp), so that times are equal.
  for (const Step& step : order_) {
    const Op& op = step.op;
    double& free_at = free_[static_cast<std::size_t>(step.stage)];
    const timing::Inputs in = timing::inputs(op, V_);
    double input = 0;
    for (int i = 0; i < in.count; ++i) {
      const timing::Input& x = in.list[static_cast<std::size_t>(i)];
      const double e = (x.backward ? b_end : f_end)[static_cast<std::size_t>(x.virtual_stage * m + x.micro_batch)];
      input = std::max(input, x.send_after >= 0 ? e + c[x.send_after].send_ms : e);
    }
    const double end = std::max(free_at, input) + timing::duration_ms(op, c);
    free_at = end;
    switch (op.kind) {
      case OpKind::F: f_end[static_cast<std::size_t>(op.virtual_stage * m + op.micro_batch)] = end; break;
      case OpKind::B: b_end[static_cast<std::size_t>(op.virtual_stage * m + op.micro_batch)] = end; break;
      case OpKind::W: break;
      case OpKind::FB:
        f_end[static_cast<std::size_t>(op.virtual_stage * m + op.micro_batch)] = end;
        b_end[static_cast<std::size_t>(op.backward_virtual_stage * m + op.backward_micro_batch)] = end;
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
