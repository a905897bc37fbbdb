// What a balance may spend (internal to the engine): search nodes, simulations and time. Every
// phase checks the clock; the clock is read by accumulated work rather than at every step: in
// WebAssembly each reading is a call out to JavaScript, which at every search node took an eighth
// of a long search.
#pragma once

#include <chrono>
#include <cstdint>

#include "ppb/balance.hpp"

namespace ppb::balancer {

class Budget {
 public:
  explicit Budget(const BalanceOptions& options) : options_(options), start_ms_(now_ms()) {}

  // Time since the balance started, in ms.
  [[nodiscard]] double elapsed_ms() const { return now_ms() - start_ms_; }
  [[nodiscard]] double budget_ms() const { return options_.time_budget_ms; }
  // Whether `at_ms` (time since the start) has passed.
  [[nodiscard]] bool past(double at_ms) const { return elapsed_ms() > at_ms; }

  // Work done, in units of about one search node; reads the clock when enough work has piled up.
  // True once the time budget is spent (and from then on).
  bool tick(std::int64_t units = 1) {
    if (hit_) return true;
    clock_work_ += units;
    if (clock_work_ >= kClockWork) {
      clock_work_ = 0;
      if (past(options_.time_budget_ms)) {
        hit_ = true;
        time_hit_ = true;
      }
    }
    return hit_;
  }
  // Work done without wanting the answer now (a frontier built, a simulation).
  void add_work(std::int64_t units) { clock_work_ += units; }

  // Counts a search node; true once any budget is spent (and from then on).
  bool node_out_of_budget(std::int64_t simulations) {
    if (hit_) return true;
    ++nodes_;
    if (nodes_ > options_.node_budget || simulations > options_.simulation_budget) hit_ = true;
    return tick();
  }

  // Reads the clock now: true when the time budget is spent.
  bool out_of_time() {
    if (!time_hit_ && past(options_.time_budget_ms)) hit_ = time_hit_ = true;
    return time_hit_;
  }

  [[nodiscard]] bool hit() const { return hit_; }
  [[nodiscard]] std::int64_t nodes() const { return nodes_; }

 private:
  [[nodiscard]] double now_ms() const {
    if (options_.clock_ms) return options_.clock_ms();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }

  static constexpr std::int64_t kClockWork = 64;
  const BalanceOptions& options_;
  double start_ms_;
  std::int64_t clock_work_ = kClockWork;  // the first tick reads the clock
  std::int64_t nodes_ = 0;
  bool hit_ = false;       // a budget (nodes, simulations or time) is spent
  bool time_hit_ = false;  // the time budget is spent
};

}  // namespace ppb::balancer
