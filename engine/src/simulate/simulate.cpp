// One simulator for every schedule program. Each stage runs its next operation as soon as that
// operation's inputs are known, at the later of its free time and their arrival; a stage blocked on
// an input is revisited when the producer runs. Stages are visited in no particular time order: the
// step is a max-plus system, so the order of evaluation does not change any time. The cost is
// O(operations); a program that never lets a stage go on is reported as a broken invariant.
#include "ppb/simulate/simulate.hpp"

#include "ppb/simulate/timing.hpp"
#include "ppb/simulate/zb_auto.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ppb {
namespace {

constexpr double kUnknown = -1.0;  // completion times are >= 0

}  // namespace

// What a run needs beyond its input, kept by a Simulator between runs.
struct Simulator::Buffers {
  Program program;
  std::vector<double> f_end, b_end;  // per (virtual stage, micro batch): forward end, input-gradient end
  std::vector<std::int64_t> full_held, weight_held;  // per virtual stage
  std::vector<int> stage_of;                         // physical stage of each virtual stage
  std::vector<int> chunks;                           // virtual stages of each physical stage, [s * vpp + chunk]
  std::vector<int> ready;
  std::vector<std::int64_t> kept_seq;
  std::vector<std::size_t> heap_of_kept;
};

namespace {

class Simulation {
 public:
  Simulation(const SimulationInput& in, Simulator::Buffers& buffers)
      : in_(in),
        pp_(in.pp_degree),
        vpp_(in.vpp_degree),
        v_(in.pp_degree * in.vpp_degree),
        m_(in.micro_batch_num),
        f_end_(buffers.f_end),
        b_end_(buffers.b_end),
        full_held_(buffers.full_held),
        weight_held_(buffers.weight_held),
        stage_of_(buffers.stage_of),
        chunks_(buffers.chunks),
        stages_(static_cast<std::size_t>(pp_)),
        ready_(buffers.ready),
        kept_seq_(buffers.kept_seq),
        heap_of_kept_(buffers.heap_of_kept) {
    if (static_cast<int>(in.costs.size()) != v_) throw std::logic_error("simulate: one cost per virtual stage");
    if (in.program == nullptr) {
      if (needs_costs(in.schedule))
        buffers.program = zb_auto_program(in);
      else
        schedule_program(in, buffers.program);
      program_ = &buffers.program;
    } else {
      program_ = in.program;
    }
    if (static_cast<int>(program_->size()) != pp_) throw std::logic_error("simulate: one program per stage");
    const auto pairs = static_cast<std::size_t>(v_ * m_);
    f_end_.assign(pairs, kUnknown);
    b_end_.assign(pairs, kUnknown);
    full_held_.assign(static_cast<std::size_t>(v_), 0);
    weight_held_.assign(static_cast<std::size_t>(v_), 0);
    stage_of_.assign(static_cast<std::size_t>(v_), 0);
    chunks_.assign(static_cast<std::size_t>(v_), 0);
    ready_.clear();
    kept_seq_.clear();
    heap_of_kept_.clear();
    for (int s = 0; s < pp_; ++s)
      for (int c = 0; c < vpp_; ++c) {
        const int v = in.virtual_stage(s, c);
        chunks_[static_cast<std::size_t>(s * vpp_ + c)] = v;
        stage_of_[static_cast<std::size_t>(v)] = s;
      }
  }

  SimulationResult run() {
    SimulationResult result;
    result.stages.resize(static_cast<std::size_t>(pp_));
    const auto expected = static_cast<std::int64_t>(program_->operations());
    for (int s = 0; s < pp_; ++s)
      if (in_.keep_timeline) result.stages[static_cast<std::size_t>(s)].memory.push_back({0.0, 0.0});

    // Every stage is visited once at the start; later only when an input for it arrives.
    ready_.reserve(static_cast<std::size_t>(pp_));
    for (int s = pp_ - 1; s >= 0; --s) push_ready(s);
    std::int64_t ops_done = 0;
    while (!ready_.empty() && !aborted_) {
      const int s = ready_.back();
      ready_.pop_back();
      auto& st = stages_[static_cast<std::size_t>(s)];
      st.queued = false;
      const auto& ops = (*program_)[static_cast<std::size_t>(s)];
      while (st.next < ops.size() && !aborted_) {
        const Op& op = ops[st.next];
        const double input = arrival(op);
        if (input < 0) break;
        execute(s, op, std::max(st.free_at, input), result);
        ++st.next;
        ++ops_done;
      }
    }

    result.step_time_ms = 0;
    for (int s = 0; s < pp_; ++s) {
      auto& out = result.stages[static_cast<std::size_t>(s)];
      const double tail =
          static_cast<std::size_t>(s) < in_.stage_tail_ms.size() ? in_.stage_tail_ms[static_cast<std::size_t>(s)] : 0.0;
      out.busy_ms += tail;
      result.step_time_ms = std::max(result.step_time_ms, out.end_ms + tail);
      result.span_ms = std::max(result.span_ms, out.end_ms + tail - out.start_ms);
    }
    result.aborted = aborted_ || result.step_time_ms > in_.abort_above_ms;
    if (aborted_) return result;
    if (ops_done != expected) throw std::logic_error("simulate: schedule deadlocked");
    result.operations = ops_done;
    if (in_.keep_timeline) finish_timeline(result);
    return result;
  }

