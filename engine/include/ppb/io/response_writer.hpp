// Responses as JSON: the estimate result every command's plan is reported in, and the lists of
// errors and warnings. docs/contract.md lists every field.
#pragma once

#include <nlohmann/json.hpp>

#include "ppb/core/diagnostics.hpp"
#include "ppb/model/request.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {

// The contract's estimate result: feasible, step time, bubble, imbalance, the plan in every form
// (stage_partition, stage_layers, layer_offset, layer_recompute, recompute_counts), per-stage memory
// and time, violations, throughput, the caveats (caveats.hpp), and with `include_timeline` the
// operations and memory over time. Samples per second count training.micro_batch_size x dp_degree
// samples per micro batch (1 each when the request states neither).
nlohmann::json estimate_json(const Estimate& estimate, const Request& request, bool include_timeline);

// A plan in the forms a row that opens it needs: stage_layers, layer_offset, layer_recompute and
// recompute_counts (a search candidate's `plan`, a compare row's).
nlohmann::json plan_json(const Plan& plan, const Model& model);

// `result.throughput`: samples per second as given, tokens per second per device and MFU from the estimate
// (null when not known).
nlohmann::json throughput_json(double samples_per_s, const Estimate& estimate);

// What an operation says beyond its kind, chunk and micro batch, into `out`: weight_apart for a
// backward (B or the B of an F&B pair), and an F&B pair's backward chunk and micro batch. The
// timeline and the Chrome trace write the same fields.
void write_op_details(nlohmann::json& out, const TimedOp& op);

// [{"code", "path", "message"}, ...], at most limits::max_diagnostics, then one TOO_MANY_ERRORS
// (TOO_MANY_WARNINGS) entry counting the rest.
nlohmann::json errors_json(const Diagnostics& diagnostics);
nlohmann::json warnings_json(const Diagnostics& diagnostics);

}  // namespace ppb
