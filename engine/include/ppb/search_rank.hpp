// Ranking evaluated search candidates: the measure they are ordered by, their order, the Pareto
// front of that measure against the largest stage peak memory, and which of them a result shows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ppb/search_evaluate.hpp"

namespace ppb {

enum class RankBy {
  step_time,        // the step time (interface.md): fair when every candidate processes the same batch
  time_per_sample,  // the step time over the samples of a step
};

// The contract's name of a measure ("step_time", "time_per_sample"), and back.
const char* rank_by_name(RankBy rank_by);
std::optional<RankBy> rank_by_from_name(const std::string& name);

// The time a balanced candidate is ranked by.
double ranked_time(const CandidateFigures& figures, RankBy rank_by);

// Indices of `candidates` in ranked order: the feasible ones by ranked time (ties: lower peak
// memory), then the infeasible ones, least over the memory limit first; the evaluation order breaks
// the remaining ties.
std::vector<std::size_t> rank_candidates(const std::vector<SearchCandidate>& candidates, RankBy rank_by);

// Indices (ascending) of the feasible candidates on the Pareto front of ranked time against peak
// memory: no other feasible candidate is at most as slow and at most as large, and better in one.
std::vector<std::size_t> pareto_front(const std::vector<SearchCandidate>& candidates, RankBy rank_by);

struct SearchSelection {
  std::vector<std::size_t> shown;   // indices of `candidates`, in the order a result lists them
  std::vector<std::size_t> pareto;  // positions in `shown` of the Pareto front
};

// What a result lists: the `top_k` best feasible candidates, every Pareto point beyond them, then
// up to `top_k` infeasible ones.
SearchSelection select_candidates(const std::vector<SearchCandidate>& candidates, RankBy rank_by, std::int64_t top_k);

}  // namespace ppb
