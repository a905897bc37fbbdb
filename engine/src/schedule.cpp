// Order generators, following Megatron-LM's pipeline_parallel/schedules.py arithmetic.
#include "ppb/schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace ppb {

const char* op_name(OpKind kind) {
  switch (kind) {
    case OpKind::F: return "F";
    case OpKind::B: return "B";
    case OpKind::W: return "W";
  }
  return "?";
}

bool splits_weight_gradient(Schedule schedule) { return schedule == Schedule::zb_h1; }

namespace {

std::vector<OpRef> gpipe_order(std::int64_t m, int stage) {
  std::vector<OpRef> order;
  order.reserve(static_cast<std::size_t>(2 * m));
  for (std::int64_t i = 0; i < m; ++i) order.push_back({stage, static_cast<std::int32_t>(i), OpKind::F});
  for (std::int64_t i = 0; i < m; ++i) order.push_back({stage, static_cast<std::int32_t>(i), OpKind::B});
  return order;
}

// Warm-up of min(pp - s - 1, m) forwards, then one forward one backward, then the cool-down.
std::vector<OpRef> one_f_one_b_order(int pp, std::int64_t m, int stage) {
  const std::int64_t warmup = std::min<std::int64_t>(pp - stage - 1, m);
  const std::int64_t steady = m - warmup;
  std::vector<OpRef> order;
  order.reserve(static_cast<std::size_t>(2 * m));
  auto f = [&](std::int64_t i) { order.push_back({stage, static_cast<std::int32_t>(i), OpKind::F}); };
  auto b = [&](std::int64_t i) { order.push_back({stage, static_cast<std::int32_t>(i), OpKind::B}); };
  for (std::int64_t i = 0; i < warmup; ++i) f(i);
  for (std::int64_t i = 0; i < steady; ++i) {
    f(warmup + i);
    b(i);
  }
  for (std::int64_t i = steady; i < m; ++i) b(i);
  return order;
}

// Megatron-LM's interleaved schedule. The k-th forward (or backward) of a stage runs model chunk
// (k mod pp*vpp) / pp (reversed for backward) on micro batch (k / (pp*vpp)) * pp + k mod pp;
// warm-up is 2 (pp - s - 1) + (vpp - 1) pp forwards, all of them when m == pp.
std::vector<OpRef> interleaved_order(int pp, int vpp, std::int64_t m, int stage) {
  const std::int64_t total = m * vpp;
  const std::int64_t group = static_cast<std::int64_t>(pp) * vpp;
  std::int64_t warmup = total;
  if (m != pp) warmup = std::min<std::int64_t>(2LL * (pp - stage - 1) + static_cast<std::int64_t>(vpp - 1) * pp, total);
  const std::int64_t steady = total - warmup;
  auto op = [&](std::int64_t k, OpKind kind) {
    const std::int64_t in_group = k % group;
    std::int64_t chunk = in_group / pp;
    if (kind != OpKind::F) chunk = vpp - 1 - chunk;
    const std::int64_t micro_batch = (k / group) * pp + in_group % pp;
    return OpRef{static_cast<std::int32_t>(chunk * pp + stage), static_cast<std::int32_t>(micro_batch), kind};
  };
  std::vector<OpRef> order;
  order.reserve(static_cast<std::size_t>(2 * total));
  for (std::int64_t k = 0; k < warmup; ++k) order.push_back(op(k, OpKind::F));
  for (std::int64_t k = 0; k < steady; ++k) {
    order.push_back(op(warmup + k, OpKind::F));
    order.push_back(op(k, OpKind::B));
  }
  for (std::int64_t k = steady; k < total; ++k) order.push_back(op(k, OpKind::B));
  return order;
}

}  // namespace

std::vector<OpRef> stage_order(Schedule schedule, int pp_degree, int vpp_degree, std::int64_t micro_batch_num,
                               int stage) {
  switch (schedule) {
    case Schedule::gpipe: return gpipe_order(micro_batch_num, stage);
    case Schedule::one_f_one_b: return one_f_one_b_order(pp_degree, micro_batch_num, stage);
    case Schedule::interleaved_1f1b: return interleaved_order(pp_degree, vpp_degree, micro_batch_num, stage);
    case Schedule::zb_h1: break;
  }
  throw std::logic_error("stage_order: schedule has no fixed order");
}

}  // namespace ppb
