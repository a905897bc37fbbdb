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

// A per-stage cost from outside, once per step: for example the data-parallel gradient
// synchronisation or the optimizer step after a stage's last backward, and memory such as
// communication buffers. Values are per physical stage, or one value for every stage.
struct StageComponent {
  std::string name;
  std::vector<double> step_ms;     // time after the stage's last operation
  std::vector<double> memory_mib;  // added to the stage's peak
  [[nodiscard]] double step_at(int stage) const {
    return step_ms.empty() ? 0 : step_ms.size() == 1 ? step_ms[0] : step_ms[static_cast<std::size_t>(stage)];
  }
  [[nodiscard]] double memory_at(int stage) const {
    return memory_mib.empty() ? 0 : memory_mib.size() == 1 ? memory_mib[0] : memory_mib[static_cast<std::size_t>(stage)];
  }
};

struct Request {
  Model model;
  Training training;
  Device device;
  PipelineSpec pipeline;
  std::vector<StageComponent> components;
};

}  // namespace ppb
