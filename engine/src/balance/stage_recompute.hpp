// A physical stage's best recompute (internal to the engine): the least added backward time whose
// activation fits the stage's memory, from the recompute frontiers of its chunks. Memory does not
// depend on timing under a fixed program, so this choice is made per stage, apart from the others
// (docs/ppb.md).
#pragma once

#include <utility>
#include <vector>

#include "recompute_frontier.hpp"

namespace ppb::balancer {

using Ranges = std::vector<std::pair<int, int>>;  // [a, b) of each chunk of a physical stage
using Choice = std::vector<FrontierPoint>;        // a frontier point per chunk of a physical stage

class StageRecompute {
 public:
  StageRecompute(const BalanceProblem& problem, FrontierCache& frontiers, Budget& budget)
      : problem_(problem), frontiers_(frontiers), budget_(budget) {}

  // Least recompute time for physical stage s whose chunks are `ranges`, or kInf when even the most
  // recompute does not fit. `chosen` receives each chunk's (activation kept per micro batch, time
  // added). Frontiers are built only when memory binds: a stage that fits without recompute adds
  // nothing, and one that does not fit with the most-saving option everywhere is out.
  //
  // With several chunks, the least summed extra time is not always the fastest plan: the step time
  // grows with each chunk's backward on its own, so every choice whose vector of per-chunk extra
  // times no other fitting choice beats in every chunk can be the best. With `all`, those choices
  // are listed there (the least summed first; one choice with one chunk or when nothing is
  // recomputed). `all` stays empty when the conservative joint frontier was used.
  double stage_extra(int s, const Ranges& ranges, std::vector<FrontierPoint>* chosen,
                     std::vector<Choice>* all = nullptr);
  // Whether stage s fits its memory with no layer recomputed.
  [[nodiscard]] bool fits_without_recompute(int s, const Ranges& ranges) const;
  // Whether a stage's memory was ever charged by the conservative joint frontier (more combinations
  // of its chunks' points than kMaxCombinations): a plan that fits may then have been ruled out.
  [[nodiscard]] bool memory_conservative() const { return memory_conservative_; }
  static constexpr double kMaxCombinations = 1 << 16;
  // Whether some stage of three chunks or more had more than kMaxCandidates combinations, so that
  // only its least summed recompute was listed as its choice: its best may have been missed.
  [[nodiscard]] bool choices_incomplete() const { return choices_incomplete_; }
  // Both flags, kept aside and put back around plans that are not the search's (the local search's):
  // what it tried does not weaken what the search proves.
  struct Flags {
    bool memory_conservative, choices_incomplete;
  };
  [[nodiscard]] Flags flags() const { return {memory_conservative_, choices_incomplete_}; }
  void restore(Flags f) {
    memory_conservative_ = f.memory_conservative;
    choices_incomplete_ = f.choices_incomplete;
  }
  static constexpr double kMaxCandidates = 1024;

  // What stage_extra reads of stage s for its one chunk, read once by the inner loops over a
  // stage's end (which call one_extra for every end they try): the frontier call in those loops
  // would otherwise make the compiler read every member again at each end.
  struct OneChunk {
    double held, limit;
    const double *statics, *act, *least_act;  // prefix sums
  };
  [[nodiscard]] OneChunk one_chunk(int s) const {
    return {problem_.held_at(problem_.virtual_of(s, 0)), problem_.limit_for(s), problem_.prefix_static.data(),
            problem_.prefix_act.data(), problem_.prefix_least_act.data()};
  }
  // stage_extra of the one chunk [a, b), without `chosen`: the same arithmetic, small and inline.
  // With `exact` false, a lower bound without frontiers: 0 when the most-saving options fit (the
  // relaxed bound table's stage cost).
  [[gnu::always_inline]] double one_extra(const OneChunk& c, int a, int b, bool exact = true) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    const double budget = c.limit - (c.statics[ub] - c.statics[ua]);
    if (fits(c.held * (c.act[ub] - c.act[ua]), budget)) return 0;
    if (!fits(c.held * (c.least_act[ub] - c.least_act[ua]), budget)) return kInf;
    if (!exact) return 0;
    const Frontier& f = frontiers_.frontier(a, b);
    const int k = best_point(f, budget / c.held);
    return k < 0 ? kInf : f[static_cast<std::size_t>(k)].extra;
  }

  // The recompute option of every layer for stage ends `ends`: within the limit, each stage's least
  // extra time that fits; otherwise (or when a stage cannot fit) the least activation.
  // With `choices` (one per physical stage), each stage takes that choice instead.
  std::vector<int> layer_options(const std::vector<int>& ends, bool within_limit,
                                 const std::vector<Choice>* choices = nullptr);

 private:
  double least_extra(int s, const Ranges& ranges, std::vector<FrontierPoint>* chosen, std::vector<Choice>* all);
  void pareto_choices(std::vector<Choice>& candidates, std::vector<Choice>& out);
  // Stage s's activation peak when its chunks keep acts[c] per micro batch.
  [[nodiscard]] double peak(int s, const double* acts) const;
  double chunks_extra(int s, const Ranges& ranges, double budget, std::vector<FrontierPoint>* chosen,
                      std::vector<Choice>* all);
  double joint_extra(int s, const Ranges& ranges, double budget, std::vector<FrontierPoint>* chosen);

  const BalanceProblem& problem_;
  FrontierCache& frontiers_;
  Budget& budget_;
  bool memory_conservative_ = false;
  bool choices_incomplete_ = false;
  mutable std::vector<double> none_, least_;  // per chunk, scratch of stage_extra
};

}  // namespace ppb::balancer
