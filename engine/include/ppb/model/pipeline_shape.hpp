// The shape of a pipeline: how many physical stages, chunks per stage, micro batches per step and
// which schedule. Shared by the plan (which adds a partition and recompute), the simulation (which
// adds costs) and the search (which enumerates shapes). Where a virtual stage lives is decided here
// and nowhere else.
#pragma once

#include <cstdint>

#include "ppb/model/schedule_names.hpp"

namespace ppb {

struct PipelineShape {
  int pp_degree = 1;
  int vpp_degree = 1;  // model chunks (virtual stages) per physical stage
  std::int64_t micro_batch_num = 1;
  Schedule schedule = Schedule::one_f_one_b;
  // zb_auto's cap: micro batches' worth of activation a stage holds at once (a full activation, F to
  // B, counts one; a weight part kept for W its share of the activation); 0 means the default,
  // 2 x pp_degree. Other schedules do not read it.
  int max_in_flight = 0;

  // The cap zb_auto keeps: max_in_flight, or 2 x pp_degree when it is 0.
  [[nodiscard]] int in_flight_cap() const { return max_in_flight > 0 ? max_in_flight : 2 * pp_degree; }

  // V = pp_degree x vpp_degree.
  [[nodiscard]] int virtual_stages() const { return pp_degree * vpp_degree; }
  // Virtual stage v lives on physical stage v mod pp_degree (chunk-major, as Megatron-LM and
  // MindFormers place them), except under the V-shape schedules: v < pp on stage v, v >= pp on
  // stage 2 pp - 1 - v (the first and last virtual stages share stage 0).
  [[nodiscard]] int physical_stage(int virtual_stage) const {
    if (is_v_shape(schedule)) return virtual_stage < pp_degree ? virtual_stage : 2 * pp_degree - 1 - virtual_stage;
    return virtual_stage % pp_degree;
  }
  // The virtual stage of model chunk `chunk` (0 <= chunk < vpp_degree) on physical stage `stage`;
  // chunks are numbered in model order, so a stage's virtual stages ascend with the chunk.
  [[nodiscard]] int virtual_stage(int stage, int chunk) const {
    if (is_v_shape(schedule)) return chunk == 0 ? stage : 2 * pp_degree - 1 - stage;
    return chunk * pp_degree + stage;
  }
};

}  // namespace ppb
