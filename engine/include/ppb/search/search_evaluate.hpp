// Evaluating one point of the search space: the rules that rule a combination out before it can
// be balanced, then PPB's plan for it (docs/ppb.md), its estimate, the samples it processes and the
// even split beside it.
//
//   SearchProblem problem{.model = model, .device = device};
//   const SearchCandidate c = evaluate_candidate(problem, {PipelineShape{4, 1, 32, Schedule::one_f_one_b}, 8});
//   if (c.figures) use(c.figures->step_time_ms, c.figures->plan);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ppb/balance/balance.hpp"
#include "ppb/model/device.hpp"
#include "ppb/model/model.hpp"
#include "ppb/model/stage_component.hpp"
#include "ppb/plan/plan.hpp"
#include "ppb/search/search_space.hpp"

namespace ppb {

// What every candidate of one search shares: the model, the device and how to balance.
struct SearchProblem {
  Model model;
  Device device;
  std::vector<StageComponent> components;
  std::vector<int> recompute_options;  // indices into Model::recompute_options PPB may use
  bool allow_empty_stages = false;
  std::int64_t candidate_work = kDefaultCandidateWork;  // PPB's work budget per candidate (BalanceOptions)
  double candidate_time_ms = 1000;                      // its wall-clock safety cap per candidate
  // Samples per micro batch; none counts as 1, as in the batch arithmetic.
  std::optional<std::int64_t> micro_batch_size;
  // The request's training state: where set, each candidate holds the model's state sharded over
  // its own data-parallel ranks (the model as given holds it at the request's dp).
  std::optional<StateRule> state_rule;
  std::vector<std::string> caveats;  // what the candidates' estimates leave out (caveats.hpp)
};

struct EvenSplitFigures {  // the even split without recompute on the same shape
  double step_time_ms = 0;
  bool feasible = false;
  double peak_mib = 0;  // its largest stage peak
};

// The figures of a balanced candidate.
struct CandidateFigures {
  Plan plan;
  double step_time_ms = 0;
  double time_per_sample_ms = 0;  // step time over micro_batch_num x micro_batch_size x dp_degree
  double peak_mib = 0;            // the largest stage peak
  double bubble_fraction = 0;
  double imbalance_max_over_mean = 1;
  double imbalance_max_minus_min_ms = 0;
  bool proven_optimal = false;
  std::optional<double> within_tolerance;
  // Samples per second: micro_batch_num x micro_batch_size x dp_degree (1 when not known: then of
  // one pipeline) per step.
  double throughput_samples_per_s = 0;
  std::optional<double> mfu;  // as the estimate's (estimate.hpp)
  std::optional<double> tokens_per_s_per_device;
  bool tight = false;          // fits, but leaves less than device.memory_margin of the limit free (device.hpp)
  bool stopped_early = false;  // its balance was cut by the wall-clock cap (candidate_time_ms), not its work
  std::optional<EvenSplitFigures> even_split;  // none when it would leave a virtual stage empty
  // Even split step time less this one, only where the even split fits; otherwise gain_note says why not.
  std::optional<double> gain_ms;
  std::string gain_note;
  // The balance proved that no plan of this shape fits (its least-over plan is over the limit).
  bool none_fits_proven = false;
};

struct SearchCandidate {
  SearchCombination combination;
  bool feasible = false;
  // None when a rule ruled the combination out before it could be balanced.
  std::optional<CandidateFigures> figures;
  std::vector<std::string> reasons;  // infeasible only: each stage over the limit, or the rule broken
  std::string infeasible_group;      // infeasible only: the reason as a category
  double over_mib = 0;               // infeasible only: the largest overshoot of the memory limit
};

// Balances and estimates one combination. Throws std::invalid_argument on a shape no request can
// state (a degree or micro_batch_num below 1): a caller's bug, not a property of the candidate.
SearchCandidate evaluate_candidate(const SearchProblem& problem, const SearchCombination& combination);

}  // namespace ppb
