// Exports never change the plan silently: the plan a launcher runs from the settings an export
// writes (Megatron-LM's one recompute granularity, MindFormers' first-N-layers counts, their 1F1B
// schedules), its own estimate, what differs from the request's plan in sentences, and, when that
// plan differs and does not fit memory, the fastest plan the launcher can express that does fit, or
// a refusal saying why there is none. Rules and sources: docs/interop.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ppb/model/model.hpp"
#include "ppb/model/request.hpp"
#include "ppb/plan/plan.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {

enum class Launcher { megatron, mindformers, pytorch, torchtitan, chrome_trace };

// The plan a launcher runs from what the export writes for `plan`, and what of it the engine
// could not price as the launcher runs it (sentences).
struct LauncherPlan {
  Plan plan;
  std::vector<std::string> caveats;
  std::vector<std::string>
      reasons;  // why the launcher cannot take the plan's recompute, where it says more than the layers
};

// Megatron-LM: the partition as written (the layout expresses any), the schedule it runs (1F1B,
// interleaved with virtual stages, virtual stage v on rank v mod pp) and recompute as
// megatron_recompute writes it: full on every decoder layer, full on the first N decoder layers of
// every model chunk, selective on every decoder layer, or none.
//
// Example: 8 decoders, pp 2, selective on layers 0 and 1 only: Megatron-LM gets no recompute
// argument, so the plan it runs recomputes nothing.
LauncherPlan megatron_runs(const Plan& plan, const Model& model);

// MindFormers: offset and counts per stage as written, applied to the first layers of each stage
// (full, then select + comm, then select, then comm), under 1F1B (interleaved when vpp > 1); for zbv
// and dualpipev the [vpp][pp] lists follow the V, which MindFormers reads as chunk-major stages.
//
// Example: pp 2, 4 decoders per stage, full recompute on layers 2 and 3 (the last two of stage 0):
// MindFormers gets recompute [2, 0] and recomputes layers 0 and 1.
LauncherPlan mindformers_runs(const Plan& plan, const Model& model);

// The exported plan's own estimate, as result.exported carries it.
struct ExportedEstimate {
  bool plan_kept = true;  // the output runs exactly the request's plan
  bool feasible = true;
  double step_time_ms = 0;
  double peak_mib = 0;  // the largest stage peak
  int peak_stage = 0;
  std::vector<std::string> changes;  // what differs from the request's plan; empty when plan_kept
};

// An estimate as result.exported carries it, plan kept and no changes (the caller says otherwise).
ExportedEstimate exported_estimate(const Estimate& estimate);

struct ExportFit {
  Plan plan;              // the plan to write
  bool replaced = false;  // plan is the launcher's nearest fitting plan, not the request's written out
  ExportedEstimate exported;
  std::optional<std::string> refusal;  // set when nothing the launcher can express fits
};

// Decides what an export writes for `plan` (resolved from `request`). Chrome trace: the plan itself.
// PyTorch: the plan's program, which carries the partition and schedule but not the recompute
// (said in changes; the estimate assumes the recompute is applied as planned); torchtitan likewise,
// except that full or selective recompute on every decoder layer is its activation checkpointing. Megatron-LM and
// MindFormers: the launcher's plan; when it differs from `plan` and is over
// request.device.memory_limit_mib, the fastest fitting plan the launcher can express with the same
// partition (Megatron-LM: no recompute, selective everywhere, full block N with the smallest N that
// fits, full everywhere; MindFormers: full recompute on the first N_s layers of each stage s, N_s
// the smallest that fits), else a refusal naming the best one's peak against the limit.
ExportFit fit_export(Launcher launcher, const Request& request, const Plan& plan);

}  // namespace ppb
