// The plan over the memory limit by the least. See least_over.hpp.
#include "least_over.hpp"

#include <deque>

namespace ppb::balancer {

std::optional<LeastOver> least_over(const BalanceProblem& p, Budget& budget) {
  if (p.V != p.pp) return std::nullopt;
  const auto V = static_cast<std::size_t>(p.V), L = static_cast<std::size_t>(p.L);
  // over[v][a]: the least largest overshoot of stages v.. when stage v starts at layer a; next the
  // end that gives it (the earliest on ties).
  std::vector<double> rest(L + 1, kInf), over(L + 1, kInf);
  std::vector<std::vector<int>> next(V, std::vector<int>(L + 1, -1));
  rest[L] = -kInf;
  std::deque<int> window;  // ends in [lo, c) by index, values strictly rising from the front
  for (int v = p.V - 1; v >= 0; --v) {
    if (budget.out_of_time()) return std::nullopt;
    const int s = v % p.pp;
    const double held = p.held_at(v), limit = p.limit_for(s);
    const double* const statics = p.prefix_static.data();
    const double* const least = p.prefix_least_act.data();
    const int hi = p.last_end(v);
    auto need = [&](int a, int b) {
      const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
      return (statics[ub] - statics[ua]) + held * (least[ub] - least[ua]) - limit;
    };
    auto& next_v = next[static_cast<std::size_t>(v)];
    window.clear();
    int c = 0;  // the first end where need reaches the least rest over [lo, c]
    for (int a = 0; a <= p.L; ++a) {
      double& best = over[static_cast<std::size_t>(a)];
      best = kInf;
      const int lo = p.first_end(v, a);
      if (lo > hi) continue;
      if (c < lo) {
        c = lo;
        window.clear();
      }
      while (!window.empty() && window.front() < lo) window.pop_front();
      // need(a, b) never falls as b grows and the least rest over [lo, b] never rises, so below c
      // every end is worth its rest alone, and beyond c its need alone, which only grows.
      while (c <= hi) {
        const double rest_c = rest[static_cast<std::size_t>(c)];
        const double least_rest = window.empty() ? rest_c : std::min(rest[static_cast<std::size_t>(window.front())], rest_c);
        if (need(a, c) >= least_rest) break;
        while (!window.empty() && rest[static_cast<std::size_t>(window.back())] > rest_c) window.pop_back();
        window.push_back(c);
        ++c;
      }
      int best_b = -1;
      if (!window.empty() && rest[static_cast<std::size_t>(window.front())] < kInf) {
        best = rest[static_cast<std::size_t>(window.front())];
        best_b = window.front();
      }
      if (c <= hi) {
        const double value = std::max(need(a, c), rest[static_cast<std::size_t>(c)]);
        if (value < best) {
          best = value;
          best_b = c;
        }
      }
      next_v[static_cast<std::size_t>(a)] = best_b;
    }
    rest.swap(over);
  }
  LeastOver out;
  out.overshoot_mib = rest[0];
  if (!(out.overshoot_mib < kInf)) return std::nullopt;
  int a = 0;
  for (std::size_t v = 0; v < V; ++v) out.ends.push_back(a = next[v][static_cast<std::size_t>(a)]);
  return out;
}

std::vector<int> least_activation_options(const BalanceProblem& p) {
  std::vector<int> choice(static_cast<std::size_t>(p.L), -1);
  for (int i = 0; i < p.L; ++i) {
    const Layer& l = p.layer(i);
    double act = l.activation_mib, extra = 0;
    for (int o : p.options.recompute_options)
      if (const auto& r = l.recompute[static_cast<std::size_t>(o)])
        if (r->activation_mib < act || (r->activation_mib == act && r->extra_ms < extra)) {
          act = r->activation_mib;
          extra = r->extra_ms;
          choice[static_cast<std::size_t>(i)] = o;
        }
  }
  return choice;
}

}  // namespace ppb::balancer
