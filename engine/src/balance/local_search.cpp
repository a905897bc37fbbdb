// The local search of the branch and bound: from the best plan, single moves of a stage boundary
// (improve_locally) and, once the search has run long, pairs of moves (improve_in_pairs). See
// branch_and_bound.hpp.
#include "branch_and_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ppb::balancer {

PhaseStatus BranchAndBound::improve_locally(std::int64_t until_work) {
  if (best_ends_.empty()) return PhaseStatus::done;
  const KeepFlags keep(*this);
  // One layer moves from stage j to stage i (step +1, i < j) or back (step -1): the boundaries
  // between them shift by one, the stages between keep their sizes. Passes over every move, nearest
  // stages first (a layer between neighbours is the move that helps most often, and with many stages
  // a pass over every pair is long), until one changes nothing; the cursor (move_ and its pair
  // distance_, first_) survives the end of a slice.
  for (;;) {
    if (first_ + distance_ >= p_.V) {  // the pairs at this distance are done
      first_ = 0;
      if (++distance_ >= p_.V) {
        if (!moved_) return PhaseStatus::done;
        distance_ = 1;
        moved_ = false;
      }
      continue;
    }
    const int i = first_, j = first_ + distance_;
    const int step = move_ % 2 == 0 ? -1 : 1;
    if (++move_ % 2 == 0) ++first_;
    // A plan costs about a node per stage; the clock is read by that work.
    if (budget_.tick(p_.V)) return PhaseStatus::given_up;
    frontiers_.trim();
    std::vector<int> ends = best_ends_;
    for (int k = i; k < j; ++k) ends[static_cast<std::size_t>(k)] += step;
    const double before = best_time_;
    try_plan(ends);
    moved_ = moved_ || best_time_ < before;
    if (move_ % (2 * p_.V) == 0 && budget_.past_work(until_work)) return PhaseStatus::given_up;
    if (budget_.slice_over()) return PhaseStatus::paused;
  }
}

PhaseStatus BranchAndBound::improve_in_pairs(std::int64_t until_work) {
  if (best_ends_.empty()) return PhaseStatus::done;
  if (!pairs_apply()) return PhaseStatus::done;
  if (moves_.empty())
    for (int distance = 1; distance < p_.V; ++distance)
      for (int i = 0; i + distance < p_.V; ++i)
        for (int step : {-1, 1}) moves_.push_back({i, i + distance, step});
  const KeepFlags keep(*this);
  // The search may stand paused at a node: what a plan tried overwrites of its path is put back.
  const std::vector<int> path_ends = ends_;
  const std::vector<VirtualStageCost> path_costs = costs_;
  const std::vector<std::vector<Choice>> path_choices = choices_;
  const auto leave = [&](PhaseStatus status) {
    ends_ = path_ends;
    costs_ = path_costs;
    choices_ = path_choices;
    return status;
  };
  std::vector<int> ends;
  for (;;) {
    if (first_move_ == moves_.size()) return leave(PhaseStatus::done);  // a whole pass changed nothing
    if (budget_.tick(p_.V)) return leave(PhaseStatus::given_up);
    frontiers_.trim();  // as at every node: the plans tried build frontiers of many new ranges
    ends = best_ends_;
    const auto apply = [&](const Move& move) {
      for (int x = move.i; x < move.j; ++x) ends[static_cast<std::size_t>(x)] += move.step;
    };
    apply(moves_[first_move_]);
    if (second_move_ != first_move_) apply(moves_[second_move_]);
    const double before = best_time_;
    const std::int64_t simulated = simulations_;
    try_plan(ends);
    pair_simulations_ += simulations_ - simulated;
    if (best_time_ < before) {
      first_move_ = second_move_ = 0;  // a new best: every pair again, from it
    } else if (++second_move_ == moves_.size()) {
      second_move_ = ++first_move_;
    }
    if (++pair_tries_ % (2 * p_.V) == 0 && budget_.past_work(until_work)) return leave(PhaseStatus::given_up);
    if (budget_.slice_over()) return leave(PhaseStatus::paused);
  }
}

}  // namespace ppb::balancer
