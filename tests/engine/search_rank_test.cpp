// Ranking search candidates, their Pareto front and what a result lists, on candidates stated by
// hand (the figures are the input here, so every expected order is read off them directly).
#include "ppb/search_rank.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "search_helpers.hpp"

namespace ppb::test {
namespace {

using Indices = std::vector<std::size_t>;

// Feasible by time, equal times by lower peak, the evaluation order after that; then infeasible,
// least over first.
TEST(SearchRank, FeasibleByTimeThenInfeasibleByOvershoot) {
  const std::vector<SearchCandidate> c = {over(500), ranked(30, 100), ranked(20, 300),
                                          over(100), ranked(20, 200), ranked(30, 100)};
  EXPECT_EQ(rank_candidates(c, RankBy::step_time), (Indices{4, 2, 1, 5, 3, 0}));
}

// m 4 at 30 ms (7.5 ms a sample) against m 16 at 102 ms (6.375 ms a sample): the measure decides.
TEST(SearchRank, RankByChoosesTheMeasure) {
  const std::vector<SearchCandidate> c = {ranked(30, 100, 7.5), ranked(102, 100, 6.375)};
  EXPECT_EQ(rank_candidates(c, RankBy::step_time), (Indices{0, 1}));
  EXPECT_EQ(rank_candidates(c, RankBy::time_per_sample), (Indices{1, 0}));
  EXPECT_EQ(pareto_front(c, RankBy::step_time), (Indices{0}));  // equal peaks: the faster wins
  EXPECT_EQ(pareto_front(c, RankBy::time_per_sample), (Indices{1}));
  EXPECT_EQ(rank_by_from_name("time_per_sample"), RankBy::time_per_sample);
  EXPECT_EQ(rank_by_from_name("throughput"), std::nullopt);
}

// (time, peak): (10, 50) and (20, 40) and (30, 10) trade off; (20, 60) is beaten by (10, 50);
// (30, 10) twice: equal points do not dominate each other; (40, 10) is beaten by (30, 10);
// infeasible ones are never on the front.
TEST(SearchRank, ParetoFrontOfTimeAgainstPeak) {
  const std::vector<SearchCandidate> c = {ranked(20, 60), ranked(10, 50), ranked(30, 10), over(1),
                                          ranked(20, 40), ranked(40, 10), ranked(30, 10)};
  EXPECT_EQ(pareto_front(c, RankBy::step_time), (Indices{1, 2, 4, 6}));
}

// The sweep against the definition, pair by pair, on random candidates with many ties (fixed seed).
TEST(SearchRank, ParetoFrontMatchesBruteForce) {
  std::mt19937 random(17);
  std::uniform_int_distribution<int> small(1, 6);
  for (int round = 0; round < 200; ++round) {
    std::vector<SearchCandidate> c;
    const int n = small(random) * 3;
    for (int i = 0; i < n; ++i)
      c.push_back(small(random) == 1 ? over(small(random)) : ranked(small(random), small(random)));
    Indices expected;
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (!c[i].feasible) continue;
      bool dominated = false;
      for (const auto& o : c) {
        if (!o.feasible) continue;
        const double ot = o.figures->step_time_ms, op = o.figures->peak_mib;
        const double t = c[i].figures->step_time_ms, p = c[i].figures->peak_mib;
        dominated = dominated || (ot <= t && op <= p && (ot < t || op < p));
      }
      if (!dominated) expected.push_back(i);
    }
    EXPECT_EQ(pareto_front(c, RankBy::step_time), expected) << "round " << round;
  }
}

// top_k 2: the two fastest feasible, the Pareto point beyond them ((40, 5) holds the least memory),
// not the dominated (30, 90); then two of the three infeasible, least over first.
TEST(SearchRank, SelectionListsTopKAndTheWholeFront) {
  const std::vector<SearchCandidate> c = {ranked(30, 90), over(300),     ranked(10, 100), over(100),
                                          ranked(20, 80), ranked(40, 5), over(200)};
  const SearchSelection s = select_candidates(c, RankBy::step_time, 2);
  EXPECT_EQ(s.shown, (Indices{2, 4, 5, 3, 6}));
  EXPECT_EQ(s.pareto, (Indices{0, 1, 2}));
}

}  // namespace
}  // namespace ppb::test
