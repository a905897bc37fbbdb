// Prices on memory (internal to the engine): with several chunks per stage, lower bounds of a
// physical stage's recompute time that are sums over its layers, so that the layers not yet placed
// are charged for the recompute they will need wherever they go. Each is the Lagrangian relaxation
// of the stage's memory condition at one of its count vectors and one price; the argument is in
// docs/ppb.md (bounds for every schedule, 4).
#pragma once

#include <vector>

#include "balance_problem.hpp"

namespace ppb::balancer {

class RecomputePrice {
 public:
  explicit RecomputePrice(const BalanceProblem& problem);

  // Whether any stage has a positive price (several chunks, a memory limit, recompute options that
  // save memory); otherwise there is nothing beyond the water filling of work alone.
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
  bool active_ = false;
  std::vector<int> prices_;
  std::vector<std::vector<double>> charged_;  // per (stage, chunk, price): prefix sums over the layers
  std::vector<double> rebate_, rate_;
};

}  // namespace ppb::balancer
