// The rules of a pipeline shape, one place for the search and the infeasibility explanation. The
// schedules' own conditions come from schedule_problems (schedule.hpp); this file sorts them into
// the vpp_degree a schedule runs (a pairing) and the micro batches it needs (a skip), and adds the
// simulation cap.
#include "ppb/schedule/shape_rules.hpp"

#include "ppb/core/limits.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb {

namespace {

// The schedule's conditions on the micro batch count, as against its chunks per stage.
bool about_micro_batches(const ScheduleProblem& p) { return p.path == "/pipeline/micro_batch_num"; }

std::string without_full_stop(std::string sentence) {
  if (!sentence.empty() && sentence.back() == '.') sentence.pop_back();
  return sentence;
}

// A category for skipped_groups: the rule without this shape's numbers.
std::string group_of(const ScheduleProblem& p, Schedule schedule) {
  if (p.code == "MICRO_BATCH_NOT_MULTIPLE" && schedule == Schedule::interleaved_zero_bubble)
    return "micro_batch_num is not a multiple of its round count max(1, micro_batch_num / pp_degree) (" +
           std::string(schedule_name(schedule)) + ")";
  if (p.code == "MICRO_BATCH_NOT_MULTIPLE")
    return "micro_batch_num is not a multiple of pp_degree (" + std::string(schedule_name(schedule)) + ")";
  if (p.code == "MICRO_BATCH_TOO_FEW")
    return "micro_batch_num below 2 x pp_degree (" + std::string(schedule_name(schedule)) + ")";
  return std::string(schedule_name(schedule)) + ": " + p.code;
}

}  // namespace

int default_vpp_degree(Schedule schedule) { return vpp_runs(1, schedule) ? 1 : 2; }

int splittable_units(const Model& model) {
  return model.body_count() + (model.pinned_first > 0 ? 1 : 0) + (model.pinned_last > 0 ? 1 : 0);
}

std::optional<ShapeRule> vpp_rule_broken(int vpp_degree, Schedule schedule) {
  // One stage and two micro batches meet every micro batch condition, so what is left is the chunks'.
  for (const ScheduleProblem& p : schedule_problems(PipelineShape{1, vpp_degree, 2, schedule}))
    if (!about_micro_batches(p)) {
      const std::string rule = without_full_stop(p.message);
      return ShapeRule{rule, rule};
    }
  return std::nullopt;
}

bool vpp_runs(int vpp_degree, Schedule schedule) {
  // The shape vpp_rule_broken reads, whose every problem is the chunks'.
  return schedule_accepts(PipelineShape{1, vpp_degree, 2, schedule});
}

std::optional<ShapeRule> shape_rule_broken(const PipelineShape& shape) {
  if (auto broken = vpp_rule_broken(shape.vpp_degree, shape.schedule)) return broken;
  for (const ScheduleProblem& p : schedule_problems(shape))
    if (about_micro_batches(p)) return ShapeRule{group_of(p, shape.schedule), without_full_stop(p.message)};
  const std::int64_t pairs = static_cast<std::int64_t>(shape.virtual_stages()) * shape.micro_batch_num;
  if (pairs > limits::max_simulated_pairs)
    return ShapeRule{"above the simulation cap", "pp_degree x vpp_degree x micro_batch_num = " + std::to_string(pairs) +
                                                     " exceeds the cap of " +
                                                     std::to_string(limits::max_simulated_pairs)};
  return std::nullopt;
}

}  // namespace ppb
