// The zero-bubble paper's handcrafted schedules (Qi et al., "Zero Bubble Pipeline Parallelism",
// arXiv 2401.10241): ZB-H1 and ZB-H2 as the contract words them, and ZB-V in the order of the paper's
// repository's handcrafted V schedule (sail-sg/zero-bubble-pipeline-parallelism,
// handcrafted_zb_v), which PyTorch's ScheduleZBVZeroBubble reproduces. Every backward here is split:
// B computes the input gradient and a later W the weight gradient.
#include <algorithm>

#include "schedule_programs.hpp"

namespace ppb::programs {
namespace {

// A stage's weight gradients wait in B order, so the pending ones are always the micro batches
// [next_w, next_b) of one virtual stage.
struct PendingWeights {
  int virtual_stage = 0;
  std::int64_t next_b = 0, next_w = 0;

  void backward_then_weights(std::vector<Op>& ops, std::int64_t keep) {
    ops.push_back(backward(virtual_stage, next_b++, true));
    while (next_b - next_w > keep) ops.push_back(weight(virtual_stage, next_w++));
  }
  void drain(std::vector<Op>& ops) {
    while (next_w < next_b) ops.push_back(weight(virtual_stage, next_w++));
  }
};

// `warmup` forwards, then one forward and one backward alternately, then the remaining backwards;
// after each backward the oldest weight gradients run while more than `keep` are pending, the rest at
// the end.
void one_f_one_b_with_weights(int stage, std::int64_t m, std::int64_t warmup, std::int64_t keep, std::vector<Op>& ops) {
  warmup = std::min(warmup, m);
  PendingWeights w{stage};
  for (std::int64_t i = 0; i < warmup; ++i) ops.push_back(forward(stage, i));
  for (std::int64_t i = warmup; i < m; ++i) {
    ops.push_back(forward(stage, i));
    w.backward_then_weights(ops, keep);
  }
  while (w.next_b < m) w.backward_then_weights(ops, keep);
  w.drain(ops);
}

}  // namespace

// ZB-H1: 1f1b's order; stage s keeps up to s weight gradients pending, which fill the cool-down where
// 1f1b's later stages idle. Peak activation as 1f1b's (min(pp - s, m) forwards before the first B).
void zb_h1(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  one_f_one_b_with_weights(stage, shape.micro_batch_num, shape.pp_degree - stage - 1, stage, ops);
}

// ZB-H2: twice 1f1b's warm-up, which fills the bubble before the first B, and up to 2 s pending weight
// gradients, which fill the tail: the stages' spans become a parallelogram.
void zb_h2(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  one_f_one_b_with_weights(stage, shape.micro_batch_num, 2LL * (shape.pp_degree - stage) - 2, 2LL * stage, ops);
}

// ZB-V: chunk 0 (virtual stage s) runs down the devices, chunk 1 (virtual stage 2 pp - 1 - s) back up.
// Built for max(2 pp - 1, m) micro batches and cut to the first m, as the handcrafted schedule does.
void zbv(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  const int pp = shape.pp_degree;
  const std::int64_t m = shape.micro_batch_num;
  const std::int64_t n = std::max<std::int64_t>(2LL * pp - 1, m);
  const int v0 = shape.virtual_stage(stage, 0), v1 = shape.virtual_stage(stage, 1);
  std::int64_t f0 = 0, f1 = 0, b0 = 0, b1 = 0;
  const auto first = static_cast<std::ptrdiff_t>(ops.size());  // this stage's operations start here
  auto f = [&](int v, std::int64_t& count) { ops.push_back(forward(v, count++)); };
  auto b = [&](int v, std::int64_t& count) { ops.push_back(backward(v, count++, true)); };
  auto w = [&](int v, std::int64_t mb) { ops.push_back(weight(v, mb)); };
  auto b_and_w = [&](int v, std::int64_t& count) {
    ops.push_back(backward(v, count, true));
    ops.push_back(weight(v, count++));
  };

  // Warm-up: 2 (pp - s) - 1 forwards down, s pairs of (up, down), then pp - s rounds of an upward
  // forward followed at once by its backward and weight gradient.
  for (std::int64_t i = 0; i < 2LL * (pp - stage) - 1; ++i) f(v0, f0);
  for (int i = 0; i < stage; ++i) {
    f(v1, f1);
    f(v0, f0);
  }
  for (int i = 0; i < pp - stage; ++i) {
    f(v1, f1);
    b_and_w(v1, b1);
  }
  // Steady: (F down, B+W down, F up, B+W up) until every forward has run.
  while (f1 < f0 || f0 < n) {
    if (f0 < n) f(v0, f0);
    b_and_w(v0, b0);
    f(v1, f1);
    b_and_w(v1, b1);
  }
  // Cool-down: s pairs of backwards (down, up) with their W deferred, pp - s rounds of a downward
  // backward and the oldest downward W, then the upward Ws and the remaining downward Ws.
  std::int64_t w0 = b0, w1 = b1;
  for (int i = 0; i < stage; ++i) {
    b(v0, b0);
    b(v1, b1);
  }
  for (int i = 0; i < pp - stage; ++i) {
    b(v0, b0);
    w(v0, w0++);
  }
  while (w1 < b1) w(v1, w1++);
  while (w0 < b0) w(v0, w0++);

  ops.erase(std::remove_if(ops.begin() + first, ops.end(), [m](const Op& op) { return op.micro_batch >= m; }),
            ops.end());
}

}  // namespace ppb::programs
