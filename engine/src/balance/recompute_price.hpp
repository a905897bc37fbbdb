// Prices on memory (internal to the engine), one chunk per stage: lower bounds of a stage's least
// recompute time that are sums over its layers, so that the relaxed bound table bounds a range's
// recompute without its frontier. Each is the Lagrangian relaxation of the stage's memory condition
// at one of its count vectors and one price; the argument is in docs/ppb.md (the relaxed table).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "balance_problem.hpp"

namespace ppb::balancer {

class RecomputePrice {
 public:
  explicit RecomputePrice(const BalanceProblem& problem);

  // Whether any stage has a positive price (one chunk per stage, a memory limit, recompute options that
  // save memory, tables of a bounded size); otherwise the relaxed table counts no recompute.
  [[nodiscard]] bool active() const { return active_; }
  // The prices of stage s: each gives a bound of its own.
  [[nodiscard]] int prices(int s) const { return prices_[static_cast<std::size_t>(s)]; }

  // A lower bound of the least recompute time of stage s holding [a, b), the best over its prices, a
  // little below it so that rounding never lifts it above the exact value.
  [[nodiscard]] double extra_bound(int s, int a, int b) const {
    double best = 0;
    const double work = m_ * (p_.range(p_.prefix_f, a, b) + p_.range(p_.prefix_b, a, b));
    for (int j = 0; j < prices(s); ++j) {
      const std::vector<double>& prefix = charged_[index(s, j)];
      const double charged_ms = prefix[static_cast<std::size_t>(b)] - prefix[static_cast<std::size_t>(a)];
      const double rebate_ms = rebate_[index(s, j)];
      const double bound = (charged_ms - work - rebate_ms) / m_ - 1e-9 * (charged_ms + std::fabs(rebate_ms)) / m_;
      best = std::max(best, bound);
    }
    return best;
  }

  static constexpr int kMaxPrices = 5;

 private:
  [[nodiscard]] static std::size_t index(int s, int j) {
    return static_cast<std::size_t>(s) * kMaxPrices + static_cast<std::size_t>(j);
  }
  // A layer's least priced recompute: min over its options (none included) of extra + price x count x
  // activation, plus price x static memory.
  [[nodiscard]] double priced(int i, double price, double count) const;

  const BalanceProblem& p_;
  double m_ = 1;
  bool active_ = false;
  std::vector<int> prices_;
  // Per (stage, price): prefix sums over the layers of m x (work + least priced recompute); and
  // m x price x the stage's memory for layers, taken off once.
  std::vector<std::vector<double>> charged_;
  std::vector<double> rebate_;
};

}  // namespace ppb::balancer
