// One simulator for every schedule. Stages make decisions in time order (a heap of wake-up
// times); at each decision a stage's policy either starts an operation whose input has arrived or
// says how long to wait. Fixed-order schedules use the order from schedule.cpp; zb_h1 uses the
// greedy rule of the contract. The cost is O(operations x log stages).
#include "ppb/simulate.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>

namespace ppb {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr double kUnknown = -1.0;  // completion times are >= 0

struct Decision {
  enum class Kind { run, wait_until, wait_for_input, finished } kind;
  OpRef op{};
  double until = kNever;
};

class Simulation {
 public:
  explicit Simulation(const SimulationInput& in)
      : in_(in),
        pp_(in.pp_degree),
        v_(in.pp_degree * in.vpp_degree),
        m_(in.micro_batch_num),
        split_(splits_weight_gradient(in.schedule)),
        f_end_(static_cast<std::size_t>(v_ * m_), kUnknown),
        b_end_(static_cast<std::size_t>(v_ * m_), kUnknown),
        stages_(static_cast<std::size_t>(pp_)) {
    if (static_cast<int>(in.costs.size()) != v_) throw std::logic_error("simulate: one cost per virtual stage");
    held_.assign(static_cast<std::size_t>(v_), 0);
    for (int s = 0; s < pp_; ++s) {
      auto& st = stages_[static_cast<std::size_t>(s)];
      if (in.schedule != Schedule::zb_h1) st.order = stage_order(in.schedule, pp_, in.vpp_degree, m_, s);
      st.in_flight_limit = std::min<std::int64_t>(pp_ - s, m_);
    }
  }

  SimulationResult run() {
    SimulationResult result;
    result.stages.resize(static_cast<std::size_t>(pp_));
    for (int s = 0; s < pp_; ++s)
      if (in_.keep_timeline) result.stages[static_cast<std::size_t>(s)].memory.push_back({0.0, 0.0});
    const std::int64_t ops_done = in_.schedule == Schedule::zb_h1 ? run_by_time(result) : run_fixed(result);
    result.step_time_ms = end_ms_;
    for (std::size_t st = 0; st < in_.stage_tail_ms.size() && st < result.stages.size(); ++st) {
      result.stages[st].busy_ms += in_.stage_tail_ms[st];
      result.step_time_ms = std::max(result.step_time_ms, result.stages[st].end_ms + in_.stage_tail_ms[st]);
    }
    result.aborted = aborted_ || result.step_time_ms > in_.abort_above_ms;
    if (aborted_) return result;
    const std::int64_t expected = static_cast<std::int64_t>(v_) * m_ * (split_ ? 3 : 2);
    if (ops_done != expected) throw std::logic_error("simulate: schedule deadlocked");
    result.operations = ops_done;
    if (in_.keep_timeline) finish_timeline(result);
    return result;
  }

 private:
  // Fixed orders: each stage runs its next operation as soon as the input is known, at the later of
  // its free time and the arrival. A stage blocked on an input is revisited when the producer runs.
  std::int64_t run_fixed(SimulationResult& result) {
    fixed_ = true;
    std::vector<int> ready(static_cast<std::size_t>(pp_));
    for (int s = 0; s < pp_; ++s) ready[static_cast<std::size_t>(s)] = pp_ - 1 - s;
    ready_ = &ready;
    std::int64_t ops_done = 0;
    while (!ready.empty() && !aborted_) {
      const int s = ready.back();
      ready.pop_back();
      auto& st = stages_[static_cast<std::size_t>(s)];
      while (st.next < st.order.size() && !aborted_) {
        const OpRef op = st.order[st.next];
        const double input = arrival(op);
        if (input < 0) break;
        execute(s, op, std::max(st.free_at, input), result);
        ++ops_done;
      }
    }
    return ops_done;
  }

