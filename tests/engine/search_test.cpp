// The strategy search: the space, the ranking, the Pareto front, budgets and cancellation.
#include "ppb/search.hpp"

#include <gtest/gtest.h>

#include <set>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// 16 equal layers (F 1, B 2, static 1000, activation 100) on 8 devices with a global batch of 64:
// dp = 8 / pp and m = 64 / dp. By hand, with 1f1b and the even split (optimal on equal layers):
//   pp 1: m  8, T = 8 x 48 = 384,            peak 16000 + 1 x 1600 = 17600
//   pp 2: m 16, T = (16 + 1) x 24 = 408,     peak  8000 + 2 x  800 =  9600
//   pp 4: m 32, T = (32 + 3) x 12 = 420,     peak  4000 + 4 x  400 =  5600
//   pp 8: m 64, T = (64 + 7) x 6 = 426,      peak  2000 + 8 x  200 =  3600
json coupled_request(double limit_mib) {
  json layers = {{{"name", "block"}, {"count", 16}, {"forward_ms", 1}, {"backward_ms", 2}, {"static_mib", 1000},
                  {"activation_mib", 100}}};
  return {{"model", {{"layers", layers}}},
          {"training", {{"global_batch_size", 64}, {"micro_batch_size", 1}, {"world_size", 8}}},
          {"device", {{"memory_limit_mib", limit_mib}}},
          {"search", {{"pp_degree", {1, 2, 3, 4, 8}}}}};
}

TEST(Search, BestPpDegreeFollowsTheMemoryLimit) {
  const std::pair<double, int> cases[] = {{20000, 1}, {10000, 2}, {6000, 4}, {4000, 8}};
  for (auto [limit, best_pp] : cases) {
    const json r = run("search", coupled_request(limit));
    ASSERT_TRUE(r["ok"]) << r.dump();
    const json& best = r["result"]["candidates"][0];
    EXPECT_TRUE(best["feasible"]);
    EXPECT_EQ(best["pp_degree"], best_pp) << "limit " << limit;
  }
}

TEST(Search, MicroBatchNumFollowsDpDegree) {
  const json r = run("search", coupled_request(1e6));
  ASSERT_TRUE(r["ok"]) << r.dump();
  const double expected_ms[] = {0, 384, 408, 0, 420, 0, 0, 0, 426};
  int seen = 0;
  for (const auto& c : r["result"]["candidates"]) {
    const int pp = c["pp_degree"];
    EXPECT_EQ(c["dp_degree"], 8 / pp);
    EXPECT_EQ(c["micro_batch_num"], 64 / (8 / pp));
    EXPECT_DOUBLE_EQ(c["step_time_ms"], expected_ms[pp]);
    // 64 samples per step.
    EXPECT_DOUBLE_EQ(c["throughput_samples_per_s"], 64 / (expected_ms[pp] / 1000));
    ++seen;
  }
  EXPECT_EQ(seen, 4);
  // pp 3 does not divide the 8 devices: skipped, with the reason counted.
  EXPECT_EQ(r["result"]["counts"]["space"], 5);
  EXPECT_EQ(r["result"]["counts"]["skipped"], 1);
  EXPECT_EQ(r["result"]["skipped_groups"][0]["reason"], "world_size is not divisible by pp_degree x tp_degree x cp_degree");
}

// A wider space on a model with a heavy head, under a limit that rules some shapes out.
json wide_request() {
  json req = {{"model", uniform_model(24, 2, 4, 800, 300, true)},
              {"training", {{"global_batch_size", 256}, {"micro_batch_size", 1}, {"dp_degree", 4}}},
              {"device", {{"memory_limit_mib", 9000}, {"p2p_bandwidth_gbs", 25}, {"p2p_latency_ms", 0.02}}},
              {"search", {{"pp_degree", {1, 2, 4, 8}},
                          {"vpp_degree", {1, 2}},
                          {"micro_batch_num", {16, 32, 64}},
                          {"schedule", {"gpipe", "1f1b", "interleaved_1f1b", "zb_h1"}},
                          {"candidate_time_ms", 20}}}};
  return req;
}

