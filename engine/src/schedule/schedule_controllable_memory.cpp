// V-Half and V-Min, the controllable-memory V schedules of Qi et al., "Pipeline Parallelism with
// Controllable Memory" (arXiv 2405.15362), in the variant the authors' repository runs for
// --zero-bubble-v-schedule-mem-setup half / min (sail-sg/zero-bubble-pipeline-parallelism,
// megatron/core/pipeline_parallel/zerobubble/scheduler/zbv_greedy.py, PipelineGraph; read, not
// copied). The repository's other implementation (v_auto_schedule.py, a search over building blocks)
// is not what its runtime calls for these two settings.
//
// The method, in the paper's words "repeat, squeeze, reorder":
//   1. A stable pattern gives every stage the slot of its first F (chunk 0's forward, down the V),
//      f (chunk 1's forward, back up), B (chunk 1's backward) and b (chunk 0's backward) in a period
//      of 6 slots; micro batch k of each runs 6 k slots later. V-Half's pattern keeps about half of
//      1F1B's activations alive, V-Min's about a third (the building blocks' lifespans).
//   2. Each stage's weight gradients fill its idle slots, oldest first (put_weights).
//   3. Twice, the warm-up and cool-down are reordered greedily: in slot order, each operation moves to
//      the earliest free slot after its inputs where the stage's peak of live activations does not
//      grow; the steady middle keeps its pattern. Then the slots are squeezed (every operation as
//      early as its inputs and its stage allow, unit costs). The first pass places Ws explicitly, the
//      second lets them fill idle slots.
//   4. The Ws are placed once more, now per chunk (chunk 1's first), and each stage runs its
//      operations in slot order.
// The order does not depend on the stage costs (the repository builds it with unit costs too).
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "schedule_programs.hpp"

namespace ppb::programs {
namespace {

// Kinds in the slot model, in the repository's order: F, f, B, b, then W (one list in the
// reordering passes; two in the end, W for B's and w for b's).
enum Kind : int { kF = 0, kFUp = 1, kB = 2, kBDown = 3, kW = 4, kWDown = 5 };

using Slots = std::vector<std::int64_t>;   // one kind's slot per micro batch, ascending
using StageSlots = std::vector<Slots>;     // one stage's kinds
using AllSlots = std::vector<StageSlots>;  // every stage

[[noreturn]] void broken(const std::string& what) { throw std::logic_error("controllable-memory V schedule: " + what); }

// The stable patterns: the first slot of F, f, B and b on each stage (zbv_greedy.py,
// stable_pattern_v_min and stable_pattern_v_half). The gaps keep the four kinds apart mod 6.
std::vector<std::array<std::int64_t, 4>> stable_pattern(int pp, bool half) {
  std::vector<std::array<std::int64_t, 4>> pattern;
  for (std::int64_t i = 0; i < pp; ++i) {
    if (half) {
      const std::int64_t gap = pp % 2 == 0 ? 3 : 0;
      pattern.push_back({2 * i, 3LL * pp - i - 2, 3LL * pp + gap + 2 * i - 1, 6LL * pp + gap - i - 2});
    } else {
      const std::int64_t gap = pp % 3 == 0 ? 2 : 0;
      pattern.push_back({i, 2LL * pp - i - 1, 2LL * pp + gap + i, 4LL * pp + gap - i - 1});
    }
  }
  return pattern;
}

// Walks every stage's kinds together in the order of their next slots (ties: the lower stage, then
// the lower kind), as the repository's loops do with a minimum over all lists at every step; a heap
// keeps that O(log) per operation. An operation's own slot may change once it is taken (the reorder
// moves it earlier), which leaves the order of the others as it was.
class GlobalWalk {
 public:
  explicit GlobalWalk(const AllSlots& slots) : slots_(slots) {
    next_.assign(slots.size(), std::vector<std::size_t>(slots.empty() ? 0 : slots[0].size(), 0));
    for (std::size_t s = 0; s < slots.size(); ++s)
      for (std::size_t k = 0; k < slots[s].size(); ++k) push(s, k);
  }
  // The next operation's stage, kind and micro batch; false when all are taken.
  bool take(std::size_t& stage, std::size_t& kind, std::size_t& mb) {
    if (heap_.empty()) return false;
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    const Entry e = heap_.back();
    heap_.pop_back();
    stage = e.stage, kind = e.kind, mb = next_[stage][kind]++;
    push(stage, kind);
    return true;
  }

