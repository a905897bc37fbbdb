// zb_auto's program: candidate orders written under the cap with the simulator's timing rules, the
// handcrafted ZB-H1 and ZB-H2, and the real simulator's least span among them. See zb_auto.hpp.
//
// Learnt from the zero-bubble authors' heuristic (sail-sg/zero-bubble-pipeline-parallelism,
// megatron/core/pipeline_parallel/zerobubble/scheduler/zb.py, Graph.manual_order and
// initial_solution): a round per micro batch (a forward on each stage down the pipeline, then that
// micro batch's backward on each stage back up), a warm-up as long as the time before the first
// backward comes back, weight gradients where they end before the next input arrives, and several
// variants of these rules with the shortest kept. Our own code and variants, plus a greedy list
// scheduler: it never wins on the paper's table, but under a cap below pp it does (pp 8, m 16, equal
// stages of F 4, B 4, W 4, weight part counted in full, cap 6: a span of 260 ms against the round
// builder's 428 and 220 at cap 8).
#include "ppb/simulate/zb_auto.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "ppb/simulate/timing.hpp"

namespace ppb {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr double kUnknown = -1.0;  // times are >= 0

// A program being written stage by stage in an order where every operation's producers come
// first, so that each operation's start and end are known as it is placed (timing.hpp's rules: the
// same times the simulator gives the finished program).
class Placement {
 public:
  explicit Placement(const SimulationInput& in)
      : in_(in),
        pp_(in.pp_degree),
        m_(in.micro_batch_num),
        cap_(static_cast<double>(in.in_flight_cap())),
        f_end_(static_cast<std::size_t>(pp_ * m_), kUnknown),
        b_end_(f_end_),
        stages_(static_cast<std::size_t>(pp_)),
        program_(static_cast<std::size_t>(pp_)) {}

  std::vector<std::vector<Op>> take() { return std::move(program_); }

 protected:
  struct StageState {
    std::int64_t f = 0, b = 0, w = 0;  // the next forward, backward and weight gradient
    double free = 0;
    double idle = 0;  // waits since its first operation
  };

  [[nodiscard]] std::size_t at(int s, std::int64_t mb) const {
    return static_cast<std::size_t>(static_cast<std::int64_t>(s) * m_ + mb);
  }
  [[nodiscard]] StageState& stage(int s) { return stages_[static_cast<std::size_t>(s)]; }
  [[nodiscard]] const StageState& stage(int s) const { return stages_[static_cast<std::size_t>(s)]; }
  [[nodiscard]] double duration(const Op& op) const { return timing::duration_ms(op, in_.costs.data()); }
  [[nodiscard]] Op next_f(int s) const { return {OpKind::F, false, s, static_cast<std::int32_t>(stage(s).f), -1, -1}; }
  [[nodiscard]] Op next_b(int s) const { return {OpKind::B, true, s, static_cast<std::int32_t>(stage(s).b), -1, -1}; }
  [[nodiscard]] Op next_w(int s) const { return {OpKind::W, false, s, static_cast<std::int32_t>(stage(s).w), -1, -1}; }
  [[nodiscard]] bool has_w(int s) const { return stage(s).w < stage(s).b; }

  // Micro batches' worth of activation stage s holds with `full` full activations (F to B) and its
  // pending weight parts (B to W), each counted at its share of the activation (none without one).
  [[nodiscard]] double held(int s, std::int64_t full) const {
    const VirtualStageCost& c = in_.costs[static_cast<std::size_t>(s)];
    const double share = c.activation_mib > 0 ? std::min(1.0, c.weight_activation_mib / c.activation_mib) : 0.0;
    return static_cast<double>(full) + static_cast<double>(stage(s).b - stage(s).w) * share;
  }
  // Whether `more` forwards beyond those run keep stage s within the cap.
  [[nodiscard]] bool fits(int s, std::int64_t more = 1) const {
    return held(s, stage(s).f - stage(s).b + more) <= cap_ + 1e-9;
  }

  // When the inputs of `op` arrive on its stage, or kUnknown while a producer has not been placed.
  [[nodiscard]] double arrival(const Op& op) const {
    const timing::Inputs inputs = timing::inputs(op, pp_);
    double t = 0;
    for (int i = 0; i < inputs.count; ++i) {
      const timing::Input& x = inputs.list[static_cast<std::size_t>(i)];
      const double end = (x.backward ? b_end_ : f_end_)[at(x.virtual_stage, x.micro_batch)];
      if (end < 0) return kUnknown;
      t = std::max(t, x.send_after >= 0 ? end + in_.costs[static_cast<std::size_t>(x.send_after)].send_ms : end);
    }
    return t;
  }

