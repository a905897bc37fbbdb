// The pipeline schedules the engine knows, by their contract names ("gpipe", "1f1b", ...).
// What each schedule runs is in schedule.hpp; this header is only the names, so that readers of
// requests and writers of responses need not know the programs.
#pragma once

#include <optional>
#include <string>

namespace ppb {

enum class Schedule { gpipe, one_f_one_b, interleaved_1f1b, zb_h1 };

// The contract's name of a schedule, e.g. "1f1b".
const char* schedule_name(Schedule schedule);
// The schedule a contract name stands for; nothing for an unknown name.
std::optional<Schedule> schedule_from_name(const std::string& name);

}  // namespace ppb
