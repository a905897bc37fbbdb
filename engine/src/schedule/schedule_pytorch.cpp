// The schedules PyTorch's pipelining ships of its own, each in the order PyTorch's class writes it
// (torch/distributed/pipelining/schedules.py, read at pytorch/pytorch 00722e6, not copied):
// ScheduleLoopedBFS (_calculate_single_rank_operations) and ScheduleInterleavedZeroBubble
// (_calculate_single_rank_operations with _get_warmup_ops(multiply_factor=1) and _get_1f1b_rank_ops(
// enable_zero_bubble=True)). Both place virtual stage c pp + s on rank s (PyTorch's "loop" style,
// PPB's chunk-major placement). The empty slots PyTorch pads its lists with (to align time steps)
// order nothing and are left out.
#include <algorithm>
#include <deque>

#include "schedule_programs.hpp"

namespace ppb::programs {

// Breadth first (Lamy-Poirier, arXiv 2211.05953): every forward of chunk 0, then of chunk 1, ...;
// then every full backward of the last chunk, micro batches last to first, then of the chunk before.
void looped_bfs(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  const std::int64_t m = shape.micro_batch_num;
  for (int c = 0; c < shape.vpp_degree; ++c)
    for (std::int64_t i = 0; i < m; ++i) ops.push_back(forward(shape.virtual_stage(stage, c), i));
  for (int c = shape.vpp_degree - 1; c >= 0; --c)
    for (std::int64_t i = m - 1; i >= 0; --i) ops.push_back(backward(shape.virtual_stage(stage, c), i, false));
}

// PyTorch's ZB1P for several chunks: interleaved 1F1B in rounds of micro batches, with the warm-up
// one forward (not two) longer per hop from the last rank, every backward split into an input
// gradient (I) and a weight gradient (W); rank s keeps s weight gradients pending through its
// 1F1B part and then runs the oldest after each input gradient, the rest at the end.
void interleaved_zero_bubble(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  const int pp = shape.pp_degree, vpp = shape.vpp_degree;
  const std::int64_t m = shape.micro_batch_num;
  // PyTorch: number_of_rounds = max(1, m // pp), microbatches_per_round = m / rounds (the
  // conditions require rounds to divide m).
  const std::int64_t rounds = std::max<std::int64_t>(1, m / pp);
  const std::int64_t per_round = m / rounds;
  const std::int64_t total = m * vpp;  // forwards (and input gradients) on this rank
  const std::int64_t warmup = std::min<std::int64_t>((vpp - 1) * per_round + (pp - 1 - stage), total);
  // The k-th forward runs chunk (k / per_round) mod vpp; the k-th input gradient the chunks in reverse.
  auto forward_stage = [&](std::int64_t k) {
    return shape.virtual_stage(stage, static_cast<int>((k / per_round) % vpp));
  };
  auto backward_stage = [&](std::int64_t k) {
    return shape.virtual_stage(stage, static_cast<int>(vpp - 1 - (k / per_round) % vpp));
  };
  std::vector<std::int64_t> next_f(static_cast<std::size_t>(vpp), 0), next_b(next_f), next_w(next_f);
  auto chunk_of = [&](int v) { return static_cast<std::size_t>(v / pp); };
  std::deque<int> pending;  // virtual stages of the input gradients whose W has not run, oldest first
  auto run_forward = [&](std::int64_t k) {
    const int v = forward_stage(k);
    ops.push_back(forward(v, next_f[chunk_of(v)]++));
  };
  auto run_backward = [&](std::int64_t k) {
    const int v = backward_stage(k);
    ops.push_back(backward(v, next_b[chunk_of(v)]++, true));
    pending.push_back(v);
  };
  auto run_oldest_weight = [&] {
    const int v = pending.front();
    pending.pop_front();
    ops.push_back(weight(v, next_w[chunk_of(v)]++));
  };
  for (std::int64_t k = 0; k < warmup; ++k) run_forward(k);
  // After the warm-up, step j (0-based) runs the (warmup + j)-th forward while forwards remain and
  // the j-th input gradient; from step s on, the oldest pending weight gradient after it.
  for (std::int64_t j = 0; j < total; ++j) {
    if (warmup + j < total) run_forward(warmup + j);
    run_backward(j);
    if (j >= stage) run_oldest_weight();
  }
  while (!pending.empty()) run_oldest_weight();
}

}  // namespace ppb::programs
