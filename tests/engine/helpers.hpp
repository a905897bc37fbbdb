// Small helpers shared by the engine tests: commands run on JSON requests and their errors read. The models and
// shapes the tests build are in test_models.hpp.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ppb/commands/commands.hpp"
#include "ppb/io/io.hpp"
#include "ppb/model/model.hpp"
#include "ppb/plan/plan.hpp"
#include "test_models.hpp"

namespace ppb::test {

using nlohmann::json;

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

}  // namespace ppb::test
