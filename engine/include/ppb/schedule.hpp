// Pipeline schedules as data: for every physical stage, the order in which it runs its forward (F),
// backward (B) and weight-gradient (W) operations. The simulator (simulate.hpp) runs any order;
// adding a schedule means adding one order generator here.
#pragma once

#include <cstdint>
#include <vector>

#include "ppb/schedule_names.hpp"

namespace ppb {

enum class OpKind : std::uint8_t { F, B, W };

const char* op_name(OpKind kind);

struct OpRef {
  std::int32_t virtual_stage = 0;
  std::int32_t micro_batch = 0;
  OpKind kind = OpKind::F;
};

// The fixed order of one physical stage for schedules whose order does not depend on timing:
// gpipe, 1f1b (Megatron-LM's warm-up / steady / cool-down) and interleaved_1f1b (Megatron-LM's
// interleaved order, micro batch groups of pp_degree). zb_h1 picks its next operation from what has
// arrived, so it has no fixed order; see simulate.cpp.
std::vector<OpRef> stage_order(Schedule schedule, int pp_degree, int vpp_degree, std::int64_t micro_batch_num,
                               int stage);

// True for schedules that split the backward into B (input gradient) and W (weight gradient).
bool splits_weight_gradient(Schedule schedule);

}  // namespace ppb
