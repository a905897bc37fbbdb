// The strategy search: the space, the ranking, the Pareto front, budgets and cancellation.
#include "ppb/commands/search_session.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

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
  json layers = {{{"name", "block"},
                  {"count", 16},
                  {"forward_ms", 1},
                  {"backward_ms", 2},
                  {"static_mib", 1000},
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
  EXPECT_EQ(r["result"]["skipped_groups"][0]["reason"],
            "world_size is not divisible by pp_degree x tp_degree x cp_degree");
}

// With a cluster every candidate processes the 64 samples of the global batch on the 8 devices, and
// the default measure is throughput: pp 1 at 384 ms is 64 / 0.384 = 166.7 samples/s, pp 2 at 408 ms
// 156.9; pp 1 leads by 408 / 384 - 1 = 6.25%, and its bubble is 0 (one stage) against 24 / 408.
TEST(Search, ClusterRanksByThroughputAndSaysWhy) {
  const json r = run("search", coupled_request(20000));
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& res = r["result"];
  EXPECT_EQ(res["rank_by"], "throughput");
  EXPECT_EQ(res["candidates"][0]["pp_degree"], 1);
  const json& best = res["best"];
  EXPECT_EQ(best["candidate"], 0);
  EXPECT_EQ(best["runner_up"], 1);
  EXPECT_EQ(res["candidates"][1]["pp_degree"], 2);
  EXPECT_DOUBLE_EQ(best["value"].get<double>(), 64 / 0.384);
  EXPECT_DOUBLE_EQ(best["runner_up_value"].get<double>(), 64 / 0.408);
  EXPECT_DOUBLE_EQ(best["lead_fraction"].get<double>(), 408.0 / 384 - 1);
  EXPECT_DOUBLE_EQ(best["headroom_mib"].get<double>(), 20000 - 17600);  // pp 1 peaks at 17600 MiB
  EXPECT_EQ(best["reasons"][2], "bubble 0% of the step against 5.9%.") << best.dump();
  EXPECT_TRUE(res["infeasibility"].is_null());
}

// Nothing fits at pp 1 or 2 under 5000 MiB (static memory alone is 16000 and 8000 a stage); the
// candidate closest to fitting is pp 2, and the cluster's next pp_degree, 4 (dp 2, m 32), holds
// 4, 3, 2, 1 micro batches: 4 layers a stage need at most 4 x (1000 + 4 x 100) = 5600 MiB, over 5000;
// k0 + k1 + k2 + k3 fitting under 5000 is 3 + 3 + 4 + 4 = 14 layers. pp 8 (dp 1, m 64): 2 layers a
// stage need at most 2 x (1000 + 8 x 100) = 3600. pp 3 does not divide the 8 devices.
TEST(Search, NothingFitsSaysWhatWould) {
  json req = coupled_request(5000);
  req["search"]["pp_degree"] = {1, 2};
  const json r = run("search", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& res = r["result"];
  EXPECT_TRUE(res["best"].is_null());
  const json& i = res["infeasibility"];
  ASSERT_TRUE(i.is_object()) << res.dump();
  EXPECT_TRUE(i["proven"]);
  EXPECT_DOUBLE_EQ(i["static_share_mib"].get<double>(), 8000);
  EXPECT_EQ(i["min_pp_degree"], 8);
  EXPECT_TRUE(i["min_pp_degree_checked"]);
}

// A wider space on a model with a heavy head, under a limit that rules some shapes out.
json wide_request() {
  json req = {{"model", uniform_model(24, 2, 4, 800, 300, true)},
              {"training", {{"global_batch_size", 256}, {"micro_batch_size", 1}, {"dp_degree", 4}}},
              {"device", {{"memory_limit_mib", 9000}, {"p2p_bandwidth_gbs", 25}, {"p2p_latency_ms", 0.02}}},
              {"search",
               {{"pp_degree", {1, 2, 4, 8}},
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
  // Without a cluster, by time per sample: feasible first, ties by lower peak memory.
  EXPECT_EQ(res["rank_by"], "time_per_sample");
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
    const double t = c["time_per_sample_ms"], peak = c["peak_mib"];
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
      const double ot = o["time_per_sample_ms"], op = o["peak_mib"], t = cands[i]["time_per_sample_ms"],
                   p = cands[i]["peak_mib"];
      dominated = dominated || (ot <= t && op <= p && (ot < t || op < p));
    }
    EXPECT_EQ(front.count(static_cast<int>(i)) == 1, !dominated) << "candidate " << i;
  }
  // Only the (vpp, schedule) pairs that run are combinations: gpipe, 1f1b and zb_h1 with vpp 1,
  // interleaved_1f1b with vpp 2, each with 4 pp_degrees and 3 micro batch counts.
  EXPECT_EQ(res["counts"]["space"], 4 * 4 * 3);
  EXPECT_EQ(res["counts"]["evaluated"].get<int>() + res["counts"]["skipped"].get<int>(), 48);
  for (const auto& c : cands) EXPECT_EQ(c["vpp_degree"] == 2, c["schedule"] == "interleaved_1f1b") << c.dump();
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
  ASSERT_EQ(session.error().json, "");
  const SearchProgress p = session.step(0);  // one candidate
  EXPECT_EQ(p.done, 1);
  EXPECT_GT(p.total, 1);
  EXPECT_FALSE(p.finished);
  const json r = json::parse(session.result(true).json);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_TRUE(r["result"]["partial"]);
  EXPECT_TRUE(r["result"]["cancelled"]);
  EXPECT_EQ(r["result"]["counts"]["evaluated"], 1);

  // Cancelled after the last combination, nothing was cut: the result is whole.
  SearchSession finished(wide_request().dump());
  while (!finished.step(1000).finished) {
  }
  const json whole = json::parse(finished.result(true).json);
  EXPECT_FALSE(whole["result"]["partial"]) << whole.dump();
  EXPECT_FALSE(whole["result"]["cancelled"]);
  EXPECT_EQ(whole["result"]["counts"]["evaluated"],
            r["result"]["counts"]["space"].get<int>() - r["result"]["counts"]["skipped"].get<int>());
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

// Without training.micro_batch_size the throughput uses the same default of 1 as the batch
// arithmetic: 64 samples per step as in MicroBatchNumFollowsDpDegree (pp 1: 384 ms by hand).
TEST(Search, ThroughputUsesTheDefaultMicroBatchSize) {
  json req = coupled_request(1e6);
  req["training"].erase("micro_batch_size");
  const json r = run("search", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const double expected_ms[] = {0, 384, 408, 0, 420, 0, 0, 0, 426};
  ASSERT_EQ(r["result"]["candidates"].size(), 4u);
  for (const auto& c : r["result"]["candidates"]) {
    const int pp = c["pp_degree"];
    ASSERT_TRUE(c["throughput_samples_per_s"].is_number()) << c.dump();
    EXPECT_DOUBLE_EQ(c["throughput_samples_per_s"], 64 / (expected_ms[pp] / 1000));
  }
}

// parallel.dp_degree stands in for training.dp_degree (as for estimate): m 8 x 1 sample x dp 4 = 32
// samples per step. 16 equal layers (F 1, B 2) on pp 2 with 1f1b: (8 + 1) x 24 = 216 ms by hand.
TEST(Search, ParallelDpDegreeIsTheCandidatesDpDegree) {
  json req = coupled_request(1e6);
  req["training"] = {{"micro_batch_size", 1}};
  req["parallel"] = {{"dp_degree", 4}};
  req["search"] = {{"pp_degree", {2}}, {"micro_batch_num", {8}}};
  const json r = run("search", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& c = r["result"]["candidates"][0];
  EXPECT_EQ(c["dp_degree"], 4);
  EXPECT_DOUBLE_EQ(c["step_time_ms"], 216);
  EXPECT_DOUBLE_EQ(c["throughput_samples_per_s"], 32 / 0.216);
}

// Expert parallelism is carved out of the data-parallel ranks (Megatron-LM's rule: dp_degree must
// be a multiple of ep_degree). With 8 devices dp = 8 / pp: pp 1 (dp 8) and pp 2 (dp 4) take ep 4,
// pp 4 (dp 2) and pp 8 (dp 1) are skipped for it, pp 3 for the world size as before.
TEST(Search, EpDegreeMustDivideTheCoupledDpDegree) {
  for (const char* section : {"training", "parallel"}) {
    json req = coupled_request(1e6);
    req[section]["ep_degree"] = 4;
    const json r = run("search", req);
    ASSERT_TRUE(r["ok"]) << r.dump();
    const json& res = r["result"];
    std::set<int> pps;
    for (const auto& c : res["candidates"]) pps.insert(c["pp_degree"].get<int>());
    EXPECT_EQ(pps, (std::set<int>{1, 2})) << section;
    EXPECT_EQ(res["counts"]["space"], 5);
    EXPECT_EQ(res["counts"]["evaluated"], 2);
    EXPECT_EQ(res["counts"]["skipped"], 3);
    std::map<std::string, int> skipped;
    for (const auto& g : res["skipped_groups"]) skipped[g["reason"]] = g["count"];
    EXPECT_EQ(skipped["dp_degree is not divisible by ep_degree"], 2) << res["skipped_groups"].dump();
    EXPECT_EQ(skipped["world_size is not divisible by pp_degree x tp_degree x cp_degree"], 1);
  }
}

// Without world_size the rule holds for a stated dp_degree; with no dp_degree known, ep_degree
// cannot constrain anything and a warning says it was ignored.
TEST(Search, EpDegreeWithoutWorldSize) {
  json req = coupled_request(1e6);
  req["training"] = {{"dp_degree", 6}, {"ep_degree", 4}};
  req["search"] = {{"pp_degree", {2}}, {"micro_batch_num", {4, 8}}};
  json r = run("search", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["counts"]["space"], 2);
  EXPECT_EQ(r["result"]["counts"]["skipped"], 2);  // 6 is not a multiple of 4, for both m
  EXPECT_TRUE(r["result"]["candidates"].empty());

  req["training"]["dp_degree"] = 8;
  r = run("search", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["counts"]["evaluated"], 2);
  EXPECT_FALSE(r.contains("warnings")) << r.dump();

  req["training"].erase("dp_degree");
  r = run("search", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["counts"]["evaluated"], 2);
  ASSERT_TRUE(r.contains("warnings"));
  EXPECT_EQ(r["warnings"][0]["code"], "IGNORED_FIELD");
  EXPECT_EQ(r["warnings"][0]["path"], "/training/ep_degree");
}

// A vpp_degree pairs only with the schedules that run it: pp 2 x vpp {1, 2} x m {4, 8} with 1f1b
// alone is 2 combinations, and vpp 2, which 1f1b cannot run, is left out with a warning. With
// interleaved_1f1b as well, vpp 2 pairs with it, and a micro batch count it cannot group (m 3 on
// pp 2) is skipped once, for that count only.
TEST(Search, VppPairsOnlyWithSchedulesThatRunIt) {
  json req = coupled_request(1e6);
  req["training"] = json::object();
  req["search"] = {{"pp_degree", {2}}, {"vpp_degree", {1, 2}}, {"micro_batch_num", {4, 8}}};
  json r = run("search", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["counts"]["space"], 2);
  EXPECT_EQ(r["result"]["counts"]["evaluated"], 2);
  EXPECT_EQ(r["result"]["counts"]["skipped"], 0);
  ASSERT_TRUE(r.contains("warnings")) << r.dump();
  EXPECT_EQ(r["warnings"][0]["code"], "IGNORED_FIELD");
  EXPECT_EQ(r["warnings"][0]["path"], "/search/vpp_degree");

  req["search"]["schedule"] = {"1f1b", "interleaved_1f1b"};
  req["search"]["micro_batch_num"] = {3, 4};
  r = run("search", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_FALSE(r.contains("warnings")) << r.dump();
  EXPECT_EQ(r["result"]["counts"]["space"], 4);  // (vpp 1, 1f1b) and (vpp 2, interleaved) x m 3, 4
  EXPECT_EQ(r["result"]["counts"]["evaluated"], 3);
  EXPECT_EQ(r["result"]["skipped_groups"],
            json::parse(R"json([{"reason": "micro_batch_num is not a multiple of pp_degree (interleaved_1f1b)",
                                     "count": 1}])json"));

  // Without a vpp_degree list each schedule runs its own: 1 for 1f1b, 2 for interleaving.
  req["search"].erase("vpp_degree");
  r = run("search", req);
  std::set<std::pair<int, std::string>> pairs;
  for (const auto& c : r["result"]["candidates"])
    pairs.insert({c["vpp_degree"].get<int>(), c["schedule"].get<std::string>()});
  EXPECT_EQ(pairs, (std::set<std::pair<int, std::string>>{{1, "1f1b"}, {2, "interleaved_1f1b"}}));

  // Nothing to pair at all is an error.
  req["search"]["vpp_degree"] = {4};
  req["search"]["schedule"] = {"1f1b"};
  EXPECT_TRUE(has_error(run("search", req), "SEARCH_EMPTY", "/search/vpp_degree"));
}

// The interface specification lists step_time_ms, peak_mib, bubble_fraction and plan for every candidate: one
// ruled out before balancing has them as null, and the same keys as a balanced one. 4 layers split
// into at most 4 virtual stages, so pp 8 with 1f1b is ruled out; interleaving cannot group m 3 on
// pp 2 or 8, so those are not combinations to evaluate but skipped.
TEST(Search, RuledOutCandidatesHaveEveryFieldAsNull) {
  json req = {{"model", uniform_model(4, 1, 2, 100, 10)},
              {"search",
               {{"pp_degree", {2, 8}},
                {"vpp_degree", {1, 2}},
                {"micro_batch_num", {3}},
                {"schedule", {"1f1b", "interleaved_1f1b"}}}}};
  const json r = run("search", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& cands = r["result"]["candidates"];
  const auto keys = [](const json& c) {
    std::set<std::string> k;
    for (auto it = c.begin(); it != c.end(); ++it) k.insert(it.key());
    return k;
  };
  const json* balanced = nullptr;
  int ruled_out = 0;
  for (const auto& c : cands)
    if (c["feasible"]) balanced = &c;
  ASSERT_NE(balanced, nullptr) << r.dump();  // pp 2, vpp 1, 1f1b
  for (const auto& c : cands) {
    if (c["feasible"]) continue;
    ++ruled_out;
    std::set<std::string> expected = keys(*balanced);
    expected.insert("reasons");
    EXPECT_EQ(keys(c), expected) << c.dump();
    for (const char* key : {"step_time_ms", "peak_mib", "bubble_fraction", "imbalance", "plan", "proven_optimal",
                            "within_tolerance", "throughput_samples_per_s", "even_split", "gain_ms", "gain_note"})
      EXPECT_TRUE(c[key].is_null()) << key << " " << c.dump();
    EXPECT_EQ(c["reasons"], json::array({"8 virtual stages, but the model splits into at most 4"}));
  }
  EXPECT_EQ(ruled_out, 1);
  EXPECT_EQ(r["result"]["counts"]["skipped"], 2);
}

// 4 layers of F 1, B 2 on pp 2 (F + B = 6 per stage and micro batch), 1f1b: step (m + 1) x 6, so
// m 4 takes 30 ms and m 16 takes 102 ms. By step time m 4 ranks first; per sample (micro batch size
// 1, one replica) m 16 does, 102 / 16 = 6.375 ms against 30 / 4 = 7.5. Without a cluster, time per
// sample is the default; throughput ranks the same (16 / 0.102 samples/s against 4 / 0.03).
TEST(Search, RankByTimePerSample) {
  json req = {
      {"model", uniform_model(4, 1, 2, 0, 1)},
      {"search", {{"pp_degree", {2}}, {"vpp_degree", {1}}, {"micro_batch_num", {4, 16}}, {"schedule", {"1f1b"}}}}};
  const json per_sample = run("search", req);
  ASSERT_TRUE(per_sample["ok"]) << per_sample.dump();
  EXPECT_EQ(per_sample["result"]["rank_by"], "time_per_sample");
  EXPECT_EQ(per_sample["result"]["candidates"][0]["micro_batch_num"], 16);
  EXPECT_DOUBLE_EQ(per_sample["result"]["candidates"][0]["time_per_sample_ms"].get<double>(), 102.0 / 16);
  // The Pareto front uses the same time: m 16 is faster per sample and holds no more memory.
  EXPECT_EQ(per_sample["result"]["pareto"], json::array({0}));

  req["search"]["rank_by"] = "step_time";
  const json by_step = run("search", req);
  ASSERT_TRUE(by_step["ok"]) << by_step.dump();
  EXPECT_EQ(by_step["result"]["rank_by"], "step_time");
  const json& first = by_step["result"]["candidates"][0];
  EXPECT_EQ(first["micro_batch_num"], 4);
  EXPECT_DOUBLE_EQ(first["step_time_ms"].get<double>(), 30);
  EXPECT_DOUBLE_EQ(first["time_per_sample_ms"].get<double>(), 7.5);

  req["search"]["rank_by"] = "throughput";
  const json by_throughput = run("search", req);
  ASSERT_TRUE(by_throughput["ok"]) << by_throughput.dump();
  EXPECT_EQ(by_throughput["result"]["candidates"][0]["micro_batch_num"], 16);
  EXPECT_DOUBLE_EQ(by_throughput["result"]["candidates"][0]["throughput_samples_per_s"].get<double>(), 16 / 0.102);
  req["search"]["rank_by"] = "fastest";
  EXPECT_TRUE(has_error(run("search", req), "RANK_BY_UNKNOWN", "/search/rank_by"));
}

// The session reads its request through the same checked parse as every command.
TEST(Search, SessionChecksTheRequestText) {
  SearchSession too_precise(R"({"model": {"layers": [{"name": "l", "forward_ms": 1e400}]}})");
  EXPECT_TRUE(has_error(json::parse(too_precise.error().json), "JSON_NUMBER_RANGE", "")) << too_precise.error().json;
  SearchSession broken(std::string("{\"model\": \"\xff\""));
  const json r = json::parse(broken.error().json);
  EXPECT_FALSE(r["ok"]);
  EXPECT_EQ(error_codes(r), std::vector<std::string>{"JSON_SYNTAX"}) << broken.error().json;
}

}  // namespace
}  // namespace ppb::test

namespace ppb::test {
namespace {

// The search section reads through the request's one field reader: the caps and codes of
// pipeline.pp_degree, one message shape for types and ranges, unknown fields warned about at any
// depth, and every problem of the section in one answer.
TEST(Search, SectionReadsLikeEveryOtherSection) {
  json req = coupled_request(1e6);
  req["training"] = json::object();
  req["search"] = {{"pp_degree", {2, 5000}},
                   {"vpp_degree", {{"min", 1}, {"max", 4}, {"factor", 1}}},
                   {"micro_batch_num", {1.5}},
                   {"top_k", 0},
                   {"schedule", json::array()}};
  const json r = run("search", req);
  EXPECT_TRUE(has_error(r, "PP_DEGREE_LIMIT", "/search/pp_degree/1")) << r.dump();
  EXPECT_TRUE(has_error(r, "OUT_OF_RANGE", "/search/vpp_degree/factor")) << r.dump();
  EXPECT_TRUE(has_error(r, "NOT_INTEGER", "/search/micro_batch_num/0")) << r.dump();
  EXPECT_TRUE(has_error(r, "OUT_OF_RANGE", "/search/top_k")) << r.dump();
  EXPECT_TRUE(has_error(r, "SEARCH_EMPTY", "/search/schedule")) << r.dump();
  EXPECT_EQ(r["errors"].size(), 5u) << r.dump();

  req["search"] = {{"pp_degree", {{"min", 2}, {"max", 4}, {"stride", 2}}}, {"micro_batch_num", {4}}, {"sort", true}};
  const json warned = run("search", req);
  ASSERT_TRUE(warned["ok"]) << warned.dump();
  std::set<std::string> paths;
  for (const auto& w : warned["warnings"])
    if (w["code"] == "UNKNOWN_FIELD") paths.insert(w["path"]);
  EXPECT_EQ(paths, (std::set<std::string>{"/search/pp_degree/stride", "/search/sort"}));
  // The unknown "stride" is not a step: pp 2, 3 and 4, by the default step of 1.
  EXPECT_EQ(warned["result"]["counts"]["space"], 3);
}

}  // namespace
}  // namespace ppb::test
