// PyTorch pipelining actions as text, for the reader of a user's program (program_import.cpp):
// internal to the schedule room.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ppb::program_text {

enum class Kind : std::uint8_t { F, I, B, W };

// One compute action: stage, type, micro batch.
struct Simple {
  Kind kind = Kind::F;
  std::int64_t stage = 0;
  std::int64_t micro_batch = 0;
};

// `s` without the spaces around it.
std::string_view trim(std::string_view s);

// One action as written: one simple action or, for OVERLAP_F_B, two (the forward first); empty, with
// the reason in `why`, when it is not an action.
std::vector<Simple> parse_action(std::string_view text, std::string& why);

}  // namespace ppb::program_text
