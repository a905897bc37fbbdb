// Lower bounds on the step time from one physical stage (internal to the engine): what a stage's own
// work, its fill and its drain must cost whatever the other stages do. The argument for each term
// is in docs/ppb.md.
#pragma once

#include <cmath>
#include <vector>

#include "balance_problem.hpp"
#include "ppb/plan/stage_costs.hpp"

namespace ppb::balancer {

struct Bounds {
  double growing;  // never falls as the stage takes more layers: ends the loop over its end
  double strong;   // the best bound: prunes a branch
};

class StageBounds {
 public:
  explicit StageBounds(const BalanceProblem& problem)
      : p_(problem), later_(static_cast<std::size_t>(problem.pp), 0), steps_(static_cast<std::size_t>(problem.pp)) {
    // The steady-state steps of cycles() and chain() over the whole pipeline, per stage: read on
    // every bound, so their floors are taken once.
    for (int s = 0; s < p_.pp && p_.V == p_.pp; ++s) {
      const double nf = p_.forwards_before_backward[static_cast<std::size_t>(s)], m = p_.m;
      Steps& k = steps_[static_cast<std::size_t>(s)];
      k.cycles = std::floor((m - nf) / nf);
      k.cycles_last = nf - 1 + k.cycles * nf;
      k.chain = std::floor((m - 1 - nf) / nf);
      k.chain_last = nf + k.chain * nf;
    }
  }

  // Bounds from physical stage s (one chunk per stage) holding layers [a, b), whose first forward
  // starts no earlier than pf and whose last gradient then drains through the earlier stages in pb,
  // with `extra` its recompute time. The round trip through the later stages is taken at their base
  // times, the cheapest transfer and `later_extra`, the least recompute the later stages need.
  [[nodiscard]] Bounds stage(int s, double pf, double pb, int a, int b, double extra, double later_extra = 0) const {
    double later = p_.range(p_.prefix_f, b, p_.L) + p_.range(p_.prefix_b, b, p_.L) +
                   2.0 * (p_.pp - 1 - s) * p_.min_send + later_extra;
    if (p_.split) later -= p_.range(p_.prefix_w, b, p_.L);
    return from_costs(s, pf, pb, p_.range(p_.prefix_f, a, b), p_.range(p_.prefix_b, a, b) + extra, later);
  }

  // Bounds::growing of stage(s, pf, pb, a, b, extra) alone: the stage's own work, which never falls as
  // the stage takes more layers (cheaper where only it is wanted).
  [[nodiscard]] double own(int s, double pf, double pb, int a, int b, double extra) const {
    const double f = p_.range(p_.prefix_f, a, b), full_b = p_.range(p_.prefix_b, a, b) + extra;
    return pf + p_.m * (f + full_b) + std::max(p_.split ? 0 : pb, p_.tail[static_cast<std::size_t>(s)]);
  }

  // The same bounds from a stage's forward f and backward full_b (recompute included), and `later`,
  // the round trip through the stages after it (exact, or a lower bound of it). With nf the forwards
  // it runs before its first backward, read off the program (min(pp - s, m) for 1f1b, m for gpipe):
  //  - its own work: pf + m (f + full_b) + pb;
  //  - its timeline: the first backward waits for nf forwards and for f + later; then (m - nf)
  //    forward-backward pairs; then the last backward waits for nf backwards and for the last micro
  //    batch's round trip later + full_b:
  //      pf + max(nf f, f + later) + (m - nf)(f + full_b) + max(nf full_b, later + full_b) + pb.
  //    On equal stages this is (m + pp - 1)(f + full_b) for every stage, the exact step time. When
  //    all forwards come first (nf = m), the steady part is empty and the two waits overlap instead.
  // zb_h1, zb_h2: the drain is not counted (a W can be the stage's last operation), the round trip
  // needs only the later stages' input gradients, and nf (read off the program) forwards precede the
  // first B.
  [[nodiscard]] Bounds from_costs(int s, double pf, double pb, double f, double full_b, double later) const {
    const double m = p_.m;
    // The stage's tail (outside components after its last operation) comes after all its work.
    const double drain = p_.split ? 0 : pb;
    const double tail = p_.tail[static_cast<std::size_t>(s)];
    const double own = pf + m * (f + full_b) + std::max(drain, tail);
    if (p_.V != p_.pp) return {own, own};
    const double nf = p_.forwards_before_backward[static_cast<std::size_t>(s)];
    if (p_.split) return {own, std::max(own, pf + f + later + (m - nf) * f + m * full_b + tail)};
    double timeline;
    if (nf < m) {
      timeline = pf + std::max(nf * f, f + later) + (m - nf) * (f + full_b) + std::max(nf * full_b, later + full_b);
      if (p_.shape.schedule == Schedule::one_f_one_b && nf > 1) {
        // cycles() and chain() over the whole pipeline, with their steps read off steps_.
        const Steps& k = steps_[static_cast<std::size_t>(s)];
        timeline = std::max(timeline, pf + std::max(cycles_at(nf, f, full_b, later, k.cycles, k.cycles_last),
                                                    chain_at(nf, f, full_b, later, later, nf, k.chain, k.chain_last)));
      }
    } else {  // every forward before the first backward: F(m-1) ends by m f, B0 waits f + later
      timeline = pf + std::max({m * (f + full_b), f + later + m * full_b, m * f + later + full_b});
    }
    return {own, std::max(own, timeline + std::max(drain, tail))};
  }

