// Prices on memory (internal to the engine): lower bounds of a physical stage's recompute time that
// are sums over its layers. With several chunks per stage the layers not yet placed are charged for
// the recompute they will need wherever they go; with one chunk they bound a range's least recompute
// without its frontier (the relaxed bound table). Each is the Lagrangian relaxation
// of the stage's memory condition at one of its count vectors and one price; the argument is in
// docs/ppb.md (bounds for every schedule, 4).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "balance_problem.hpp"

namespace ppb::balancer {

class RecomputePrice {
 public:
  explicit RecomputePrice(const BalanceProblem& problem);

  // Whether any stage has a positive price (a memory limit, recompute options that save memory, tables
  // of a bounded size); otherwise there is nothing beyond the bounds of work alone.
  [[nodiscard]] bool active() const { return active_; }
  // The prices of stage s: each gives a bound of its own.
  [[nodiscard]] int prices(int s) const { return prices_[static_cast<std::size_t>(s)]; }
  // What layers [a, b) as chunk c of stage s charge at price j: m x (their work, less the
  // communication an F&B pair hides, plus each layer's least priced recompute: its extra time plus
  // its memory at the price).
  [[nodiscard]] double charged(int s, int c, int j, int a, int b) const {
    const auto& prefix = charged_[index(s, c, j)];
    return prefix[static_cast<std::size_t>(b)] - prefix[static_cast<std::size_t>(a)];
  }
  // m x price j x the stage's memory for layers: taken off the stage's charges once.
  [[nodiscard]] double rebate(int s, int j) const {
    return rebate_[static_cast<std::size_t>(s) * kMaxPrices + static_cast<std::size_t>(j)];
  }
  // The least charge per ms of (m x) work of any layer as chunk c of stage s at price j: a layer of
  // work w placed there charges at least rate x m x w.
  [[nodiscard]] double rate(int s, int c, int j) const { return rate_[index(s, c, j)]; }

  // One chunk per stage: a lower bound of the least recompute time of stage s holding [a, b), the
  // best over its prices, a little below it so that rounding never lifts it above the exact value.
  [[nodiscard]] double extra_bound(int s, int a, int b) const {
    double best = 0;
    const double work = m_ * (p_.range(p_.prefix_f, a, b) + p_.range(p_.prefix_b, a, b));
    for (int j = 0; j < prices(s); ++j) {
      const double charged_ms = charged(s, 0, j, a, b), rebate_ms = rebate(s, j);
      const double bound = (charged_ms - work - rebate_ms) / m_ - 1e-9 * (charged_ms + std::fabs(rebate_ms)) / m_;
      best = std::max(best, bound);
    }
    return best;
  }

  static constexpr int kMaxPrices = 5;

 private:
  [[nodiscard]] std::size_t index(int s, int c, int j) const {
    return (static_cast<std::size_t>(s) * static_cast<std::size_t>(vpp_) + static_cast<std::size_t>(c)) * kMaxPrices +
           static_cast<std::size_t>(j);
  }
  // A layer's least priced recompute: min over its options (none included) of extra + price x count x
  // activation, plus price x static memory.
  [[nodiscard]] double priced(int i, double price, double count) const;

  const BalanceProblem& p_;
  int vpp_ = 1;
  double m_ = 1;
  bool active_ = false;
  std::vector<int> prices_;
  std::vector<std::vector<double>> charged_;  // per (stage, chunk, price): prefix sums over the layers
  std::vector<double> rebate_, rate_;
};

}  // namespace ppb::balancer
