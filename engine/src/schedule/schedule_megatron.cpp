// gpipe, 1f1b and interleaved_1f1b, following Megatron-LM's pipeline_parallel/schedules.py arithmetic:
// warm-up forwards, one forward one backward in the steady part, the remaining backwards to finish.
#include <algorithm>
#include <utility>

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

namespace {

// The k-th forward's or backward's place in Megatron-LM's interleaved order, k counted up one at a
// time: model chunk (k mod pp*vpp) / pp (reversed for backward) on micro batch
// (k / (pp*vpp)) * pp + k mod pp, without a division per operation (this walk builds most of a large
// interleaved program's time).
class InterleavedCursor {
 public:
  InterleavedCursor(const PipelineShape& shape, int stage, bool backward)
      : shape_(shape), stage_(stage), backward_(backward) {}
  // The virtual stage and micro batch of the next operation, then a step on.
  std::pair<int, std::int64_t> next() {
    const int chunk = backward_ ? shape_.vpp_degree - 1 - chunk_ : chunk_;
    const std::pair<int, std::int64_t> at{shape_.virtual_stage(stage_, chunk), group_mb_ + in_chunk_};
    if (++in_chunk_ == shape_.pp_degree) {
      in_chunk_ = 0;
      if (++chunk_ == shape_.vpp_degree) chunk_ = 0, group_mb_ += shape_.pp_degree;
    }
    return at;
  }

 private:
  const PipelineShape& shape_;
  int stage_;
  bool backward_;
  int in_chunk_ = 0, chunk_ = 0;  // k mod pp, and (k mod pp*vpp) / pp
  std::int64_t group_mb_ = 0;     // (k / (pp*vpp)) * pp
};

// Megatron-LM's interleaved warm-up, 2 (pp - s - 1) + (vpp - 1) pp forwards (get_pp_rank_microbatches
// in pipeline_parallel/schedules.py), plus `extra`, at most every forward.
std::int64_t interleaved_warmup(const PipelineShape& shape, int stage, int extra) {
  const std::int64_t total = shape.micro_batch_num * shape.vpp_degree;
  return std::min<std::int64_t>(
      2LL * (shape.pp_degree - stage - 1) + static_cast<std::int64_t>(shape.vpp_degree - 1) * shape.pp_degree + extra,
      total);
}

}  // namespace

// Megatron-LM's interleaved schedule: the warm-up forwards, then one forward one backward, then the
// remaining backwards, in the interleaved order; all forwards first when m == pp (the older
// Megatron-LM's rule this schedule was checked against).
void interleaved_1f1b(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  const std::int64_t total = shape.micro_batch_num * shape.vpp_degree;
  const std::int64_t warmup = shape.micro_batch_num == shape.pp_degree ? total : interleaved_warmup(shape, stage, 0);
  InterleavedCursor f(shape, stage, false), b(shape, stage, true);
  const auto forward_op = [&] {
    const auto [v, mb] = f.next();
    ops.push_back(forward(v, mb));
  };
  const auto backward_op = [&] {
    const auto [v, mb] = b.next();
    ops.push_back(backward(v, mb, false));
  };
  for (std::int64_t k = 0; k < warmup; ++k) forward_op();
  for (std::int64_t k = 0; k < total - warmup; ++k) {
    forward_op();
    backward_op();
  }
  for (std::int64_t k = total - warmup; k < total; ++k) backward_op();
}

// Megatron-LM's interleaved schedule with the MoE all-to-all overlapped
// (--overlap-moe-expert-parallel-comm): one extra warm-up forward "to ensure the forward and backward
// computations are independent in all 1f1b steps" (get_pp_rank_microbatches), then every steady
// step's forward and backward run as one F&B pair (combined_1f1b_schedule_for_interleaved_pipelining,
// pipeline_parallel/combined_1f1b.py), each hiding the other's all-to-all. With --delay-wgrad-compute
// the weight gradient runs inside the pair, after the input gradient, so it is not an operation of
// its own here. The cool-down's backwards run alone.
void interleaved_1f1b_overlap(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  const std::int64_t total = shape.micro_batch_num * shape.vpp_degree;
  const std::int64_t warmup = interleaved_warmup(shape, stage, 1);
  InterleavedCursor f(shape, stage, false), b(shape, stage, true);
  for (std::int64_t k = 0; k < warmup; ++k) {
    const auto [v, mb] = f.next();
    ops.push_back(forward(v, mb));
  }
  for (std::int64_t k = 0; k < total - warmup; ++k) {
    const auto [fv, fmb] = f.next();
    const auto [bv, bmb] = b.next();
    ops.push_back(forward_and_backward(fv, fmb, bv, bmb));
  }
  for (std::int64_t k = total - warmup; k < total; ++k) {
    const auto [v, mb] = b.next();
    ops.push_back(backward(v, mb, false));
  }
}

}  // namespace ppb::programs
