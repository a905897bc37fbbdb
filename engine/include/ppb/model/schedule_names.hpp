// The pipeline schedules the engine knows, by their contract names ("gpipe", "1f1b", ...).
// What each schedule runs is in schedule.hpp; this header is only the names and the two facts
// about a schedule that placing layers needs, so that readers of requests and writers of responses
// need not know the programs.
#pragma once

#include <array>
#include <optional>
#include <string>

namespace ppb {

enum class Schedule {
  gpipe,
  one_f_one_b,
  interleaved_1f1b,
  zb_h1,
  zb_h2,
  zbv,
  dualpipev,
  zb_auto,
  interleaved_1f1b_overlap,
  v_half,
  v_min,
  interleaved_zero_bubble,
  looped_bfs
};

// Every schedule, in the order the contract lists them.
inline constexpr std::array<Schedule, 13> all_schedules = {
    Schedule::gpipe,     Schedule::one_f_one_b, Schedule::interleaved_1f1b,
    Schedule::zb_h1,     Schedule::zb_h2,       Schedule::zbv,
    Schedule::dualpipev, Schedule::zb_auto,     Schedule::interleaved_1f1b_overlap,
    Schedule::v_half,    Schedule::v_min,       Schedule::interleaved_zero_bubble,
    Schedule::looped_bfs};

// The contract's name of a schedule, e.g. "1f1b".
const char* schedule_name(Schedule schedule);
// The schedule a contract name stands for; nothing for an unknown name.
std::optional<Schedule> schedule_from_name(const std::string& name);
// Every contract name, for messages: "gpipe, 1f1b, ..., zbv or dualpipev".
std::string schedule_name_list();

// zb_auto's program is found for the stages' costs (simulate/zb_auto.hpp), so the schedule room
// cannot write it from the shape alone.
constexpr bool needs_costs(Schedule schedule) { return schedule == Schedule::zb_auto; }

// V-shape schedules (zbv, dualpipev, v_half, v_min) place two chunks per device so that the forward
// runs down the devices and back up: virtual stage i < pp on device i, i >= pp on device 2 pp - 1 - i.
constexpr bool is_v_shape(Schedule schedule) {
  return schedule == Schedule::zbv || schedule == Schedule::dualpipev || schedule == Schedule::v_half ||
         schedule == Schedule::v_min;
}

// Schedules whose programs run F&B pairs (one micro batch's forward merged with another's
// backward, which hides each one's communication behind the other's compute).
constexpr bool runs_fb_pairs(Schedule schedule) {
  return schedule == Schedule::dualpipev || schedule == Schedule::interleaved_1f1b_overlap;
}

// Schedules built on Megatron-LM's interleaved order (model chunks placed chunk-major, micro batches
// in groups of pp_degree).
constexpr bool is_interleaved(Schedule schedule) {
  return schedule == Schedule::interleaved_1f1b || schedule == Schedule::interleaved_1f1b_overlap;
}

}  // namespace ppb
