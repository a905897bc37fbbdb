// Ranking search candidates and drawing their Pareto front.
#include "ppb/search_rank.hpp"

#include <algorithm>
#include <limits>

namespace ppb {

const char* rank_by_name(RankBy rank_by) {
  switch (rank_by) {
    case RankBy::step_time: return "step_time";
    case RankBy::time_per_sample: return "time_per_sample";
  }
  return "?";
}

std::optional<RankBy> rank_by_from_name(const std::string& name) {
  for (RankBy r : {RankBy::step_time, RankBy::time_per_sample})
    if (name == rank_by_name(r)) return r;
  return std::nullopt;
}

double ranked_time(const CandidateFigures& figures, RankBy rank_by) {
  return rank_by == RankBy::time_per_sample ? figures.time_per_sample_ms : figures.step_time_ms;
}

std::vector<std::size_t> rank_candidates(const std::vector<SearchCandidate>& candidates, RankBy rank_by) {
  std::vector<std::size_t> feasible, infeasible;
  for (std::size_t i = 0; i < candidates.size(); ++i) (candidates[i].feasible ? feasible : infeasible).push_back(i);
  std::stable_sort(feasible.begin(), feasible.end(), [&](std::size_t a, std::size_t b) {
    const CandidateFigures& fa = *candidates[a].figures;
    const CandidateFigures& fb = *candidates[b].figures;
    const double ta = ranked_time(fa, rank_by), tb = ranked_time(fb, rank_by);
    return ta != tb ? ta < tb : fa.peak_mib < fb.peak_mib;
  });
  std::stable_sort(infeasible.begin(), infeasible.end(),
                   [&](std::size_t a, std::size_t b) { return candidates[a].over_mib < candidates[b].over_mib; });
  feasible.insert(feasible.end(), infeasible.begin(), infeasible.end());
  return feasible;
}

std::vector<std::size_t> pareto_front(const std::vector<SearchCandidate>& candidates, RankBy rank_by) {
  // Sorted by (time, peak), a candidate is dominated when one strictly faster holds no more memory,
  // or one equally fast holds strictly less: one sweep instead of comparing every pair.
  struct Point {
    double time, peak;
    std::size_t index;
  };
  std::vector<Point> points;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].feasible)
      points.push_back({ranked_time(*candidates[i].figures, rank_by), candidates[i].figures->peak_mib, i});
  std::sort(points.begin(), points.end(),
            [](const Point& a, const Point& b) { return a.time != b.time ? a.time < b.time : a.peak < b.peak; });
  std::vector<std::size_t> front;
  double least_peak_faster = std::numeric_limits<double>::infinity();  // over strictly faster candidates
  for (std::size_t group = 0; group < points.size();) {
    std::size_t end = group;
    while (end < points.size() && points[end].time == points[group].time) ++end;
    const double least_peak_here = points[group].peak;  // the group is sorted by peak
    for (std::size_t i = group; i < end; ++i)
      if (!(least_peak_faster <= points[i].peak) && !(least_peak_here < points[i].peak))
        front.push_back(points[i].index);
    least_peak_faster = std::min(least_peak_faster, least_peak_here);
    group = end;
  }
  std::sort(front.begin(), front.end());
  return front;
}

SearchSelection select_candidates(const std::vector<SearchCandidate>& candidates, RankBy rank_by, std::int64_t top_k) {
  const std::vector<std::size_t> order = rank_candidates(candidates, rank_by);
  const std::vector<std::size_t> front = pareto_front(candidates, rank_by);
  const auto on_front = [&](std::size_t i) { return std::binary_search(front.begin(), front.end(), i); };
  SearchSelection out;
  std::int64_t feasible_seen = 0, infeasible_seen = 0;
  for (std::size_t i : order) {
    if (candidates[i].feasible) {
      if (feasible_seen++ < top_k || on_front(i)) out.shown.push_back(i);
    } else if (infeasible_seen++ < top_k) {
      out.shown.push_back(i);
    }
  }
  for (std::size_t position = 0; position < out.shown.size(); ++position)
    if (on_front(out.shown[position])) out.pareto.push_back(position);
  return out;
}

}  // namespace ppb
