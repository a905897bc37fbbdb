// PPB, the pipeline balancer: the contiguous partition of the layers over the virtual stages and
// the recompute option of every layer that give the lowest simulated step time with every stage
// within the device memory limit.
//
// Method (docs/ppb.md): branch and bound over stage boundaries, under every schedule program. Every
// complete candidate is simulated; a candidate is skipped only when a lower bound that holds for
// every plan extending it (a stage cannot start before its inputs pass the stages before it, then
// runs m micro batches of its own work) already reaches the best simulated step time. Inside a stage, the recompute
// choice is exact: the Pareto frontier of (activation kept, time added) over the options of its layers gives the least
// extra time that fits the stage's memory.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ppb/model/model.hpp"
#include "ppb/model/request.hpp"
#include "ppb/plan/plan.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {

// The balance command's work budget: about 2 s natively on the benchmark set's hardest balances
// (docs/benchmarks.md); a search's candidates get kDefaultCandidateWork each.
inline constexpr std::int64_t kDefaultWorkBudget = 8'000'000;
inline constexpr std::int64_t kDefaultCandidateWork = 30'000;

struct BalanceOptions {
  std::vector<int> recompute_options;  // indices into Model::recompute_options the balancer may use
  bool allow_empty_stages = false;
  std::int64_t node_budget = 2'000'000;  // search nodes before giving up the proof
  std::int64_t simulation_budget = 200'000;
  // The work the balance may do, in units of about one search node (a table row, a frontier, a
  // plan tried count in the same units; docs/ppb.md). It alone decides where the phases end, so that
  // a request gives the same plan on every machine and runtime.
  std::int64_t work_budget = kDefaultWorkBudget;
  // A wall-clock safety cap on every phase of the balance. An answer it cuts depends on the machine
  // and says so (BalanceResult::clock_cut).
  double time_budget_ms = 1e12;
  // Time already spent on the request (reading it, and what the answer will need after the
  // balance) when the balance starts; it counts against time_budget_ms, so that the cap covers the
  // whole command.
  double spent_before_ms = 0;
  // Milliseconds on a monotonic clock, read by the balance to keep its time budget; empty means
  // std::chrono::steady_clock. Tests inject a clock of their own, so that no test depends on speed.
  std::function<double()> clock_ms;
  // Relative: a branch whose bound is within it of the best time is not explored, so the result is
  // at most (1 + tolerance) x the optimum. 0 searches for the exact optimum.
  double tolerance = 0;
  // The suffix bound table with exact recompute (one frontier per layer range) gets half the time
  // budget before the relaxed one replaces it; false builds the relaxed table at once (tests).
  bool exact_bound_table = true;
  // Pivots one node's linear program may take in the count search before its proof is given up (the
  // search then goes on); tests lower it to make it give up.
  std::int64_t count_search_pivots = 20'000;
  std::vector<StageComponent> components;  // outside per-stage time and memory (request.components)
};

// One phase of a balance, in the order they run: "least over" (whether any plan fits, and the plan
// over the limit by the least), "exact bound table", "relaxed bound table", "incumbents", "local search",
// "threshold test" (one chunk per stage with the exact table), "search", and when the search has not
// ended within 20,000 nodes, "threshold bisection" (with the threshold test), "local search" again (its
// pairs of moves, with at most 27 virtual stages) and "search" again; or, on a model whose movable
// layers are all alike, "count search" for the rest of the budget instead (after 2,000 nodes with
// several chunks per stage): a branch and cut over layer counts whose end proves the best plan.
struct BalancePhase {
  std::string name;
  double start_ms = 0;  // since the balance started, on the wall clock (a report: nothing reads it)
  double end_ms = 0;
  std::int64_t start_work = 0;  // work done before it (BalanceOptions::work_budget's units)
  std::int64_t work = 0;        // work it did
  bool complete = false;        // ran to its end, not cut by the budget or given up
};

struct BalanceResult {
  Plan plan;              // the best plan found (the least-over plan when nothing fits)
  bool feasible = false;  // some plan fits the memory limit
  bool proven_optimal = false;
  double step_time_ms = 0;
  double lower_bound_ms = 0;  // no plan under the model is faster than this
  // Proven relative distance to the optimum: the tolerance when the search finished, otherwise
  // (step time - lower bound) / lower bound.
  // None where the memory charged or the recompute choices simulated are not exact (notes say why).
  std::optional<double> within_tolerance;
  std::int64_t nodes = 0;
  std::int64_t simulations = 0;
  std::int64_t work = 0;             // work done, in BalanceOptions::work_budget's units
  bool clock_cut = false;            // the wall-clock cap ended the balance before its work budget: machine-dependent
  std::vector<std::string> notes;    // why the result is not proven optimal, when it is not
  std::vector<BalancePhase> phases;  // the phases that ran
};

// How far a balance is, between slices.
struct BalanceProgress {
  std::string phase;  // the phase that runs next (BalancePhase names), or "done"
  std::int64_t nodes = 0;
  std::int64_t simulations = 0;
  std::optional<double> incumbent_ms;  // the best simulated step time so far
  // No plan is faster than this (so far); none where the memory or choices are not exact (as result),
  // before a bound is known, or when no plan fits.
  std::optional<double> lower_bound_ms;
  bool finished = false;
};

// A balance run in slices, so that a caller (a browser worker) can report progress, draw the gap
// between the incumbent and the lower bound closing, and stop it between slices. Each slice goes on
// exactly where the last stopped, so a balance run in slices gives the plan and proof of one run at
// once (the time budget counts only the time inside step()). The model, device, shape and options
// must outlive the balancer.
//   Balancer balancer(model, device, shape, options);
//   while (!balancer.step(50).finished) show(balancer.progress());
//   const BalanceResult result = balancer.result();
class Balancer {
 public:
  Balancer(const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options);
  ~Balancer();
  Balancer(const Balancer&) = delete;
  Balancer& operator=(const Balancer&) = delete;

  // Runs for about `slice_ms` (at least one unit of work: a table row, a search node) and says how
  // far the balance is.
  BalanceProgress step(double slice_ms);
  [[nodiscard]] BalanceProgress progress() const;
  // The result: the balance's answer once finished; before that, the best plan so far, not proven,
  // its notes saying the balance was stopped (or, with `cancelled`, cancelled) before it finished.
  [[nodiscard]] BalanceResult result(bool cancelled = false);
  // The best plan so far while the balance goes on: as result() before the end, its notes saying
  // the balance is still running. After the end, the result.
  [[nodiscard]] BalanceResult best_so_far();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The best plan of the given shape (pp_degree, vpp_degree, micro_batch_num, schedule): a Balancer
// run to its end in one slice.
BalanceResult balance(const Model& model, const Device& device, const PipelineShape& shape,
                      const BalanceOptions& options);

// The best recompute choice for a fixed partition: per physical stage, the least extra time whose
// activation fits the memory limit (or the least activation when nothing fits).
Plan with_best_recompute(const Model& model, const Device& device, Plan plan, const std::vector<int>& recompute_options,
                         const std::vector<StageComponent>& components = {});

}  // namespace ppb
