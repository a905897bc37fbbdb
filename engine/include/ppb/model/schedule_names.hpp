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
  interleaved_zero_bubble,
  looped_bfs
};

// Every schedule, in the order the contract lists them.
inline constexpr std::array<Schedule, 10> all_schedules = {
    Schedule::gpipe,     Schedule::one_f_one_b, Schedule::interleaved_1f1b,
    Schedule::zb_h1,     Schedule::zb_h2,       Schedule::zbv,
    Schedule::dualpipev, Schedule::zb_auto,     Schedule::interleaved_zero_bubble,
    Schedule::looped_bfs};

// The contract's name of a schedule, e.g. "1f1b".
const char* schedule_name(Schedule schedule);
// The schedule a contract name stands for; nothing for an unknown name.
std::optional<Schedule> schedule_from_name(const std::string& name);
// Every contract name, for messages: "gpipe, 1f1b, ..., zbv or dualpipev".
std::string schedule_name_list();

// V-shape schedules (zbv, dualpipev) place two chunks per device so that the forward runs down the
// devices and back up: virtual stage i < pp on device i, i >= pp on device 2 pp - 1 - i.
// zb_auto's program is found for the stages' costs (simulate/zb_auto.hpp), so the schedule room
// cannot write it from the shape alone.
constexpr bool needs_costs(Schedule schedule) { return schedule == Schedule::zb_auto; }

constexpr bool is_v_shape(Schedule schedule) { return schedule == Schedule::zbv || schedule == Schedule::dualpipev; }

}  // namespace ppb
