// Prices on memory per physical stage, one chunk per stage. See recompute_price.hpp.
#include "recompute_price.hpp"

#include <algorithm>
#include <cmath>

namespace ppb::balancer {
namespace {

// Tables of (stages x chunks x prices) x layers beyond this are not built: the bound is then the
// water filling of work alone.
constexpr double kMaxCells = 4e6;
// Prices tried per stage and count vector (the breakpoints of its dual, thinned evenly beyond this).
constexpr std::size_t kMaxTried = 32;
// The holdings a stage's prices are chosen for: its chunks of the even split, each grown by these
// factors (a stage that ends up holding more layers than the even split needs a higher price).
constexpr double kHoldings[RecomputePrice::kMaxPrices] = {0.75, 1.0, 1.25, 1.5, 2.0};

}  // namespace

double RecomputePrice::priced(int i, double price, double count) const {
  const Layer& l = p_.layer(i);
  double least = price * count * l.activation_mib;
  for (int o : p_.options.recompute_options)
    if (const auto& r = l.recompute[static_cast<std::size_t>(o)])
      least = std::min(least, r->extra_ms + price * count * r->activation_mib);
  return least + price * l.static_mib();
}

RecomputePrice::RecomputePrice(const BalanceProblem& problem) : p_(problem), m_(problem.m) {
  const int pp = p_.pp, L = p_.L;
  prices_.assign(static_cast<std::size_t>(pp), 0);
  std::vector<double> work(static_cast<std::size_t>(L));
  bool work_ok = true;
  for (int i = 0; i < L; ++i) {
    const Layer& l = p_.layer(i);
    double w = l.forward_ms + l.backward_ms;
    if (p_.overlaps) w -= l.forward_comm_ms + l.backward_comm_ms;
    work[static_cast<std::size_t>(i)] = w;
    work_ok = work_ok && w >= 0;
  }
  if (p_.V != pp || !(p_.limit < kInf) || !work_ok || p_.options.recompute_options.empty() ||
      static_cast<double>(p_.V) * kMaxPrices * (L + 1) > kMaxCells)
    return;
  // Each stage's prices and count vectors: the best Lagrangian bound of its recompute on the even
  // split's chunks grown by each factor of kHoldings. Any price is valid; these are good for plans
  // near the even split, where a stage holding more layers than the others is what bounds the step.
  std::vector<std::vector<std::pair<double, std::vector<double>>>> chosen(static_cast<std::size_t>(pp));
  const std::vector<int> ends = p_.even_ends();
  for (int s = 0; s < pp; ++s) {
    const double limit = p_.limit_for(s);
    for (const double grow : kHoldings) {
      double best = 0, best_price = 0;
      std::vector<double> best_counts;
      for (const std::vector<double>& k : p_.peaks[static_cast<std::size_t>(s)]) {
        // The layers of stage s, grown from its even-split start, with the count of micro batches held.
        std::vector<std::pair<int, double>> layers;
        const int a = s == 0 ? 0 : ends[static_cast<std::size_t>(s) - 1];
        const int size = ends[static_cast<std::size_t>(s)] - a;
        const int b = std::min(L, a + static_cast<int>(std::ceil(grow * size)));
        for (int i = a; i < b; ++i) layers.emplace_back(i, k[0]);
        // The dual is concave and piecewise linear in the price, bending only where a layer's cheapest
        // option changes: where two options' extra + price x count x activation meet.
        std::vector<double> tried;
        for (auto [i, n] : layers) {
          const Layer& l = p_.layer(i);
          std::vector<std::pair<double, double>> opts{{l.activation_mib, 0.0}};
          for (int o : p_.options.recompute_options)
            if (const auto& r = l.recompute[static_cast<std::size_t>(o)])
              opts.emplace_back(r->activation_mib, r->extra_ms);
          for (auto [a1, x1] : opts)
            for (auto [a2, x2] : opts)
              if (a1 > a2 && x2 > x1 && n > 0) tried.push_back((x2 - x1) / (n * (a1 - a2)));
        }
        std::sort(tried.begin(), tried.end());
        tried.erase(std::unique(tried.begin(), tried.end()), tried.end());
        if (tried.size() > kMaxTried) {
          std::vector<double> thinned;
          for (std::size_t j = 0; j < kMaxTried; ++j)
            thinned.push_back(tried[j * (tried.size() - 1) / (kMaxTried - 1)]);
          tried.swap(thinned);
        }
        for (const double y : tried) {
          double dual = -y * limit;
          for (auto [i, n] : layers) dual += priced(i, y, n);
          if (dual > best) {
            best = dual;
            best_price = y;
            best_counts = k;
          }
        }
      }
      auto& mine = chosen[static_cast<std::size_t>(s)];
      const bool known = std::any_of(mine.begin(), mine.end(),
                                     [&](const auto& x) { return x.first == best_price && x.second == best_counts; });
      if (best_price > 0 && !known) mine.emplace_back(best_price, best_counts);
    }
    prices_[static_cast<std::size_t>(s)] = static_cast<int>(chosen[static_cast<std::size_t>(s)].size());
    active_ = active_ || !chosen[static_cast<std::size_t>(s)].empty();
  }
  if (!active_) return;
  const double m = p_.m;
  charged_.assign(static_cast<std::size_t>(pp) * kMaxPrices, {});
  rebate_.assign(static_cast<std::size_t>(pp) * kMaxPrices, 0);
  for (int s = 0; s < pp; ++s) {
    const auto& mine = chosen[static_cast<std::size_t>(s)];
    for (int j = 0; j < static_cast<int>(mine.size()); ++j) {
      const auto& [y, counts] = mine[static_cast<std::size_t>(j)];
      rebate_[index(s, j)] = m * y * p_.limit_for(s);
      std::vector<double>& prefix = charged_[index(s, j)];
      prefix.assign(static_cast<std::size_t>(L) + 1, 0);
      for (int i = 0; i < L; ++i) {
        const double charge = work[static_cast<std::size_t>(i)] + priced(i, y, counts[0]);
        prefix[static_cast<std::size_t>(i) + 1] = prefix[static_cast<std::size_t>(i)] + m * charge;
      }
    }
  }
}

}  // namespace ppb::balancer
