// Schedules side by side: every schedule a row, the ones that cannot run with their reasons, the
// others with the figures an estimate of that schedule gives.
#include "ppb/search/compare.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "ppb/commands/commands.hpp"
#include "ppb/plan/plan.hpp"
#include "ppb/simulate/estimate.hpp"
#include "test_models.hpp"

namespace ppb {
namespace {

Request request_of(int pp, std::int64_t m) {
  Request r;
  for (int i = 0; i < 8; ++i) {
    Layer l;
    l.name = "decoder";
    l.forward_ms = 1;
    l.backward_ms = 2;
    l.weight_backward_ms = 1;
    l.activation_mib = 10;
    l.other_static_mib = 100;
    r.model.layers.push_back(l);
  }
  r.pipeline.pp_degree = pp;
  r.pipeline.micro_batch_num = m;
  return r;
}

// pp 4, m 6: dualpipev needs m >= 8 and interleaved_1f1b (with its overlap variant) m a multiple of 4,
// so each says why; the
// others run, each with the figures of its own estimate, and every row of one chunk keeps the
// request's even split.
TEST(Compare, EverySchedulePresentWithReasonsOrFigures) {
  Request r = request_of(4, 6);
  r.device.memory_limit_mib = 100 * 2 + 10 * 2 * 4 + 1;  // stage 0 of 1f1b: 2 layers, 4 in flight
  const auto rows = compare_schedules(r);
  ASSERT_EQ(rows.size(), all_schedules.size());
  for (const auto& row : rows) {
    const bool excluded = row.schedule == Schedule::dualpipev || is_interleaved(row.schedule);
    EXPECT_EQ(row.runs, !excluded) << schedule_name(row.schedule);
    if (!row.runs) {
      ASSERT_EQ(row.problems.size(), 1u);
      EXPECT_EQ(row.problems[0].code,
                row.schedule == Schedule::dualpipev ? "MICRO_BATCH_TOO_FEW" : "MICRO_BATCH_NOT_MULTIPLE");
      continue;
    }
    Request own = r;
    own.pipeline.schedule = row.schedule;
    own.pipeline.vpp_degree = row.vpp_degree;
    Diagnostics d;
    const auto plan = resolve_plan(own, d);
    ASSERT_TRUE(plan) << schedule_name(row.schedule);
    const Estimate e = estimate(own.model, own.device, *plan, false);
    EXPECT_DOUBLE_EQ(row.step_time_ms, e.step_time_ms);
    EXPECT_DOUBLE_EQ(row.span_ms, e.span_ms);
    EXPECT_DOUBLE_EQ(row.bubble_span_fraction, e.bubble_span_fraction);
    EXPECT_EQ(row.feasible, e.feasible);
    EXPECT_TRUE(row.partition_as_given);
  }
  // By hand: 1f1b (m + pp - 1)(F + B) = 9 x 6 = 54 ms with 2 layers a stage; its stage 0 holds 4 micro
  // batches of 20 MiB beside 200 MiB static: 280 MiB, within the 281 MiB limit; gpipe holds all 6.
  EXPECT_DOUBLE_EQ(rows[1].step_time_ms, 54.0);
  EXPECT_DOUBLE_EQ(rows[1].peak_mib, 280.0);
  EXPECT_TRUE(rows[1].feasible);
  EXPECT_DOUBLE_EQ(rows[0].peak_mib, 200.0 + 6 * 20.0);
  EXPECT_FALSE(rows[0].feasible);
}

// A stated partition for four virtual stages cannot carry over to the two-chunk schedules: they use
// the even split and say so; the response names the fastest feasible schedule.
TEST(Compare, PartitionKeptWhereItFitsAndCommandAnswers) {
  Request r = request_of(4, 8);
  r.pipeline.partition_form = PartitionForm::stage_layers;
  r.pipeline.partition = {2, 2, 2, 2};
  for (const auto& row : compare_schedules(r)) {
    EXPECT_TRUE(row.runs) << schedule_name(row.schedule);
    EXPECT_EQ(row.partition_as_given, row.vpp_degree == 1) << schedule_name(row.schedule);
  }
  const auto out = run_command("compare", R"({"model": {"layers": [{"name": "l", "count": 8, "forward_ms": 1}]},
      "pipeline": {"pp_degree": 2, "micro_batch_num": 4}})");
  const auto response = nlohmann::json::parse(out.json);
  ASSERT_EQ(response["ok"], true);
  ASSERT_EQ(response["result"]["schedules"].size(), all_schedules.size());
  EXPECT_EQ(response["result"]["schedules"][6]["runs"], true);  // dualpipev: m 4 = 2 pp
  EXPECT_TRUE(response["result"]["fastest"].is_string());
}

// Issue 31: on Llama-3.1-405B at pp 16 (examples/requests/llama31-405b.json: tp 8, m 16, H100 80 GB,
// ZeRO-2), side by side at each schedule's best shows the plans the balancer finds for each, and
// zb_h1 and zbv fit where the search says they do (before, every row ran 1f1b's plan and only 1f1b
// fitted). Each of those rows is what `balance` gives for its schedule, and no slower than the
// search's own plan for it (the search balances each candidate on a smaller work budget).
TEST(Compare, Llama405bAtPp16ShowsEachSchedulesOwnPlan) {
  using nlohmann::json;
  std::ifstream file(std::string(PPB_SOURCE_DIR) + "/examples/requests/llama31-405b.json");
  json request = json::parse(file);
  request.erase("search");
  json compare = request;
  compare["compare"] = {{"plans", "balanced"}};
  const json side = json::parse(run_command("compare", compare.dump()).json);
  ASSERT_EQ(side["ok"], true) << side.dump();
  json search = request;
  search["search"] = {{"pp_degree", {16}}, {"vpp_degree", {1, 2}}, {"schedule", {"zb_h1", "zbv"}}};
  const json found = json::parse(run_command("search", search.dump()).json);
  ASSERT_EQ(found["ok"], true) << found.dump();
  for (const std::string name : {"zb_h1", "zbv"}) {
    const json* row = nullptr;
    for (const json& r : side["result"]["schedules"])
      if (r["schedule"] == name) row = &r;
    ASSERT_NE(row, nullptr) << name;
    const json* candidate = nullptr;
    for (const json& c : found["result"]["candidates"])
      if (c["schedule"] == name) candidate = &c;
    ASSERT_NE(candidate, nullptr) << name;
    EXPECT_EQ((*candidate)["micro_batch_num"], 16) << name;
    EXPECT_TRUE((*candidate)["feasible"].get<bool>()) << name;
    EXPECT_TRUE((*row)["feasible"].get<bool>()) << name;
    EXPECT_LE((*row)["step_time_ms"].get<double>(), (*candidate)["step_time_ms"].get<double>() * (1 + 1e-9)) << name;
    json own = request;
    own["pipeline"]["schedule"] = name;
    own["pipeline"]["vpp_degree"] = (*row)["vpp_degree"];
    const json best = json::parse(run_command("balance", own.dump()).json);
    ASSERT_EQ(best["ok"], true) << best.dump();
    EXPECT_EQ((*row)["plan"]["stage_layers"], best["result"]["stage_layers"]) << name;
    EXPECT_EQ((*row)["step_time_ms"], best["result"]["step_time_ms"]) << name;
  }
}

// Balanced, each schedule runs its own best plan. AP-PP-09's model (8 decoders, F 2, B 4 ms, 100 MiB
// static and activation each, full and selective recompute; tests/engine/balance_test.cpp derives
// it) on 2 stages, 8 micro batches, 1,000 MiB: the even split does not fit under 1f1b (stage 0 holds
// 4 x 100 static + 2 micro batches x 400 activation = 1,200 MiB), so the rows as given say
// infeasible, while balanced every schedule that runs fits, each row's plan is what `balance` gives
// for that schedule (all proven here but zb_auto, which never is, far inside their shares of the work budget), and its
// figures are that plan's estimate. A row carries its plan in every form, so that the page opens it.
TEST(Compare, BalancedRowsEachRunTheirSchedulesBestPlan) {
  using nlohmann::json;
  json req = {{"model", {{"layers", json::array({test::eight_decoders(100, true)})}}},
              {"device", {{"memory_limit_mib", 1000}}},
              {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 8}}}};
  const json given = json::parse(run_command("compare", req.dump()).json);
  ASSERT_EQ(given["ok"], true) << given.dump();
  EXPECT_EQ(given["result"]["plans"], "as_given");
  EXPECT_EQ(given["result"]["schedules"][1]["schedule"], "1f1b");
  EXPECT_EQ(given["result"]["schedules"][1]["feasible"], false);
  EXPECT_TRUE(given["result"]["schedules"][1]["proven_optimal"].is_null());
  EXPECT_EQ(given["result"]["schedules"][1]["plan"]["stage_layers"], json({4, 4}));

  req["compare"] = {{"plans", "balanced"}};
  const json balanced = json::parse(run_command("compare", req.dump()).json);
  ASSERT_EQ(balanced["ok"], true) << balanced.dump();
  EXPECT_EQ(balanced["result"]["plans"], "balanced");
  int ran = 0;
  for (const json& row : balanced["result"]["schedules"]) {
    if (!row["runs"].get<bool>()) continue;
    ++ran;
    const std::string name = row["schedule"];
    EXPECT_TRUE(row["feasible"].get<bool>()) << name;
    // zb_auto's program follows its plan's costs, so PPB never calls its plan proven (docs/ppb.md).
    EXPECT_EQ(row["proven_optimal"].get<bool>(), name != "zb_auto") << name;
    EXPECT_EQ(row["stopped_early"], false) << name;
    json own = req;
    own.erase("compare");
    own["pipeline"]["schedule"] = name;
    own["pipeline"]["vpp_degree"] = row["vpp_degree"];
    const json best = json::parse(run_command("balance", own.dump()).json);
    ASSERT_EQ(best["ok"], true) << best.dump();
    EXPECT_EQ(row["step_time_ms"], best["result"]["step_time_ms"]) << name;
    EXPECT_EQ(row["plan"]["stage_layers"], best["result"]["stage_layers"]) << name;
    EXPECT_EQ(row["plan"]["layer_recompute"], best["result"]["layer_recompute"]) << name;
  }
  EXPECT_GE(ran, 5);
  EXPECT_TRUE(balanced["result"]["fastest"].is_string());

  req["compare"] = {{"plans", "best"}};
  const json wrong = json::parse(run_command("compare", req.dump()).json);
  EXPECT_EQ(wrong["ok"], false);
  EXPECT_EQ(wrong["errors"][0]["code"], "COMPARE_PLANS_UNKNOWN");
  EXPECT_EQ(wrong["errors"][0]["path"], "/compare/plans");
}

}  // namespace
}  // namespace ppb