 private:
  struct StageState {
    std::size_t next = 0;
    double free_at = 0;
    bool started = false;
    bool queued = false;
    int in_flight = 0;
  };

  // The per-operation steps below (arrival, duration, execute, finish_*, record_memory) are forced
  // inline into the run loop. GCC inlines them on its own; Clang for WebAssembly leaves some as calls,
  // and V8 in node 20 does not inline calls between WebAssembly functions: as calls they made the
  // simulation 1.3 to 1.9 times slower there.
  [[nodiscard]] std::size_t at(int v, std::int64_t mb) const {
    return static_cast<std::size_t>(static_cast<std::int64_t>(v) * m_ + mb);
  }
  [[nodiscard]] const VirtualStageCost& cost(int v) const { return in_.costs[static_cast<std::size_t>(v)]; }

  // When the inputs of an operation are available on its stage (timing.hpp's rules), or kUnknown if
  // a producer has not run. A switch on the kind rather than timing::inputs' list: the list stays in
  // memory in the WebAssembly build, which made its simulation 1.1 to 1.4 times slower.
  [[gnu::always_inline]] [[nodiscard]] double arrival(const Op& op) const {
    const std::int32_t v = op.virtual_stage, mb = op.micro_batch;
    switch (op.kind) {
      case OpKind::F: return v > 0 ? arrival_of(timing::forward_input(v, mb)) : 0.0;
      case OpKind::B: return arrival_of(timing::backward_input(v, mb, v_));
      case OpKind::W: return arrival_of(timing::weight_input(v, mb));
      case OpKind::FB: {
        const double f = v > 0 ? arrival_of(timing::forward_input(v, mb)) : 0.0;
        if (f < 0) return kUnknown;
        const double b = arrival_of(timing::backward_input(op.backward_virtual_stage, op.backward_micro_batch, v_));
        return b < 0 ? kUnknown : std::max(f, b);
      }
    }
    return kUnknown;
  }
  // When an input's producer ended, plus the transfer on its edge; kUnknown before it has run.
  [[gnu::always_inline]] [[nodiscard]] double arrival_of(const timing::Input& x) const {
    const double e = (x.backward ? b_end_ : f_end_)[at(x.virtual_stage, x.micro_batch)];
    if (e < 0) return kUnknown;
    return x.send_after >= 0 ? e + cost(x.send_after).send_ms : e;
  }

  [[gnu::always_inline]] void push_ready(int s) {
    auto& st = stages_[static_cast<std::size_t>(s)];
    if (st.queued) return;
    st.queued = true;
    ready_.push_back(s);
  }

  // An input for the stage of virtual stage v has arrived (or will, at a known time).
  [[gnu::always_inline]] void notify(int from_stage, int v) {
    const int s = stage_of_[static_cast<std::size_t>(v)];
    if (s != from_stage) push_ready(s);
  }

  [[gnu::always_inline]] void start_forward(int s, int v, std::int32_t mb, double start, double end,
                                            StageSimulation& out) {
    f_end_[at(v, mb)] = end;
    ++full_held_[static_cast<std::size_t>(v)];
    ++stages_[static_cast<std::size_t>(s)].in_flight;
    record_memory(s, start, true, out);
    if (v + 1 < v_) notify(s, v + 1);
  }
  [[gnu::always_inline]] void finish_backward(int s, int v, std::int32_t mb, bool weight_apart, double end,
                                              StageSimulation& out) {
    b_end_[at(v, mb)] = end;
    --full_held_[static_cast<std::size_t>(v)];
    if (weight_apart) ++weight_held_[static_cast<std::size_t>(v)];
    --stages_[static_cast<std::size_t>(s)].in_flight;
    record_memory(s, end, false, out);
    if (v > 0) notify(s, v - 1);
  }

