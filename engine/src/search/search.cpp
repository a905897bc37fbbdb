// The search run in slices: evaluating the enumerated combinations under the budgets, and the
// result so far.
#include "ppb/search/search.hpp"

#include <chrono>
#include <map>

namespace ppb {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

Search::Search(SearchProblem problem, SearchEnumeration enumeration, SearchSettings settings)
    : problem_(std::move(problem)),
      enumeration_(std::move(enumeration)),
      settings_(settings),
      elapsed_ms_(settings.spent_before_ms) {}

SearchProgress Search::step(double slice_ms) {
  const auto total = static_cast<std::int64_t>(enumeration_.combinations.size());
  const Clock::time_point begin = Clock::now();
  do {
    if (evaluated_.size() >= enumeration_.combinations.size()) break;
    if (static_cast<std::int64_t>(evaluated_.size()) >= settings_.max_candidates ||
        elapsed_ms_ + ms_since(begin) > settings_.time_budget_ms) {
      budget_hit_ = true;
      break;
    }
    evaluated_.push_back(evaluate_candidate(problem_, enumeration_.combinations[evaluated_.size()]));
  } while (ms_since(begin) < slice_ms);
  elapsed_ms_ += ms_since(begin);
  const auto done = static_cast<std::int64_t>(evaluated_.size());
  return {done, total, done >= total || budget_hit_};
}

RankBy Search::rank_by() const {
  return settings_.rank_by.value_or(enumeration_.stated.cluster ? RankBy::throughput : RankBy::time_per_sample);
}

// Explained for the balanced candidate closest to fitting (the first infeasible one ranked); larger
// pp_degrees are tried as the space would have them, coupled to the cluster when it is.
std::optional<Infeasibility> Search::explain_none_fits(const std::vector<std::size_t>& ranked) const {
  for (std::size_t i : ranked) {
    const SearchCandidate& c = evaluated_[i];
    if (c.feasible) return std::nullopt;
    if (!c.figures) continue;
    BalanceOptions options;
    options.recompute_options = problem_.recompute_options;
    options.allow_empty_stages = problem_.allow_empty_stages;
    options.components = problem_.components;
    const PipelineShape& shape = c.combination.shape;
    const auto other_pp_degree = [&](int pp_degree) -> std::optional<PipelineShape> {
      SearchSpace one = enumeration_.stated;
      one.pp_degrees = {pp_degree};
      one.vpp_degrees = {shape.vpp_degree};
      one.schedules = {shape.schedule};
      if (!one.cluster) one.micro_batch_nums = {shape.micro_batch_num};
      const SearchEnumeration e = enumerate_search_space(one, 1);
      if (e.combinations.empty()) return std::nullopt;
      return e.combinations.front().shape;
    };
    return explain_infeasibility(problem_.model, problem_.device, shape, options, c.figures->peak_mib,
                                 c.figures->none_fits_proven, other_pp_degree);
  }
  return std::nullopt;
}

SearchResult Search::result(bool cancelled) const {
  SearchResult out;
  out.rank_by = rank_by();
  const SearchSelection selection = select_candidates(evaluated_, out.rank_by, settings_.top_k, settings_.tie_fraction);
  for (std::size_t i : selection.shown) out.candidates.push_back(evaluated_[i]);
  out.pareto = selection.pareto;
  std::vector<std::size_t> shown_order(out.candidates.size());
  for (std::size_t i = 0; i < shown_order.size(); ++i) shown_order[i] = i;
  out.best = explain_best(out.candidates, shown_order, out.rank_by, problem_.device, settings_.tie_fraction);
  if (!out.best) out.infeasibility = explain_none_fits(rank_candidates(evaluated_, out.rank_by));
  std::map<std::string, std::int64_t> groups;
  for (const SearchCandidate& c : evaluated_) {
    if (c.feasible)
      ++out.counts.feasible;
    else
      ++groups[c.infeasible_group];
  }
  for (const auto& [reason, count] : groups) out.infeasible_groups.push_back({reason, count});
  out.skipped_groups = enumeration_.skipped;
  out.counts.space = enumeration_.space;
  out.counts.evaluated = static_cast<std::int64_t>(evaluated_.size());
  for (const ReasonCount& s : enumeration_.skipped) out.counts.skipped += s.count;
  out.counts.infeasible = out.counts.evaluated - out.counts.feasible;
  out.counts.shown = static_cast<std::int64_t>(out.candidates.size());
  out.elapsed_ms = elapsed_ms_;
  // A cancel after the last combination cut nothing: the result is whole.
  const bool unfinished = evaluated_.size() < enumeration_.combinations.size();
  out.partial = budget_hit_ || unfinished || enumeration_.over_limit;
  for (const SearchCandidate& c : evaluated_) out.stopped_early += c.figures && c.figures->stopped_early ? 1 : 0;
  out.cancelled = cancelled && unfinished;
  return out;
}

SearchResult search(SearchProblem problem, const SearchSpace& space, const SearchSettings& settings) {
  Search s(std::move(problem), enumerate_search_space(space), settings);
  while (!s.step(1e9).finished) {
  }
  return s.result(false);
}

}  // namespace ppb