TEST(Search, RankedParetoAndReasons) {
  const json r = run("search", wide_request());
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& res = r["result"];
  const json& cands = res["candidates"];
  ASSERT_GT(cands.size(), 3u);
  // Feasible first, by step time, ties by lower peak memory.
  bool seen_infeasible = false;
  double last_t = 0, last_peak = 0;
  for (const auto& c : cands) {
    if (!c["feasible"]) {
      seen_infeasible = true;
      ASSERT_TRUE(c.contains("reasons"));
      EXPECT_FALSE(c["reasons"].empty());
      continue;
    }
    EXPECT_FALSE(seen_infeasible) << "a feasible candidate after an infeasible one";
    const double t = c["step_time_ms"], peak = c["peak_mib"];
    EXPECT_TRUE(t > last_t || (t == last_t && peak >= last_peak));
    last_t = t;
    last_peak = peak;
  }
  EXPECT_TRUE(seen_infeasible);
  EXPECT_GT(res["counts"]["infeasible"].get<int>(), 0);
  // The Pareto front, checked by brute force over the returned feasible candidates.
  std::set<int> front;
  for (int i : res["pareto"]) front.insert(i);
  for (std::size_t i = 0; i < cands.size(); ++i) {
    if (!cands[i]["feasible"]) {
      EXPECT_FALSE(front.count(static_cast<int>(i)));
      continue;
    }
    bool dominated = false;
    for (const auto& o : cands) {
      if (!o["feasible"]) continue;
      const double ot = o["step_time_ms"], op = o["peak_mib"], t = cands[i]["step_time_ms"], p = cands[i]["peak_mib"];
      dominated = dominated || (ot <= t && op <= p && (ot < t || op < p));
    }
    EXPECT_EQ(front.count(static_cast<int>(i)) == 1, !dominated) << "candidate " << i;
  }
  // Meaningless combinations (vpp 2 without interleaving, interleaving without vpp) are skipped.
  EXPECT_GT(res["counts"]["skipped"].get<int>(), 0);
  EXPECT_FALSE(res["partial"]);
}

TEST(Search, BudgetReturnsAPartialResult) {
  json req = wide_request();
  req["search"]["max_candidates"] = 3;
  const json r = run("search", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_TRUE(r["result"]["partial"]);
  EXPECT_EQ(r["result"]["counts"]["evaluated"], 3);
}

TEST(Search, CancelReturnsAPartialResult) {
  SearchSession session(wide_request().dump());
  ASSERT_EQ(session.error(), "");
  const SearchProgress p = session.step(0);  // one candidate
  EXPECT_EQ(p.done, 1);
  EXPECT_GT(p.total, 1);
  EXPECT_FALSE(p.finished);
  const json r = json::parse(session.result(true));
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_TRUE(r["result"]["partial"]);
  EXPECT_TRUE(r["result"]["cancelled"]);
  EXPECT_EQ(r["result"]["counts"]["evaluated"], 1);
}

TEST(Search, InvalidSearchSectionsAreErrors) {
  json req = wide_request();
  req["search"]["schedule"] = {"1f1b", "2f2b"};
  req["search"]["pp_degree"] = {{"min", 4}, {"max", 2}};
  const json r = run("search", req);
  EXPECT_TRUE(has_error(r, "SCHEDULE_UNKNOWN", "/search/schedule/1")) << r.dump();
  EXPECT_TRUE(has_error(r, "SEARCH_EMPTY", "/search/pp_degree")) << r.dump();
}

TEST(Search, RangesExpand) {
  json req = coupled_request(1e6);
  req["search"]["pp_degree"] = {{"min", 1}, {"max", 8}, {"factor", 2}};
  const json r = run("search", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["counts"]["space"], 4);  // 1, 2, 4, 8
}

// The session reads its request through the same checked parse as every command.
TEST(Search, SessionChecksTheRequestText) {
  SearchSession too_precise(R"({"model": {"layers": [{"name": "l", "forward_ms": 1e400}]}})");
  EXPECT_TRUE(has_error(json::parse(too_precise.error()), "JSON_NUMBER_RANGE", "")) << too_precise.error();
  SearchSession broken(std::string("{\"model\": \"\xff\""));
  const json r = json::parse(broken.error());
  EXPECT_FALSE(r["ok"]);
  EXPECT_EQ(error_codes(r), std::vector<std::string>{"JSON_SYNTAX"}) << broken.error();
}

}  // namespace
}  // namespace ppb::test