  [[gnu::always_inline]] void execute(int s, const Op& op, double start, SimulationResult& result) {
    auto& st = stages_[static_cast<std::size_t>(s)];
    auto& out = result.stages[static_cast<std::size_t>(s)];
    const double end = start + timing::duration_ms(op, in_.costs.data());
    const int v = op.virtual_stage;
    switch (op.kind) {
      case OpKind::F: start_forward(s, v, op.micro_batch, start, end, out); break;
      case OpKind::B: finish_backward(s, v, op.micro_batch, op.weight_apart, end, out); break;
      case OpKind::W:
        --weight_held_[static_cast<std::size_t>(v)];
        record_memory(s, end, false, out);
        break;
      case OpKind::FB:
        start_forward(s, v, op.micro_batch, start, end, out);
        finish_backward(s, op.backward_virtual_stage, op.backward_micro_batch, op.weight_apart, end, out);
        break;
    }
    if (!st.started) {
      st.started = true;
      out.start_ms = start;
    }
    out.busy_ms += end - start;
    out.end_ms = std::max(out.end_ms, end);
    st.free_at = end;
    if (in_.keep_timeline)
      keep_op(result, {s, v, op.micro_batch, op.kind, op.weight_apart, start, end, op.backward_virtual_stage,
                       op.backward_micro_batch});
    if (end > in_.abort_above_ms) aborted_ = true;
  }

  // Activation held by stage s: over its virtual stages, full activations (forward started, backward
  // not ended) and the weight parts kept for pending Ws; recomputed from counts so that no rounding
  // drift accumulates. The peak can only rise when something is taken.
  [[gnu::always_inline]] void record_memory(int s, double t, bool taken, StageSimulation& out) {
    double held_mib = 0;
    for (int c = 0; c < vpp_; ++c) {
      const auto v = static_cast<std::size_t>(chunks_[static_cast<std::size_t>(s * vpp_ + c)]);
      held_mib += full_held_[v] * in_.costs[v].activation_mib + weight_held_[v] * in_.costs[v].weight_activation_mib;
    }
    if (taken) {
      out.activation_peak_mib = std::max(out.activation_peak_mib, held_mib);
      out.peak_in_flight = std::max(out.peak_in_flight, stages_[static_cast<std::size_t>(s)].in_flight);
    }
    // Past the last start time the timeline can still keep, a stage's memory steps are not needed.
    if (in_.keep_timeline && !(full() && t > key(top()).first)) out.memory.push_back({t, held_mib});
  }

  // ---- the kept timeline ----------------------------------------------------------------------
  // Stages run one after another, not in time order, so the first max_timeline_ops operations by
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
  int pp_, vpp_, v_;
  std::int64_t m_;
  const Program* program_ = nullptr;
  std::vector<double>&f_end_, &b_end_;  // the buffers' (Simulator::Buffers says what each holds)
  std::vector<std::int64_t>&full_held_, &weight_held_;
  std::vector<int>&stage_of_, &chunks_;
  std::vector<StageState> stages_;
  std::vector<int>& ready_;
  bool aborted_ = false;
  // The kept timeline: result.timeline (while running), its execution sequence numbers, and a heap of
  // its indices with the latest start on top.
  std::vector<TimedOp>* timeline_ = nullptr;
  std::vector<std::int64_t>& kept_seq_;
  std::vector<std::size_t>& heap_of_kept_;
  std::int64_t seq_ = 0;
};

}  // namespace

Simulator::Simulator() : buffers_(std::make_unique<Buffers>()) {}
Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

SimulationResult Simulator::run(const SimulationInput& input) {
  if (input.pp_degree < 1 || input.vpp_degree < 1 || input.micro_batch_num < 1)
    throw std::logic_error("simulate: degrees and micro_batch_num must be positive");
  // A program given (a user's, checked by import_program) need not meet the schedule's conditions on
  // micro batches, which only its generator needs.
  if (input.program == nullptr && !schedule_accepts(input))
    throw std::logic_error("simulate: the shape breaks its schedule's conditions");
  return Simulation(input, *buffers_).run();
}

SimulationResult simulate(const SimulationInput& input) { return Simulator().run(input); }

}  // namespace ppb
