// Where an operation's timing is decided: what it waits for and how long it runs (the contract's
// "Timing semantics"). Defined once, here; the simulator (simulate.cpp), the balancer's replay of a
// plan (balance/plan_replay.cpp) and its path rows (balance/program_paths.cpp) all read these rules,
// so that a change to one rule reaches all three and none can prove a time another does not run.
//
//   timing::inputs({OpKind::B, false, 1, 4}, 3)  // B(1, 4) waits for B(2, 4) and the transfer after 1
//   timing::duration_ms(op, costs.data())         // F, B (split or not), W, or the F&B overlap rule
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "ppb/plan/stage_costs.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb::timing {

// The end of an earlier operation that an operation waits for, and the transfer on that edge.
struct Input {
  bool backward = false;  // the end of B(virtual_stage, micro_batch) (its input-gradient part); else of F
  std::int32_t virtual_stage = 0;
  std::int32_t micro_batch = 0;
  // The transfer after this virtual stage lies on the edge (its send_ms: the activation down, or the
  // gradient back up; zero where both virtual stages share a physical stage); -1: no transfer.
  std::int32_t send_after = -1;
};

// An operation's inputs: none (the first virtual stage's forward), one, or two (an F&B pair waits for
// both its forward's and its backward's).
struct Inputs {
  std::array<Input, 2> list{};
  int count = 0;
};

// F(v, j) waits for F(v - 1, j) and the transfer after v - 1; the first virtual stage's for nothing.
[[gnu::always_inline]] inline Input forward_input(std::int32_t v, std::int32_t mb) { return {false, v - 1, mb, v - 1}; }
// B(v, j) waits for B(v + 1, j) and the transfer after v; on the last virtual stage for F(v, j).
[[gnu::always_inline]] inline Input backward_input(std::int32_t v, std::int32_t mb, int virtual_stages) {
  return v == virtual_stages - 1 ? Input{false, v, mb, -1} : Input{true, v + 1, mb, v};
}
// W(v, j) waits for B(v, j).
[[gnu::always_inline]] inline Input weight_input(std::int32_t v, std::int32_t mb) { return {true, v, mb, -1}; }

// An operation's inputs by the rules above; F&B waits for its forward's and its backward's. Every
// element is written at a fixed index: with a counted index the compiler keeps the list in memory
// (the WebAssembly build's simulation ran 1.4 times slower so).
[[gnu::always_inline]] inline Inputs inputs(const Op& op, int virtual_stages) {
  Inputs in;
  const std::int32_t v = op.virtual_stage, mb = op.micro_batch;
  switch (op.kind) {
    case OpKind::F:
      if (v > 0) in.list[0] = forward_input(v, mb), in.count = 1;
      break;
    case OpKind::B: in.list[0] = backward_input(v, mb, virtual_stages), in.count = 1; break;
    case OpKind::W: in.list[0] = weight_input(v, mb), in.count = 1; break;
    case OpKind::FB: {
      const Input backward = backward_input(op.backward_virtual_stage, op.backward_micro_batch, virtual_stages);
      if (v > 0)
        in.list[0] = forward_input(v, mb), in.list[1] = backward, in.count = 2;
      else
        in.list[0] = backward, in.count = 1;
      break;
    }
  }
  return in;
}

// What an operation on one virtual stage runs, as a sum of that stage's cost terms: F is the
// forward; B the whole backward (recompute included), less the weight gradient when it runs apart as
// a W; W the weight gradient. (F&B is not a sum: see overlapped_ms.)
struct Terms {
  double forward = 0, backward = 0, weight = 0;
};
[[gnu::always_inline]] inline Terms terms(OpKind kind, bool weight_apart) {
  switch (kind) {
    case OpKind::F: return {1, 0, 0};
    case OpKind::B: return {0, 1, weight_apart ? -1.0 : 0.0};
    case OpKind::W: return {0, 0, 1};
    case OpKind::FB: break;
  }
  return {};
}

// The backward an operation runs on virtual stage cost `c`: all of it, or its input-gradient part.
[[gnu::always_inline]] inline double backward_ms(const VirtualStageCost& c, bool weight_apart) {
  return weight_apart ? c.backward_ms - c.weight_ms : c.backward_ms;
}

// An F&B pair: one micro batch's forward (f_ms, of which f_comm_ms communication) beside another's
// backward (b_ms, b_comm_ms). Each side's communication hides under the other side's compute:
// F_c + B_c + max(0, F_comm - B_c) + max(0, B_comm - F_c), X_c = X - X_comm (DualPipe's overlap).
[[gnu::always_inline]] inline double overlapped_ms(double f_ms, double f_comm_ms, double b_ms, double b_comm_ms) {
  f_comm_ms = std::min(f_comm_ms, f_ms);
  b_comm_ms = std::min(b_comm_ms, b_ms);
  const double f_c = f_ms - f_comm_ms, b_c = b_ms - b_comm_ms;
  return f_c + b_c + std::max(0.0, f_comm_ms - b_c) + std::max(0.0, b_comm_ms - f_c);
}

// How long an operation runs, from the costs of every virtual stage (`costs[v]`).
[[gnu::always_inline]] inline double duration_ms(const Op& op, const VirtualStageCost* costs) {
  const VirtualStageCost& c = costs[op.virtual_stage];
  switch (op.kind) {
    case OpKind::F: return c.forward_ms;
    case OpKind::B: return backward_ms(c, op.weight_apart);
    case OpKind::W: return c.weight_ms;
    case OpKind::FB: {
      const VirtualStageCost& cb = costs[op.backward_virtual_stage];
      return overlapped_ms(c.forward_ms, c.forward_comm_ms, backward_ms(cb, op.weight_apart), cb.backward_comm_ms);
    }
  }
  return 0;
}

}  // namespace ppb::timing
