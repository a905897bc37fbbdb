// What a balance may spend (internal to the engine): work, search nodes and simulations, which
// decide the answer, so that a request gives the same plan on every machine and runtime; a wall
// clock only as a safety cap (an answer it cuts says so) and for the slices a Balancer step may use.
// Time counts only inside steps, so that a page drawing progress between slices does not spend it.
// The clock is read by accumulated work rather than at every step: in WebAssembly each reading is
// a call out to JavaScript, which at every search node took an eighth of a long search.
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

  // Time spent inside slices since the balance started, in ms on the wall clock: for the slices, the
  // safety cap and the phases' report, never for a decision of the search. Reading it may end the
  // slice.
  [[nodiscard]] double elapsed_ms() {
    const double t = spent_ms_ + (now_ms() - slice_start_ms_);
    if (t > slice_end_ms_) slice_over_ = true;
    return t;
  }

  // Work done so far, in units of about one search node: what the phases' shares are measured in.
  [[nodiscard]] std::int64_t work() const { return work_; }
  // Whether more than `at` units of work are done.
  [[nodiscard]] bool past_work(std::int64_t at) const { return work_ > at; }

  // Work done, in units of about one search node. True once the work budget is spent, or the
  // wall-clock cap, read when enough work has piled up (and from then on). The end of a slice does
  // not stop the work in hand: it is seen at the next safe point (slice_over).
  bool tick(std::int64_t units = 1) {
    if (hit_) return true;
    add_work(units);
    if (work_ > options_.work_budget) hit_ = true;
    if (clock_work_ >= kClockWork) {
      clock_work_ = 0;
      read_clock();
    }
    return hit_;
  }
  // Work done without wanting the answer now (a frontier built, a table row): counted, and seen at
  // the next tick.
  void add_work(std::int64_t units) {
    work_ += units;
    clock_work_ += units;
  }

  // Counts a search node; true once any budget is spent (and from then on).
  bool node_out_of_budget(std::int64_t simulations) {
    if (hit_) return true;
    ++nodes_;
    if (nodes_ > options_.node_budget || simulations > options_.simulation_budget) hit_ = true;
    return tick();
  }

  // True when the work budget is spent, or (reading the clock now) the wall-clock cap.
  bool out_of_budget() {
    if (work_ > options_.work_budget) hit_ = true;
    read_clock();
    return hit_;
  }

  // Whether the slice has ended (as of the last clock reading).
  [[nodiscard]] bool slice_over() const { return slice_over_; }
  // Whether a budget (work, nodes, simulations or the wall-clock cap) is spent.
  [[nodiscard]] bool hit() const { return hit_; }
  // Whether the wall-clock cap cut the work: then the answer depends on the machine.
  [[nodiscard]] bool clock_cut() const { return clock_cut_; }
  [[nodiscard]] std::int64_t nodes() const { return nodes_; }

 private:
  void read_clock() {
    if (elapsed_ms() > options_.time_budget_ms && !hit_) hit_ = clock_cut_ = true;
  }
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
  std::int64_t work_ = 0;
  std::int64_t clock_work_ = kClockWork;  // the first tick reads the clock
  std::int64_t nodes_ = 0;
  bool hit_ = false;        // a budget (work, nodes, simulations or the wall-clock cap) is spent
  bool clock_cut_ = false;  // the wall-clock cap was reached before the work budget
};

}  // namespace ppb::balancer
