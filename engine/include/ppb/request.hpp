// A parsed request: the model plus training, device and pipeline settings, as plain values.
// The JSON side lives in io.hpp; everything here is already validated for types and ranges.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ppb/model.hpp"

namespace ppb {

enum class Schedule { gpipe, one_f_one_b, interleaved_1f1b, zb_h1 };

const char* schedule_name(Schedule schedule);
std::optional<Schedule> schedule_from_name(const std::string& name);

struct BytesPerParam {
  // Megatron-LM's mixed-precision accounting: bf16 weights (2), fp32 gradients (4),
  // fp32 master weights and two Adam moments (12); 18 bytes per parameter in all.
  double weights = 2;
  double grads = 4;
  double optimizer = 12;
};

struct Training {
  std::optional<std::int64_t> global_batch_size;
  std::optional<std::int64_t> micro_batch_size;
  std::optional<std::int64_t> dp_degree;
  BytesPerParam bytes_per_param;
};

struct Device {
  std::optional<double> memory_limit_mib;   // none: every plan fits
  double reserved_mib = 0;                  // framework, workspace, fragmentation
  std::optional<double> p2p_bandwidth_gbs;  // none: transfers cost only their latency
  double p2p_latency_ms = 0;
};

// How the user stated the partition; at most one form is given.
enum class PartitionForm { even, stage_partition, stage_layers, layer_offset };
// How the user stated recompute.
enum class RecomputeForm { none, counts, layers };

struct PipelineSpec {
  int pp_degree = 1;
  int vpp_degree = 1;
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
};

}  // namespace ppb
