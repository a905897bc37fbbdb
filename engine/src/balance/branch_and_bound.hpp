// PPB's branch and bound over stage boundaries (internal to the engine). A depth-first search
// chooses the end of each virtual stage in order; it keeps its path as a stack, so that it can stop
// at the end of a slice and go on in the next. A branch is cut when its stages' bounds, or the
// suffix bound of what remains, reach the best simulated step time found so far; since the bound
// only grows as a stage takes more layers, the loop over a stage's end stops at the first cut. Every
// complete plan that survives is simulated with its stages' least recompute that fits.
#pragma once

#include <limits>
#include <memory>
#include <vector>

#include "balance_budget.hpp"
#include "plan_replay.hpp"
#include "ppb/simulate/simulate.hpp"
#include "stage_bounds.hpp"
#include "stage_recompute.hpp"
#include "suffix_bound.hpp"
#include "threshold_bound.hpp"
#include "whole_plan_bound.hpp"

namespace ppb::balancer {

class BranchAndBound {
 public:
  // The whole-plan bound is built once the search has visited `whole_after_nodes` nodes.
  BranchAndBound(const BalanceProblem& problem, StageRecompute& recompute, FrontierCache& frontiers,
                 StageBounds& bounds, const SuffixBound& suffix, Budget& budget,
                 std::int64_t whole_after_nodes = kWholeAfterNodes);

  // Simulates a plan given by its stage ends (an incumbent), when every stage fits.
  void try_plan(const std::vector<int>& ends);
  // A quick local search from the best plan so far: moves one layer between two stages while that
  // makes the plan faster, so that the branch and bound starts from a good incumbent. Stops when no
  // move helps (done), at `until_work` of work done or the budget (given up), or at the end of the
  // slice (paused; the next call goes on).
  PhaseStatus improve_locally(std::int64_t until_work);
  // The local search's second stage, for a search that did not end soon: two moves at once (a layer
  // between one pair of stages and another between a second pair, or one move alone), from the best
  // plan, until a whole pass over them changes nothing. Escapes the optima of single moves where each
  // move alone makes the plan slower (a stage over its memory, or one that becomes the slowest).
  // Stops at `until_work` or the budget (given up) or pauses at the end of the slice.
  PhaseStatus improve_in_pairs(std::int64_t until_work);
  // A pass tries every pair of the V (V - 1) single moves, about V^4 / 2 plans: only problems of at
  // most 27 virtual stages (kMaxPairsPerPass pairs) run it.
  [[nodiscard]] bool pairs_apply() const {
    const double moves = static_cast<double>(p_.V) * (p_.V - 1);
    return moves * (moves + 1) / 2 <= kMaxPairsPerPass;
  }
  static constexpr double kMaxPairsPerPass = 1 << 18;
  // One chunk per stage: a threshold test done at a target no less than the cut (threshold_bound.hpp),
  // whose tables then bound every node: a branch with no completion below the target is cut.
  void use_threshold(const ThresholdBound* threshold) { threshold_ = threshold; }
  // Makes step() pause (as at the end of a slice) once the search has visited `nodes` nodes in all.
  void pause_at(std::int64_t nodes) { pause_at_ = nodes; }
  // Whether the search stands at that pause (not inside the whole-plan bound's ascent, which a slice
  // may end part way: the pause comes once it is built, as in one run at once).
  [[nodiscard]] bool at_pause() const { return budget_.nodes() >= pause_at_ && !stack_.empty() && !whole_pending(); }
  // Starts the search at the root, every plan bounded below by `root_bound`.
  void start(double root_bound);
  // Visits nodes, depth first, until every partition not ruled out has been searched (done), the
  // budget is spent (given up) or the slice ends (paused; the next step goes on from the same node).
  PhaseStatus step();
  // A lower bound of every plan not yet ruled out, the best found included: the least bound of the
  // branches still open, or the cut when none is. It rises as the search goes on and meets the best
  // time (less the tolerance) when the search is done. Valid where the bounds are (docs/ppb.md).
  [[nodiscard]] double open_bound() const;

  [[nodiscard]] double best_time() const { return best_time_; }
  [[nodiscard]] const std::vector<int>& best_ends() const { return best_ends_; }
  [[nodiscard]] std::int64_t simulations() const { return simulations_; }
  // With several chunks per stage: the recompute choice of each physical stage in the best plan.
  [[nodiscard]] const std::vector<Choice>& best_choices() const { return best_choices_; }
  // Whether the search over some partition's recompute choices stopped at kMaxChoicePlans
  // simulations: its best may then have been missed, and nothing is proven.
  [[nodiscard]] bool choices_cut() const { return choices_cut_; }
  // Whether the whole-plan bound was built and bounds the nodes from here on.
  [[nodiscard]] bool whole_ready() const { return whole_ready_; }
  static constexpr std::int64_t kMaxChoicePlans = 1024;
  static constexpr std::int64_t kWholeAfterNodes = 20'000;

 private:
  struct Child {
    int b;
    double priority;  // the least step time any plan in this branch can have
    double bound;
  };

