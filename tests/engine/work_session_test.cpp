// WorkSession, long work in slices behind one face: a balance and a search answer as their commands,
// each slice reports in the one progress shape, a balance has a best plan so far and a search none,
// and a command that does not run in slices is refused.
#include "ppb/commands/work_session.hpp"

#include <gtest/gtest.h>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// Embedding, 8 decoders with full recompute and a head over 4 stages, 16 micro batches, under a limit
// that makes the early stages recompute (as balance_session_test.cpp).
json request() {
  json layers = json::array();
  layers.push_back(
      {{"name", "embedding"}, {"pin", "first"}, {"forward_ms", 6}, {"backward_ms", 12}, {"static_mib", 100}});
  layers.push_back({{"name", "decoder"},
                    {"count", 8},
                    {"forward_ms", 2},
                    {"backward_ms", 4},
                    {"static_mib", 100},
                    {"activation_mib", 100},
                    {"recompute", {{"full", {{"activation_mib", 10}, {"extra_ms", 2}}}}}});
  layers.push_back({{"name", "head"}, {"pin", "last"}, {"forward_ms", 8}, {"backward_ms", 16}, {"static_mib", 100}});
  return {{"model", {{"layers", layers}}},
          {"device", {{"memory_limit_mib", 1000}}},
          {"pipeline", {{"pp_degree", 4}, {"micro_batch_num", 16}}}};
}

TEST(WorkSession, RunsBalanceAndSearchInSlices) {
  EXPECT_EQ(WorkSession::sliced_commands(), (std::vector<std::string>{"balance", "search"}));
}

TEST(WorkSession, ABalanceAnswersAsTheCommandWithItsProgressBetweenSlices) {
  WorkSession work("balance", request().dump());
  ASSERT_TRUE(work.error().json.empty()) << work.error().json;
  std::vector<json> progress;
  bool had_best = false;
  for (;;) {
    const WorkStep step = work.step(0);
    progress.push_back(json::parse(step.progress_json));
    EXPECT_EQ(progress.back()["finished"], step.finished);
    // A best plan so far exactly while there is an incumbent.
    EXPECT_EQ(step.has_best_so_far, !step.finished && !progress.back()["incumbent_ms"].is_null());
    if (step.has_best_so_far && !had_best) {
      had_best = true;
      const std::optional<CommandOutput> best = work.best_so_far();
      ASSERT_TRUE(best.has_value());
      EXPECT_EQ(json::parse(best->json)["result"]["step_time_ms"], progress.back()["incumbent_ms"]);
    }
    if (step.finished) break;
  }
  EXPECT_TRUE(had_best);
  for (const json& p : progress) {
    EXPECT_EQ(p["command"], "balance");
    EXPECT_TRUE(p["total"].is_null());
  }
  const CommandOutput answer = work.result(false);
  EXPECT_EQ(answer.json, run_command("balance", request().dump()).json);
  const json method = json::parse(answer.json)["result"]["method"];
  EXPECT_EQ(progress.back()["phase"], "done");
  EXPECT_EQ(progress.back()["done"], method["nodes"]);
}

TEST(WorkSession, ASearchCountsCandidatesAndHasNoPlanSoFar) {
  json req = request();
  req.erase("pipeline");
  // pp 1, 2, 4 under 1f1b with 16 micro batches: three combinations, one a slice at 0 ms.
  req["search"] = {{"pp_degree", {1, 2, 4}}, {"micro_batch_num", {16}}};
  WorkSession work("search", req.dump());
  ASSERT_TRUE(work.error().json.empty()) << work.error().json;
  std::vector<std::pair<std::int64_t, bool>> seen;
  for (;;) {
    const WorkStep step = work.step(0);
    const json p = json::parse(step.progress_json);
    EXPECT_EQ(p["command"], "search");
    EXPECT_EQ(p["total"], 3);
    EXPECT_FALSE(step.has_best_so_far);
    seen.emplace_back(p["done"].get<std::int64_t>(), step.finished);
    if (step.finished) break;
  }
  EXPECT_EQ(seen, (std::vector<std::pair<std::int64_t, bool>>{{1, false}, {2, false}, {3, true}}));
  EXPECT_FALSE(work.best_so_far().has_value());
  const json answer = json::parse(work.result(false).json);
  EXPECT_EQ(answer["result"]["counts"]["evaluated"], 3);
}

TEST(WorkSession, AnInvalidRequestIsTheCommandsError) {
  json req = request();
  req["pipeline"]["pp_degree"] = "four";
  WorkSession work("balance", req.dump());
  EXPECT_EQ(work.error().json, run_command("balance", req.dump()).json);
  EXPECT_EQ(work.error().exit_code, 2);
  EXPECT_TRUE(work.step(10).finished);
  EXPECT_EQ(work.result(false).json, work.error().json);
}

TEST(WorkSession, ACommandThatDoesNotRunInSlicesIsRefused) {
  WorkSession work("estimate", request().dump());
  EXPECT_EQ(work.error().exit_code, 2);
  const json error = json::parse(work.error().json);
  EXPECT_EQ(error["errors"][0]["code"], "COMMAND_UNKNOWN");
  EXPECT_EQ(error["errors"][0]["message"],
            "command \"estimate\" does not run in slices; the commands that do: balance, search.");
  EXPECT_TRUE(work.step(10).finished);
  EXPECT_FALSE(work.best_so_far().has_value());
}

}  // namespace
}  // namespace ppb::test
