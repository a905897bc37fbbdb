// The search space as values: which combinations are enumerated, in which order, and which are
// skipped by which rule. Every count below is worked out by hand from the rules in docs/search.md.
#include "ppb/search/search_space.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ppb::test {
namespace {

struct Point {
  int pp, vpp;
  std::int64_t m;
  Schedule schedule;
  std::int64_t dp;  // 0: not known
  bool operator==(const Point&) const = default;
};

std::vector<Point> points(const SearchEnumeration& e) {
  std::vector<Point> out;
  for (const auto& c : e.combinations)
    out.push_back(
        {c.shape.pp_degree, c.shape.vpp_degree, c.shape.micro_batch_num, c.shape.schedule, c.dp_degree.value_or(0)});
  return out;
}

std::int64_t skipped(const SearchEnumeration& e, const std::string& reason) {
  for (const auto& s : e.skipped)
    if (s.reason == reason) return s.count;
  return 0;
}

// pp {1, 2} x vpp {1, 2} x {1f1b, interleaved_1f1b} x m {3, 4}: vpp 1 pairs only with 1f1b and
// vpp 2 only with interleaving, so the space is pp x 2 pairs x m = 8 combinations. Interleaving
// groups micro batches by pp_degree: m 3 on pp 2 cannot run, and is skipped once.
TEST(SearchSpace, FreeMicroBatchListPairsWithEveryValidShape) {
  SearchSpace space;
  space.pp_degrees = {1, 2};
  space.vpp_degrees = {1, 2};
  space.schedules = {Schedule::one_f_one_b, Schedule::interleaved_1f1b};
  space.micro_batch_nums = {3, 4};
  const SearchEnumeration e = enumerate_search_space(space);
  const Schedule f = Schedule::one_f_one_b, i = Schedule::interleaved_1f1b;
  const std::vector<Point> expected = {{1, 1, 3, f, 0}, {1, 1, 4, f, 0}, {1, 2, 3, i, 0}, {1, 2, 4, i, 0},
                                       {2, 1, 3, f, 0}, {2, 1, 4, f, 0}, {2, 2, 4, i, 0}};
  EXPECT_EQ(points(e), expected);
  EXPECT_EQ(e.space, 8);
  EXPECT_EQ(skipped(e, "micro_batch_num is not a multiple of pp_degree (interleaved_1f1b)"), 1);
  EXPECT_EQ(e.skipped.size(), 1u);
  EXPECT_FALSE(e.over_limit);
}

// 2 chunks on 2 stages over 2,097,153 micro batches is 4,194,306 (virtual stage, micro batch) pairs,
// 2 above the simulation cap: skipped, not evaluated.
TEST(SearchSpace, SimulationCapSkips) {
  SearchSpace space;
  space.pp_degrees = {2};
  space.micro_batch_nums = {2'097'152, 2'097'153};
  const SearchEnumeration e = enumerate_search_space(space);
  EXPECT_EQ(e.combinations.size(), 1u);
  EXPECT_EQ(skipped(e, "above the simulation cap"), 1);
}

// 8 devices, tp 2, global batch 32 of micro batches of 2: pp 1 has dp 8 / 2 = 4 and m 32 / (2 x 4) = 4;
// pp 2 dp 2, m 8; pp 4 dp 1, m 16; pp 3 does not divide 8; pp 8 leaves 1 device for tp 2.
TEST(SearchSpace, ClusterDerivesDpAndMicroBatchNum) {
  SearchSpace space;
  space.pp_degrees = {1, 2, 3, 4, 8};
  space.micro_batch_nums = {99};  // not used when coupled
  space.cluster =
      SearchCluster{.world_size = 8, .tp_degree = 2, .cp_degree = 1, .global_batch_size = 32, .micro_batch_size = 2};
  const SearchEnumeration e = enumerate_search_space(space);
  const Schedule f = Schedule::one_f_one_b;
  EXPECT_EQ(points(e), (std::vector<Point>{{1, 1, 4, f, 4}, {2, 1, 8, f, 2}, {4, 1, 16, f, 1}}));
  EXPECT_EQ(e.space, 5);
  EXPECT_EQ(skipped(e, "world_size is not divisible by pp_degree x tp_degree x cp_degree"), 2);
}

// A global batch of 12 on 8 devices: pp 1 (dp 8) cannot split it, pp 2 (dp 4) takes m 3, pp 4
// (dp 2) m 6.
TEST(SearchSpace, GlobalBatchMustDivide) {
  SearchSpace space;
  space.pp_degrees = {1, 2, 4};
  space.cluster = SearchCluster{.world_size = 8, .global_batch_size = 12};
  const SearchEnumeration e = enumerate_search_space(space);
  const Schedule f = Schedule::one_f_one_b;
  EXPECT_EQ(points(e), (std::vector<Point>{{2, 1, 3, f, 4}, {4, 1, 6, f, 2}}));
  EXPECT_EQ(skipped(e, "global_batch_size is not divisible by micro_batch_size x dp_degree"), 1);
}

// The rule the search skips by, with its numbers, for a person (the cluster command): 8 devices at
// pp 3 do not divide (3 x 2 x 1 = 6); at pp 2, dp = 8 / (2 x 2) = 2 and a global batch of 12 makes
// 12 / (2 x 2) = 3 micro batches of 2, while 10 does not divide into 2 x 2.
TEST(SearchSpace, ClusterShareNamesTheRuleItBreaks) {
  SearchCluster cluster{
      .world_size = 8, .tp_degree = 2, .cp_degree = 1, .global_batch_size = 12, .micro_batch_size = 2};
  const ClusterShare odd = cluster_share(cluster, 3, 1);
  EXPECT_FALSE(odd.dp_degree);
  EXPECT_EQ(odd.code, "CLUSTER_NOT_DIVISIBLE");
  EXPECT_EQ(odd.path, "/training/world_size");
  EXPECT_EQ(odd.message, "world_size 8 is not divisible by pp_degree x tp_degree x cp_degree = 3 x 2 x 1.");
  const ClusterShare fits = cluster_share(cluster, 2, 1);
  EXPECT_EQ(fits.dp_degree, 2);
  EXPECT_EQ(fits.micro_batch_num, 3);
  EXPECT_TRUE(fits.group.empty());
  cluster.global_batch_size = 10;
  const ClusterShare batch = cluster_share(cluster, 2, 1);
  EXPECT_EQ(batch.dp_degree, 2);
  EXPECT_FALSE(batch.micro_batch_num);
  EXPECT_EQ(batch.code, "BATCH_NOT_DIVISIBLE");
  EXPECT_EQ(batch.group, "global_batch_size is not divisible by micro_batch_size x dp_degree");
  // dp 2 is not a multiple of ep 4.
  const ClusterShare ep = cluster_dp_degree(cluster, 2, 4);
  EXPECT_EQ(ep.dp_degree, 2);
  EXPECT_EQ(ep.code, "DP_NOT_DIVISIBLE_BY_EP");
}

// Degrees at their caps: pp x tp x cp = 4096 x 10^9 x 10^9 does not fit in 64 bits, and must not
// wrap into a divisor of the world size.
TEST(SearchSpace, HugeDegreesDoNotOverflow) {
  SearchSpace space;
  space.pp_degrees = {4096};
  space.cluster = SearchCluster{
      .world_size = 1'000'000'000, .tp_degree = 1'000'000'000, .cp_degree = 1'000'000'000, .global_batch_size = 1};
  const SearchEnumeration e = enumerate_search_space(space);
  EXPECT_TRUE(e.combinations.empty());
  EXPECT_EQ(skipped(e, "world_size is not divisible by pp_degree x tp_degree x cp_degree"), 1);
}

// Expert parallelism takes dp ranks: a stated dp_degree of 6 is not a multiple of ep 4, so both
// micro batch counts are skipped; 8 is.
TEST(SearchSpace, EpDegreeMustDivideDpDegree) {
  SearchSpace space;
  space.pp_degrees = {2};
  space.micro_batch_nums = {4, 8};
  space.dp_degree = 6;
  space.ep_degree = 4;
  EXPECT_EQ(skipped(enumerate_search_space(space), "dp_degree is not divisible by ep_degree"), 2);
  space.dp_degree = 8;
  EXPECT_EQ(enumerate_search_space(space).combinations.size(), 2u);
  // Megatron-LM folds the experts into dp x cp x tp: NVIDIA's Qwen3-235B recipe runs tp 2 and ep 32
  // over dp 16 with the experts' own tp 1 (32 ranks of 32); with expert tp 2 they need 64.
  space.dp_degree = 16;
  space.tp_degree = 2;
  space.ep_degree = 32;
  space.expert_tp_degree = 1;
  EXPECT_EQ(enumerate_search_space(space).combinations.size(), 2u);
  space.expert_tp_degree = 2;
  EXPECT_EQ(skipped(enumerate_search_space(space), "dp_degree is not divisible by ep_degree"), 2);
}

TEST(SearchSpace, StopsAtTheLimit) {
  SearchSpace space;
  space.pp_degrees = {1, 2};
  space.micro_batch_nums = {1, 2};
  const SearchEnumeration e = enumerate_search_space(space, 3);
  EXPECT_TRUE(e.over_limit);
  EXPECT_EQ(e.combinations.size(), 3u);
  EXPECT_FALSE(enumerate_search_space(space, 4).over_limit);
}

}  // namespace
}  // namespace ppb::test
