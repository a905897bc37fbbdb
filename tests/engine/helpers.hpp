// Small helpers shared by the engine tests: commands run on JSON requests and their errors read. The models and
// shapes the tests build are in test_models.hpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "ppb/commands/commands.hpp"
#include "ppb/io/io.hpp"
#include "ppb/model/model.hpp"
#include "ppb/model/transformer.hpp"
#include "ppb/plan/plan.hpp"
#include "ppb/simulate/simulate.hpp"
#include "test_models.hpp"

namespace ppb::test {

using nlohmann::json;

// The span bubble of the zero-bubble paper: (span - the busiest stage's busy time) / span.
inline double span_fraction(const SimulationResult& r) {
  double busiest = 0;
  for (const StageSimulation& s : r.stages) busiest = std::max(busiest, s.busy_ms);
  return (r.span_ms - busiest) / r.span_ms;
}

// Runs a command on a request object and returns the parsed response.
inline json run(const std::string& command, const json& request) {
  return json::parse(run_command(command, request.dump()).json);
}

// The codes of the errors in a response, in order.
inline std::vector<std::string> error_codes(const json& response) {
  std::vector<std::string> codes;
  for (const auto& e : response.value("errors", json::array())) codes.push_back(e.at("code").get<std::string>());
  return codes;
}

// True when the response has an error with this code at this path.
inline bool has_error(const json& response, const std::string& code, const std::string& path) {
  for (const auto& e : response.value("errors", json::array()))
    if (e.at("code") == code && e.at("path") == path) return true;
  return false;
}

// The model document the transformer generator makes of a request (a failure of the test when it
// reports an error; an empty object then).
inline json generate(const json& request) {
  Diagnostics d;
  auto model = transformer_model(request, d);
  EXPECT_TRUE(d.ok()) << errors_json(d).dump();
  return model.value_or(json::object());
}

// The layer entry of a model document with this name (a failure of the test when there is none).
inline const json& entry(const json& model, const std::string& name) {
  for (const json& layer : model["layers"])
    if (layer["name"] == name) return layer;
  static const json none;
  ADD_FAILURE() << "no layer " << name;
  return none;
}

}  // namespace ppb::test
