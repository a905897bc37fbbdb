// The `compare` command: an estimate request run under every schedule (compare.hpp), one row each.
#include <algorithm>

#include "command_support.hpp"
#include "core/field_reader.hpp"
#include "ppb/core/json_text.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/io/io.hpp"
#include "ppb/io/response_writer.hpp"
#include "ppb/search/compare.hpp"

namespace ppb::detail {

using nlohmann::json;

namespace {

// `compare.plans`: "as_given" (the request's plan under every schedule) or "balanced" (each
// schedule's own best plan, PPB's, under the `balance` section's options and work budget).
bool read_plans(const json& document, Diagnostics& d) {
  const auto it = document.find("compare");
  if (it == document.end()) return false;
  if (!it->is_object()) {
    d.error("TYPE_MISMATCH", "/compare", std::string("compare must be an object, not ") + type_name(*it) + ".");
    return false;
  }
  FieldReader f(*it, "/compare", d);
  const auto plans = f.string("plans");
  if (!plans || *plans == "as_given") return false;
  if (*plans == "balanced") return true;
  d.error("COMPARE_PLANS_UNKNOWN", f.at("plans"),
          "plans is " + quoted_input(*plans) +
              "; it must be \"as_given\" (the request's plan under every schedule) or \"balanced\" (each "
              "schedule's own best plan).");
  return false;
}

}  // namespace

CommandOutput run_compare(json document, const RequestClock& clock) {
  Diagnostics d;
  const Request request = parse_request(document, d);
  CompareOptions options;
  options.balanced = read_plans(document, d);
  const BalanceSettings settings = parse_balance(document, request.model, !request.unread.layers, d);
  refuse_program(document, "compare", d);
  if (!d.ok()) return invalid(d);
  if (options.balanced) {
    const std::int64_t cells = static_cast<std::int64_t>(request.pipeline.pp_degree) *
                               std::max(2, request.pipeline.vpp_degree) * (request.model.layer_count() + 1);
    if (cells > limits::max_balance_cells) {
      d.error("BALANCE_LIMIT", "/compare/plans",
              "balancing every schedule needs up to " + std::to_string(cells) +
                  " table entries (virtual stages x (layers + 1)), above the cap of " +
                  std::to_string(limits::max_balance_cells) + "; merge layers into blocks or use fewer stages.");
      return invalid(d);
    }
    options.balance.recompute_options = settings.recompute_options;
    options.balance.tolerance = settings.tolerance;
    options.balance.work_budget = settings.work_budget;
    options.balance.time_budget_ms = settings.time_budget_ms;
    options.balance.spent_before_ms = RequestClock::counted_ms(clock.elapsed_ms(), settings.time_budget_ms);
  }
  const auto rows = compare_schedules(request, options);
  json list = json::array();
  std::optional<std::size_t> fastest, fastest_span;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ScheduleComparison& row = rows[i];
    json problems = json::array();
    for (const Diagnostic& p : row.problems)
      problems.push_back({{"code", p.code}, {"path", p.path}, {"message", p.message}});
    const auto figure = [&](double value) { return row.runs ? json(value) : json(nullptr); };
    list.push_back({{"schedule", schedule_name(row.schedule)},
                    {"vpp_degree", row.vpp_degree},
                    {"runs", row.runs},
                    {"problems", std::move(problems)},
                    {"partition_as_given", row.partition_as_given},
                    {"feasible", row.runs ? json(row.feasible) : json(nullptr)},
                    {"step_time_ms", figure(row.step_time_ms)},
                    {"span_ms", figure(row.span_ms)},
                    {"bubble_fraction", figure(row.bubble_fraction)},
                    {"bubble_span_fraction", figure(row.bubble_span_fraction)},
                    {"peak_mib", figure(row.peak_mib)},
                    {"peak_stage", row.runs ? json(row.peak_stage) : json(nullptr)},
                    {"plan", row.plan ? plan_json(*row.plan, request.model) : json(nullptr)},
                    {"proven_optimal", row.runs && options.balanced ? json(row.proven_optimal) : json(nullptr)},
                    {"stopped_early", row.runs && options.balanced ? json(row.clock_cut) : json(nullptr)}});
    if (!row.runs || !row.feasible) continue;
    if (!fastest || row.step_time_ms < rows[*fastest].step_time_ms) fastest = i;
    if (!fastest_span || row.span_ms < rows[*fastest_span].span_ms) fastest_span = i;
  }
  const auto name = [&](const std::optional<std::size_t>& i) {
    return i ? json(schedule_name(rows[*i].schedule)) : json(nullptr);
  };
  return ok_response("compare",
                     {{"plans", options.balanced ? "balanced" : "as_given"},
                      {"schedules", std::move(list)},
                      {"fastest", name(fastest)},
                      {"fastest_by_span", name(fastest_span)}},
                     d);
}

}  // namespace ppb::detail
