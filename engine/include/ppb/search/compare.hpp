// Schedules side by side: one request's model, device and pipeline run under every schedule the
// engine knows, so that a user sees at once which one is fastest and which ones fit. Each schedule
// runs with its own chunk count (1, or 2 for interleaved_1f1b, interleaved_zero_bubble and looped_bfs
// unless the request gives more, and for zbv and dualpipev); the request's partition and recompute are kept where they
// fit that shape, else the even split without recompute is used (and the row says so). A schedule whose conditions the
// shape breaks is a row with the reasons, not an error.
//
// Balanced (CompareOptions::balanced), each schedule runs its own best plan instead: PPB balances
// the schedule's shape under the request's memory limit, the schedules sharing one work budget, so
// that the rows set each schedule at its best beside the others.
#pragma once

#include <optional>
#include <vector>

#include "ppb/balance/balance.hpp"
#include "ppb/core/diagnostics.hpp"
#include "ppb/model/request.hpp"
#include "ppb/model/schedule_names.hpp"
#include "ppb/plan/plan.hpp"

namespace ppb {

struct CompareOptions {
  bool balanced = false;
  // The balance of every schedule: its recompute options, and a work budget the schedules that run
  // share equally.
  BalanceOptions balance;
};

struct ScheduleComparison {
  Schedule schedule = Schedule::one_f_one_b;
  int vpp_degree = 1;
  bool runs = false;                 // false: `problems` says why
  std::vector<Diagnostic> problems;  // the errors resolving this schedule's plan gave
  bool partition_as_given = true;    // false: the even split without recompute was used
  // When it runs:
  bool feasible = false;  // every stage's peak fits device.memory_limit_mib
  double step_time_ms = 0;
  double span_ms = 0;
  double bubble_fraction = 0;
  double bubble_span_fraction = 0;
  double peak_mib = 0;       // the largest stage peak
  int peak_stage = 0;        // the stage with that peak
  std::optional<Plan> plan;  // the plan it ran: the request's (or the even split), or its balanced one
  // Balanced only: whether the plan is proven the fastest that fits, and the work its balance did.
  bool proven_optimal = false;
  std::int64_t work = 0;
  bool clock_cut = false;  // the balance's wall-clock cap cut it
};

// One row per schedule, in the order of all_schedules. The request must have parsed without errors.
std::vector<ScheduleComparison> compare_schedules(const Request& request, const CompareOptions& options = {});

}  // namespace ppb
