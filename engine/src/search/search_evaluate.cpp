// One search candidate: ruled out by a rule, or balanced by PPB and estimated.
#include "ppb/search/search_evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ppb/balance/balance.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/schedule/shape_rules.hpp"
#include "ppb/search/infeasibility.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {

namespace {

std::string stage_list(const std::vector<int>& stages) {
  std::string s;
  for (int x : stages) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

SearchCandidate ruled_out(const SearchCombination& combination, std::string group, std::string reason) {
  SearchCandidate out;
  out.combination = combination;
  out.infeasible_group = std::move(group);
  out.reasons = {std::move(reason)};
  return out;
}

// The rule that keeps a combination from being balanced at all, if one does.
std::optional<SearchCandidate> rule_out(const SearchProblem& problem, const SearchCombination& combination) {
  const Model& model = problem.model;
  const PipelineShape& shape = combination.shape;
  const std::int64_t virtual_stages = shape.virtual_stages();
  const std::int64_t units = splittable_units(model);
  if (virtual_stages > units && !problem.allow_empty_stages)
    return ruled_out(
        combination, "more virtual stages than the model has layers to split",
        std::to_string(virtual_stages) + " virtual stages, but the model splits into at most " + std::to_string(units));
  // The search enumerates only shapes that meet these; a C++ caller may pass any.
  if (auto broken = shape_rule_broken(shape)) return ruled_out(combination, broken->group, broken->reason);
  for (const auto& component : problem.components)
    if ((component.step_ms.size() > 1 && component.step_ms.size() != static_cast<std::size_t>(shape.pp_degree)) ||
        (component.memory_mib.size() > 1 && component.memory_mib.size() != static_cast<std::size_t>(shape.pp_degree)))
      return ruled_out(combination, "component lists do not match pp_degree",
                       "component \"" + component.name + "\" gives per-stage values for a different pp_degree");
  return std::nullopt;
}

}  // namespace

SearchCandidate evaluate_candidate(const SearchProblem& problem, const SearchCombination& combination) {
  const PipelineShape& shape = combination.shape;
  if (shape.pp_degree < 1 || shape.vpp_degree < 1 || shape.micro_batch_num < 1)
    throw std::invalid_argument("evaluate_candidate: pp_degree, vpp_degree and micro_batch_num must be at least 1");
  if (auto out = rule_out(problem, combination)) return *out;

  // Where the request states its training state, the candidate's own data-parallel ranks shard it:
  // the model's static memory is held at this candidate's dp (training.hpp).
  std::optional<Model> held_here;
  if (problem.state_rule && combination.dp_degree) {
    held_here = problem.model;
    const StateRule& rule = *problem.state_rule;
    const std::int64_t group = *combination.dp_degree * rule.cp_degree;
    held_here->set_bytes_per_param(
        held_bytes_per_param(rule.unsharded, rule.sharding, group),
        held_bytes_per_param(rule.unsharded, rule.sharding, expert_shard_group(rule, group)));
  }
  const Model& model = held_here ? *held_here : problem.model;
  BalanceOptions options;
  options.recompute_options = problem.recompute_options;
  options.allow_empty_stages = problem.allow_empty_stages;
  options.work_budget = problem.candidate_work;
  options.time_budget_ms = problem.candidate_time_ms;
  options.components = problem.components;
  const BalanceResult found = balance(model, problem.device, shape, options);
  const Estimate e = estimate(model, problem.device, found.plan, false, problem.components);

  SearchCandidate out;
  out.combination = combination;
  out.feasible = e.feasible;
  CandidateFigures f;
  f.plan = found.plan;
  f.step_time_ms = e.step_time_ms;
  for (const auto& s : e.stages) f.peak_mib = std::max(f.peak_mib, s.memory.peak_mib);
  // Samples per step: micro batches x micro batch size (default 1, as in the batch arithmetic) x
  // data-parallel replicas (1 when not known: then every candidate has the same replicas).
  const auto samples = static_cast<double>(shape.micro_batch_num * problem.micro_batch_size.value_or(1) *
                                           combination.dp_degree.value_or(1));
  f.time_per_sample_ms = e.step_time_ms / samples;
  f.bubble_fraction = e.bubble_fraction;
  f.imbalance_max_over_mean = e.imbalance_max_over_mean;
  f.imbalance_max_minus_min_ms = e.imbalance_max_minus_min_ms;
  f.proven_optimal = found.proven_optimal;
  f.stopped_early = found.clock_cut;
  f.within_tolerance = found.within_tolerance;
  f.throughput_samples_per_s = samples / (e.step_time_ms / 1000.0);
  f.mfu = e.mfu;
  f.tokens_per_s_per_device = e.tokens_per_s_per_device;
  f.tight = e.feasible && tight(problem.device, f.peak_mib);
  f.none_fits_proven = balance_proves_none_fits(found);
  // The even split without recompute, when that plan is valid.
  Plan even(shape);
  even.stage_layers = even_stage_layers(model, shape.virtual_stages());
  even.recompute.assign(static_cast<std::size_t>(model.layer_count()), -1);
  if (problem.allow_empty_stages ||
      std::none_of(even.stage_layers.begin(), even.stage_layers.end(), [](int n) { return n == 0; })) {
    const Estimate base = estimate(model, problem.device, even, false, problem.components);
    f.even_split = EvenSplitFigures{base.step_time_ms, base.feasible, 0};
    for (const auto& s : base.stages) f.even_split->peak_mib = std::max(f.even_split->peak_mib, s.memory.peak_mib);
  }
  // A gain over a plan that does not run means nothing: it is given only where the even split fits.
  if (!f.even_split)
    f.gain_note = "the even split would leave a virtual stage empty";
  else if (!f.even_split->feasible)
    f.gain_note = "the even split does not fit: its largest stage needs " +
                  std::to_string(std::llround(f.even_split->peak_mib)) + " MiB, limit " +
                  std::to_string(std::llround(problem.device.memory_limit_mib.value_or(0))) + " MiB";
  else
    f.gain_ms = f.even_split->step_time_ms - f.step_time_ms;
  out.figures = std::move(f);
  if (!e.feasible) {
    std::vector<int> over_stages;
    for (const auto& v : e.violations) {
      const double over = v.peak_mib - v.limit_mib;
      out.over_mib = std::max(out.over_mib, over);
      over_stages.push_back(v.stage);
      out.reasons.push_back("stage " + std::to_string(v.stage) + " needs " + std::to_string(std::llround(v.peak_mib)) +
                            " MiB, limit " + std::to_string(std::llround(v.limit_mib)) + " MiB (" +
                            std::to_string(static_cast<long long>(std::ceil(over))) + " MiB over)");
    }
    out.infeasible_group = over_stages.size() == static_cast<std::size_t>(shape.pp_degree)
                               ? "every stage over the memory limit"
                               : "stages " + stage_list(over_stages) + " over the memory limit";
  }
  return out;
}

}  // namespace ppb
