// Recompute frontiers (internal to the engine): for a range of layers, the Pareto frontier of
// (activation kept per micro batch, backward time added) over every combination of the layers'
// recompute options, and a cache of them per range. For a memory budget the point with the largest
// activation that still fits has the least added time: the multiple-choice knapsack of a stage's
// recompute, solved exactly by dominance (docs/ppb.md).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "balance_budget.hpp"
#include "balance_problem.hpp"

namespace ppb::balancer {

// One Pareto-optimal way to treat a range of layers: the activation it keeps per micro batch and the
// backward time it adds. `parent`/`option` lead back to the choice of every layer.
struct FrontierPoint {
  double act = 0;
  double extra = 0;
  int parent = -1;
  int option = -1;  // -1 none
};
// Points sorted by activation, extra time strictly decreasing along them. A frontier of more than
// kFrontierPoints points is thinned (pathological models: many layers of distinct costs); then the
// least extra time it answers for a memory budget may exceed the true least by up to `error` ms,
// which the proof carries (docs/ppb.md). 0: exact.
struct Frontier : std::vector<FrontierPoint> {
  using std::vector<FrontierPoint>::vector;
  double error = 0;
};
inline constexpr std::size_t kFrontierPoints = 1024;

// Index of the point with the least extra time whose activation fits `budget`, or -1.
inline int best_point(const Frontier& f, double budget) {
  // Activation rises and extra falls along the frontier: the last point that fits is the best.
  int best = -1;
  int lo = 0, hi = static_cast<int>(f.size()) - 1;
  while (lo <= hi) {
    const int mid = (lo + hi) / 2;
    if (fits(f[static_cast<std::size_t>(mid)].act, budget)) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

// Sorts points by activation (ties by extra time) and keeps the frontier, thinned beyond
// kFrontierPoints with its error added to f.error.
void prune(Frontier& f);

// The frontiers of every range asked for, built once. Layers with the same activation and the same
// allowed options (the same signature) give the same frontiers, so ranges with the same sequence of
// signatures share one: on a model of repeated blocks most ranges are found, not built.
class FrontierCache {
 public:
  FrontierCache(const BalanceProblem& problem, Budget& budget);

  // Frontier of the layers [a, b).
  const Frontier& frontier(int a, int b) {
    if (a == b) return empty_;
    if (const auto it = by_range_.find(key(a, b)); it != by_range_.end()) return *it->second;
    return build(a, b);
  }
  // Writes the option of every layer of [a, b) for point k of its frontier into `choice`.
  void choose_layers(int a, int b, int k, std::vector<int>& choice);
  // The largest error of any frontier built or combined (0: every answer exact).
  [[nodiscard]] double max_error() const { return max_error_; }
  void note_error(double error) { max_error_ = std::max(max_error_, error); }
  // Bounds the memory the cache holds. Call only where no reference into it is held.
  void trim() {
    if (cached_points_ > kMaxCachedPoints) clear();
  }

 private:
  static constexpr std::size_t kMaxCachedPoints = 4'000'000;
  // Hash of the 64-bit cache keys. std::hash of a 64-bit integer is the identity where size_t has
  // 64 bits, but where it has 32 (WebAssembly) libc++ runs MurmurHash2 over its 8 bytes, at every
  // lookup of the search's inner loop; folding the halves is as good for these keys.
  struct KeyHash {
    std::size_t operator()(std::uint64_t k) const noexcept {
      if constexpr (sizeof(std::size_t) >= sizeof(std::uint64_t))
        return static_cast<std::size_t>(k);
      else
        return static_cast<std::size_t>(k ^ (k >> 32));
    }
  };
  struct Built {
    int a, b;
    std::unique_ptr<Frontier> frontier;  // stable address
  };

  const Frontier& build(int a, int b);
  void clear();
  [[nodiscard]] bool cached(int a, int b) const { return by_range_.count(key(a, b)) > 0; }
  [[nodiscard]] std::uint64_t key(int a, int b) const {
    return static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(problem_.L + 1) + static_cast<std::uint64_t>(b);
  }
  [[nodiscard]] const Frontier* find_same(int a, int b) const;
  [[nodiscard]] std::uint64_t range_hash(int a, int b) const;
  void build_signatures();
  Frontier extend(const Frontier& prev, const Layer& l);

  const BalanceProblem& problem_;
  Budget& budget_;
  const Frontier empty_{FrontierPoint{}};
  std::vector<int> signature_;
  std::vector<std::uint64_t> hash_prefix_[2], power_[2];
  std::unordered_map<std::uint64_t, std::vector<Built>, KeyHash> by_hash_;
  std::unordered_map<std::uint64_t, const Frontier*, KeyHash> by_range_;
  std::size_t cached_points_ = 0;
  double max_error_ = 0;
};

}  // namespace ppb::balancer
