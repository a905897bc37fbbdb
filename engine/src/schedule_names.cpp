// Contract names of the schedules.
#include "ppb/schedule_names.hpp"

namespace ppb {

const char* schedule_name(Schedule schedule) {
  switch (schedule) {
    case Schedule::gpipe: return "gpipe";
    case Schedule::one_f_one_b: return "1f1b";
    case Schedule::interleaved_1f1b: return "interleaved_1f1b";
    case Schedule::zb_h1: return "zb_h1";
  }
  return "?";
}

std::optional<Schedule> schedule_from_name(const std::string& name) {
  for (Schedule s : {Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved_1f1b, Schedule::zb_h1})
    if (name == schedule_name(s)) return s;
  return std::nullopt;
}

}  // namespace ppb
