// Schedules side by side: the request's plan resolved and estimated once per schedule.
#include "ppb/search/compare.hpp"

#include <algorithm>

#include "ppb/plan/checked_plan.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {
namespace {

// The chunk count a schedule runs with for this request: the request's own where the schedule takes
// it, else the schedule's smallest (2 for interleaving and the V shapes, 1 otherwise).
int chunks_for(Schedule schedule, int requested) {
  if (is_v_shape(schedule)) return 2;
  if (is_interleaved(schedule) || schedule == Schedule::interleaved_zero_bubble || schedule == Schedule::looped_bfs)
    return requested >= 2 ? requested : 2;
  return 1;
}

}  // namespace

std::vector<ScheduleComparison> compare_schedules(const Request& request, const CompareOptions& options) {
  std::vector<ScheduleComparison> rows;
  std::vector<Request> requests;  // each row's request, to balance once the rows that run are known
  const int given_virtual_stages = request.pipeline.pp_degree * request.pipeline.vpp_degree;
  for (Schedule schedule : all_schedules) {
    ScheduleComparison row;
    row.schedule = schedule;
    row.vpp_degree = chunks_for(schedule, request.pipeline.vpp_degree);
    Request r = request;
    r.pipeline.schedule = schedule;
    r.pipeline.vpp_degree = row.vpp_degree;
    r.pipeline.vpp_degree_given = true;
    r.pipeline.include_timeline = false;
    // A partition or per-stage recompute counts stated for another number of virtual stages cannot
    // carry over; recompute stated by layer can.
    if (r.pipeline.pp_degree * row.vpp_degree != given_virtual_stages) {
      row.partition_as_given =
          r.pipeline.partition_form == PartitionForm::even && r.pipeline.recompute_form != RecomputeForm::counts;
      r.pipeline.partition_form = PartitionForm::even;
      r.pipeline.partition.clear();
      if (r.pipeline.recompute_form == RecomputeForm::counts) {
        r.pipeline.recompute_form = RecomputeForm::none;
        r.pipeline.recompute.clear();
      }
    }
    Diagnostics d;
    const auto plan = checked_plan(r, d);
    if (!plan || !d.ok()) {
      row.problems = d.errors();
    } else {
      row.runs = true;
      row.plan = *plan;
    }
    rows.push_back(std::move(row));
    requests.push_back(std::move(r));
  }
  std::int64_t running = 0;
  for (const ScheduleComparison& row : rows) running += row.runs ? 1 : 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ScheduleComparison& row = rows[i];
    if (!row.runs) continue;
    const Request& r = requests[i];
    if (options.balanced) {
      BalanceOptions shared = options.balance;
      shared.work_budget = std::max<std::int64_t>(1, options.balance.work_budget / running);
      shared.allow_empty_stages = r.pipeline.allow_empty_stages;
      shared.components = r.components;
      const BalanceResult found = balance(r.model, r.device, *row.plan, shared);
      row.plan = found.plan;
      row.proven_optimal = found.proven_optimal;
      row.work = found.work;
      row.clock_cut = found.clock_cut;
    }
    const Estimate e = estimate(r.model, r.device, *row.plan, false, r.components);
    row.feasible = e.feasible;
    row.step_time_ms = e.step_time_ms;
    row.span_ms = e.span_ms;
    row.bubble_fraction = e.bubble_fraction;
    row.bubble_span_fraction = e.bubble_span_fraction;
    for (const StageEstimate& st : e.stages)
      if (st.memory.peak_mib > row.peak_mib) {
        row.peak_mib = st.memory.peak_mib;
        row.peak_stage = st.stage;
      }
  }
  return rows;
}

}  // namespace ppb
