// The search run in slices: evaluating the enumerated combinations under the budgets, and the
// result so far.
#include "ppb/search.hpp"

#include <chrono>
#include <map>

namespace ppb {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

Search::Search(SearchProblem problem, SearchEnumeration enumeration, SearchSettings settings)
    : problem_(std::move(problem)), enumeration_(std::move(enumeration)), settings_(settings) {}

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

SearchResult Search::result(bool cancelled) const {
  SearchResult out;
  const SearchSelection selection = select_candidates(evaluated_, settings_.rank_by, settings_.top_k);
  for (std::size_t i : selection.shown) out.candidates.push_back(evaluated_[i]);
  out.pareto = selection.pareto;
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
  out.rank_by = settings_.rank_by;
  // A cancel after the last combination cut nothing: the result is whole.
  const bool unfinished = evaluated_.size() < enumeration_.combinations.size();
  out.partial = budget_hit_ || unfinished || enumeration_.over_limit;
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
