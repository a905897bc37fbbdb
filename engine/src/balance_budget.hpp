// What a balance may spend (internal to the engine): search nodes, simulations and the wall clock.
// The clock is read by accumulated work rather than at every node: in WebAssembly each reading is a
// call out to JavaScript, which at every node took an eighth of a long search.
#pragma once

#include <chrono>
#include <cstdint>

#include "ppb/balance.hpp"

namespace ppb::balancer {

class Budget {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Budget(const BalanceOptions& options)
      : options_(options),
        start_(Clock::now()),
        deadline_(start_ + std::chrono::microseconds(static_cast<std::int64_t>(std::min(options.time_budget_ms, 1e12) * 1000))) {}

  [[nodiscard]] Clock::time_point start() const { return start_; }
  [[nodiscard]] Clock::time_point deadline() const { return deadline_; }
  [[nodiscard]] static bool past(Clock::time_point t) { return Clock::now() > t; }

  // Work done besides nodes, in units of about one search node (a frontier built, a simulation).
  void add_work(std::int64_t units) { clock_work_ += units; }

  // Counts a search node; true once any budget is spent (and from then on).
  bool node_out_of_budget(std::int64_t simulations) {
    if (hit_) return true;
    ++nodes_;
    if (nodes_ > options_.node_budget || simulations > options_.simulation_budget) hit_ = true;
    // The clock is read at the first node, then whenever the work since the last reading reaches
    // kClockWork.
    if (++clock_work_ >= kClockWork) {
      clock_work_ = 0;
      if (past(deadline_)) hit_ = true;
    }
    return hit_;
  }

  [[nodiscard]] bool hit() const { return hit_; }
  [[nodiscard]] std::int64_t nodes() const { return nodes_; }

 private:
  static constexpr std::int64_t kClockWork = 64;
  const BalanceOptions& options_;
  Clock::time_point start_, deadline_;
  std::int64_t clock_work_ = kClockWork;
  std::int64_t nodes_ = 0;
  bool hit_ = false;
};

}  // namespace ppb::balancer