  // Appends `op` to its stage, starting no earlier than `start` (and its stage and inputs allow).
  void place(const Op& op, double start = 0) {
    const int s = op.virtual_stage;
    StageState& st = stage(s);
    const double ready = arrival(op);
    if (ready == kUnknown) throw std::logic_error("zb_auto: an operation placed before its input");
    start = std::max({start, st.free, ready});
    if (st.f > 0) {
      st.idle += start - st.free;
      most_idle_ = std::max(most_idle_, st.idle);
    }
    const double end = start + duration(op);
    switch (op.kind) {
      case OpKind::F: f_end_[at(s, op.micro_batch)] = end, ++st.f; break;
      case OpKind::B: b_end_[at(s, op.micro_batch)] = end, ++st.b; break;
      case OpKind::W: ++st.w; break;
      case OpKind::FB: throw std::logic_error("zb_auto: no F&B pairs");
    }
    st.free = end;
    program_[static_cast<std::size_t>(s)].push_back(op);
  }

  const SimulationInput& in_;
  int pp_;
  std::int64_t m_;
  double cap_;
  double most_idle_ = 0;  // the largest stage's idle so far

 private:
  std::vector<double> f_end_, b_end_;  // per (stage, micro batch), kUnknown until placed
  std::vector<StageState> stages_;
  std::vector<std::vector<Op>> program_;
};

// What a stage does with a W that would end after the awaited input arrives.
enum class LateWeight : std::uint8_t {
  wait,         // idles until the input arrives
  run,          // runs it (the input waits instead)
  over_budget,  // runs it only when the idle would raise the stage's waits above the most idle stage's
};

// The round builder's variants.
struct RoundRules {
  bool warmup_may_overrun = false;       // a warm-up forward may run past the first backward's arrival
  bool warmup_strictly_shorter = false;  // each stage warms up with fewer forwards than the one before
  LateWeight late_weight = LateWeight::wait;
};

// Round 0: every stage's first forward, down the pipeline; then each stage's warm-up, as many
// forwards as end before micro batch 0's backward comes back to it (within the cap, and no more than
// the stage before ran); then micro batch 0's backward up the pipeline. Round i: each stage's next
// forward, then micro batch i's backward up the pipeline. Before each, weight gradients: those the
// cap needs, and those that end before the operation's input arrives.
class Rounds : public Placement {
 public:
  Rounds(const SimulationInput& in, RoundRules rules) : Placement(in), rules_(rules) {}

  std::vector<std::vector<Op>> run() {
    for (int s = 0; s < pp_; ++s) place(next_f(s));
    std::vector<std::int64_t> warmup(static_cast<std::size_t>(pp_), 0);
    double back = 0;  // when micro batch 0's backward ends on the stage after this one
    for (int s = pp_ - 1; s >= 0; --s) {
      const Op b{OpKind::B, true, s, 0, -1, -1};
      if (s == pp_ - 1) {
        back = stage(s).free + duration(b);
        continue;
      }
      const double arrives = back + in_.costs[static_cast<std::size_t>(s)].send_ms;
      double free = stage(s).free;
      std::int64_t& n = warmup[static_cast<std::size_t>(s)];
      while (stage(s).f + n < m_ && fits(s, n + 1)) {
        const double f = duration(next_f(s));
        if (rules_.warmup_may_overrun ? free >= arrives : free + f > arrives) break;
        free += f, ++n;
      }
      back = std::max(free, arrives) + duration(b);
    }
    for (int s = 1; s < pp_; ++s) {
      const std::int64_t before = warmup[static_cast<std::size_t>(s - 1)];
      std::int64_t& n = warmup[static_cast<std::size_t>(s)];
      n = std::min(n, rules_.warmup_strictly_shorter ? std::max<std::int64_t>(0, before - 1) : before);
    }
    for (int s = 0; s < pp_; ++s)
      for (std::int64_t k = 0; k < warmup[static_cast<std::size_t>(s)]; ++k) place(next_f(s));
    for (int s = pp_ - 1; s >= 0; --s) place(next_b(s));

    for (std::int64_t i = 1; i < m_; ++i) {
      for (int s = 0; s < pp_; ++s) {
        // Not past the stage before (its forward is the input), nor past the last micro batch.
        if (stage(s).f >= m_ || (s > 0 && stage(s - 1).f <= stage(s).f)) continue;
        while (!fits(s) && has_w(s)) place(next_w(s));
        if (!fits(s)) continue;  // held back until a backward frees room
        weights_before(next_f(s));
        place(next_f(s));
      }
      for (int s = pp_ - 1; s >= 0; --s) {
        // Stage 0's backward sends nothing on: once its forwards are done, its Ws go first.
        if (s == 0 && stage(s).f >= m_)
          while (has_w(s)) place(next_w(s));
        weights_before(next_b(s));
        place(next_b(s));
      }
    }
    for (int s = 0; s < pp_; ++s)
      while (has_w(s)) place(next_w(s));
    return take();
  }

