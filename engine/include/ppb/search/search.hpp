// Strategy search as values: the combinations of a search space (search_space.hpp), each balanced
// by PPB and estimated (search_evaluate.hpp), ranked with the Pareto front of the ranked time
// against the largest stage peak memory (search_rank.hpp), with the reasons of every infeasible one.
//
// A search runs in slices so that a browser worker can report progress and stop it between slices
// (search_session.hpp wraps it for JSON); `search()` runs one to the end.
//
//   SearchProblem problem{.model = model, .device = device};
//   SearchSpace space;
//   space.pp_degrees = {2, 4, 8};
//   space.cluster = SearchCluster{.world_size = 64, .global_batch_size = 512};
//   const SearchResult r = search(std::move(problem), space, {});
//   r.candidates[0].combination.shape.pp_degree;  // the highest throughput that fits
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ppb/search/infeasibility.hpp"
#include "ppb/search/search_evaluate.hpp"
#include "ppb/search/search_rank.hpp"
#include "ppb/search/search_space.hpp"

namespace ppb {

struct SearchSettings {
  std::int64_t top_k = 20;  // feasible candidates listed (plus Pareto points beyond), infeasible at most
  // None: by throughput when the space is coupled to a cluster (every candidate processes the same
  // global batch on the same devices), else by time per sample.
  std::optional<RankBy> rank_by;
  // Candidates within this fraction of the fastest are a tie, listed simpler first (search_rank.hpp).
  double tie_fraction = kDefaultTieFraction;
  std::int64_t max_candidates = 10'000;  // evaluated at most
  double time_budget_ms = 60'000;        // wall clock for the whole search
  // Time already spent on the request (reading it) when the search starts; it counts against
  // time_budget_ms, so that the budget covers the whole command.
  double spent_before_ms = 0;
};

struct SearchCounts {
  std::int64_t space = 0;      // combinations, skipped ones included
  std::int64_t evaluated = 0;  // balanced and estimated, or ruled out by a rule
  std::int64_t skipped = 0;    // never evaluated (SearchEnumeration::skipped)
  std::int64_t infeasible = 0;
  std::int64_t feasible = 0;
  std::int64_t shown = 0;  // in SearchResult::candidates
};

struct SearchResult {
  std::vector<SearchCandidate> candidates;  // as select_candidates() lists them
  std::vector<std::size_t> pareto;          // indices into candidates
  SearchCounts counts;
  std::vector<ReasonCount> infeasible_groups;  // by reason, in the order of the reasons' text
  std::vector<ReasonCount> skipped_groups;
  // Why candidates[best->candidate] (the first) wins; none when no candidate fits.
  std::optional<BestCandidate> best;
  // When no evaluated candidate fits: why, for the one closest to fitting, and what would fit.
  std::optional<Infeasibility> infeasibility;
  double elapsed_ms = 0;  // time spent reading the request and evaluating
  RankBy rank_by = RankBy::throughput;
  bool partial = false;  // not every combination was evaluated
  // Candidates whose balance the wall-clock cap cut before its work budget: their plans depend on the
  // machine (0 normally).
  std::int64_t stopped_early = 0;
  bool cancelled = false;  // cancelled before the last combination
};

struct SearchProgress {
  std::int64_t done = 0;
  std::int64_t total = 0;
  bool finished = false;
};

class Search {
 public:
  Search(SearchProblem problem, SearchEnumeration enumeration, SearchSettings settings);

  // Evaluates candidates for about `slice_ms` (at least one, unless a budget is spent) and says how
  // far the search is.
  SearchProgress step(double slice_ms);
  // The result so far; `cancelled` tells that the caller stops here. `partial` is set when a
  // combination was left unevaluated (cancelled, a budget, or a space over the enumeration's limit).
  [[nodiscard]] SearchResult result(bool cancelled) const;

  [[nodiscard]] const SearchProblem& problem() const { return problem_; }
  // The measure the result is ranked by: the settings', else the default for the space.
  [[nodiscard]] RankBy rank_by() const;

 private:
  [[nodiscard]] std::optional<Infeasibility> explain_none_fits(const std::vector<std::size_t>& ranked) const;

  SearchProblem problem_;
  SearchEnumeration enumeration_;
  SearchSettings settings_;
  std::vector<SearchCandidate> evaluated_;
  bool budget_hit_ = false;
  double elapsed_ms_ = 0;
};

// Enumerates the space and runs the search to the end.
SearchResult search(SearchProblem problem, const SearchSpace& space, const SearchSettings& settings);

}  // namespace ppb
