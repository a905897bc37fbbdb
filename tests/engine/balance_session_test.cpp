// BalanceSession, the balance command in slices for the WASM boundary: the same response as the
// command, whatever the slices; the command's exit statuses; progress between slices.
#include "ppb/commands/balance_session.hpp"

#include <gtest/gtest.h>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// Embedding F 6 B 12, 8 decoders F 2 B 4 (activation 100, full and selective recompute), head F 8
// B 16, over 4 stages, 16 micro batches, under a limit that makes the early stages recompute.
json request() {
  const json layers = heavy_ends_layers(eight_decoders(100, true));
  return {{"model", {{"layers", layers}}},
          {"device", {{"memory_limit_mib", 1000}, {"p2p_bandwidth_gbs", 25}, {"p2p_latency_ms", 0.02}}},
          {"pipeline", {{"pp_degree", 4}, {"micro_batch_num", 16}}}};
}

// Runs a session in slices of `slice_ms` and returns its answer and the number of steps.
std::pair<CommandOutput, int> sliced(const json& req, double slice_ms) {
  BalanceSession session(req.dump());
  EXPECT_TRUE(session.error().json.empty()) << session.error().json;
  int steps = 0;
  while (!session.step(slice_ms).finished) ++steps;
  return {session.result(false), steps + 1};
}

// The same response text as the command, for a plan proven optimal with recompute, one over the
// limit, an unproven schedule and the offset mode. Slices of 0 ms stop at every point they can (one
// table row or search node each).
TEST(BalanceSession, SlicesGiveTheCommandsResponse) {
  std::vector<json> requests;
  requests.push_back(request());
  json over = request();
  over["device"]["memory_limit_mib"] = 150;
  requests.push_back(over);
  json zb = request();
  zb["pipeline"]["schedule"] = "zb_h1";
  requests.push_back(zb);
  json offset = request();
  offset["balance"] = {{"mode", "offset"}, {"offset_range", 2}};
  requests.push_back(offset);
  for (const json& req : requests) {
    const CommandOutput whole = run_command("balance", req.dump());
    const auto [answer, steps] = sliced(req, 0);
    EXPECT_EQ(answer.exit_code, 0);
    EXPECT_EQ(answer.json, whole.json) << req.dump();
  }
  // The proven case took many slices.
  const auto [answer, steps] = sliced(requests[0], 0);
  EXPECT_GT(steps, 10);
  EXPECT_TRUE(json::parse(answer.json)["result"]["method"]["proven_optimal"]);
}

// An invalid request is refused at once with exit status 2, as by the command; stepping it is a
// no-op and its result is the same error.
TEST(BalanceSession, AnInvalidRequestIsAnErrorWithStatusTwo) {
  json req = request();
  req["pipeline"]["pp_degree"] = "four";
  BalanceSession session(req.dump());
  EXPECT_EQ(session.error().exit_code, 2);
  EXPECT_EQ(session.error().json, run_command("balance", req.dump()).json);
  EXPECT_TRUE(session.step(10).finished);
  EXPECT_EQ(session.result(false).json, session.error().json);
  BalanceSession garbage("{not json");
  EXPECT_EQ(garbage.error().exit_code, 2);
}

// Progress names the phase, and once the search has an incumbent, the lower bound the bounds prove
// (1f1b, one chunk per stage) sits at or below it; at the end both are the plan's step time.
TEST(BalanceSession, ProgressReportsIncumbentAndBound) {
  BalanceSession session(request().dump());
  BalanceProgress p;
  bool bounded = false;
  do {
    p = session.step(0);
    if (p.lower_bound_ms) {
      ASSERT_TRUE(p.incumbent_ms);
      EXPECT_LE(*p.lower_bound_ms, *p.incumbent_ms);
      bounded = true;
    }
  } while (!p.finished);
  EXPECT_TRUE(bounded);
  EXPECT_EQ(p.phase, "done");
  const json r = json::parse(session.result(false).json);
  EXPECT_EQ(p.incumbent_ms, r["result"]["step_time_ms"].get<double>());
  EXPECT_EQ(p.lower_bound_ms, r["result"]["method"]["lower_bound_ms"].get<double>());
}

// The best plan so far, asked for while the balance goes on: the incumbent progress reports, not
// proven, its notes saying the balance is still running; asking does not change the balance, whose
// answer is still the command's; after the end it is that answer.
TEST(BalanceSession, BestSoFarIsTheIncumbentAndLeavesTheBalanceAsItWas) {
  const json req = request();
  BalanceSession session(req.dump());
  BalanceProgress p;
  int asked = 0;
  do {
    p = session.step(0);
    if (p.incumbent_ms && !p.finished) {
      const json interim = json::parse(session.best_so_far().json);
      ASSERT_TRUE(interim["ok"]);
      EXPECT_EQ(interim["result"]["step_time_ms"].get<double>(), *p.incumbent_ms);
      EXPECT_FALSE(interim["result"]["method"]["proven_optimal"]);
      EXPECT_EQ(interim["result"]["method"]["notes"].back(),
                "the balance is still running; this is the best plan so far");
      ++asked;
    }
  } while (!p.finished);
  EXPECT_GT(asked, 0);
  const CommandOutput whole = run_command("balance", req.dump());
  EXPECT_EQ(session.result(false).json, whole.json);
  EXPECT_EQ(session.best_so_far().json, whole.json);
}

}  // namespace
}  // namespace ppb::test
