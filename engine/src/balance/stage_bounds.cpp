// The bound of a complete plan from its stage costs. See stage_bounds.hpp.
#include "stage_bounds.hpp"

namespace ppb::balancer {

double StageBounds::plan(const std::vector<VirtualStageCost>& costs) {
  if (p_.V != p_.pp) return 0;
  const int pp = p_.pp;
  // The round trip through the stages after k, from their exact costs; the last stage has none.
  for (int k = pp - 2; k >= 0; --k) {
    const auto& next = costs[static_cast<std::size_t>(k) + 1];
    later_[static_cast<std::size_t>(k)] = later_[static_cast<std::size_t>(k) + 1] + next.forward_ms + next.backward_ms -
                                          (p_.split ? next.weight_ms : 0) +
                                          2 * costs[static_cast<std::size_t>(k)].send_ms;
  }
  double pf = 0, pb = 0, bound = 0;
  for (int k = 0; k < pp; ++k) {
    const auto& c = costs[static_cast<std::size_t>(k)];
    bound =
        std::max(bound, from_costs(k, pf, pb, c.forward_ms, c.backward_ms, later_[static_cast<std::size_t>(k)]).strong);
    pf += c.forward_ms + c.send_ms;
    pb += c.backward_ms + c.send_ms;
  }
  return bound;
}

}  // namespace ppb::balancer
