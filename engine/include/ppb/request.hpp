// A parsed request: the model plus training, device and pipeline settings and outside components,
// as plain values. The JSON side lives in request_reader.hpp; everything here is already validated
// for types and ranges. The pipeline section is kept as the user stated it; plan.hpp resolves it into a Plan.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ppb/device.hpp"
#include "ppb/model.hpp"
#include "ppb/schedule_names.hpp"
#include "ppb/stage_component.hpp"
#include "ppb/training.hpp"

namespace ppb {

// How the user stated the partition; at most one form is given.
enum class PartitionForm { even, stage_partition, stage_layers, layer_offset };
// How the user stated recompute.
enum class RecomputeForm { none, counts, layers };

struct PipelineSpec {
  int pp_degree = 1;
  int vpp_degree = 1;
  bool vpp_degree_given = false;  // the V-shape schedules imply 2 when it is not
  std::optional<std::int64_t> micro_batch_num;  // resolved by resolve_micro_batch_num
  Schedule schedule = Schedule::one_f_one_b;
  bool allow_empty_stages = false;
  bool include_timeline = false;

  PartitionForm partition_form = PartitionForm::even;
  std::vector<std::int64_t> partition;  // the numbers of the chosen form

  RecomputeForm recompute_form = RecomputeForm::none;
  // option name -> per-virtual-stage counts (counts form) or expanded layer indices (layers form)
  std::map<std::string, std::vector<std::int64_t>> recompute;
};

struct Request {
  Model model;
  Training training;
  Device device;
  PipelineSpec pipeline;
  std::vector<StageComponent> components;
};

}  // namespace ppb
