// The `compare` command: an estimate request run under every schedule (compare.hpp), one row each.
#include "command_support.hpp"
#include "ppb/io/io.hpp"
#include "ppb/search/compare.hpp"

namespace ppb::detail {

using nlohmann::json;

CommandOutput run_compare(json document, const RequestClock& /*clock*/) {
  Diagnostics d;
  const Request request = parse_request(document, d);
  if (!d.ok()) return invalid(d);
  const auto rows = compare_schedules(request);
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
                    {"peak_stage", row.runs ? json(row.peak_stage) : json(nullptr)}});
    if (!row.runs || !row.feasible) continue;
    if (!fastest || row.step_time_ms < rows[*fastest].step_time_ms) fastest = i;
    if (!fastest_span || row.span_ms < rows[*fastest_span].span_ms) fastest_span = i;
  }
  const auto name = [&](const std::optional<std::size_t>& i) {
    return i ? json(schedule_name(rows[*i].schedule)) : json(nullptr);
  };
  return ok_response(
      "compare", {{"schedules", std::move(list)}, {"fastest", name(fastest)}, {"fastest_by_span", name(fastest_span)}},
      d);
}

}  // namespace ppb::detail
