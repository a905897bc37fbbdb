// Shared pieces of the command implementations (internal to the engine): the response envelope
// and the declarations of each command, one source file per command.
#pragma once

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ppb/balance/balance.hpp"
#include "ppb/commands/commands.hpp"
#include "ppb/core/diagnostics.hpp"
#include "ppb/model/request.hpp"
#include "ppb/plan/plan.hpp"

namespace ppb::detail {

// {"ok": true, "command": ..., "result": ...}, with warnings when there are any.
CommandOutput ok_response(const std::string& command, nlohmann::json result, const Diagnostics& diagnostics);
// {"ok": false, "errors": [...]}, exit status 2.
CommandOutput invalid(const Diagnostics& diagnostics);
// A request's text as JSON, checked (size, depth, value count, number range) and with its
// device.preset's figures filled in (device_presets.hpp): how every command reads its request.
// defer_model_layers: the entries of /model/layers stay text until the model reader builds each
// (parse_json_text); every command but import, which writes the model back out.
// With a kept model (kept_models.hpp), "model" names it: the kept text's own problems are the
// answer, as they would be in the request's text, and an id no model has is MODEL_NOT_KEPT.
std::optional<nlohmann::json> read_request_text(std::string_view text, Diagnostics& diagnostics,
                                                bool defer_model_layers = true,
                                                std::optional<KeptModelId> model = std::nullopt);
// When the request arrived: a command with a time budget (balance, search) counts the time spent
// reading the request against it, so that the budget covers the whole command.
class RequestClock {
 public:
  [[nodiscard]] double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - arrived_).count();
  }
  // What to count as already spent of `budget_ms` when the work itself starts, `spent_ms` after the
  // arrival: all of it, but the work keeps at least a tenth of the budget, so that a request that
  // took long to read (a large model, a slow first call) still gets an answer worth having (a
  // balance decides whether any plan fits; a search evaluates candidates).
  [[nodiscard]] static double counted_ms(double spent_ms, double budget_ms) {
    return std::min(spent_ms, 0.9 * budget_ms);
  }

 private:
  std::chrono::steady_clock::time_point arrived_ = std::chrono::steady_clock::now();
};

// The `balance` section: the recompute options PPB may use (every option the model offers unless
// stated; names are checked against the model when `layers_known`), the mode, the budgets.
struct BalanceSettings {
  std::vector<int> recompute_options;
  std::string mode = "optimal";
  int offset_range = 1;
  std::int64_t max_candidates = 10'000;
  double tolerance = 0;
  std::int64_t work_budget = kDefaultWorkBudget;
  double time_budget_ms = 60'000;
};
BalanceSettings parse_balance(const nlohmann::json& document, const Model& model, bool layers_known, Diagnostics& d);

// Each command owns its request document, so that a command with a time budget can free it (for a
// large model, as long as parsing it) inside the budget rather than after the answer.
CommandOutput run_estimate(nlohmann::json document, const RequestClock& clock);
CommandOutput run_import(nlohmann::json document, const RequestClock& clock);
CommandOutput run_export(nlohmann::json document, const RequestClock& clock);
CommandOutput run_balance(nlohmann::json document, const RequestClock& clock);
CommandOutput run_search(nlohmann::json document, const RequestClock& clock);
CommandOutput run_compare(nlohmann::json document, const RequestClock& clock);
CommandOutput run_cluster(nlohmann::json document, const RequestClock& clock);

}  // namespace ppb::detail
