// Progress of sliced work as JSON: one writer, so that a balance and a search report in one shape.
#include "ppb/io/progress_writer.hpp"

#include <nlohmann/json.hpp>

#include "ppb/core/json_text.hpp"

namespace ppb {

using nlohmann::json;

namespace {

json number_or_null(const std::optional<double>& x) { return x ? json(*x) : json(nullptr); }

// Every field, always: a reader never has to ask whether one is there.
std::string progress_text(const char* command, const std::string& phase, std::int64_t done, json total,
                          json simulations, json incumbent_ms, json lower_bound_ms, bool finished) {
  json out = json::object();
  out["command"] = command;
  out["phase"] = phase;
  out["done"] = done;
  out["total"] = std::move(total);
  out["simulations"] = std::move(simulations);
  out["incumbent_ms"] = std::move(incumbent_ms);
  out["lower_bound_ms"] = std::move(lower_bound_ms);
  out["finished"] = finished;
  return json_text(out);
}

}  // namespace

std::string progress_json(const BalanceProgress& p) {
  return progress_text("balance", p.phase, p.nodes, nullptr, p.simulations, number_or_null(p.incumbent_ms),
                       number_or_null(p.lower_bound_ms), p.finished);
}

std::string progress_json(const SearchProgress& p) {
  return progress_text("search", p.finished ? "done" : "candidates", p.done, p.total, nullptr, nullptr, nullptr,
                       p.finished);
}

}  // namespace ppb
