// gpipe, 1f1b and interleaved_1f1b, following Megatron-LM's pipeline_parallel/schedules.py arithmetic:
// warm-up forwards, one forward one backward in the steady part, the remaining backwards to finish.
#include <algorithm>

#include "schedule_programs.hpp"

namespace ppb::programs {

std::vector<Op> gpipe(const PipelineShape& shape, int stage) {
  const std::int64_t m = shape.micro_batch_num;
  std::vector<Op> ops;
  ops.reserve(static_cast<std::size_t>(2 * m));
  for (std::int64_t i = 0; i < m; ++i) ops.push_back(forward(stage, i));
  for (std::int64_t i = 0; i < m; ++i) ops.push_back(backward(stage, i, false));
  return ops;
}

// Warm-up of min(pp - s - 1, m) forwards, then one forward one backward, then the cool-down.
std::vector<Op> one_f_one_b(const PipelineShape& shape, int stage) {
  const std::int64_t m = shape.micro_batch_num;
  const std::int64_t warmup = std::min<std::int64_t>(shape.pp_degree - stage - 1, m);
  std::vector<Op> ops;
  ops.reserve(static_cast<std::size_t>(2 * m));
  for (std::int64_t i = 0; i < warmup; ++i) ops.push_back(forward(stage, i));
  for (std::int64_t i = 0; i < m - warmup; ++i) {
    ops.push_back(forward(stage, warmup + i));
    ops.push_back(backward(stage, i, false));
  }
  for (std::int64_t i = m - warmup; i < m; ++i) ops.push_back(backward(stage, i, false));
  return ops;
}

// Megatron-LM's interleaved schedule. The k-th forward (or backward) of a stage runs model chunk
// (k mod pp*vpp) / pp (reversed for backward) on micro batch (k / (pp*vpp)) * pp + k mod pp;
// warm-up is 2 (pp - s - 1) + (vpp - 1) pp forwards, all of them when m == pp.
std::vector<Op> interleaved_1f1b(const PipelineShape& shape, int stage) {
  const int pp = shape.pp_degree, vpp = shape.vpp_degree;
  const std::int64_t total = shape.micro_batch_num * vpp;
  const std::int64_t group = static_cast<std::int64_t>(pp) * vpp;
  std::int64_t warmup = total;
  if (shape.micro_batch_num != pp)
    warmup = std::min<std::int64_t>(2LL * (pp - stage - 1) + static_cast<std::int64_t>(vpp - 1) * pp, total);
  auto op = [&](std::int64_t k, bool is_forward) {
    const std::int64_t in_group = k % group;
    std::int64_t chunk = in_group / pp;
    if (!is_forward) chunk = vpp - 1 - chunk;
    const std::int64_t micro_batch = (k / group) * pp + in_group % pp;
    const int v = shape.virtual_stage(stage, static_cast<int>(chunk));
    return is_forward ? forward(v, micro_batch) : backward(v, micro_batch, false);
  };
  std::vector<Op> ops;
  ops.reserve(static_cast<std::size_t>(2 * total));
  for (std::int64_t k = 0; k < warmup; ++k) ops.push_back(op(k, true));
  for (std::int64_t k = 0; k < total - warmup; ++k) {
    ops.push_back(op(warmup + k, true));
    ops.push_back(op(k, false));
  }
  for (std::int64_t k = total - warmup; k < total; ++k) ops.push_back(op(k, false));
  return ops;
}

}  // namespace ppb::programs
