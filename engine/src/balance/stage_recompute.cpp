// A physical stage's best recompute from its chunks' frontiers. See stage_recompute.hpp.
#include "stage_recompute.hpp"

#include <algorithm>

namespace ppb::balancer {

double StageRecompute::peak(int s, const double* acts) const {
  double most = 0;
  for (const std::vector<double>& counts : problem_.peaks[static_cast<std::size_t>(s)]) {
    double held = 0;
    for (std::size_t c = 0; c < counts.size(); ++c) held += counts[c] * acts[c];
    most = std::max(most, held);
  }
  return most;
}

bool StageRecompute::fits_without_recompute(int s, const Ranges& ranges) const {
  const auto& p = problem_;
  double statics = 0;
  none_.resize(ranges.size());
  for (std::size_t c = 0; c < ranges.size(); ++c) {
    const auto [a, b] = ranges[c];
    statics += p.range(p.prefix_static, a, b);
    none_[c] = p.range(p.prefix_act, a, b);
  }
  return fits(peak(s, none_.data()), p.limit_for(s) - statics);
}

double StageRecompute::stage_extra(int s, const Ranges& ranges, std::vector<FrontierPoint>* chosen,
                                   std::vector<Choice>* all) {
  if (all) all->clear();
  const double extra = least_extra(s, ranges, chosen, all);
  if (all && all->empty() && chosen && extra < kInf) all->push_back(*chosen);
  return extra;
}

double StageRecompute::least_extra(int s, const Ranges& ranges, std::vector<FrontierPoint>* chosen,
                                   std::vector<Choice>* all) {
  const auto& p = problem_;
  double statics = 0;
  none_.resize(ranges.size());
  least_.resize(ranges.size());
  for (std::size_t c = 0; c < ranges.size(); ++c) {
    const auto [a, b] = ranges[c];
    statics += p.range(p.prefix_static, a, b);
    none_[c] = p.range(p.prefix_act, a, b);
    least_[c] = p.range(p.prefix_least_act, a, b);
  }
  const double budget = p.limit_for(s) - statics;
  if (fits(peak(s, none_.data()), budget)) {
    if (chosen) {
      chosen->clear();
      for (auto [a, b] : ranges) chosen->push_back({p.range(p.prefix_act, a, b), 0, -1, -1});
    }
    return 0;
  }
  // Every plan keeps at least the least activation on every chunk, so when that is over, all are.
  if (!fits(peak(s, least_.data()), budget)) return kInf;
  if (ranges.size() == 1) {
    const auto [a, b] = ranges[0];
    const Frontier& f = frontiers_.frontier(a, b);
    const int k = best_point(f, budget / p.held_at(p.virtual_of(s, 0)));
    if (k < 0) return kInf;
    if (chosen) *chosen = {f[static_cast<std::size_t>(k)]};
    return f[static_cast<std::size_t>(k)].extra;
  }
  return chunks_extra(s, ranges, budget, chosen, all);
}

// Several chunks share the stage's memory: the stage fits when sum_c count_c x act_c fits for every
// count vector of its program (an exact condition, not the sum of each chunk's largest count). Every
// combination of points of the chunks but the last is tried, in order of activation (stopping where
// even the least activation of the chunks after it no longer fits); the last chunk takes the point
// with the largest activation the remaining memory of every count vector allows, which has the least
// extra time. O(product of the first chunks' frontier sizes x log of the last's); beyond
// kMaxCombinations the conservative joint frontier is used instead (joint_extra).
double StageRecompute::chunks_extra(int s, const Ranges& ranges, double budget, std::vector<FrontierPoint>* chosen,
                                    std::vector<Choice>* all) {
  const auto& vectors = problem_.peaks[static_cast<std::size_t>(s)];
  const std::size_t C = ranges.size(), K = vectors.size();
  std::vector<const Frontier*> f(C);
  double error = 0, combinations = 1;
  for (std::size_t c = 0; c < C; ++c) {
    f[c] = &frontiers_.frontier(ranges[c].first, ranges[c].second);
    error += f[c]->error;
    if (c + 1 < C) combinations *= static_cast<double>(f[c]->size());
  }
  if (combinations > kMaxCombinations) {
    memory_conservative_ = true;
    return joint_extra(s, ranges, budget, chosen);
  }
  frontiers_.note_error(error);
  const double* const least = least_.data();
  // Every fitting combination is a candidate choice; beyond kMaxCandidates of them (three chunks or
  // more) only the least summed one is kept, and the answer is not proven.
  if (all && C > 2 && combinations > kMaxCandidates) {
    choices_incomplete_ = true;
    all = nullptr;
  }
  // used[c][k]: the memory of count vector k taken by chunks before c.
  std::vector<std::vector<double>> used(C, std::vector<double>(K, 0));
  // after[c][k]: the least memory of count vector k the chunks from c on can take.
  std::vector<std::vector<double>> after(C + 1, std::vector<double>(K, 0));
  for (std::size_t c = C; c-- > 0;)
    for (std::size_t k = 0; k < K; ++k) after[c][k] = after[c + 1][k] + vectors[k][c] * least[c];
  std::vector<int> pick(C, 0), best_pick(C, 0);
  std::vector<Choice> candidates;  // with `all`: every fitting combination, the last chunk at its best
  double best = kInf;
  std::int64_t work = 0;
  const auto search = [&](auto&& self, std::size_t c, double extra) -> void {
    const Frontier& fc = *f[c];
    if (c + 1 == C) {
      double room = kInf;
      for (std::size_t k = 0; k < K; ++k)
        if (vectors[k][c] > 0) room = std::min(room, (budget - used[c][k]) / vectors[k][c]);
      ++work;
      const int i = best_point(fc, room);
      if (i < 0) return;
      pick[c] = i;
      if (all) {
        candidates.emplace_back();
        for (std::size_t x = 0; x < C; ++x) candidates.back().push_back((*f[x])[static_cast<std::size_t>(pick[x])]);
      }
      if (extra + fc[static_cast<std::size_t>(i)].extra < best) {
        best = extra + fc[static_cast<std::size_t>(i)].extra;
        best_pick = pick;
      }
      return;
    }
    for (std::size_t i = 0; i < fc.size(); ++i) {
      bool room = true;
      for (std::size_t k = 0; k < K; ++k) {
        used[c + 1][k] = used[c][k] + vectors[k][c] * fc[i].act;
        room = room && fits(used[c + 1][k] + after[c + 1][k], budget);
      }
      if (!room) break;  // activation only grows along the frontier
      pick[c] = static_cast<int>(i);
      self(self, c + 1, extra + fc[i].extra);
    }
  };
  search(search, 0, 0.0);
  budget_.add_work(work / 64);
  if (best == kInf) return kInf;
  if (chosen) {
    chosen->clear();
    for (std::size_t c = 0; c < C; ++c) chosen->push_back((*f[c])[static_cast<std::size_t>(best_pick[c])]);
  }
  if (all) pareto_choices(candidates, *all);
  return best;
}

// Keeps the candidates whose per-chunk extra times no other candidate matches or beats in every
// chunk, least summed extra first.
void StageRecompute::pareto_choices(std::vector<Choice>& candidates, std::vector<Choice>& out) {
  out.clear();
  if (candidates.empty()) return;
  const std::size_t C = candidates[0].size();
  budget_.add_work(static_cast<std::int64_t>(candidates.size() * C / 16));
  const auto sum = [](const Choice& x) {
    double t = 0;
    for (const FrontierPoint& p : x) t += p.extra;
    return t;
  };
  if (C == 2) {
    // Two chunks: by the first chunk's extra time, a choice is kept when the second's is less than
    // every earlier one's.
    std::sort(candidates.begin(), candidates.end(), [](const Choice& x, const Choice& y) {
      return x[0].extra < y[0].extra || (x[0].extra == y[0].extra && x[1].extra < y[1].extra);
    });
    double least = kInf;
    for (Choice& c : candidates)
      if (c[1].extra < least) {
        least = c[1].extra;
        out.push_back(std::move(c));
      }
  } else {
    std::vector<std::pair<double, std::size_t>> order;
    order.reserve(candidates.size());
    for (std::size_t i = 0; i < candidates.size(); ++i) order.emplace_back(sum(candidates[i]), i);
    std::sort(order.begin(), order.end());
    const auto covers = [](const Choice& x, const Choice& y) {  // x no worse than y in every chunk
      for (std::size_t c = 0; c < x.size(); ++c)
        if (x[c].extra > y[c].extra) return false;
      return true;
    };
    for (const auto& [total, i] : order) {
      Choice& c = candidates[i];
      if (std::any_of(out.begin(), out.end(), [&](const Choice& kept) { return covers(kept, c); })) continue;
      out.push_back(std::move(c));
    }
  }
  // The least summed extra first (the choice simulated when the combinations are cut).
  std::stable_sort(out.begin(), out.end(), [&](const Choice& x, const Choice& y) { return sum(x) < sum(y); });
}

// The joint frontier of the chunks, each scaled by the largest count of its chunk: their sum is an
// upper bound of the stage's peak, so a plan it rules out may fit (the answer then says it is not
// proven).
double StageRecompute::joint_extra(int s, const Ranges& ranges, double budget, std::vector<FrontierPoint>* chosen) {
  const auto& p = problem_;
  Frontier joint{FrontierPoint{}};
  double error = 0;  // of the chunks' frontiers and of the joint ones
  std::vector<Frontier> parts;
  for (std::size_t c = 0; c < ranges.size(); ++c) {
    const double h = p.held_at(p.virtual_of(s, static_cast<int>(c)));
    const Frontier& f = frontiers_.frontier(ranges[c].first, ranges[c].second);
    Frontier next;
    next.reserve(joint.size() * f.size());
    error += f.error;
    for (std::size_t i = 0; i < joint.size(); ++i)
      for (std::size_t j = 0; j < f.size(); ++j)
        next.push_back(
            {joint[i].act + h * f[j].act, joint[i].extra + f[j].extra, static_cast<int>(i), static_cast<int>(j)});
    budget_.add_work(static_cast<std::int64_t>(next.size() / 64));
    prune(next);
    error += next.error;
    parts.push_back(next);
    joint.swap(next);
  }
  frontiers_.note_error(error);
  const int k = best_point(joint, budget);
  if (k < 0) return kInf;
  if (chosen) {
    chosen->assign(ranges.size(), FrontierPoint{});
    int idx = k;
    for (std::size_t c = ranges.size(); c-- > 0;) {
      const FrontierPoint& point = parts[c][static_cast<std::size_t>(idx)];
      (*chosen)[c] = frontiers_.frontier(ranges[c].first, ranges[c].second)[static_cast<std::size_t>(point.option)];
      idx = point.parent;
    }
  }
  return joint[static_cast<std::size_t>(k)].extra;
}

std::vector<int> StageRecompute::layer_options(const std::vector<int>& ends, bool within_limit,
                                               const std::vector<Choice>* choices) {
  const auto& p = problem_;
  std::vector<int> choice(static_cast<std::size_t>(p.L), -1);
  std::vector<Ranges> per_stage(static_cast<std::size_t>(p.pp));
  int a = 0;
  for (int v = 0; v < p.V; ++v) {
    const int b = ends[static_cast<std::size_t>(v)];
    per_stage[static_cast<std::size_t>(p.stage_of(v))].emplace_back(a, b);
    a = b;
  }
  for (int s = 0; s < p.pp; ++s) {
    const auto& ranges = per_stage[static_cast<std::size_t>(s)];
    std::vector<FrontierPoint> chosen;
    const bool given = choices && static_cast<std::size_t>(s) < choices->size();
    if (given) chosen = (*choices)[static_cast<std::size_t>(s)];
    const bool ok = within_limit && (given || stage_extra(s, ranges, &chosen) < kInf);
    if (ok && fits_without_recompute(s, ranges)) continue;  // "none" everywhere: no frontier needed
    for (std::size_t c = 0; c < ranges.size(); ++c) {
      const auto [x, y] = ranges[c];
      const Frontier& f = frontiers_.frontier(x, y);
      // Within the limit: the least extra time that fits; otherwise the least activation.
      const int k = ok ? best_point(f, chosen[c].act) : 0;
      frontiers_.choose_layers(x, y, k, choice);
    }
  }
  return choice;
}

}  // namespace ppb::balancer
