// The program generators, one per schedule family, behind schedule.cpp's dispatch. Each returns the
// operations of one physical stage for a shape that meets the schedule's conditions.
#pragma once

#include <vector>

#include "ppb/schedule/schedule.hpp"

namespace ppb::programs {

// schedule_megatron.cpp
std::vector<Op> gpipe(const PipelineShape& shape, int stage);
std::vector<Op> one_f_one_b(const PipelineShape& shape, int stage);
std::vector<Op> interleaved_1f1b(const PipelineShape& shape, int stage);
// schedule_zero_bubble.cpp
std::vector<Op> zb_h1(const PipelineShape& shape, int stage);
std::vector<Op> zb_h2(const PipelineShape& shape, int stage);
std::vector<Op> zbv(const PipelineShape& shape, int stage);
// schedule_dualpipev.cpp
std::vector<Op> dualpipev(const PipelineShape& shape, int stage);

// Small builders shared by the generators.
inline Op forward(int virtual_stage, std::int64_t micro_batch) {
  return {OpKind::F, false, virtual_stage, static_cast<std::int32_t>(micro_batch), -1, -1};
}
inline Op backward(int virtual_stage, std::int64_t micro_batch, bool weight_apart) {
  return {OpKind::B, weight_apart, virtual_stage, static_cast<std::int32_t>(micro_batch), -1, -1};
}
inline Op weight(int virtual_stage, std::int64_t micro_batch) {
  return {OpKind::W, false, virtual_stage, static_cast<std::int32_t>(micro_batch), -1, -1};
}

}  // namespace ppb::programs
