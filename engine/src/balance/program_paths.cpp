// The longest path through a schedule program. See program_paths.hpp.
#include "program_paths.hpp"

#include <algorithm>

namespace ppb::balancer {

ProgramPaths::ProgramPaths(const BalanceProblem& problem) : p_(problem) {
  const int pp = p_.pp, V = p_.V;
  const auto m = static_cast<std::size_t>(p_.shape.micro_batch_num);
  // The simulator's replay already orders the program so that every input comes first.
  const PlanReplay replay(p_.shape, p_.program, p_.tail);
  // The node of F(u, j) and of B(u, j), once placed.
  std::vector<int> forward(static_cast<std::size_t>(V) * m, -1), backward(static_cast<std::size_t>(V) * m, -1);
  const auto at = [&](std::vector<int>& table, int u, int j) -> int& {
    return table[static_cast<std::size_t>(u) * m + static_cast<std::size_t>(j)];
  };
  last_.assign(static_cast<std::size_t>(pp), -1);
  order_.reserve(replay.order().size());
  for (const PlanReplay::Step& step : replay.order()) {
    const Op& op = step.op;
    const auto us = static_cast<std::size_t>(step.stage);
    if (op.kind == OpKind::FB) {  // F&B pairs are not read: no nodes, no path
      order_.clear();
      last_.assign(static_cast<std::size_t>(pp), -1);
      break;
    }
    // Every other operation waits for one input at most (timing.hpp).
    Node node{step, -1, -1, last_[us]};
    const timing::Inputs in = timing::inputs(op, V);
    if (in.count == 1) {
      const timing::Input& x = in.list[0];
      node.dependency = at(x.backward ? backward : forward, x.virtual_stage, x.micro_batch);
      if (x.send_after >= 0 && p_.crosses(x.send_after)) node.send = x.send_after;
    }
    const int index = static_cast<int>(order_.size());
    if (op.kind == OpKind::F) at(forward, op.virtual_stage, op.micro_batch) = index;
    if (op.kind == OpKind::B) at(backward, op.virtual_stage, op.micro_batch) = index;
    order_.push_back(node);
    last_[us] = index;
  }
  end_.assign(order_.size(), 0);
  from_.assign(order_.size(), -1);
}

double ProgramPaths::longest(const std::vector<double>& times, std::vector<double>& row, double& tail) {
  const auto V = static_cast<std::size_t>(p_.V);
  const auto time = [&](Term t, int u) { return times[static_cast<std::size_t>(t) * V + static_cast<std::size_t>(u)]; };
  // The operation's terms (timing.hpp) at the given times.
  const auto duration = [&](const Op& op) {
    const timing::Terms x = timing::terms(op.kind, op.weight_apart);
    const int u = op.virtual_stage;
    return x.forward * time(kF, u) + x.backward * time(kB, u) + x.weight * time(kW, u);
  };
  for (std::size_t k = 0; k < order_.size(); ++k) {
    const Node& n = order_[k];
    double start = n.previous >= 0 ? end_[static_cast<std::size_t>(n.previous)] : 0;
    int from = n.previous;
    if (n.dependency >= 0) {
      const double arrival = end_[static_cast<std::size_t>(n.dependency)] + (n.send >= 0 ? time(kSend, n.send) : 0);
      if (arrival > start) start = arrival, from = n.dependency;
    }
    end_[k] = start + duration(n.step.op);
    from_[k] = from;
  }
  row.assign(static_cast<std::size_t>(kTerms) * V, 0);
  tail = 0;
  int node = -1;
  double step = 0;
  for (int s = 0; s < p_.pp; ++s) {
    const int last = last_[static_cast<std::size_t>(s)];
    if (last < 0) continue;
    const double t = p_.tail[static_cast<std::size_t>(s)];
    if (node < 0 || end_[static_cast<std::size_t>(last)] + t > step) {
      node = last;
      step = end_[static_cast<std::size_t>(last)] + t;
      tail = t;
    }
  }
  const auto add = [&](Term t, int u, double x) {
    row[static_cast<std::size_t>(t) * V + static_cast<std::size_t>(u)] += x;
  };
  while (node >= 0) {
    const Node& n = order_[static_cast<std::size_t>(node)];
    const int u = n.step.op.virtual_stage;
    const timing::Terms x = timing::terms(n.step.op.kind, n.step.op.weight_apart);
    if (x.forward != 0) add(kF, u, x.forward);
    if (x.backward != 0) add(kB, u, x.backward);
    if (x.weight != 0) add(kW, u, x.weight);
    const int from = from_[static_cast<std::size_t>(node)];
    if (from >= 0 && from == n.dependency && n.send >= 0) add(kSend, n.send, 1);
    node = from;
  }
  return step;
}

}  // namespace ppb::balancer