  // 1f1b's steady state, from the first forward on: with w = nf - 1 = pp - 1 - s warm-up forwards
  // and d = w later stages, the backward of micro batch j follows the forward of j + d on the stage
  // and needs j's round trip through the later stages, which starts when its forward ends. So from
  // the end of F(j) to the end of F(j + d + 1) the stage takes at least
  //     P = max((d + 1)(f + b), f + b + later)
  // (its own d forward-backward pairs, or the round trip, then B(j) and F(j + d + 1)). Chained from
  // F(w) for n = floor((m - 1 - w) / (d + 1)) steps, then the rest of its operations:
  //     (w + 1) f + n P + (m - 1 - j) f + (m - j + w) b,   j = w + n (d + 1).
  // With transfer time t per crossing the round trip holds 2 d t, so every step costs 2 d t beyond
  // the stage's own work: close to 2 t per micro batch on the early stages, which the fill and
  // drain terms do not see. Equal to m (f + b) without transfers on equal stages.
  [[nodiscard]] double cycles(double nf, double f, double b, double later) const {
    const double n = std::floor((p_.m - nf) / nf);
    return cycles_at(nf, f, b, later, n, nf - 1 + n * nf);
  }

  // 1f1b's steady state between its two waits. Stage s's first backward waits for its nf forwards
  // and for micro batch 0's round trip `later`; F(nf) follows it. From there, with a window of stages
  // s..k (delta = k - s + 1 of them; k = pp - 1 is the whole pipeline, delta = nf) whose round trip is
  // `within` (the forward and backward of stages s + 1..k, the transfers between s and k both ways):
  // on stage k the forward of micro batch x is followed by the backward of x - (pp - 1 - k), whose
  // gradient reaches s as the backward that precedes F(x + delta) there, so from the end of F(x) to
  // the end of F(x + delta) stage s takes at least
  //     P = max(delta (f + b), f + b + within)
  // (its own delta forward-backward pairs, or that round trip, then B and F). n = floor((m - 1 - nf)
  // / delta) such steps from F(nf) reach F(j), j = nf + n delta; then m - 1 - j pairs up to the last
  // forward, after which the stage runs its last nf backwards, the last of them after micro batch
  // m - 1's round trip:
  //     max(nf f, f + later) + b + f + n P + (m - 1 - j)(f + b) + max(nf b, later + b).
  // A heavy window of stages followed by light ones slows every stage before it, although the round
  // trip through the whole pipeline does not show it: the windows are what the search's re-bounding
  // of chosen stages adds (window()); the whole one is part of every stage bound, plan() included.
  // Needs nf < m (a steady state) and 1 < nf.
  [[nodiscard]] double chain(double nf, double f, double b, double later, double within, double delta) const {
    const double n = std::floor((p_.m - 1 - nf) / delta);
    return chain_at(nf, f, b, later, within, delta, n, nf + n * delta);
  }
  // Whether window bounds apply to stage s: 1f1b, one chunk per stage, a steady state.
  [[nodiscard]] bool has_windows(int s) const {
    const double nf = p_.forwards_before_backward[static_cast<std::size_t>(s)];
    return p_.V == p_.pp && p_.shape.schedule == Schedule::one_f_one_b && nf > 1 && nf < p_.m && nf == p_.pp - s;
  }
  // Stage s's bound from the window s..s + delta - 1 (2 <= delta < pp - s) whose round trip is `within`.
  [[nodiscard]] double window(int s, double pf, double pb, double f, double full_b, double later, double within,
                              int delta) const {
    const double nf = p_.forwards_before_backward[static_cast<std::size_t>(s)];
    const double drain = p_.split ? 0 : pb;
    return pf + chain(nf, f, full_b, later, within, delta) + std::max(drain, p_.tail[static_cast<std::size_t>(s)]);
  }

  // The bound of a complete plan (one chunk per stage) from its exact stage costs; 0 for vpp > 1.
  double plan(const std::vector<VirtualStageCost>& costs);

 private:
  // cycles() and chain() with their n steps, ending at F(j), given.
  [[nodiscard]] double cycles_at(double nf, double f, double b, double later, double n, double j) const {
    const double m = p_.m, w = nf - 1;
    return nf * f + n * std::max(nf * (f + b), f + b + later) + (m - 1 - j) * f + (m - j + w) * b;
  }
  [[nodiscard]] double chain_at(double nf, double f, double b, double later, double within, double delta, double n,
                                double j) const {
    return std::max(nf * f, f + later) + b + f + n * std::max(delta * (f + b), f + b + within) +
           (p_.m - 1 - j) * (f + b) + std::max(nf * b, later + b);
  }

  const BalanceProblem& p_;
  std::vector<double> later_;  // plan(): the round trip after each stage
  struct Steps {
    double cycles = 0, cycles_last = 0;  // cycles(): n and j at delta = nf
    double chain = 0, chain_last = 0;    // chain(): n and j at delta = nf
  };
  std::vector<Steps> steps_;
};

}  // namespace ppb::balancer
