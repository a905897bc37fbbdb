// Contract names of the schedules.
#include "ppb/model/schedule_names.hpp"

namespace ppb {

const char* schedule_name(Schedule schedule) {
  switch (schedule) {
    case Schedule::gpipe: return "gpipe";
    case Schedule::one_f_one_b: return "1f1b";
    case Schedule::interleaved_1f1b: return "interleaved_1f1b";
    case Schedule::zb_h1: return "zb_h1";
    case Schedule::zb_h2: return "zb_h2";
    case Schedule::zbv: return "zbv";
    case Schedule::dualpipev: return "dualpipev";
    case Schedule::zb_auto: return "zb_auto";
    case Schedule::interleaved_1f1b_overlap: return "interleaved_1f1b_overlap";
    case Schedule::v_half: return "v_half";
    case Schedule::v_min: return "v_min";
    case Schedule::interleaved_zero_bubble: return "interleaved_zero_bubble";
    case Schedule::looped_bfs: return "looped_bfs";
  }
  return "?";
}

std::optional<Schedule> schedule_from_name(const std::string& name) {
  for (Schedule s : all_schedules)
    if (name == schedule_name(s)) return s;
  return std::nullopt;
}

std::string schedule_name_list() {
  std::string out;
  for (std::size_t i = 0; i < all_schedules.size(); ++i) {
    if (i > 0) out += i + 1 == all_schedules.size() ? " or " : ", ";
    out += schedule_name(all_schedules[i]);
  }
  return out;
}

}  // namespace ppb
