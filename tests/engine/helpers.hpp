// Small builders shared by the engine tests.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ppb/commands/commands.hpp"
#include "ppb/io/io.hpp"
#include "ppb/model/model.hpp"
#include "ppb/model/schedule_names.hpp"
#include "ppb/plan/plan.hpp"

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

// `schedule` on `pp` stages with `m` micro batches and the schedule's usual chunk count: two for
// interleaved_1f1b and the V shapes, one otherwise.
inline PipelineShape usual_shape(Schedule schedule, int pp, std::int64_t m) {
  PipelineShape shape;
  shape.schedule = schedule;
  shape.pp_degree = pp;
  shape.vpp_degree = schedule == Schedule::interleaved_1f1b || is_v_shape(schedule) ? 2 : 1;
  shape.micro_batch_num = m;
  return shape;
}

// A layer named `name` with these F, B and W times and nothing else set.
inline Layer timed_layer(std::string name, double forward_ms, double backward_ms, double weight_backward_ms) {
  Layer l;
  l.name = std::move(name);
  l.forward_ms = forward_ms;
  l.backward_ms = backward_ms;
  l.weight_backward_ms = weight_backward_ms;
  return l;
}

// A model document of `body` identical decoder layers, optionally with a pinned embedding and head.
inline json uniform_model(int body, double forward_ms, double backward_ms, double static_mib, double activation_mib,
                          bool pins = false) {
  json layers = json::array();
  if (pins)
    layers.push_back(
        {{"name", "embedding"}, {"pin", "first"}, {"forward_ms", 1}, {"backward_ms", 2}, {"static_mib", 500}});
  layers.push_back({{"name", "decoder"},
                    {"count", body},
                    {"forward_ms", forward_ms},
                    {"backward_ms", backward_ms},
                    {"static_mib", static_mib},
                    {"activation_mib", activation_mib},
                    {"recompute", {{"full", {{"activation_mib", 10}, {"extra_ms", forward_ms}}}}}});
  if (pins)
    layers.push_back(
        {{"name", "lm_head"}, {"pin", "last"}, {"forward_ms", 3}, {"backward_ms", 6}, {"static_mib", 700}});
  return {{"format", "ppb.model.v1"}, {"name", "uniform"}, {"layers", layers}};
}

}  // namespace ppb::test
