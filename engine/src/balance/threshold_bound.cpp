// The threshold test's two dynamic programs. See threshold_bound.hpp.
#include "threshold_bound.hpp"

#include <algorithm>

namespace ppb::balancer {

void ThresholdBound::start(double t) {
  const auto rows = static_cast<std::size_t>(p_.V) + 1, cols = static_cast<std::size_t>(p_.L) + 1;
  before_.assign(rows, std::vector<double>(cols, kInf));
  after_.assign(rows, std::vector<double>(cols, kInf));
  before_[0][0] = 0;
  after_[rows - 1][cols - 1] = 0;
  target_ = t;
  forward_ = true;
  row_ = 0;
}

PhaseStatus ThresholdBound::step(Budget& budget) {
  const double t = target_;
  // Forward: rows v = 0 .. V - 2 fill before_[v + 1].
  for (; forward_ && row_ + 1 < p_.V; ++row_) {
    const int v = row_, s = p_.stage_of(v);
    const StageRecompute::OneChunk chunk = recompute_.one_chunk(s);
    const std::vector<double>& here = before_[static_cast<std::size_t>(v)];
    std::vector<double>& next = before_[static_cast<std::size_t>(v) + 1];
    for (int a = 0; a <= p_.L; ++a) {  // a = L: the stages from v on are empty
      const double drain = here[static_cast<std::size_t>(a)];
      if (drain == kInf) continue;
      const Start at = start_of(v, a, drain);
      int b = at.first;
      for (; b <= at.last; ++b) {
        const double extra = recompute_.one_extra(chunk, a, b);
        if (extra == kInf) break;                                   // more layers only need more memory
        if (bounds_.own(s, at.pf, at.pb, a, b, extra) >= t) break;  // only grows with b
        double& cell = next[static_cast<std::size_t>(b)];
        cell = std::min(cell, drain + extra + send_excess(v, b));
      }
      if (budget.tick(1 + (b - at.first) / 16)) return PhaseStatus::given_up;
    }
    if (budget.slice_over()) {
      ++row_;
      return PhaseStatus::paused;
    }
  }
  if (forward_) {
    forward_ = false;
    row_ = p_.V - 1;
  }
  // Backward: rows v = V - 1 .. 0 fill after_[v] from after_[v + 1].
  for (; row_ >= 0; --row_) {
    const int v = row_, s = p_.stage_of(v);
    const StageRecompute::OneChunk chunk = recompute_.one_chunk(s);
    const std::vector<double>& drains = before_[static_cast<std::size_t>(v)];
    const std::vector<double>& later = after_[static_cast<std::size_t>(v) + 1];
    std::vector<double>& here = after_[static_cast<std::size_t>(v)];
    for (int a = 0; a <= p_.L; ++a) {  // a = L: the stages from v on are empty
      const double drain = drains[static_cast<std::size_t>(a)];
      if (drain == kInf) continue;
      const Start at = start_of(v, a, drain);
      double best = kInf;
      int b = at.first;
      for (; b <= at.last; ++b) {
        const double extra = recompute_.one_extra(chunk, a, b);
        if (extra == kInf || bounds_.own(s, at.pf, at.pb, a, b, extra) >= t) break;  // only grows with b
        const double rest = later[static_cast<std::size_t>(b)];
        if (rest == kInf) continue;
        const double back = 2 * send_excess(v, b) + rest;  // the transfer to stage v + 1 and back
        if (bounds_.stage(s, at.pf, at.pb, a, b, extra, back).strong < t) best = std::min(best, extra + back);
      }
      here[static_cast<std::size_t>(a)] = best;
      if (budget.tick(1 + (b - at.first) / 16)) return PhaseStatus::given_up;
    }
    if (budget.slice_over() && row_ > 0) {
      --row_;
      return PhaseStatus::paused;
    }
  }
  return PhaseStatus::done;
}

}  // namespace ppb::balancer
