// The `balance` command and BalanceSession, its face in slices for the WASM boundary: PPB's optimal
// plan (or the ranked layer_offset search) beside the even split. Both read the request the same
// way and write the same response.
#include <algorithm>
#include <cmath>

#include "command_support.hpp"
#include "core/field_reader.hpp"
#include "io/infeasibility_response.hpp"
#include "io/recompute_option_list.hpp"
#include "ppb/balance/balance.hpp"
#include "ppb/balance/offset_search.hpp"
#include "ppb/commands/balance_session.hpp"
#include "ppb/core/json_text.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/io/request_reader.hpp"
#include "ppb/io/response_writer.hpp"
#include "ppb/plan/checked_plan.hpp"

namespace ppb::detail {

using nlohmann::json;

namespace {

// The even split's estimate beside a balanced plan: the estimate result without the caveats, which
// the plan's result states once.
json baseline_json(const Estimate& baseline, const Request& request) {
  json out = estimate_json(baseline, request, false);
  out.erase("caveats");
  return out;
}

json gain_json(const Estimate& plan, const Estimate& baseline) {
  const double saved = baseline.step_time_ms - plan.step_time_ms;
  double plan_peak = 0, base_peak = 0;
  for (const auto& s : plan.stages) plan_peak = std::max(plan_peak, s.memory.peak_mib);
  for (const auto& s : baseline.stages) base_peak = std::max(base_peak, s.memory.peak_mib);
  return {{"step_time_ms", saved},
          {"step_time_fraction", baseline.step_time_ms > 0 ? saved / baseline.step_time_ms : 0.0},
          {"peak_mib", base_peak - plan_peak},
          {"imbalance_max_over_mean", baseline.imbalance_max_over_mean - plan.imbalance_max_over_mean}};
}

}  // namespace

BalanceSettings parse_balance(const json& document, const Model& model, bool layers_known, Diagnostics& d) {
  BalanceSettings settings;
  for (std::size_t o = 0; o < model.recompute_options.size(); ++o)
    settings.recompute_options.push_back(static_cast<int>(o));
  auto it = document.find("balance");
  if (it == document.end()) return settings;
  if (!it->is_object()) {
    d.error("TYPE_MISMATCH", "/balance", std::string("balance must be an object, not ") + type_name(*it) + ".");
    return settings;
  }
  FieldReader f(*it, "/balance", d);
  // Option names are checked against the model only when its layers were read.
  if (const json* options = f.array("recompute_options", "option names"); options && layers_known)
    settings.recompute_options = read_recompute_option_list(*options, f.at("recompute_options"), model, d);
  if (auto mode = f.string("mode")) {
    if (*mode == "optimal" || *mode == "offset")
      settings.mode = *mode;
    else
      d.error("BALANCE_MODE_UNKNOWN", f.at("mode"),
              "mode is " + quoted_input(*mode) + "; it must be \"optimal\" or \"offset\".");
  }
  if (auto range = f.integer("offset_range", {0, 64, "OFFSET_RANGE_INVALID"}))
    settings.offset_range = static_cast<int>(*range);
  settings.tolerance = f.number("tolerance", {.max = 1, .over_code = "OUT_OF_RANGE"}).value_or(settings.tolerance);
  settings.work_budget =
      f.integer("work_budget", {1, limits::max_work_budget, "OUT_OF_RANGE"}).value_or(settings.work_budget);
  settings.time_budget_ms =
      f.number("time_budget_ms", {.min = 0, .min_exclusive = true, .max = 600'000, .over_code = "OUT_OF_RANGE"})
          .value_or(settings.time_budget_ms);
  settings.max_candidates =
      f.integer("max_candidates", {1, 1'000'000, "OUT_OF_RANGE"}).value_or(settings.max_candidates);
  return settings;
}

// A balance request read and checked: the request with its partition and recompute left open, the
// balance settings, the pipeline shape and the warnings to repeat in the response.
struct BalanceRequest {
  Request request;
  BalanceSettings settings;
  Plan shape;
  BalanceOptions options;  // optimal mode
  Diagnostics diagnostics;
  std::optional<Estimate> baseline;  // the even split, estimated before the balance (optimal mode)
};

// Reads `document` into `out`; false (with the errors in out.diagnostics) when it cannot run.
bool read_balance_request(const json& document, BalanceRequest& out) {
  Diagnostics& d = out.diagnostics;
  out.request = parse_request(document, d);
  Request& request = out.request;
  out.settings = parse_balance(document, request.model, !request.unread.layers, d);
  refuse_program(document, "balance", d);
  if (request.pipeline.partition_form != PartitionForm::even || request.pipeline.recompute_form != RecomputeForm::none)
    d.warning("IGNORED_FIELD", "/pipeline",
              "balance chooses the partition and recompute itself; the ones given in pipeline are ignored.");
  // The plan's checks on the request without its partition and recompute (ignored, as above): the
  // request is changed for the check and put back, rather than copied with its every layer.
  const PipelineSpec given = request.pipeline;
  const Unread unread = request.unread;
  request.pipeline.partition_form = PartitionForm::even;
  request.pipeline.partition.clear();
  request.pipeline.recompute_form = RecomputeForm::none;
  request.pipeline.recompute.clear();
  request.unread.partition = request.unread.recompute = false;
  auto shape = checked_plan(request, d);
  request.pipeline = given;
  request.unread = unread;
  if (!shape || !d.ok()) return false;
  // The balancer's bound tables hold one entry per (virtual stage, layer boundary).
  const std::int64_t cells = static_cast<std::int64_t>(shape->virtual_stages()) * (request.model.layer_count() + 1);
  if (cells > limits::max_balance_cells) {
    d.error("BALANCE_LIMIT", "/pipeline/pp_degree",
            "balance over " + std::to_string(shape->virtual_stages()) + " virtual stages and " +
                std::to_string(request.model.layer_count()) + " layers needs " + std::to_string(cells) +
                " table entries (virtual stages x (layers + 1)), above the cap of " +
                std::to_string(limits::max_balance_cells) + "; merge layers into blocks or use fewer stages.");
    return false;
  }
  out.shape = *shape;
  BalanceOptions& options = out.options;
  options.recompute_options = out.settings.recompute_options;
  options.allow_empty_stages = request.pipeline.allow_empty_stages;
  options.tolerance = out.settings.tolerance;
  options.components = request.components;
  options.work_budget = out.settings.work_budget;
  options.time_budget_ms = out.settings.time_budget_ms;
  return true;
}

// Readies the optimal mode once the request is read: estimates the even split, which the answer
// compares with, and counts the time spent so far, and as much again as that estimate took (the
// answer estimates the plan found the same way), against the time budget (RequestClock::counted_ms).
void prepare_optimal(BalanceRequest& in, const RequestClock& clock) {
  const auto before = clock.elapsed_ms();
  in.baseline = estimate(in.request.model, in.request.device, in.shape, false, in.request.components);
  const auto now = clock.elapsed_ms();
  in.options.spent_before_ms = RequestClock::counted_ms(now + (now - before), in.options.time_budget_ms);
}

// The offset mode's response: the ranked offsets, the best as the plan.
CommandOutput offset_response(const BalanceRequest& in, const RequestClock& clock) {
  const Request& request = in.request;
  const BalanceSettings& settings = in.settings;
  const bool timeline = request.pipeline.include_timeline;
  const Estimate baseline = estimate(request.model, request.device, in.shape, false, request.components);
  OffsetSearchOptions search;
  search.recompute_options = settings.recompute_options;
  search.range = settings.offset_range;
  search.allow_empty_stages = request.pipeline.allow_empty_stages;
  search.max_candidates = settings.max_candidates;
  // The time spent reading the request counts against the budget.
  search.time_budget_ms =
      settings.time_budget_ms - RequestClock::counted_ms(clock.elapsed_ms(), settings.time_budget_ms);
  search.components = request.components;
  const OffsetSearchResult searched = offset_search(request.model, request.device, in.shape, search);
  const auto& candidates = searched.candidates;
  const OffsetSearchStop stop = searched.stop;
  const Estimate best =
      estimate(request.model, request.device, candidates.front().estimate.plan, timeline, request.components);
  json result = estimate_json(best, request, timeline);
  json ranked = json::array();
  for (const auto& c : candidates) {
    double peak = 0;
    for (const auto& s : c.estimate.stages) peak = std::max(peak, s.memory.peak_mib);
    ranked.push_back({{"layer_offset", c.layer_offset},
                      {"stage_layers", c.estimate.plan.stage_layers},
                      {"feasible", c.estimate.feasible},
                      {"step_time_ms", c.estimate.step_time_ms},
                      {"bubble_fraction", c.estimate.bubble_fraction},
                      {"peak_mib", peak},
                      {"gain_ms", baseline.step_time_ms - c.estimate.step_time_ms}});
  }
  result["offsets"] = ranked;
  result["infeasibility"] =
      infeasibility_json(explain_infeasibility(request.model, request.device, in.shape, settings.recompute_options,
                                               request.pipeline.allow_empty_stages, request.components, best, nullptr));
  const std::string budget = number_text(settings.time_budget_ms);
  json notes = json::array();
  if (stop == OffsetSearchStop::max_candidates)
    notes.push_back("stopped at max_candidates (" + std::to_string(settings.max_candidates) +
                    "); the offsets nearest the even split were evaluated first");
  if (stop == OffsetSearchStop::time_budget)
    notes.push_back("stopped at the time budget (balance.time_budget_ms " + budget +
                    "); the offsets nearest the even split were evaluated first");
  result["gain"] = gain_json(best, baseline);
  result["baseline"] = baseline_json(baseline, request);
  result["method"] = {
      {"algorithm", "offset search: every legal layer_offset within +-" + std::to_string(settings.offset_range) +
                        " of the even split, each with its least-time recompute that fits memory, simulated"},
      {"evaluated", candidates.size()},
      {"complete", stop == OffsetSearchStop::none},
      {"proven_optimal", false},
      {"notes", notes}};
  return ok_response("balance", result, in.diagnostics);
}

// The optimal mode's response from the balancer's result.
CommandOutput optimal_response(const BalanceRequest& in, const BalanceResult& found) {
  const Request& request = in.request;
  const bool timeline = request.pipeline.include_timeline;
  const Estimate& baseline = *in.baseline;
  const Estimate best = estimate(request.model, request.device, found.plan, timeline, request.components);
  json result = estimate_json(best, request, timeline);
  result["infeasibility"] =
      infeasibility_json(explain_infeasibility(request.model, request.device, in.shape, in.options.recompute_options,
                                               in.options.allow_empty_stages, request.components, best, &found));
  result["gain"] = gain_json(best, baseline);
  result["baseline"] = baseline_json(baseline, request);
  result["method"] = {
      {"algorithm",
       "branch and bound over stage boundaries; every candidate not ruled out by a lower bound is "
       "simulated; exact per-stage recompute from the Pareto frontier of (activation kept, time added)"},
      {"proven_optimal", found.proven_optimal},
      // No bound where the balancer's memory or recompute choices are not exact (method.notes says
      // why) or nothing fits.
      {"lower_bound_ms", found.within_tolerance ? json(found.lower_bound_ms) : json(nullptr)},
      {"within_tolerance", found.within_tolerance ? json(*found.within_tolerance) : json(nullptr)},
      {"nodes", found.nodes},
      {"simulations", found.simulations},
      {"notes", found.notes}};
  return ok_response("balance", result, in.diagnostics);
}

CommandOutput run_balance(json document, const RequestClock& clock) {
  BalanceRequest in;
  if (!read_balance_request(document, in)) return invalid(in.diagnostics);
  document = nullptr;  // read: freed inside the budget
  if (in.settings.mode == "offset") return offset_response(in, clock);
  prepare_optimal(in, clock);
  return optimal_response(in, balance(in.request.model, in.request.device, in.shape, in.options));
}

}  // namespace ppb::detail

namespace ppb {

struct BalanceSession::Impl {
  CommandOutput error;
  detail::BalanceRequest in;
  std::unique_ptr<Balancer> balancer;  // optimal mode; reads `in`, which outlives it
  CommandOutput offset;                // offset mode: the whole answer, made by the first step
  // When the session was made: the budget counts from here (reading the request included).
  detail::RequestClock clock;
};

BalanceSession::BalanceSession(std::string_view request_json, std::optional<KeptModelId> model)
    : impl_(std::make_unique<Impl>()) {
  try {
    // The same checked parse as every other command: size, depth, value count, number range.
    auto document = detail::read_request_text(request_json, impl_->in.diagnostics, true, model);
    if (!document || !detail::read_balance_request(*document, impl_->in)) {
      impl_->error = detail::invalid(impl_->in.diagnostics);
      return;
    }
    document.reset();  // read: freed inside the budget
    const detail::BalanceRequest& in = impl_->in;
    if (in.settings.mode != "offset") {
      detail::prepare_optimal(impl_->in, impl_->clock);
      impl_->balancer = std::make_unique<Balancer>(in.request.model, in.request.device, in.shape, in.options);
    }
  } catch (...) {
    impl_->error = failure_output(std::current_exception());
  }
}

BalanceSession::~BalanceSession() = default;

const CommandOutput& BalanceSession::error() const { return impl_->error; }

BalanceProgress BalanceSession::step(double slice_ms) {
  BalanceProgress done;
  done.phase = "done";
  done.finished = true;
  if (!impl_->error.json.empty()) return done;
  try {
    if (impl_->balancer) return impl_->balancer->step(slice_ms);
    if (impl_->offset.json.empty()) impl_->offset = detail::offset_response(impl_->in, impl_->clock);
    return done;
  } catch (...) {
    impl_->error = failure_output(std::current_exception());
    return done;
  }
}

CommandOutput BalanceSession::best_so_far() {
  if (!impl_->error.json.empty()) return impl_->error;
  if (!impl_->balancer) return result(false);  // the offset mode's answer comes whole
  try {
    return detail::optimal_response(impl_->in, impl_->balancer->best_so_far());
  } catch (...) {
    impl_->error = failure_output(std::current_exception());
    return impl_->error;
  }
}

CommandOutput BalanceSession::result(bool cancelled) {
  if (!impl_->error.json.empty()) return impl_->error;
  try {
    if (impl_->balancer) return detail::optimal_response(impl_->in, impl_->balancer->result(cancelled));
    if (impl_->offset.json.empty()) impl_->offset = detail::offset_response(impl_->in, impl_->clock);
    return impl_->offset;
  } catch (...) {
    impl_->error = failure_output(std::current_exception());
    return impl_->error;
  }
}

}  // namespace ppb
