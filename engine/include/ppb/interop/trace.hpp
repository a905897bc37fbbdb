// The simulated timeline as a Chrome trace event file (the JSON Object Format of the Trace Event
// Format), which Perfetto (ui.perfetto.dev) and chrome://tracing open.
#pragma once

#include <nlohmann/json.hpp>

#include "ppb/model/model.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {

// {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}} with:
// - one process "pipeline" (pid 0) and one thread per physical stage (tid = stage) named
//   "stage N" and sorted by stage;
// - every F, B, W and F&B operation as a complete event (ph "X") named op + micro batch ("F3"; an
//   F&B pair "F3&B1"), cat the op, ts and dur in microseconds, args {micro_batch, virtual_stage, op},
//   for B and F&B also weight_apart (true: only the input gradient, its W runs later), for F&B also
//   backward_micro_batch and backward_virtual_stage;
// - per stage a counter "memory stage N" (ph "C") of the activation memory it holds, args
//   {activation_mib}, from the simulation's memory step function.
// The estimate must have been made with keep_timeline = true; otherwise std::invalid_argument.
//
// Example: pp 2, one layer per stage with F 1 ms: stage 1's first forward becomes
// {"name": "F0", "cat": "F", "ph": "X", "pid": 0, "tid": 1, "ts": 1000, "dur": 1000,
//  "args": {"micro_batch": 0, "virtual_stage": 1, "op": "F"}}.
nlohmann::json chrome_trace(const Estimate& estimate, const Model& model);

}  // namespace ppb
