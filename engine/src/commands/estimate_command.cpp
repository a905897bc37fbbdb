// The estimate command: one plan's memory and time, every stage, from a request.
#include "command_support.hpp"
#include "ppb/io/request_reader.hpp"
#include "ppb/io/response_writer.hpp"
#include "ppb/plan/checked_plan.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb::detail {

using nlohmann::json;

CommandOutput run_estimate(json document, const RequestClock& /*clock*/) {
  Diagnostics d;
  Request request = parse_request(document, d);
  auto plan = checked_plan(request, d);
  if (!plan || !d.ok()) return invalid(d);
  const Estimate e =
      estimate(request.model, request.device, *plan, request.pipeline.include_timeline, request.components);
  return ok_response("estimate", estimate_json(e, request, request.pipeline.include_timeline), d);
}

}  // namespace ppb::detail