 private:
  // Weight gradients while `op`'s input has not arrived: those that end before it does, then maybe
  // one that runs past it (late_weight).
  void weights_before(const Op& op) {
    const int s = op.virtual_stage;
    const double arrives = arrival(op);
    while (has_w(s) && stage(s).free + duration(next_w(s)) <= arrives) place(next_w(s));
    if (!has_w(s) || stage(s).free >= arrives) return;
    const bool over_budget = arrives - stage(s).free > most_idle_ - stage(s).idle;
    if (rules_.late_weight == LateWeight::run || (rules_.late_weight == LateWeight::over_budget && over_budget))
      place(next_w(s));
  }

  RoundRules rules_;
};

// One operation at a time, always the one that can start earliest on any stage: on a free stage a
// backward whose input has arrived, else a forward whose input has arrived (within the cap), else a
// weight gradient, else it waits for the first input to arrive.
class Greedy : public Placement {
 public:
  explicit Greedy(const SimulationInput& in) : Placement(in) {}

  std::vector<std::vector<Op>> run() {
    const std::int64_t total = 3LL * pp_ * m_;
    for (std::int64_t placed = 0; placed < total; ++placed) {
      Op best;
      double best_start = kNever;
      for (int s = 0; s < pp_; ++s) {
        double start = kNever;
        const Op op = choose(s, start);
        if (start < best_start) best = op, best_start = start;
      }
      if (best_start == kNever) throw std::logic_error("zb_auto: no operation can be placed");
      place(best, best_start);
    }
    return take();
  }

 private:
  Op choose(int s, double& start) const {
    const StageState& st = stage(s);
    const bool has_b = st.b < st.f;
    const bool has_f = st.f < m_ && fits(s);
    const double arrive_b = has_b ? arrival(next_b(s)) : kUnknown;
    const double arrive_f = has_f ? arrival(next_f(s)) : kUnknown;
    if (arrive_b >= 0 && arrive_b <= st.free) return start = st.free, next_b(s);
    if (arrive_f >= 0 && arrive_f <= st.free) return start = st.free, next_f(s);
    if (has_w(s)) return start = st.free, next_w(s);
    if (arrive_b >= 0 && (arrive_f < 0 || arrive_b <= arrive_f)) return start = arrive_b, next_b(s);
    if (arrive_f >= 0) return start = arrive_f, next_f(s);
    return {};
  }
};

}  // namespace

Program zb_auto_program(const SimulationInput& in) {
  if (in.schedule != Schedule::zb_auto || in.vpp_degree != 1)
    throw std::logic_error("zb_auto_program: the shape must be zb_auto's, one chunk per stage");
  SimulationInput trial = in;
  trial.keep_timeline = false;
  trial.abort_above_ms = kNever;
  Simulator simulator;
  Program best;
  double best_span = kNever, best_step = kNever;
  const auto consider = [&](Program program) {
    trial.program = &program;
    const SimulationResult r = simulator.run(trial);
    for (std::size_t s = 0; s < r.stages.size(); ++s)
      if (r.stages[s].peak_in_flight > in.in_flight_cap() ||
          r.stages[s].activation_peak_mib > in.in_flight_cap() * in.costs[s].activation_mib * (1 + 1e-9))
        return;
    if (r.span_ms < best_span || (r.span_ms == best_span && r.step_time_ms < best_step)) {
      best_span = r.span_ms, best_step = r.step_time_ms;
      best = std::move(program);
    }
  };

  for (const bool overrun : {false, true})
    for (const bool shorter : {false, true})
      for (const LateWeight late : {LateWeight::wait, LateWeight::run, LateWeight::over_budget})
        consider(Program::from_stages(Rounds(in, RoundRules{overrun, shorter, late}).run()));
  consider(Program::from_stages(Greedy(in).run()));
  for (const Schedule handcrafted : {Schedule::zb_h1, Schedule::zb_h2}) {
    PipelineShape shape = in;
    shape.schedule = handcrafted;
    consider(schedule_program(shape));
  }
  if (best_span == kNever) throw std::logic_error("zb_auto_program: no program kept the cap");
  return best;
}

Program program_for(const SimulationInput& in) {
  if (in.program != nullptr) return *in.program;
  return needs_costs(in.schedule) ? zb_auto_program(in) : schedule_program(in);
}

}  // namespace ppb
