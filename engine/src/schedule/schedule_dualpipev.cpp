// DualPipeV (DeepSeek, deepseek-ai/DualPipe, dualpipev.py; PyTorch's ScheduleDualPipeV follows it):
// two chunks per device in a V, each rank's step in eight numbered phases whose counts are small
// expressions in pp, the rank s and m. Phase 0 of the original is our chunk 0 (virtual stage s, the
// way down), phase 1 our chunk 1 (virtual stage 2 pp - 1 - s, the way back up). Needs m >= 2 pp.
#include <deque>

#include "schedule_programs.hpp"

namespace ppb::programs {
namespace {

// One rank's program under construction: per chunk the next forward and backward micro batch, and
// the weight gradients of split backwards waiting in order (DualPipe's WeightGradStore is a FIFO).
class DualPipeVRank {
 public:
  DualPipeVRank(const PipelineShape& shape, int stage, std::vector<Op>& ops)
      : chunk_{shape.virtual_stage(stage, 0), shape.virtual_stage(stage, 1)}, ops_(ops) {}

  void f(int chunk) { ops_.push_back(forward(chunk_[chunk], next_f_[chunk]++)); }
  // A backward; with `zero_bubble` only the input gradient, its W queued.
  void b(int chunk, bool zero_bubble = false) {
    const std::int64_t mb = next_b_[chunk]++;
    ops_.push_back(backward(chunk_[chunk], mb, zero_bubble));
    if (zero_bubble) pending_.push_back(weight(chunk_[chunk], mb));
  }
  // The oldest queued W, if any.
  void w() {
    if (pending_.empty()) return;
    ops_.push_back(pending_.front());
    pending_.pop_front();
  }
  // One overlapped pair: forward on `f_chunk`, full backward on the other chunk.
  void fb(int f_chunk) {
    const int b_chunk = 1 - f_chunk;
    ops_.push_back({OpKind::FB, false, chunk_[f_chunk], static_cast<std::int32_t>(next_f_[f_chunk]++), chunk_[b_chunk],
                    static_cast<std::int32_t>(next_b_[b_chunk]++)});
  }

 private:
  int chunk_[2];
  std::int64_t next_f_[2] = {0, 0}, next_b_[2] = {0, 0};
  std::deque<Op> pending_;
  std::vector<Op>& ops_;  // the program, this rank's operations appended
};

}  // namespace

void dualpipev(const PipelineShape& shape, int stage, std::vector<Op>& ops) {
  const int pp = shape.pp_degree, s = stage;
  const std::int64_t m = shape.micro_batch_num;
  DualPipeVRank r(shape, stage, ops);
  // 1: forwards down, 2 (pp - s - 1).
  for (int i = 0; i < 2 * (pp - s - 1); ++i) r.f(0);
  // 2: down and up, s + 1 times.
  for (int i = 0; i < s + 1; ++i) {
    r.f(0);
    r.f(1);
  }
  // 3: up backward split, its W at once, up forward; pp - s - 1 times.
  for (int i = 0; i < pp - s - 1; ++i) {
    r.b(1, true);
    r.w();
    r.f(1);
  }
  // 4, the main phase: F down with B up, then F up with B down, overlapped; m - 2 pp + s + 1 times.
  // The last rank's first pair runs apart (the original's note: it shortens the bubble).
  for (std::int64_t i = 0; i < m - 2LL * pp + s + 1; ++i) {
    if (i == 0 && s == pp - 1) {
      r.f(0);
      r.b(1);
    } else {
      r.fb(0);
    }
    r.fb(1);
  }
  // 5: B up, then F up with B down; pp - s - 1 times.
  for (int i = 0; i < pp - s - 1; ++i) {
    r.b(1);
    r.fb(1);
  }
  // 6: B up and B down, s + 1 times; from the middle on the backwards are split (W queued), starting
  // with the up backward on odd ranks and the down backward on even ones.
  bool zero_bubble = false;
  for (int i = 0; i < s + 1; ++i) {
    if (i == (s + 1) / 2 && s % 2 == 1) zero_bubble = true;
    r.b(1, zero_bubble);
    if (i == (s + 1) / 2 && s % 2 == 0) zero_bubble = true;
    r.b(0, zero_bubble);
  }
  // 7: a queued W, then a split B down; pp - s - 1 times.
  for (int i = 0; i < pp - s - 1; ++i) {
    r.w();
    r.b(0, true);
  }
  // 8: the remaining s + 1 Ws.
  for (int i = 0; i < s + 1; ++i) r.w();
}

}  // namespace ppb::programs