 private:
  struct Entry {
    std::int64_t slot;
    std::size_t stage, kind;
    bool operator>(const Entry& o) const {
      if (slot != o.slot) return slot > o.slot;
      if (stage != o.stage) return stage > o.stage;
      return kind > o.kind;
    }
  };
  void push(std::size_t s, std::size_t k) {
    if (next_[s][k] >= slots_[s][k].size()) return;
    heap_.push_back({slots_[s][k][next_[s][k]], s, k});
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  }
  const AllSlots& slots_;
  std::vector<std::vector<std::size_t>> next_;
  std::vector<Entry> heap_;
};

std::int64_t last_slot(const StageSlots& stage) {
  std::int64_t last = -1;
  for (const Slots& s : stage)
    if (!s.empty()) last = std::max(last, s.back());
  return last;
}

// Places the weight gradients of a stage's four kinds in its idle slots, oldest backward first
// (zbv_greedy.py, put_w): one list after the four, or with `per_chunk` two (chunk 1's B first).
void put_weights(StageSlots& stage, bool per_chunk) {
  stage.resize(4);
  stage.resize(per_chunk ? 6 : 5);
  const std::int64_t bound = std::max(last_slot(stage), std::int64_t{0});
  std::array<std::int64_t, 2> pending{0, 0};
  std::array<std::size_t, 4> next{0, 0, 0, 0};
  std::int64_t i = 0;
  for (; i <= bound; ++i) {
    int kind = -1;
    for (int k = 0; k < 4; ++k) {
      const auto uk = static_cast<std::size_t>(k);
      if (next[uk] < stage[uk].size() && stage[uk][next[uk]] == i) kind = k;
    }
    if (kind >= 0) {
      ++next[static_cast<std::size_t>(kind)];
      if (kind == kB || kind == kBDown) ++pending[per_chunk ? static_cast<std::size_t>(kind - kB) : 0];
      continue;
    }
    for (std::size_t w = 0; w < 2; ++w)
      if (pending[w] > 0) {
        stage[4 + w].push_back(i);
        --pending[w];
        break;
      }
  }
  for (std::size_t w = 0; w < 2; ++w)
    for (; pending[w] > 0; --pending[w]) stage[4 + w].push_back(i++);
}

// The most activations the stage holds at once, in chunk forwards: F and f take one, a W gives one
// back; without W lists, each idle slot runs one pending W (zbv_greedy.py, mem_of_stage).
std::int64_t peak_activations(const StageSlots& stage) {
  const bool weights_placed = stage.size() > 4;
  const std::int64_t bound = last_slot(stage);
  // Every slot's kind, or -1 when idle (slots are unique on a stage); kept between calls, as the
  // reorder asks this once for every slot it tries.
  thread_local std::vector<int> kind_at;
  kind_at.assign(static_cast<std::size_t>(bound + 1), -1);
  for (std::size_t k = 0; k < stage.size(); ++k)
    for (std::int64_t s : stage[k]) kind_at[static_cast<std::size_t>(s)] = static_cast<int>(k);
  std::int64_t live = 0, peak = 0, pending = 0;
  for (int kind : kind_at) {
    if (kind == kF || kind == kFUp) ++live;
    if (kind >= kW) --live;
    if (kind == kB || kind == kBDown) ++pending;
    if (kind < 0 && !weights_placed && pending > 0) --live, --pending;
    peak = std::max(peak, live);
  }
  return peak;
}

// Start times of every operation run as early as its inputs and its stage allow, in the order of the
// slots, with unit costs and no transfer time (zbv_greedy.py, eager_execution_time): the squeeze.
// Returns the start times in the same layout as the slots.
AllSlots squeeze(const AllSlots& slots) {
  const std::size_t stages = slots.size(), kinds = slots[0].size();
  AllSlots end(stages, StageSlots(kinds));
  for (std::size_t s = 0; s < stages; ++s)
    for (std::size_t k = 0; k < kinds; ++k) end[s][k].assign(slots[s][k].size(), -1);
  std::vector<std::int64_t> stage_end(stages, 0);
  const auto done = [&](std::size_t s, std::size_t k, std::size_t mb) {
    const std::int64_t t = end[s][k][mb];
    if (t < 0) broken("an operation runs before its input");
    return t;
  };
  GlobalWalk walk(slots);
  std::size_t bs = 0, bk = 0, mb = 0;
  while (walk.take(bs, bk, mb)) {
    std::int64_t start = stage_end[bs];
    if ((bk == kF || bk == kB) && bs > 0) start = std::max(start, done(bs - 1, bk, mb));
    if ((bk == kFUp || bk == kBDown) && bs + 1 < stages) start = std::max(start, done(bs + 1, bk, mb));
    if (bk > kF && bk < kW) start = std::max(start, done(bs, bk - 1, mb));
    if (mb > 0) start = std::max(start, done(bs, bk, mb - 1));
    end[bs][bk][mb] = stage_end[bs] = start + 1;
  }
  for (auto& stage : end)
    for (Slots& kind : stage)
      for (std::int64_t& t : kind) t -= 1;
  return end;
}

// One greedy pass over the warm-up and cool-down (zbv_greedy.py, reorder): in slot order, every
// operation outside the steady middle moves to the earliest free slot after its inputs at which its
// stage's peak does not grow. With `weights` the Ws are placed first and moved like the rest;
// without, the warm-up stays and the Ws are placed after. Returns the squeezed slots (five kinds).
AllSlots reorder(AllSlots slots, bool weights) {
  const std::size_t stages = slots.size();
  if (weights)
    for (StageSlots& stage : slots) put_weights(stage, false);
  std::int64_t peak = 0;
  for (const StageSlots& stage : slots) peak = std::max(peak, peak_activations(stage));
  std::vector<std::vector<char>> taken(stages);
  for (std::size_t s = 0; s < stages; ++s) taken[s].assign(static_cast<std::size_t>(last_slot(slots[s]) + 1), 0);
  const std::size_t m = slots[0][kF].size();
  int phase = 0;  // 0 warm-up, 1 steady (kept), 2 cool-down
  GlobalWalk walk(slots);
  std::size_t s = 0, k = 0, mb = 0;
  while (walk.take(s, k, mb)) {
    std::int64_t& slot = slots[s][k][mb];
    const std::int64_t at = slot;
    // The steady middle runs from stage 0's first b to the last micro batch's F.
    if (k == kBDown && s == 0 && phase == 0) phase = 1;
    const bool keep = phase == 1 || (phase == 0 && !weights);
    if (phase == 1 && k == kF && mb + 1 == m) phase = 2;
    if (keep) {
      taken[s][static_cast<std::size_t>(slot)] = 1;
      continue;
    }
    std::int64_t after = -1;  // the latest input's slot
    if ((k == kF || k == kB) && s > 0) after = std::max(after, slots[s - 1][k][mb]);
    if ((k == kFUp || k == kBDown) && s + 1 < stages) after = std::max(after, slots[s + 1][k][mb]);
    if (k > kF && k < kW) after = std::max(after, slots[s][k - 1][mb]);
    if (k == kW) {  // the mb-th backward of either chunk
      Slots backwards = slots[s][kB];
      backwards.insert(backwards.end(), slots[s][kBDown].begin(), slots[s][kBDown].end());
      std::nth_element(backwards.begin(), backwards.begin() + static_cast<std::ptrdiff_t>(mb), backwards.end());
      after = std::max(after, backwards[mb]);
    }
    if (mb > 0) after = std::max(after, slots[s][k][mb - 1]);
    if (after + 1 > at) broken("an input comes after its operation");
    bool moved = false;
    for (std::int64_t t = after + 1; t < at && !moved; ++t) {
      if (taken[s][static_cast<std::size_t>(t)]) continue;
      slot = t;
      moved = peak_activations(slots[s]) <= peak;
    }
    if (!moved) slot = at;
    taken[s][static_cast<std::size_t>(slot)] = 1;
  }
  if (!weights)
    for (StageSlots& stage : slots) put_weights(stage, false);
  return squeeze(slots);
}

// Every stage's operations of V-Half (`half`) or V-Min, as (kind, micro batch) in order.
std::vector<std::vector<std::pair<int, std::int64_t>>> v_order(int pp, std::int64_t m, bool half) {
  AllSlots slots;
  for (const auto& first : stable_pattern(pp, half)) {
    StageSlots stage(4);
    for (std::size_t k = 0; k < 4; ++k)
      for (std::int64_t j = 0; j < m; ++j) stage[k].push_back(first[k] + 6 * j);
    slots.push_back(std::move(stage));
  }
  AllSlots once = reorder(std::move(slots), true);
  for (StageSlots& stage : once) stage.resize(4);
  AllSlots twice = reorder(std::move(once), false);
  std::vector<std::vector<std::pair<int, std::int64_t>>> order;
  for (StageSlots& stage : twice) {
    stage.resize(4);
    put_weights(stage, true);
    std::vector<std::pair<std::int64_t, std::pair<int, std::int64_t>>> ops;
    for (std::size_t k = 0; k < stage.size(); ++k)
      for (std::size_t j = 0; j < stage[k].size(); ++j)
        ops.push_back({stage[k][j], {static_cast<int>(k), static_cast<std::int64_t>(j)}});
    std::sort(ops.begin(), ops.end());
    auto& stage_order = order.emplace_back();
    for (const auto& op : ops) stage_order.push_back(op.second);
  }
  return order;
}

void v_program(const PipelineShape& shape, int stage, bool half, std::vector<Op>& ops) {
  const int down = shape.virtual_stage(stage, 0), up = shape.virtual_stage(stage, 1);
  // The order is written for every stage at once; a program asks stage by stage, so the order of the
  // shape is kept for the stages after the first (the generator runs in one thread per program).
  thread_local struct {
    int pp = 0;
    std::int64_t m = -1;
    bool half = false;
    std::vector<std::vector<std::pair<int, std::int64_t>>> order;
  } cache;
  if (cache.pp != shape.pp_degree || cache.m != shape.micro_batch_num || cache.half != half) {
    cache.order = v_order(shape.pp_degree, shape.micro_batch_num, half);
    cache.pp = shape.pp_degree, cache.m = shape.micro_batch_num, cache.half = half;
  }
  for (const auto& [kind, mb] : cache.order[static_cast<std::size_t>(stage)]) {
    switch (kind) {
      case kF: ops.push_back(forward(down, mb)); break;
      case kFUp: ops.push_back(forward(up, mb)); break;
      case kB: ops.push_back(backward(up, mb, true)); break;
      case kBDown: ops.push_back(backward(down, mb, true)); break;
      case kW: ops.push_back(weight(up, mb)); break;
      case kWDown: ops.push_back(weight(down, mb)); break;
      default: broken("unknown kind");
    }
  }
}

}  // namespace

void v_half(const PipelineShape& shape, int stage, std::vector<Op>& ops) { v_program(shape, stage, true, ops); }
void v_min(const PipelineShape& shape, int stage, std::vector<Op>& ops) { v_program(shape, stage, false, ops); }

}  // namespace ppb::programs
