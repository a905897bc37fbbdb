// Ranking evaluated search candidates: the measure they are ordered by, their order, the Pareto
// front of that measure against the largest stage peak memory, and which of them a result shows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ppb/search/search_evaluate.hpp"

namespace ppb {

enum class RankBy {
  throughput,       // samples per second of the devices a candidate runs on (the whole cluster, when coupled)
  time_per_sample,  // the step time over the samples of a step
  step_time,  // the step time (the interface specification's ranking): fair when every candidate processes the same
              // batch
};

// The contract's name of a measure ("throughput", "time_per_sample", "step_time"), and back.
const char* rank_by_name(RankBy rank_by);
std::optional<RankBy> rank_by_from_name(const std::string& name);

// The time a balanced candidate is ranked by: throughput ranks by the time per sample, its inverse.
double ranked_time(const CandidateFigures& figures, RankBy rank_by);

// Indices of `candidates` in ranked order: the feasible ones by ranked time (ties: lower peak
// memory), then the infeasible ones, least over the memory limit first; the evaluation order breaks
// the remaining ties. The feasible candidates within `tie_fraction` of the fastest are a tie, the
// estimate's own uncertainty: among them the simpler plan comes first (simpler_first).
std::vector<std::size_t> rank_candidates(const std::vector<SearchCandidate>& candidates, RankBy rank_by,
                                         double tie_fraction = 0);

// The order of a tie: a plan that leaves the memory margin free before a tight one, then fewer
// stages, no interleaving (fewer chunks), fewer recomputed layers, and last the faster.
bool simpler_first(const SearchCandidate& a, const SearchCandidate& b, RankBy rank_by);

// The default tie_fraction: differences under 1% are inside what the layer costs themselves vary by
// between runs (docs/search.md).
constexpr double kDefaultTieFraction = 0.01;

// Indices (ascending) of the feasible candidates on the Pareto front of ranked time against peak
// memory: no other feasible candidate is at most as slow and at most as large, and better in one.
std::vector<std::size_t> pareto_front(const std::vector<SearchCandidate>& candidates, RankBy rank_by);

struct SearchSelection {
  std::vector<std::size_t> shown;   // indices of `candidates`, in the order a result lists them
  std::vector<std::size_t> pareto;  // positions in `shown` of the Pareto front
};

// What a result lists: the `top_k` best feasible candidates, every Pareto point beyond them, then
// up to `top_k` infeasible ones.
SearchSelection select_candidates(const std::vector<SearchCandidate>& candidates, RankBy rank_by, std::int64_t top_k,
                                  double tie_fraction = 0);

// Why the first of ranked candidates wins: its measure against the next feasible one's, step time,
// bubble and memory headroom side by side.
struct BestCandidate {
  std::size_t candidate = 0;             // index of the winner
  std::optional<std::size_t> runner_up;  // index of the next feasible candidate, when there is one
  double value = 0;                      // the winner's measure, in its unit (samples/s, ms/sample, ms)
  std::optional<double> runner_up_value;
  // How much better the winner is by the measure: the runner-up's time over the winner's, less 1.
  std::optional<double> lead_fraction;
  std::optional<double> headroom_mib;  // memory limit less the winner's largest stage peak
  // Feasible candidates within tie_fraction of the fastest, the winner among them (1: no tie).
  std::int64_t tied = 1;
  bool tight = false;                // the winner leaves less than device.memory_margin free
  std::vector<std::string> reasons;  // sentences: the measure and the lead, step time, bubble, memory
};

// The reasons of the first feasible candidate in `ranked` (indices of `candidates` in ranked
// order); none when no candidate is feasible.
std::optional<BestCandidate> explain_best(const std::vector<SearchCandidate>& candidates,
                                          const std::vector<std::size_t>& ranked, RankBy rank_by, const Device& device,
                                          double tie_fraction = 0);

}  // namespace ppb
