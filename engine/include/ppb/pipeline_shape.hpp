// The shape of a pipeline: how many physical stages, chunks per stage, micro batches per step and
// which schedule. Shared by the plan (which adds a partition and recompute), the simulation (which
// adds costs) and the search (which enumerates shapes).
#pragma once

#include <cstdint>

#include "ppb/schedule_names.hpp"

namespace ppb {

struct PipelineShape {
  int pp_degree = 1;
  int vpp_degree = 1;  // model chunks (virtual stages) per physical stage
  std::int64_t micro_batch_num = 1;
  Schedule schedule = Schedule::one_f_one_b;

  // V = pp_degree x vpp_degree.
  [[nodiscard]] int virtual_stages() const { return pp_degree * vpp_degree; }
  // Virtual stage v lives on physical stage v mod pp_degree (chunk-major, as Megatron-LM and
  // MindFormers place them).
  [[nodiscard]] int physical_stage(int virtual_stage) const { return virtual_stage % pp_degree; }
};

}  // namespace ppb
