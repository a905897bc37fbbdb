// A physical stage's best recompute from its chunks' frontiers. See stage_recompute.hpp.
#include "stage_recompute.hpp"

namespace ppb::balancer {

bool StageRecompute::fits_without_recompute(int s, const Ranges& ranges) const {
  const auto& p = problem_;
  double statics = 0, none = 0;
  for (std::size_t c = 0; c < ranges.size(); ++c) {
    const auto [a, b] = ranges[c];
    statics += p.range(p.prefix_static, a, b);
    none += p.held_at(s + static_cast<int>(c) * p.pp) * p.range(p.prefix_act, a, b);
  }
  return fits(none, p.limit_for(s) - statics);
}

double StageRecompute::stage_extra(int s, const Ranges& ranges, std::vector<FrontierPoint>* chosen) {
  const auto& p = problem_;
  double statics = 0, none = 0, least = 0;
  for (std::size_t c = 0; c < ranges.size(); ++c) {
    const auto [a, b] = ranges[c];
    const double h = p.held_at(s + static_cast<int>(c) * p.pp);
    statics += p.range(p.prefix_static, a, b);
    none += h * p.range(p.prefix_act, a, b);
    least += h * p.range(p.prefix_least_act, a, b);
  }
  const double budget = p.limit_for(s) - statics;
  if (fits(none, budget)) {
    if (chosen) {
      chosen->clear();
      for (auto [a, b] : ranges) chosen->push_back({p.range(p.prefix_act, a, b), 0, -1, -1});
    }
    return 0;
  }
  if (!fits(least, budget)) return kInf;
  if (ranges.size() == 1) {
    const auto [a, b] = ranges[0];
    const Frontier& f = frontiers_.frontier(a, b);
    const int k = best_point(f, budget / p.held_at(s));
    if (k < 0) return kInf;
    if (chosen) *chosen = {f[static_cast<std::size_t>(k)]};
    return f[static_cast<std::size_t>(k)].extra;
  }
  // Several chunks share the stage's memory: combine their frontiers, each scaled by how many of its
  // micro batches the stage holds (an upper bound of the simultaneous peak).
  Frontier joint{FrontierPoint{}};
  double error = 0;  // of the chunks' frontiers and of the joint ones
  std::vector<Frontier> parts;
  for (std::size_t c = 0; c < ranges.size(); ++c) {
    const double h = p.held_at(s + static_cast<int>(c) * p.pp);
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

std::vector<int> StageRecompute::layer_options(const std::vector<int>& ends, bool within_limit) {
  const auto& p = problem_;
  std::vector<int> choice(static_cast<std::size_t>(p.L), -1);
  std::vector<Ranges> per_stage(static_cast<std::size_t>(p.pp));
  int a = 0;
  for (int v = 0; v < p.V; ++v) {
    const int b = ends[static_cast<std::size_t>(v)];
    per_stage[static_cast<std::size_t>(v % p.pp)].emplace_back(a, b);
    a = b;
  }
  for (int s = 0; s < p.pp; ++s) {
    const auto& ranges = per_stage[static_cast<std::size_t>(s)];
    std::vector<FrontierPoint> chosen;
    const bool ok = within_limit && stage_extra(s, ranges, &chosen) < kInf;
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
