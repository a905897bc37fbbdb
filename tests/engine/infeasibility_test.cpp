// Why no plan fits: the memory lower bound, the fit decision and the explanation, on models whose
// every figure is worked out by hand (16 equal layers of 1000 MiB static and 100 MiB activation per
// micro batch unless said otherwise; 1f1b holds min(pp - s, m) micro batches on stage s).
#include "ppb/search/infeasibility.hpp"

#include <gtest/gtest.h>

#include "helpers.hpp"
#include "search_helpers.hpp"

namespace ppb::test {
namespace {

Model sixteen() { return equal_layers(16, 1, 2, 1000, 100); }

Device limited(double limit_mib, double reserved_mib = 0) {
  Device d;
  d.memory_limit_mib = limit_mib;
  d.reserved_mib = reserved_mib;
  return d;
}

PipelineShape one_f_one_b(int pp, std::int64_t m) { return PipelineShape{pp, 1, m, Schedule::one_f_one_b}; }

// The average over 4 stages: 500 reserved + (16000 static + 16 x 100 activation) / 4 = 4900 MiB; with
// 2 chunks a stage only half the activation need be held at once: 500 + 16800 / 4 = 4700; with
// "full" recompute allowed (10 MiB kept a layer): 500 + 16160 / 4 = 4540.
TEST(Infeasibility, BoundAveragesStaticAndOneMicroBatch) {
  const Model model = sixteen();
  MemoryBound b = memory_lower_bound(model, limited(1e6, 500), one_f_one_b(4, 8), {}, {});
  EXPECT_DOUBLE_EQ(b.peak_mib, 4900);
  EXPECT_DOUBLE_EQ(b.static_share_mib, 4000);
  EXPECT_DOUBLE_EQ(b.static_total_mib, 16000);
  EXPECT_DOUBLE_EQ(memory_lower_bound(model, limited(1e6, 500), {4, 2, 8, Schedule::interleaved_1f1b}, {}, {}).peak_mib,
                   4700);
  Model with_full = model;
  with_full.recompute_options = {"full"};
  for (auto& layer : with_full.layers) layer.recompute = {RecomputeCost{10, 1}};
  EXPECT_DOUBLE_EQ(memory_lower_bound(with_full, limited(1e6, 500), one_f_one_b(4, 8), {0}, {}).peak_mib, 4540);
  // A component of 200 MiB on every stage adds 200 to the average.
  const StageComponent buffers{"buffers", {}, {200}};
  EXPECT_DOUBLE_EQ(memory_lower_bound(model, limited(1e6, 500), one_f_one_b(4, 8), {}, {buffers}).peak_mib, 5100);
}

// A pinned embedding of 3000 MiB static must sit whole on the first stage: over 8 stages the average
// is (16000 + 3000 + 1600) / 8 = 2575, below the embedding alone.
TEST(Infeasibility, BoundHoldsTheLargestPiece) {
  Model model = sixteen();
  Layer embedding;
  embedding.name = "embedding";
  embedding.pin = Pin::first;
  embedding.other_static_mib = 3000;
  model.layers.insert(model.layers.begin(), embedding);
  model.pinned_first = 1;
  const MemoryBound b = memory_lower_bound(model, limited(1e6), one_f_one_b(8, 8), {}, {});
  EXPECT_DOUBLE_EQ(b.peak_mib, 3000);
  EXPECT_DOUBLE_EQ(b.static_share_mib, 3000);
}

// pp 4, m 8: k layers on stage s need k (1000 + 100 (4 - s)) MiB. Under 5000 at most 3, 3, 4, 4 fit:
// 14 of 16, so nothing fits, though the bound (4400) does not see it; the balancer's least-over
// phase decides. Under 5600 the even split fits (4 x 1400 on stage 0). Under 4000 the bound rules it
// out. With two chunks a stage only the bound can decide: 8400 under 9000 is unknown.
TEST(Infeasibility, DecideFit) {
  const Model model = sixteen();
  EXPECT_EQ(decide_fit(model, limited(5000), one_f_one_b(4, 8), {}), Fit::cannot_fit);
  EXPECT_EQ(decide_fit(model, limited(5600), one_f_one_b(4, 8), {}), Fit::fits);
  EXPECT_EQ(decide_fit(model, limited(4000), one_f_one_b(4, 8), {}), Fit::cannot_fit);
  EXPECT_EQ(decide_fit(model, limited(9000), {2, 2, 8, Schedule::interleaved_1f1b}, {}), Fit::unknown);
  EXPECT_EQ(decide_fit(model, Device{}, one_f_one_b(4, 8), {}), Fit::fits);
}

json balance_request(double limit_mib, int pp) {
  return {{"model",
           {{"layers",
             {{{"name", "block"},
               {"count", 16},
               {"forward_ms", 1},
               {"static_mib", 1000},
               {"activation_mib", 100},
               {"recompute", {{"full", {{"activation_mib", 10}, {"extra_ms", 1}}}}}}}}}},
          {"device", {{"memory_limit_mib", limit_mib}}},
          {"pipeline", {{"pp_degree", pp}, {"micro_batch_num", 8}}},
          {"balance", {{"recompute_options", json::array()}}}};
}

// pp 4 under 5000 (above). The plan over the limit by the least: k layers with max(1400 k0, 1300 k1,
// 1200 k2, 1100 k3) least over 16 layers is 3, 4, 4, 5 at 5500 MiB (3 + 4 + 4 + 4 at 5400 is one short).
// pp 5 holds 5, 4, 3, 2, 1 micro batches: 3 + 3 + 3 + 4 + 4 = 17 layers fit under 5000, so 5 is
// the smallest pp_degree that fits. With "full" (10 MiB kept a layer) 4 layers a stage need at most
// 4 x (1000 + 4 x 10) = 4160: allowing it makes pp 4 fit.
TEST(Infeasibility, BalanceSaysWhatWouldFit) {
  const json r = run("balance", balance_request(5000, 4));
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_FALSE(r["result"]["feasible"]);
  const json& i = r["result"]["infeasibility"];
  ASSERT_TRUE(i.is_object()) << r.dump();
  EXPECT_TRUE(i["proven"]);
  EXPECT_DOUBLE_EQ(i["memory_needed_mib"].get<double>(), 5500);
  EXPECT_DOUBLE_EQ(i["lower_bound_mib"].get<double>(), 4400);
  EXPECT_EQ(i["min_pp_degree"], 5);
  EXPECT_TRUE(i["min_pp_degree_checked"]);
  EXPECT_EQ(i["recompute_option"], "full");
  EXPECT_TRUE(i["recompute_option_checked"]);
  EXPECT_EQ(i["message"],
            "No partition into 4 stages fits: the plan that exceeds the limit least (with no recompute option "
            "allowed) needs 5500 MiB on its largest stage, 500 MiB over the 5000 MiB limit.");
  EXPECT_EQ(i["suggestions"], json::array({"pp_degree 5 is the smallest above 4 at which a plan fits (same schedule "
                                           "and recompute options).",
                                           "allowing recompute option \"full\" lets a plan of this shape fit.",
                                           "a memory limit of 5500 MiB fits this plan, the least any plan of this "
                                           "shape needs."}));
  // A plan that fits has nothing to explain.
  EXPECT_TRUE(run("balance", balance_request(5600, 4))["result"]["infeasibility"].is_null());
}

// pp 2 under 7000: static memory alone is 16000 / 2 = 8000 a stage. pp 3 holds 3, 2, 1 micro
// batches: 5 + 5 + 6 = 16 layers fit under 7000 (1300 k, 1200 k, 1100 k). The least-over plan of
// pp 2: max(1200 k0, 1100 k1) least at k0 = 8 (9600 against 8800).
TEST(Infeasibility, StaticMemoryAlone) {
  const json r = run("balance", balance_request(7000, 2));
  ASSERT_TRUE(r["ok"]) << r.dump();
  const json& i = r["result"]["infeasibility"];
  EXPECT_TRUE(i["proven"]);
  EXPECT_EQ(i["message"],
            "No partition into 2 stages fits: static memory alone is 8000 MiB on a stage (16000 MiB in all), over "
            "the 7000 MiB limit.");
  EXPECT_DOUBLE_EQ(i["static_share_mib"].get<double>(), 8000);
  EXPECT_DOUBLE_EQ(i["memory_needed_mib"].get<double>(), 9600);
  EXPECT_EQ(i["min_pp_degree"], 3);
  // Offset mode explains it the same way (the bound proves it without the balancer).
  json offset = balance_request(7000, 2);
  offset["balance"]["mode"] = "offset";
  const json o = run("balance", offset);
  ASSERT_TRUE(o["ok"]) << o.dump();
  EXPECT_EQ(o["result"]["infeasibility"]["message"], i["message"]);
}

}  // namespace
}  // namespace ppb::test