  // Schedules that choose by what has arrived: stages decide in time order.
  std::int64_t run_by_time(SimulationResult& result) {
    for (int s = 0; s < pp_; ++s) wake(s, 0.0);
    std::int64_t ops_done = 0;
    while (!heap_.empty() && !aborted_) {
      const auto [now, s] = heap_.top();
      heap_.pop();
      auto& st = stages_[static_cast<std::size_t>(s)];
      if (now != st.next_wake) continue;  // superseded by an earlier wake-up
      st.next_wake = kNever;
      const Decision d = decide(s, now);
      switch (d.kind) {
        case Decision::Kind::run:
          execute(s, d.op, now, result);
          ++ops_done;
          break;
        case Decision::Kind::wait_until: wake(s, d.until); break;
        case Decision::Kind::wait_for_input:
        case Decision::Kind::finished: break;
      }
    }
    return ops_done;
  }

  struct StageState {
    std::vector<OpRef> order;  // fixed-order schedules
    std::size_t next = 0;
    std::int64_t next_f = 0, next_b = 0;  // zb_h1
    std::deque<std::int32_t> pending_w;   // zb_h1: micro batches whose W is still to run
    std::int64_t in_flight_limit = 0;
    double free_at = 0;
    double next_wake = kNever;
    int in_flight = 0;
  };

  // The per-operation steps below (arrival, duration, decide, wake, execute, notify, record_memory)
  // are forced inline into the two run loops. GCC inlines them on its own; Clang for WebAssembly
  // leaves execute, notify and record_memory as calls, and V8 in node 20 does not inline calls between
  // WebAssembly functions: as calls they made the simulation 1.3 (zb_h1) to 1.9 times slower there.
  [[nodiscard]] std::size_t at(int v, std::int64_t mb) const {
    return static_cast<std::size_t>(static_cast<std::int64_t>(v) * m_ + mb);
  }

  // When the input of an operation is available on its stage, or kUnknown if its producer has not run.
  [[gnu::always_inline]] [[nodiscard]] double arrival(const OpRef& op) const {
    const int v = op.virtual_stage;
    switch (op.kind) {
      case OpKind::F:
        if (v == 0) return 0.0;
        return f_end_[at(v - 1, op.micro_batch)] < 0 ? kUnknown
                                                      : f_end_[at(v - 1, op.micro_batch)] + in_.costs[v - 1].send_ms;
      case OpKind::B:
        if (v == v_ - 1) return f_end_[at(v, op.micro_batch)];
        return b_end_[at(v + 1, op.micro_batch)] < 0 ? kUnknown
                                                      : b_end_[at(v + 1, op.micro_batch)] + in_.costs[v].send_ms;
      case OpKind::W: return b_end_[at(v, op.micro_batch)];
    }
    return kUnknown;
  }

  [[gnu::always_inline]] [[nodiscard]] double duration(const OpRef& op) const {
    const auto& c = in_.costs[static_cast<std::size_t>(op.virtual_stage)];
    switch (op.kind) {
      case OpKind::F: return c.forward_ms;
      case OpKind::B: return split_ ? c.backward_ms - c.weight_ms : c.backward_ms;
      case OpKind::W: return c.weight_ms;
    }
    return 0;
  }

  static Decision ready_or_wait(const OpRef& op, double input, double now) {
    if (input < 0) return {Decision::Kind::wait_for_input, op, kNever};
    if (input > now) return {Decision::Kind::wait_until, op, input};
    return {Decision::Kind::run, op, now};
  }

