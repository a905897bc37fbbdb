// What a balance may spend (internal to the engine): search nodes, simulations and time, and the
// slice a Balancer step may use. Time counts only inside steps, so that a page drawing progress
// between slices does not spend the budget. Every phase checks the clock; the clock is read by
// accumulated work rather than at every step: in WebAssembly each reading is a call out to
// JavaScript, which at every search node took an eighth of a long search.
#pragma once

#include <chrono>
#include <cstdint>

#include "ppb/balance/balance.hpp"

namespace ppb::balancer {

// How a phase's step ended.
enum class PhaseStatus {
  done,      // ran to its end
  given_up,  // stopped for good: the budget is spent, or it could not finish in its share
  paused,    // the slice ended; the next step goes on from here
};

class Budget {
 public:
  explicit Budget(const BalanceOptions& options) : options_(options), spent_ms_(options.spent_before_ms) {}

  // A slice of `slice_ms` starts (and the budget with the first one).
  void begin_slice(double slice_ms) {
    slice_start_ms_ = now_ms();
    slice_end_ms_ = spent_ms_ + slice_ms;
    slice_over_ = false;
  }
  // The slice ends: its time is spent.
  void end_slice() { spent_ms_ = elapsed_ms(); }

  // Time spent inside slices since the balance started, in ms. Reading it may end the slice.
  [[nodiscard]] double elapsed_ms() {
    const double t = spent_ms_ + (now_ms() - slice_start_ms_);
    if (t > slice_end_ms_) slice_over_ = true;
    return t;
  }
  // Whether `at_ms` (time spent) has passed.
  [[nodiscard]] bool past(double at_ms) { return elapsed_ms() > at_ms; }

  // Work done, in units of about one search node; reads the clock when enough work has piled up.
  // True once the time budget is spent (and from then on). The end of a slice does not stop the
  // work in hand: it is seen at the next safe point (slice_over).
  bool tick(std::int64_t units = 1) {
    if (hit_) return true;
    clock_work_ += units;
    if (clock_work_ >= kClockWork) {
      clock_work_ = 0;
      if (past(options_.time_budget_ms)) hit_ = time_hit_ = true;
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

  // Whether the slice has ended (as of the last clock reading).
  [[nodiscard]] bool slice_over() const { return slice_over_; }
  [[nodiscard]] bool hit() const { return hit_; }
  [[nodiscard]] std::int64_t nodes() const { return nodes_; }

 private:
  [[nodiscard]] double now_ms() const {
    if (options_.clock_ms) return options_.clock_ms();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }

  static constexpr std::int64_t kClockWork = 64;
  const BalanceOptions& options_;
  double spent_ms_;            // before the balance, then in earlier slices
  double slice_start_ms_ = 0;  // on the clock
  double slice_end_ms_ = 0;    // in time spent
  bool slice_over_ = false;
  std::int64_t clock_work_ = kClockWork;  // the first tick reads the clock
  std::int64_t nodes_ = 0;
  bool hit_ = false;       // a budget (nodes, simulations or time) is spent
  bool time_hit_ = false;  // the time budget is spent
};

}  // namespace ppb::balancer
