// The suffix bound's dynamic program. See suffix_bound.hpp.
#include "suffix_bound.hpp"

#include <algorithm>
#include <cmath>

namespace ppb::balancer {

namespace {
// Table cells per unit of work (about one search node's time).
constexpr std::int64_t kCellsPerUnit = 1;
}  // namespace

void SuffixBound::start(bool with_recompute, std::int64_t until_work, std::int64_t now_work) {
  const int V = p_.V, L = p_.L;
  table_.assign(static_cast<std::size_t>(V) + 1, std::vector<double>(static_cast<std::size_t>(L) + 1, kInf));
  next_.assign(static_cast<std::size_t>(V), std::vector<int>(static_cast<std::size_t>(L) + 1, -1));
  table_[static_cast<std::size_t>(V)][static_cast<std::size_t>(L)] = 0;
  // Only the exact table knows recompute times; otherwise the later stages' least is taken as 0 (its
  // scan over every end, which the exact table's frontiers dwarf, would double the relaxed table).
  least_extra_.assign(static_cast<std::size_t>(V) + 1,
                      std::vector<double>(static_cast<std::size_t>(L) + 1, with_recompute && V == p_.pp ? kInf : 0.0));
  least_extra_[static_cast<std::size_t>(V)][static_cast<std::size_t>(L)] = 0;
  with_recompute_ = with_recompute;
  until_work_ = until_work;
  a_ = L;
  start_work_ = now_work;
  pace_work_ = std::max<std::int64_t>(1, (until_work - now_work) / 32);
}

PhaseStatus SuffixBound::step(Budget& budget) {
  const int V = p_.V, pp = p_.pp;
  // The pace is the table's own so far (its time over its rows), read once a 32nd of its share has
  // passed: the cost of a row rises and falls with the stages that can start at its layer, and a
  // window of a few rows (or a pause of the machine) would give up tables that finish well in time.
  // A table that cannot finish in its share is still given up long before its end.
  // Start layer outermost (descending), so each start's frontier chain is used in one burst.
  for (; a_ >= 0; --a_) {
    const int a = a_;
    const std::int64_t now = budget.work();
    if (now > until_work_ || budget.out_of_budget()) return PhaseStatus::given_up;
    if (a < p_.L && now - start_work_ >= pace_work_) {
      const double per_row = static_cast<double>(now - start_work_) / (p_.L - a);
      if (static_cast<double>(now) + per_row * (a + 1) > static_cast<double>(until_work_)) return PhaseStatus::given_up;
    }
    std::int64_t cells = 0;  // the row's work: its cells, the frontiers count their own
    frontiers_.trim();
    for (int v = V - 1; v >= 0; --v) {
      const int s = p_.stage_of(v);
      double best = kInf;
      int best_b = -1;
      const double pf = p_.range(p_.prefix_f, 0, a) + v * p_.min_send;
      const double pb = p_.range(p_.prefix_b, 0, a) + v * p_.min_send;
      const double* const after_row = row(v + 1);
      const StageRecompute::OneChunk chunk_memory = recompute_.one_chunk(s);
      const int last = p_.last_end(v);
      const double* const later_extra = least_extra(v + 1);
      // A stage's least recompute time, or a lower bound of it (kInf when nothing fits).
      const auto stage_extra = [&](int b) {
        const double extra = recompute_.one_extra(chunk_memory, a, b, with_recompute_);
        return with_recompute_ || extra == kInf || !price_.active() ? extra : price_.extra_bound(s, a, b);
      };
      if (with_recompute_ && V == pp) {
        // The least summed recompute of stages v.. from a: every end whose stage fits memory.
        double least = kInf;
        for (int b = p_.first_end(v, a); b <= last; ++b) {
          const double extra = stage_extra(b);
          if (extra == kInf) break;  // more layers only need more memory
          least = std::min(least, extra + later_extra[static_cast<std::size_t>(b)]);
        }
        least_extra_[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)] = least;
      }
      for (int b = p_.first_end(v, a); b <= last; ++b, ++cells) {
        const double after = after_row[static_cast<std::size_t>(b)];
        if (after == kInf) continue;
        const double extra = V != pp ? 0.0 : stage_extra(b);
        if (extra == kInf) break;  // more layers only need more memory
        const Bounds bound =
            V == pp ? bounds_.stage(s, pf, pb, a, b, extra, later_extra[static_cast<std::size_t>(b)]) : Bounds{0, 0};
        if (bound.growing >= best) break;  // only grows with b
        // The later stages' bounds were taken with the cheapest transfer and no recompute before
        // them; every later bound grows by what this stage adds beyond that to their fill (its
        // transfer) and drain (its transfer back and its recompute).
        double shift = 0;
        if (V == pp && v + 1 < V) {
          const double send = p_.send_after(b) - p_.min_send;
          shift = send + (p_.drain_additive ? send + extra : 0);
        }
        const double value = std::max(bound.strong, shift + after);
        if (value < best) {
          best = value;
          best_b = b;
        }
      }
      table_[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)] = best;
      next_[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)] = best_b;
    }
    budget.add_work(1 + cells / kCellsPerUnit);
    if (budget.slice_over() && a > 0) {  // at least one row per slice
      --a_;
      return PhaseStatus::paused;
    }
  }
  return PhaseStatus::done;
}

void SuffixBound::clear() {
  table_.assign(static_cast<std::size_t>(p_.V) + 1, std::vector<double>(static_cast<std::size_t>(p_.L) + 1, 0.0));
  least_extra_ = table_;
}

std::vector<int> SuffixBound::plan() const {
  std::vector<int> ends;
  int a = 0;
  for (int v = 0; v < p_.V; ++v) {
    a = next_[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)];
    ends.push_back(a);
  }
  return ends;
}

}  // namespace ppb::balancer
