// The program generators, one per schedule family, behind schedule.cpp's dispatch. Each appends the
// operations of one physical stage to `ops`, in order, for a shape that meets the schedule's conditions.
#pragma once

#include <vector>

#include "ppb/schedule/schedule.hpp"

namespace ppb::programs {

// schedule_megatron.cpp
void gpipe(const PipelineShape& shape, int stage, std::vector<Op>& ops);
void one_f_one_b(const PipelineShape& shape, int stage, std::vector<Op>& ops);
void interleaved_1f1b(const PipelineShape& shape, int stage, std::vector<Op>& ops);
void interleaved_1f1b_overlap(const PipelineShape& shape, int stage, std::vector<Op>& ops);
// schedule_zero_bubble.cpp
void zb_h1(const PipelineShape& shape, int stage, std::vector<Op>& ops);
void zb_h2(const PipelineShape& shape, int stage, std::vector<Op>& ops);
void zbv(const PipelineShape& shape, int stage, std::vector<Op>& ops);
// schedule_dualpipev.cpp
void dualpipev(const PipelineShape& shape, int stage, std::vector<Op>& ops);
// schedule_pytorch.cpp
void looped_bfs(const PipelineShape& shape, int stage, std::vector<Op>& ops);
void interleaved_zero_bubble(const PipelineShape& shape, int stage, std::vector<Op>& ops);

// schedule_controllable_memory.cpp
void v_half(const PipelineShape& shape, int stage, std::vector<Op>& ops);
void v_min(const PipelineShape& shape, int stage, std::vector<Op>& ops);

// Small builders shared by the generators.
inline Op forward(int virtual_stage, std::int64_t micro_batch) {
  return {OpKind::F, false, virtual_stage, static_cast<std::int32_t>(micro_batch), -1, -1};
}
inline Op backward(int virtual_stage, std::int64_t micro_batch, bool weight_apart) {
  return {OpKind::B, weight_apart, virtual_stage, static_cast<std::int32_t>(micro_batch), -1, -1};
}
// One F&B pair: the forward of (virtual_stage, micro_batch) with the full backward of another.
inline Op forward_and_backward(int virtual_stage, std::int64_t micro_batch, int backward_virtual_stage,
                               std::int64_t backward_micro_batch) {
  return {OpKind::FB,
          false,
          virtual_stage,
          static_cast<std::int32_t>(micro_batch),
          backward_virtual_stage,
          static_cast<std::int32_t>(backward_micro_batch)};
}
inline Op weight(int virtual_stage, std::int64_t micro_batch) {
  return {OpKind::W, false, virtual_stage, static_cast<std::int32_t>(micro_batch), -1, -1};
}

}  // namespace ppb::programs