  [[gnu::always_inline]] Decision decide(int s, double now) {
    auto& st = stages_[static_cast<std::size_t>(s)];
    if (in_.schedule != Schedule::zb_h1) {
      if (st.next == st.order.size()) return {Decision::Kind::finished};
      const OpRef& op = st.order[st.next];
      return ready_or_wait(op, arrival(op), now);
    }
    // ZB-H1 (Qi et al., 2023): B as soon as its input is here, else F while the in-flight micro
    // batches stay within min(pp - s, m), else a deferred W; otherwise wait for the next input.
    double soonest = kNever;
    if (st.next_b < m_) {
      const OpRef b{s, static_cast<std::int32_t>(st.next_b), OpKind::B};
      const double a = arrival(b);
      if (a >= 0 && a <= now) return {Decision::Kind::run, b, now};
      if (a >= 0) soonest = std::min(soonest, a);
    }
    if (st.next_f < m_ && st.next_f - st.next_b < st.in_flight_limit) {
      const OpRef f{s, static_cast<std::int32_t>(st.next_f), OpKind::F};
      const double a = arrival(f);
      if (a >= 0 && a <= now) return {Decision::Kind::run, f, now};
      if (a >= 0) soonest = std::min(soonest, a);
    }
    if (!st.pending_w.empty()) return {Decision::Kind::run, {s, st.pending_w.front(), OpKind::W}, now};
    if (st.next_b == m_) return {Decision::Kind::finished};
    if (soonest < kNever) return {Decision::Kind::wait_until, {}, soonest};
    return {Decision::Kind::wait_for_input};
  }

  [[gnu::always_inline]] void wake(int s, double t) {
    auto& st = stages_[static_cast<std::size_t>(s)];
    t = std::max(t, st.free_at);
    if (t < st.next_wake) {
      st.next_wake = t;
      heap_.emplace(t, s);
    }
  }

  [[gnu::always_inline]] void execute(int s, const OpRef& op, double start, SimulationResult& result) {
    auto& st = stages_[static_cast<std::size_t>(s)];
    auto& out = result.stages[static_cast<std::size_t>(s)];
    const double end = start + duration(op);
    const int v = op.virtual_stage;
    if (in_.schedule != Schedule::zb_h1) ++st.next;
    switch (op.kind) {
      case OpKind::F:
        if (in_.schedule == Schedule::zb_h1) ++st.next_f;
        f_end_[at(v, op.micro_batch)] = end;
        ++held_[static_cast<std::size_t>(v)];
        ++st.in_flight;
        record_memory(s, start, out);
        if (v + 1 < v_) notify((v + 1) % pp_, end + in_.costs[static_cast<std::size_t>(v)].send_ms);
        break;
      case OpKind::B:
        if (in_.schedule == Schedule::zb_h1) {
          ++st.next_b;
          st.pending_w.push_back(op.micro_batch);
        }
        b_end_[at(v, op.micro_batch)] = end;
        --held_[static_cast<std::size_t>(v)];
        --st.in_flight;
        record_memory(s, end, out);
        if (v > 0) notify((v - 1) % pp_, end + in_.costs[static_cast<std::size_t>(v - 1)].send_ms);
        break;
      case OpKind::W: st.pending_w.pop_front(); break;
    }
    out.busy_ms += end - start;
    out.end_ms = std::max(out.end_ms, end);
    st.free_at = end;
    end_ms_ = std::max(end_ms_, end);
    if (in_.keep_timeline) keep_op(result, {s, v, op.micro_batch, op.kind, start, end});
    if (end > in_.abort_above_ms) aborted_ = true;
    if (!fixed_) wake(s, end);
  }

  // An input for stage s arrives at time t.
  [[gnu::always_inline]] void notify(int s, double t) {
    if (fixed_) ready_->push_back(s);
    else wake(s, t);
  }

  // Activation held by stage s is the sum over its virtual stages of (micro batches held) x
  // (activation per micro batch); recomputed from counts so that no rounding drift accumulates.
  [[gnu::always_inline]] void record_memory(int s, double t, StageSimulation& out) {
    double held_mib = 0;
    for (int v = s; v < v_; v += pp_) held_mib += held_[static_cast<std::size_t>(v)] * in_.costs[static_cast<std::size_t>(v)].activation_mib;
    const int in_flight = stages_[static_cast<std::size_t>(s)].in_flight;
    out.activation_peak_mib = std::max(out.activation_peak_mib, held_mib);
    out.peak_in_flight = std::max(out.peak_in_flight, in_flight);
    // Past the last start time the timeline can still keep, a stage's memory steps are not needed.
    if (in_.keep_timeline && !(full() && t > key(top()).first)) out.memory.push_back({t, held_mib});
  }

