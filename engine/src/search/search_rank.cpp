// Ranking search candidates and drawing their Pareto front.
#include "ppb/search/search_rank.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/field_reader.hpp"
#include "core/message_text.hpp"

namespace ppb {

const char* rank_by_name(RankBy rank_by) {
  switch (rank_by) {
    case RankBy::throughput: return "throughput";
    case RankBy::time_per_sample: return "time_per_sample";
    case RankBy::step_time: return "step_time";
  }
  return "?";
}

std::optional<RankBy> rank_by_from_name(const std::string& name) {
  for (RankBy r : {RankBy::throughput, RankBy::time_per_sample, RankBy::step_time})
    if (name == rank_by_name(r)) return r;
  return std::nullopt;
}

double ranked_time(const CandidateFigures& figures, RankBy rank_by) {
  return rank_by == RankBy::step_time ? figures.step_time_ms : figures.time_per_sample_ms;
}

namespace {

std::int64_t recomputed_layers(const Plan& plan) {
  return std::count_if(plan.recompute.begin(), plan.recompute.end(), [](int option) { return option >= 0; });
}

// Whether a feasible candidate's ranked time is within tie_fraction of the fastest's.
bool within_tie(const SearchCandidate& c, double fastest, RankBy rank_by, double tie_fraction) {
  return ranked_time(*c.figures, rank_by) <= fastest * (1 + tie_fraction);
}

}  // namespace

bool simpler_first(const SearchCandidate& a, const SearchCandidate& b, RankBy rank_by) {
  const CandidateFigures& fa = *a.figures;
  const CandidateFigures& fb = *b.figures;
  const PipelineShape& sa = a.combination.shape;
  const PipelineShape& sb = b.combination.shape;
  if (fa.tight != fb.tight) return !fa.tight;
  if (sa.pp_degree != sb.pp_degree) return sa.pp_degree < sb.pp_degree;
  if (sa.vpp_degree != sb.vpp_degree) return sa.vpp_degree < sb.vpp_degree;
  const std::int64_t ra = recomputed_layers(fa.plan), rb = recomputed_layers(fb.plan);
  if (ra != rb) return ra < rb;
  return ranked_time(fa, rank_by) < ranked_time(fb, rank_by);
}

std::vector<std::size_t> rank_candidates(const std::vector<SearchCandidate>& candidates, RankBy rank_by,
                                         double tie_fraction) {
  std::vector<std::size_t> feasible, infeasible;
  for (std::size_t i = 0; i < candidates.size(); ++i) (candidates[i].feasible ? feasible : infeasible).push_back(i);
  std::stable_sort(feasible.begin(), feasible.end(), [&](std::size_t a, std::size_t b) {
    const CandidateFigures& fa = *candidates[a].figures;
    const CandidateFigures& fb = *candidates[b].figures;
    const double ta = ranked_time(fa, rank_by), tb = ranked_time(fb, rank_by);
    return ta != tb ? ta < tb : fa.peak_mib < fb.peak_mib;
  });
  if (tie_fraction > 0 && !feasible.empty()) {
    const double fastest = ranked_time(*candidates[feasible.front()].figures, rank_by);
    const auto tie_end = std::find_if(feasible.begin(), feasible.end(), [&](std::size_t i) {
      return !within_tie(candidates[i], fastest, rank_by, tie_fraction);
    });
    std::stable_sort(feasible.begin(), tie_end, [&](std::size_t a, std::size_t b) {
      return simpler_first(candidates[a], candidates[b], rank_by);
    });
  }
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

SearchSelection select_candidates(const std::vector<SearchCandidate>& candidates, RankBy rank_by, std::int64_t top_k,
                                  double tie_fraction) {
  const std::vector<std::size_t> order = rank_candidates(candidates, rank_by, tie_fraction);
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

namespace {

std::string percent(double fraction) { return number_text(std::round(fraction * 1000) / 10) + "%"; }

std::string describe(const SearchCandidate& c) {
  const PipelineShape& s = c.combination.shape;
  return "pp " + std::to_string(s.pp_degree) + (s.vpp_degree > 1 ? ", vpp " + std::to_string(s.vpp_degree) : "") +
         ", " + schedule_name(s.schedule) + ", " + std::to_string(s.micro_batch_num) + " micro batches";
}

double measure(const CandidateFigures& f, RankBy rank_by) {
  return rank_by == RankBy::throughput ? f.throughput_samples_per_s : ranked_time(f, rank_by);
}

std::string measure_text(double value, RankBy rank_by) {
  switch (rank_by) {
    case RankBy::throughput: return number_text(value) + " samples/s";
    case RankBy::time_per_sample: return number_text(value) + " ms per sample";
    case RankBy::step_time: return number_text(value) + " ms per step";
  }
  return number_text(value);
}

}  // namespace

std::optional<BestCandidate> explain_best(const std::vector<SearchCandidate>& candidates,
                                          const std::vector<std::size_t>& ranked, RankBy rank_by, const Device& device,
                                          double tie_fraction) {
  std::vector<std::size_t> feasible;
  for (std::size_t i : ranked)
    if (candidates[i].feasible) feasible.push_back(i);
  if (feasible.empty()) return std::nullopt;
  BestCandidate out;
  out.candidate = feasible[0];
  const CandidateFigures& best = *candidates[out.candidate].figures;
  out.value = measure(best, rank_by);
  out.tight = best.tight;
  const std::optional<double> limit = device.memory_limit_mib;
  if (limit) out.headroom_mib = *limit - best.peak_mib;
  double fastest = ranked_time(best, rank_by);
  for (std::size_t i : feasible) fastest = std::min(fastest, ranked_time(*candidates[i].figures, rank_by));
  out.tied = std::count_if(feasible.begin(), feasible.end(), [&](std::size_t i) {
    return ranked_time(*candidates[i].figures, rank_by) <= fastest * (1 + tie_fraction);
  });
  const char* const by = rank_by == RankBy::throughput        ? "the highest throughput"
                         : rank_by == RankBy::time_per_sample ? "the least time per sample"
                                                              : "the shortest step";
  if (feasible.size() < 2) {
    out.reasons.push_back("the only candidate that fits in memory: " + measure_text(out.value, rank_by) + ".");
  } else {
    out.runner_up = feasible[1];
    const SearchCandidate& next = candidates[*out.runner_up];
    const CandidateFigures& n = *next.figures;
    out.runner_up_value = measure(n, rank_by);
    out.lead_fraction = ranked_time(n, rank_by) / ranked_time(best, rank_by) - 1;
    const std::string next_text = describe(next) + ": " + measure_text(*out.runner_up_value, rank_by);
    if (out.tied > 1)
      out.reasons.push_back("a tie: " + std::to_string(out.tied) + " plans are within " + percent(tie_fraction) +
                            " of the fastest by " + rank_by_name(rank_by) +
                            ", inside the estimate's uncertainty; the simplest comes first (the memory margin free, "
                            "fewer stages, no interleaving, less recompute): " +
                            measure_text(out.value, rank_by) + ", the next (" + next_text + ").");
    else if (*out.lead_fraction > 0)
      out.reasons.push_back(std::string(by) + ": " + measure_text(out.value, rank_by) + ", " +
                            percent(*out.lead_fraction) + " ahead of the next (" + next_text + ").");
    else
      out.reasons.push_back("tied by " + std::string(rank_by_name(rank_by)) + " with the next (" + next_text +
                            "), which holds more memory.");
    if (rank_by != RankBy::step_time)
      out.reasons.push_back("step time " + number_text(best.step_time_ms) + " ms against " +
                            number_text(n.step_time_ms) + " ms.");
    out.reasons.push_back("bubble " + percent(best.bubble_fraction) + " of the step against " +
                          percent(n.bubble_fraction) + ".");
  }
  if (limit) {
    std::string memory = "largest stage " + figure_text(std::round(best.peak_mib)) + " MiB, " +
                         figure_text(std::round(*out.headroom_mib)) + " MiB under the " +
                         figure_text(std::round(*limit)) + " MiB limit";
    if (out.runner_up)
      memory += " (the next: " + figure_text(std::round(*limit - candidates[*out.runner_up].figures->peak_mib)) +
                " MiB under)";
    out.reasons.push_back(memory + ".");
    if (out.tight) {
      const auto roomy =
          std::find_if(feasible.begin(), feasible.end(), [&](std::size_t i) { return !candidates[i].figures->tight; });
      out.reasons.push_back("tight: less than the memory margin (" + percent(device.memory_margin) + ", " +
                            figure_text(std::round(device.memory_margin * *limit)) + " MiB) is left free; " +
                            (roomy == feasible.end()
                                 ? std::string("no plan found leaves it free.")
                                 : "the best that leaves it free: " + describe(candidates[*roomy]) + ": " +
                                       measure_text(measure(*candidates[*roomy].figures, rank_by), rank_by) + "."));
    }
  } else {
    out.reasons.push_back("largest stage " + figure_text(std::round(best.peak_mib)) + " MiB (no memory limit given).");
  }
  return out;
}

}  // namespace ppb
