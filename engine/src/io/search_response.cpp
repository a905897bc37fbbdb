// The search result as JSON.
#include "search_response.hpp"

#include <algorithm>

#include "infeasibility_response.hpp"
#include "ppb/io/response_writer.hpp"
#include "ppb/plan/plan.hpp"

namespace ppb::detail {

using nlohmann::json;

namespace {

json reasons_json(const std::vector<ReasonCount>& groups) {
  json out = json::array();
  for (const ReasonCount& g : groups) out.push_back({{"reason", g.reason}, {"count", g.count}});
  return out;
}

json best_json(const std::optional<BestCandidate>& best) {
  if (!best) return nullptr;
  return {{"candidate", best->candidate},
          {"runner_up", best->runner_up ? json(*best->runner_up) : json(nullptr)},
          {"value", best->value},
          {"runner_up_value", best->runner_up_value ? json(*best->runner_up_value) : json(nullptr)},
          {"lead_fraction", best->lead_fraction ? json(*best->lead_fraction) : json(nullptr)},
          {"tie", best->tied > 1},
          {"tied", best->tied},
          {"tight", best->tight},
          {"headroom_mib", best->headroom_mib ? json(*best->headroom_mib) : json(nullptr)},
          {"reasons", best->reasons}};
}

}  // namespace

json search_candidate_json(const SearchCandidate& c, const Model& model) {
  const PipelineShape& shape = c.combination.shape;
  json out = {{"pp_degree", shape.pp_degree},
              {"vpp_degree", shape.vpp_degree},
              {"micro_batch_num", shape.micro_batch_num},
              {"schedule", schedule_name(shape.schedule)},
              {"dp_degree", c.combination.dp_degree ? json(*c.combination.dp_degree) : json(nullptr)},
              {"feasible", c.feasible}};
  if (!c.feasible) out["reasons"] = c.reasons;
  if (!c.figures) {
    static const char* const figures_of_a_plan[] = {"step_time_ms",
                                                    "time_per_sample_ms",
                                                    "peak_mib",
                                                    "bubble_fraction",
                                                    "imbalance",
                                                    "plan",
                                                    "proven_optimal",
                                                    "within_tolerance",
                                                    "throughput_samples_per_s",
                                                    "even_split",
                                                    "gain_ms",
                                                    "gain_note",
                                                    "throughput",
                                                    "tight"};
    for (const char* key : figures_of_a_plan) out[key] = nullptr;
    return out;
  }
  const CandidateFigures& f = *c.figures;
  out["step_time_ms"] = f.step_time_ms;
  out["time_per_sample_ms"] = f.time_per_sample_ms;
  out["peak_mib"] = f.peak_mib;
  out["bubble_fraction"] = f.bubble_fraction;
  out["imbalance"] = {{"max_over_mean", f.imbalance_max_over_mean}, {"max_minus_min_ms", f.imbalance_max_minus_min_ms}};
  out["plan"] = plan_json(f.plan, model);
  out["proven_optimal"] = f.proven_optimal;
  out["within_tolerance"] = f.within_tolerance ? json(*f.within_tolerance) : json(nullptr);
  out["throughput_samples_per_s"] = f.throughput_samples_per_s;
  out["throughput"] = {
      {"samples_per_s", f.throughput_samples_per_s},
      {"tokens_per_s_per_device", f.tokens_per_s_per_device ? json(*f.tokens_per_s_per_device) : json(nullptr)},
      {"mfu", f.mfu ? json(*f.mfu) : json(nullptr)}};
  out["tight"] = f.tight;
  out["even_split"] = f.even_split ? json{{"step_time_ms", f.even_split->step_time_ms},
                                          {"feasible", f.even_split->feasible},
                                          {"peak_mib", f.even_split->peak_mib}}
                                   : json(nullptr);
  out["gain_ms"] = f.gain_ms ? json(*f.gain_ms) : json(nullptr);
  out["gain_note"] = f.gain_note.empty() ? json(nullptr) : json(f.gain_note);
  return out;
}

json search_result_json(const SearchResult& r, const SearchProblem& problem) {
  const Model& model = problem.model;
  json candidates = json::array();
  for (const SearchCandidate& c : r.candidates) candidates.push_back(search_candidate_json(c, model));
  json caveats = problem.caveats;
  const auto tight = std::count_if(r.candidates.begin(), r.candidates.end(), [](const SearchCandidate& c) {
    return c.figures && c.feasible && c.figures->tight;
  });
  if (tight > 0)
    caveats.push_back(std::to_string(tight) + (tight > 1 ? " candidates shown are" : " candidate shown is") +
                      " tight: marked, they leave less than device.memory_margin of the limit free.");
  return {{"candidates", candidates},
          {"pareto", r.pareto},
          {"counts",
           {{"space", r.counts.space},
            {"evaluated", r.counts.evaluated},
            {"skipped", r.counts.skipped},
            {"infeasible", r.counts.infeasible},
            {"feasible", r.counts.feasible},
            {"shown", r.counts.shown}}},
          {"infeasible_groups", reasons_json(r.infeasible_groups)},
          {"skipped_groups", reasons_json(r.skipped_groups)},
          {"best", best_json(r.best)},
          {"caveats", caveats},
          {"infeasibility", infeasibility_json(r.infeasibility)},
          {"elapsed_ms", r.elapsed_ms},
          {"rank_by", rank_by_name(r.rank_by)},
          {"partial", r.partial},
          {"stopped_early", r.stopped_early},
          {"cancelled", r.cancelled}};
}

}  // namespace ppb::detail
