// gpipe, 1f1b and interleaved_1f1b, following Megatron-LM's pipeline_parallel/schedules.py arithmetic:
// warm-up forwards, one forward one backward in the steady part, the remaining backwards to finish.
#include <algorithm>

#include "schedule_programs.hpp"

namespace ppb::programs {

void gpipe(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  const std::int64_t m = shape.micro_batch_num;
  for (std::int64_t i = 0; i < m; ++i) ops.push_back(forward(stage, i));
  for (std::int64_t i = 0; i < m; ++i) ops.push_back(backward(stage, i, false));
}

// Warm-up of min(pp - s - 1, m) forwards, then one forward one backward, then the cool-down.
void one_f_one_b(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  const std::int64_t m = shape.micro_batch_num;
  const std::int64_t warmup = std::min<std::int64_t>(shape.pp_degree - stage - 1, m);
  for (std::int64_t i = 0; i < warmup; ++i) ops.push_back(forward(stage, i));
  for (std::int64_t i = 0; i < m - warmup; ++i) {
    ops.push_back(forward(stage, warmup + i));
    ops.push_back(backward(stage, i, false));
  }
  for (std::int64_t i = m - warmup; i < m; ++i) ops.push_back(backward(stage, i, false));
}

// Megatron-LM's interleaved schedule. The k-th forward (or backward) of a stage runs model chunk
// (k mod pp*vpp) / pp (reversed for backward) on micro batch (k / (pp*vpp)) * pp + k mod pp;
// warm-up is 2 (pp - s - 1) + (vpp - 1) pp forwards, all of them when m == pp.
void interleaved_1f1b(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  const int pp = shape.pp_degree, vpp = shape.vpp_degree;
  const std::int64_t total = shape.micro_batch_num * vpp;
  std::int64_t warmup = total;
  if (shape.micro_batch_num != pp)
    warmup = std::min<std::int64_t>(2LL * (pp - stage - 1) + static_cast<std::int64_t>(vpp - 1) * pp, total);
  // The k-th forward's or backward's place, k counted up one at a time: the arithmetic above without
  // a division per operation (this loop builds most of a large interleaved program's time).
  struct Cursor {
    int in_chunk = 0, chunk = 0;  // k mod pp, and (k mod pp*vpp) / pp
    std::int64_t group_mb = 0;    // (k / (pp*vpp)) * pp
  };
  const auto next = [&](Cursor& c) {
    if (++c.in_chunk < pp) return;
    c.in_chunk = 0;
    if (++c.chunk < vpp) return;
    c.chunk = 0;
    c.group_mb += pp;
  };
  const auto forward_op = [&](Cursor& c) {
    ops.push_back(forward(shape.virtual_stage(stage, c.chunk), c.group_mb + c.in_chunk));
    next(c);
  };
  const auto backward_op = [&](Cursor& c) {
    ops.push_back(backward(shape.virtual_stage(stage, vpp - 1 - c.chunk), c.group_mb + c.in_chunk, false));
    next(c);
  };
  Cursor f, b;
  for (std::int64_t k = 0; k < warmup; ++k) forward_op(f);
  for (std::int64_t k = 0; k < total - warmup; ++k) {
    forward_op(f);
    backward_op(b);
  }
  for (std::int64_t k = total - warmup; k < total; ++k) backward_op(b);
}

}  // namespace ppb::programs
