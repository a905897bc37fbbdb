// The plan over the memory limit by the least. See least_over.hpp.
#include "least_over.hpp"

namespace ppb::balancer {

std::vector<int> least_over_ends(const BalanceProblem& p) {
  // Minimise the largest overshoot with the most activation-saving recompute, one chunk per stage as
  // a relaxation for vpp > 1 (the even split is kept when that does not apply).
  if (p.V != p.pp) return p.even_ends();
  const auto V = static_cast<std::size_t>(p.V), L = static_cast<std::size_t>(p.L);
  std::vector<std::vector<double>> over(V + 1, std::vector<double>(L + 1, kInf));
  std::vector<std::vector<int>> next(V, std::vector<int>(L + 1, -1));
  over[V][L] = -kInf;
  for (int v = p.V - 1; v >= 0; --v)
    for (int a = 0; a <= p.L; ++a) {
      double& best = over[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)];
      for (int b = p.first_end(v, a); b <= p.last_end(v); ++b) {
        const double after = over[static_cast<std::size_t>(v) + 1][static_cast<std::size_t>(b)];
        if (after == kInf) continue;
        const double need = p.range(p.prefix_static, a, b) + p.held_at(v) * p.range(p.prefix_least_act, a, b) -
                            p.limit_for(v % p.pp);
        if (need >= best) break;  // grows with b
        const double value = std::max(need, after);
        if (value < best) {
          best = value;
          next[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)] = b;
        }
      }
    }
  std::vector<int> ends;
  int a = 0;
  for (std::size_t v = 0; v < V; ++v) ends.push_back(a = next[v][static_cast<std::size_t>(a)]);
  return ends;
}

}  // namespace ppb::balancer