  // A branch is cut when its bound reaches this: the best time so far, lowered by the tolerance.
  [[nodiscard]] double cut() const { return cut_; }
  void set_best_time(double t) {
    best_time_ = t;
    cut_ = best_time_ / (1.0 + p_.options.tolerance);
  }
  // A node on the search path: virtual stage v starts at layer a; `bound` is what its stages so far
  // prove, `floor` the least step time of any plan below it (its priority as a child).
  struct Frame {
    int v, a;
    double bound, floor;
    bool expanded = false;  // its children are listed (children_[v])
    bool scanned = false;   // every end was tried (the budget did not cut the listing)
    std::size_t next = 0;   // the child being searched, or next to be
  };
  void expand(Frame& frame);
  // While the local search runs: the flags a plan tried may set (a partition's recompute choices cut
  // short, a stage's memory charged conservatively) say what the search itself missed, so they are
  // put back as they were when it ends; a plan the local search tries is not one the search relies on.
  class KeepFlags {
   public:
    explicit KeepFlags(BranchAndBound& search)
        : search_(search), cut_(search.choices_cut_), flags_(search.recompute_.flags()) {}
    ~KeepFlags() {
      search_.choices_cut_ = cut_;
      search_.recompute_.restore(flags_);
    }
    KeepFlags(const KeepFlags&) = delete;
    KeepFlags& operator=(const KeepFlags&) = delete;

   private:
    BranchAndBound& search_;
    bool cut_;
    StageRecompute::Flags flags_;
  };
  [[nodiscard]] double prefix_bound(int v, int a) const;
  void enter(const Frame& frame, const Child& child);
  void finish_frame();
  void assign_chunk_costs(int s, const Ranges& ranges, const std::vector<FrontierPoint>& chosen);
  [[nodiscard]] bool several_chunks() const { return p_.V != p_.pp; }
  [[nodiscard]] double work(int x, int y) const;
  void levels(int v);
  [[nodiscard]] double water_level(int b, double current);
  // Simulates costs_; true when it is the best plan so far.
  bool simulate_costs();
  void evaluate(const std::vector<Ranges>& ranges);
  void choose(const std::vector<Ranges>& ranges, std::size_t depth);
  bool bound_beats_best();

  const BalanceProblem& p_;
  StageRecompute& recompute_;
  FrontierCache& frontiers_;
  StageBounds& bounds_;
  const SuffixBound& suffix_;
  const ThresholdBound* threshold_ = nullptr;
  std::int64_t pause_at_ = std::numeric_limits<std::int64_t>::max();
  Budget& budget_;
  // The partial plan: stage ends, each physical stage's chunks so far, the prefix times before each
  // physical stage (pf forward, pb backward) and the costs of the virtual stages chosen.
  std::vector<int> ends_;
  std::vector<Ranges> chunk_ranges_;
  std::vector<double> stage_pf_, stage_pb_;
  std::vector<VirtualStageCost> costs_;
  // Scratch kept between nodes so that no node allocates.
  std::vector<Frame> stack_;                  // the search path, one frame per depth
  std::vector<std::vector<Child>> children_;  // the children of the frame at each depth
  std::vector<FrontierPoint> chosen_;         // stage_extra's choice for the child being entered
  std::vector<std::vector<Choice>> choices_;  // several chunks: each stage's recompute choices
  std::vector<std::size_t> pick_;             // evaluate(): the combination of choices simulated
  std::vector<Choice> best_choices_;
  // evaluate(): per stage, each chunk at its least extra time over the stage's choices; the stages
  // with more than one choice; the simulations spent on the partition.
  std::vector<Choice> ideal_;
  std::vector<int> varied_;
  std::int64_t choice_simulations_ = 0;
  // levels(): each stage's own-work bound so far, whether it takes a chunk after the current one, and
  // the sorted bounds of the other stages that do.
  std::vector<double> level_, others_, filling_;
  std::vector<char> open_;
  std::vector<int> unstarted_;  // stages whose chunk 0 comes after the current virtual stage
  int v_ = 0;                   // the current virtual stage
  bool choices_cut_ = false;
  PlanReplay replay_;  // the simulator's step time of costs_, without allocating
  double best_time_ = kInf;
  double cut_ = kInf;
  std::vector<int> best_ends_;
  // improve_locally: moves tried (even: the next is step -1, odd: step +1) and the next pair of
  // stages, first_ and first_ + distance_.
  std::int64_t move_ = 0;
  int first_ = 0, distance_ = 1;
  bool moved_ = false;  // improve_locally: a move of this pass made the plan faster
  // improve_in_pairs: every single move (stages i < j, step), nearest stages first, and the pair of
  // them to try next (first_move_ <= second_move_; equal for one move alone).
  struct Move {
    int i, j, step;
  };
  std::vector<Move> moves_;
  std::size_t first_move_ = 0, second_move_ = 0;
  // Its simulations, which the search's simulation budget does not count (they are not the search's).
  std::int64_t pair_simulations_ = 0;
  std::int64_t pair_tries_ = 0;  // the clock is read every 2 V tries, across slices
  std::int64_t simulations_ = 0;
  // The whole-plan bound (whole_plan_bound.hpp), with several chunks per stage (one chunk has the
  // suffix table, which bounds every node better, docs/ppb.md): built, and its ascent run, once the
  // search reaches whole_after_nodes_ nodes, inside a slice and its budget; then each node's children
  // are bounded by the relaxed sum of the stages chosen (whole_prefix_[v], virtual stages 0..v-1) and
  // the table's least for the rest.
  std::unique_ptr<WholePlanBound> whole_;
  bool whole_ascended_ = false, whole_ready_ = false;
  double whole_floor_ = -kInf;  // its bound, a little below for rounding
  std::int64_t whole_after_nodes_;
  std::vector<double> whole_prefix_;
  // Builds the bound and runs its ascent (paused: a slice ended inside it).
  PhaseStatus ascend_whole();
  // Whether the search has reached the node where the bound is built and it is not built yet.
  [[nodiscard]] bool whole_pending() const {
    return !whole_ascended_ && several_chunks() && budget_.nodes() >= whole_after_nodes_;
  }
};

}  // namespace ppb::balancer
