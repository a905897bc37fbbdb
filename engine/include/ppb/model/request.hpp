// A parsed request: the model plus training, device and pipeline settings and outside components,
// as plain values. The JSON side lives in request_reader.hpp; everything here is already validated
// for types and ranges. The pipeline section is kept as the user stated it; plan.hpp resolves it into a Plan.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ppb/model/device.hpp"
#include "ppb/model/model.hpp"
#include "ppb/model/schedule_names.hpp"
#include "ppb/model/stage_component.hpp"
#include "ppb/model/training.hpp"

namespace ppb {

// How the user stated the partition; at most one form is given.
enum class PartitionForm { even, stage_partition, stage_layers, layer_offset, megatron_layout };
// How the user stated recompute.
enum class RecomputeForm { none, counts, layers };

// A user's program as written (pipeline.program): PyTorch pipelining actions ("3F0", "3I0", "3W0",
// "3B0", "(1F3;6B1)OVERLAP_F_B"), one list per rank. schedule/program_import.hpp reads and checks it.
struct ProgramText {
  std::vector<std::vector<std::string>> ranks;
  bool csv = false;  // from the CSV text (one rank per line): positions are named by line, not pointer
};

struct PipelineSpec {
  int pp_degree = 1;
  int vpp_degree = 1;
  bool vpp_degree_given = false;                // the V-shape schedules imply 2 when it is not
  std::optional<std::int64_t> micro_batch_num;  // resolved by resolve_micro_batch_num
  Schedule schedule = Schedule::one_f_one_b;
  int max_in_flight = 0;  // zb_auto's cap; 0: not given (2 x pp_degree)
  bool allow_empty_stages = false;
  bool include_timeline = false;
  // pipeline.program: the order to run instead of the schedule's generator (the schedule still places
  // the virtual stages and decides the chunk counts).
  std::optional<ProgramText> program;

  PartitionForm partition_form = PartitionForm::even;
  // The numbers of the chosen form; for megatron_layout the body layers of each virtual stage.
  std::vector<std::int64_t> partition;

  RecomputeForm recompute_form = RecomputeForm::none;
  // option name -> per-virtual-stage counts (counts form) or expanded layer indices (layers form)
  std::map<std::string, std::vector<std::int64_t>> recompute;
};

// What the request reader found but could not read (each reported there as an error). The plan's
// checks that need one of these are left out, so that a bad value is one error and not a cascade,
// while every other check still runs: one answer lists every problem. A request built in C++ has
// everything read.
struct Unread {
  bool layers = false;         // the model's layer list: entries, counts, pins, recompute options
  bool degrees = false;        // pipeline.pp_degree or vpp_degree
  bool micro_batches = false;  // pipeline.micro_batch_num, or a batch size or dp_degree that derives it
  bool schedule = false;       // pipeline.schedule
  bool partition = false;      // the partition form given
  bool recompute = false;      // pipeline.recompute
  bool components = false;     // the components list
  bool program = false;        // pipeline.program

  [[nodiscard]] bool any() const {
    return layers || degrees || micro_batches || schedule || partition || recompute || components || program;
  }
};

// Where the model's costs came from, for what an estimate says it leaves out (simulate/caveats.hpp).
struct ModelSource {
  bool description = false;  // generated from a transformer description: times are FLOPs at peak x efficiency
  bool links = false;        // with the device's links (gpus_per_node, intra and inter node bandwidth)
};

struct Request {
  Model model;
  ModelSource source;
  Training training;
  Device device;
  PipelineSpec pipeline;
  std::vector<StageComponent> components;
  Unread unread;
};

}  // namespace ppb
