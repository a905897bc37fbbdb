// The branch and bound's node bounds with several chunks per stage: each physical stage's own work
// from the chunks chosen so far (levels) and the fill of the stages not started yet (water_level).
// See branch_and_bound.hpp.
#include "branch_and_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ppb::balancer {

// Several chunks per stage: the own-work bound of every physical stage other than virtual stage v's
// that still takes a chunk after v, from the chunks chosen before v (their recompute included once
// their stage is complete), and the stages not started yet (water_level bounds their fill).
void BranchAndBound::levels(int v) {
  const int s_now = p_.stage_of(v);
  const bool priced = price_.active();
  level_.assign(static_cast<std::size_t>(p_.pp), 0);
  open_.assign(static_cast<std::size_t>(p_.pp), 0);
  if (priced) priced_.assign(static_cast<std::size_t>(p_.pp), std::vector<double>(RecomputePrice::kMaxPrices, 0));
  std::vector<char> started(static_cast<std::size_t>(p_.pp), 0);
  for (int u = 0; u < p_.V; ++u) {
    const auto s = static_cast<std::size_t>(p_.stage_of(u));
    if (u < v) {
      const VirtualStageCost& c = costs_[static_cast<std::size_t>(u)];
      level_[s] += p_.m * (c.forward_ms + c.backward_ms - (p_.overlaps ? c.forward_comm_ms + c.backward_comm_ms : 0));
      if (priced) {
        const int from = u == 0 ? 0 : ends_[static_cast<std::size_t>(u) - 1], to = ends_[static_cast<std::size_t>(u)];
        for (int j = 0; j < price_.prices(static_cast<int>(s)); ++j)
          priced_[s][static_cast<std::size_t>(j)] += price_.charged(static_cast<int>(s), p_.chunk_of(u), j, from, to);
      }
      started[s] = 1;
    } else if (u > v) {
      open_[s] = 1;
    }
  }
  others_.clear();
  unstarted_.clear();
  lines_.clear();
  unstarted_lines_.clear();
  now_lines_.clear();
  // Stage s's lines at every price, from its charges so far and its fill and drain: the rate is
  // the least over its chunks still to come.
  const auto add_lines = [&](std::vector<Line>& out, int s, double base) {
    for (int j = 0; j < price_.prices(s); ++j) {
      double rate = kInf;
      for (int c = 0; c < p_.shape.vpp_degree; ++c)
        if (p_.virtual_of(s, c) > v) rate = std::min(rate, price_.rate(s, c, j));
      out.push_back(
          {s, base + priced_[static_cast<std::size_t>(s)][static_cast<std::size_t>(j)] - price_.rebate(s, j), rate});
    }
  };
  for (int s = 0; s < p_.pp; ++s) {
    const auto us = static_cast<std::size_t>(s);
    if (s == s_now || !open_[us]) continue;
    const double drain = stage_pf_[us] + (p_.split ? 0 : stage_pb_[us]);
    if (started[us]) {
      others_.push_back(level_[us] + drain);
      if (priced) {
        lines_.push_back({s, level_[us] + drain, 1.0});
        add_lines(lines_, s, drain);
      }
    } else {
      unstarted_.push_back(s);
      if (priced) {
        unstarted_lines_.push_back({s, 0.0, 1.0});
        add_lines(unstarted_lines_, s, 0.0);
      }
    }
  }
  if (priced && open_[static_cast<std::size_t>(s_now)]) {
    const auto us = static_cast<std::size_t>(s_now);
    add_lines(now_lines_, s_now, stage_pf_[us] + (p_.split ? 0 : stage_pb_[us]));
  }
  v_ = v;
}

