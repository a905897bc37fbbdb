// The threshold test (internal to the engine): for a target T, whether any plan (one chunk per
// stage) has every stage bound below T, with each stage's round trip counting the recompute of the
// very stages after it. The suffix table (suffix_bound.hpp) minimises the largest bound over the
// stages, but each stage's round trip there holds the least recompute any partition of the later
// layers needs, not that of the partition the minimum is built from; here the later stages'
// recompute is the least among the completions that pass the test, which is the one a stage waits
// for. Two dynamic programs over (stage, start layer):
//   - forward: before(v, a), the least summed recompute (and transfer beyond the cheapest) of
//     stages 0..v-1 over layers [0, a), each with its own work below T: a lower bound of the drain
//     before stage v in every plan that passes;
//   - backward: after(v, a), the least summed recompute (and transfers beyond the cheapest, both
//     ways) of stages v.. from layer a among the completions whose every stage bound, with
//     before(v, a) as its drain and after(v + 1, b) in its round trip, is below T; kInf when none.
// Every stage bound only grows with its drain and its round trip, so a plan whose bounds are all
// below T passes: after(0, 0) = kInf proves every plan's step time at least T. A search node at
// (v, a) whose after(v, a) is kInf has no completion below T either. The argument is in docs/ppb.md
// (bounds for every schedule, 6).
#pragma once

#include <vector>

#include "balance_budget.hpp"
#include "stage_bounds.hpp"
#include "stage_recompute.hpp"

namespace ppb::balancer {

class ThresholdBound {
 public:
  ThresholdBound(const BalanceProblem& problem, StageRecompute& recompute, const StageBounds& bounds)
      : p_(problem), recompute_(recompute), bounds_(bounds) {}

  // Starts the test at target t (both tables are built again).
  void start(double t);
  // Builds rows until the test is done, the budget is spent (given up: the tables are then not
  // usable) or the slice ends (paused).
  PhaseStatus step(Budget& budget);

  [[nodiscard]] double target() const { return target_; }
  // After a test that is done: whether no plan has every stage bound below the target.
  [[nodiscard]] bool rules_out_every_plan() const { return after_[0][0] == kInf; }
  // after(v, a) of the last test done: kInf when no completion from (v, a) passes.
  [[nodiscard]] const double* after(int v) const { return after_[static_cast<std::size_t>(v)].data(); }
  // The transfer after a stage ending at b beyond the cheapest (0 for the last stage).
  [[nodiscard]] double send_excess(int v, int b) const { return v + 1 < p_.V ? p_.send_after(b) - p_.min_send : 0; }

 private:
  // Stage v starting at layer a after stages whose recompute (and transfers beyond the cheapest)
  // add `drain` to its drain: its least fill and drain, and the ends it may take.
  struct Start {
    double pf, pb;
    int first, last;
  };
  [[nodiscard]] Start start_of(int v, int a, double drain) const {
    const auto ua = static_cast<std::size_t>(a);
    return {p_.prefix_f[ua] + v * p_.min_send, p_.prefix_b[ua] + v * p_.min_send + drain, p_.first_end(v, a),
            p_.last_end(v)};
  }

  const BalanceProblem& p_;
  StageRecompute& recompute_;
  const StageBounds& bounds_;
  double target_ = kInf;
  std::vector<std::vector<double>> before_, after_;
  bool forward_ = true;  // which table is being built
  int row_ = 0;          // its next row (virtual stage)
};

}  // namespace ppb::balancer