  // ---- the kept timeline ----------------------------------------------------------------------
  // Fixed orders run stage by stage, not in time order, so the first max_timeline_ops operations by
  // start time are found with a max-heap of the kept ones. Ties are broken by execution order
  // (kept_seq_), a total order, so every platform keeps the same operations.
  using Key = std::pair<double, std::int64_t>;  // (start, execution sequence)
  [[nodiscard]] Key key(std::size_t i) const { return {(*timeline_)[i].start_ms, kept_seq_[i]}; }
  [[nodiscard]] bool full() const {
    return timeline_ && static_cast<std::int64_t>(timeline_->size()) >= in_.max_timeline_ops;
  }
  [[nodiscard]] std::size_t top() const { return heap_of_kept_.front(); }

  void keep_op(SimulationResult& result, const TimedOp& op) {
    timeline_ = &result.timeline;
    const std::int64_t seq = seq_++;
    if (in_.max_timeline_ops <= 0) {
      result.timeline_truncated = true;
      return;
    }
    const auto by_key = [this](std::size_t a, std::size_t b) { return key(a) < key(b); };
    if (!full()) {
      result.timeline.push_back(op);
      kept_seq_.push_back(seq);
      heap_of_kept_.push_back(result.timeline.size() - 1);
      std::push_heap(heap_of_kept_.begin(), heap_of_kept_.end(), by_key);
      return;
    }
    result.timeline_truncated = true;
    const std::size_t last = top();
    if (Key{op.start_ms, seq} >= key(last)) return;
    std::pop_heap(heap_of_kept_.begin(), heap_of_kept_.end(), by_key);
    result.timeline[last] = op;
    kept_seq_[last] = seq;
    std::push_heap(heap_of_kept_.begin(), heap_of_kept_.end(), by_key);
  }

  // Puts the kept operations in time order and drops memory steps after the last kept start.
  void finish_timeline(SimulationResult& result) {
    std::vector<std::size_t> order(result.timeline.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) { return key(a) < key(b); });
    std::vector<TimedOp> sorted;
    sorted.reserve(order.size());
    for (std::size_t i : order) sorted.push_back(result.timeline[i]);
    result.timeline.swap(sorted);
    if (!result.timeline_truncated) return;
    const double cutoff = result.timeline.empty() ? 0.0 : result.timeline.back().start_ms;
    for (auto& stage : result.stages)
      stage.memory.erase(std::remove_if(stage.memory.begin(), stage.memory.end(),
                                        [cutoff](const MemoryPoint& p) { return p.time_ms > cutoff; }),
                         stage.memory.end());
  }

  const SimulationInput& in_;
  int pp_;
  int v_;
  std::int64_t m_;
  bool split_;
  std::vector<double> f_end_, b_end_;
  std::vector<StageState> stages_;
  std::vector<std::int64_t> held_;
  double end_ms_ = 0;
  bool fixed_ = false;
  bool aborted_ = false;
  std::vector<int>* ready_ = nullptr;
  // The kept timeline: result.timeline (while running), its execution sequence numbers, and a heap of
  // its indices with the latest start on top.
  std::vector<TimedOp>* timeline_ = nullptr;
  std::vector<std::int64_t> kept_seq_;
  std::vector<std::size_t> heap_of_kept_;
  std::int64_t seq_ = 0;
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>> heap_;
};

}  // namespace

SimulationResult simulate(const SimulationInput& input) {
  if (input.pp_degree < 1 || input.vpp_degree < 1 || input.micro_batch_num < 1)
    throw std::logic_error("simulate: degrees and micro_batch_num must be positive");
  return Simulation(input).run();
}

}  // namespace ppb