// A lower bound of every completion when virtual stage v ends at b: the layers from b on add m times
// their work to the stages that still take a chunk, so the largest own-work bound is at least the
// level that work fills them to (water filling over the stages' bounds so far). `current` is v's
// stage's bound with [a, b) when that stage takes a later chunk too, negative when it does not.
double BranchAndBound::water_level(int b, double current) {
  const double water = p_.m * work(b, p_.L);
  if (water <= 0) return 0;
  filling_ = others_;
  if (current >= 0) filling_.push_back(current);
  // A stage not started yet starts its chunk 0 (virtual stage s) after v's end b and the virtual
  // stages between, each of at least min_size layers: its fill, and its drain when counted, are at
  // least those layers' forward and backward and s of the cheapest transfers.
  for (const int s : unstarted_) {
    const auto start = static_cast<std::size_t>(std::min(p_.L, b + (s - v_ - 1) * p_.min_size));
    const double sends = s * p_.min_send;
    filling_.push_back(p_.prefix_f[start] + sends + (p_.split ? 0 : p_.prefix_b[start] + sends));
  }
  std::sort(filling_.begin(), filling_.end());
  if (filling_.empty()) return kInf;  // no stage can take the remaining layers
  double filled = 0, level = filling_[0];
  for (std::size_t k = 1; k <= filling_.size(); ++k) {
    const double next = k < filling_.size() ? filling_[k] : kInf;
    const double n = static_cast<double>(k);  // stages under the water
    if (filled + n * (next - level) >= water) return level + (water - filled) / n;
    filled += n * (next - level);
    level = next;
  }
  return level;
}

// The same with prices on memory (docs/ppb.md, bounds for every schedule, 4): every open stage's
// bound is at least each of its lines, level + rate x m x (the work it takes from b on). So the
// largest bound is at least the least T at which the work the stages can take without any line
// passing T, sum over the stages of the least over their lines of (T - level) / (rate x m), reaches
// the work left; and at least every level. `current` is the current stage's own bound with [a, b)
// when it takes a later chunk, NaN when it does not.
double BranchAndBound::priced_level(int b, int a, double current) const {
  filling_lines_ = lines_;
  const int s_now = p_.stage_of(v_);
  if (!std::isnan(current)) {
    filling_lines_.push_back({s_now, current, 1.0});
    for (std::size_t k = 0; k < now_lines_.size(); ++k) {
      Line line = now_lines_[k];
      line.level += price_.charged(s_now, p_.chunk_of(v_), static_cast<int>(k), a, b);
      filling_lines_.push_back(line);
    }
  }
  for (const Line& u : unstarted_lines_) {
    const auto start = static_cast<std::size_t>(std::min(p_.L, b + (u.stage - v_ - 1) * p_.min_size));
    const double sends = u.stage * p_.min_send;
    filling_lines_.push_back(
        {u.stage, u.level + p_.prefix_f[start] + sends + (p_.split ? 0 : p_.prefix_b[start] + sends), u.rate});
  }
  const double water = work(b, p_.L);
  if (filling_lines_.empty()) return water > 0 ? kInf : 0;  // no stage can take the remaining layers
  double lo = -kInf, top_rate = 1;
  for (const Line& l : filling_lines_) {
    lo = std::max(lo, l.level);
    top_rate = std::max(top_rate, l.rate);
  }
  // Sums of many charges: a little below, so that rounding never lifts the bound above a tie.
  if (water <= 0) return lo - 1e-9 * std::fabs(lo);
  // The work taken below T grows with T; T = lo + water x top_rate x m takes all of it on any stage.
  // Bisection, keeping a T that provably takes less than the work (a lower bound).
  const auto taken = [&](double t) {
    double sum = 0, stage_x = kInf;
    int stage = filling_lines_[0].stage;
    for (const Line& l : filling_lines_) {  // lines of a stage are adjacent
      if (l.stage != stage) {
        sum += stage_x;
        stage_x = kInf;
        stage = l.stage;
      }
      stage_x = std::min(stage_x, (t - l.level) / (l.rate * p_.m));
    }
    return sum + stage_x;
  };
  double hi = lo + water * top_rate * p_.m;
  for (int k = 0; k < 40; ++k) {
    const double mid = 0.5 * (lo + hi);
    if (taken(mid) >= water)
      hi = mid;
    else
      lo = mid;
  }
  return lo - 1e-9 * std::fabs(lo);
}

// Lists the ends virtual stage f.v may take with their bounds, most promising first.

}  // namespace ppb::balancer
