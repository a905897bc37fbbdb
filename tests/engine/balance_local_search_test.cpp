// The local search's pairs of moves (BranchAndBound::improve_in_pairs): on small random models it
// ends at a plan that no plan within two moves beats, each judged by exhaustive recompute and the
// estimate; and run while the search stands paused at a node, it leaves the search's path as it was.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "balance/branch_and_bound.hpp"
#include "balance_helpers.hpp"
#include "balance_search_parts.hpp"
#include "ppb/balance/balance.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb::test {
namespace {

// A phase share no test reaches: the local search runs until no move helps.
constexpr std::int64_t kAnyWork = std::numeric_limits<std::int64_t>::max();

constexpr double kNoEnd = std::numeric_limits<double>::infinity();

std::vector<int> sizes_of(const std::vector<int>& ends) {
  std::vector<int> sizes;
  int start = 0;
  for (int end : ends) {
    sizes.push_back(end - start);
    start = end;
  }
  return sizes;
}

// Runs a phase of the search to its end (one slice without a limit).
template <typename Phase>
balancer::PhaseStatus to_the_end(Phase phase) {
  balancer::PhaseStatus status = balancer::PhaseStatus::paused;
  for (int k = 0; status == balancer::PhaseStatus::paused && k < 1000; ++k) status = phase();
  return status;
}

TEST(BalanceLocalSearch, PairsOfMovesEndWhereNoPlanWithinTwoMovesIsFaster) {
  const std::vector<Case> cases = {
      {Schedule::one_f_one_b, 3, 1, {3, 6}},
      {Schedule::gpipe, 3, 1, {2, 4}},
      {Schedule::interleaved_1f1b, 2, 2, {2, 4}},
  };
  std::mt19937 rng(2612);
  int improved = 0;
  for (const Case& c : cases) {
    int checked = 0;
    for (int trial = 0; trial < 12; ++trial) {
      const auto [model, shape, device] = random_trial(rng, c, 8, trial);
      BalanceOptions options;
      options.recompute_options = {0, 1};
      SearchParts parts(model, device, shape, options, std::numeric_limits<std::int64_t>::max(), false);
      balancer::BranchAndBound& search = *parts.search;
      search.try_plan(parts.problem.even_ends());
      if (search.best_time() == kNoEnd) continue;  // no incumbent to start from
      ++checked;
      const std::string label =
          std::string(schedule_name(c.schedule)) + " pp " + std::to_string(c.pp) + " trial " + std::to_string(trial);
      ASSERT_EQ(to_the_end([&] { return search.improve_locally(kAnyWork); }), balancer::PhaseStatus::done) << label;
      const double single = search.best_time();
      ASSERT_EQ(to_the_end([&] { return search.improve_in_pairs(kAnyWork); }), balancer::PhaseStatus::done) << label;
      const double best = search.best_time();
      improved += best < single ? 1 : 0;

      // Its time is that partition's best, by every recompute assignment.
      const std::vector<int> sizes = sizes_of(search.best_ends());
      Exhaustive own;
      best_of_partition(model, device, shape, options.recompute_options, sizes, own);
      ASSERT_TRUE(own.feasible) << label;
      EXPECT_NEAR(best, own.best_ms, 1e-9 * own.best_ms) << label;

      // No partition one or two moves away (a layer between stages i < j, either way, twice) is faster.
      std::set<std::vector<int>> valid;
      for_each_partition(model, shape.virtual_stages(), [&](const std::vector<int>& p) { valid.insert(p); });
      std::vector<std::vector<int>> moves;  // {i, j, step}: stage i gains step layers, stage j loses them
      const int V = shape.virtual_stages();
      for (int i = 0; i < V; ++i)
        for (int j = i + 1; j < V; ++j)
          for (int step : {-1, 1}) moves.push_back({i, j, step});
      std::set<std::vector<int>> near;
      for (std::size_t x = 0; x < moves.size(); ++x)
        for (std::size_t y = x; y < moves.size(); ++y) {
          std::vector<int> p = sizes;
          const auto apply = [&](const std::vector<int>& move) {
            p[static_cast<std::size_t>(move[0])] += move[2];
            p[static_cast<std::size_t>(move[1])] -= move[2];
          };
          apply(moves[x]);
          if (y != x) apply(moves[y]);  // x == y: one move alone
          if (valid.count(p) > 0) near.insert(p);
        }
      EXPECT_GT(near.size(), 1U) << label;
      for (const std::vector<int>& p : near) {
        Exhaustive other;
        best_of_partition(model, device, shape, options.recompute_options, p, other);
        if (other.feasible) {
          EXPECT_GE(other.best_ms, best * (1 - 1e-9)) << label;
        }
      }
    }
    EXPECT_GE(checked, 6) << schedule_name(c.schedule);
  }
  // The pairs found a faster plan than single moves alone on some models (else this test would not
  // tell them apart from single moves).
  EXPECT_GT(improved, 0);
}

// The pairs run while the search stands paused at a node (a balance runs them once a search has not
// ended within 20,000 nodes): the search then goes on from its path as it was (its stage ends, the
// costs of its virtual stages and, with several chunks, its stages' recompute choices, which every
// plan tried overwrites) and still reaches the exhaustive optimum, naming a plan of that time, under
// every kind of program (one chunk, interleaved, weight gradients apart, the V shapes). Paused
// at many depths, and on some runs the pairs stop early (their share ends after 2 V tries), so that
// the search still has better plans to find below its path.
TEST(BalanceLocalSearch, PairsOfMovesInsideAPausedSearchLeaveItsPathAsItWas) {
  const std::vector<Case> cases = {
      {Schedule::one_f_one_b, 3, 1, {3, 6}},
      {Schedule::interleaved_1f1b, 2, 2, {2, 4}},
      {Schedule::interleaved_1f1b, 3, 2, {3, 6}},
      {Schedule::interleaved_1f1b, 2, 3, {2, 4}},
      {Schedule::zb_h1, 3, 1, {3, 6}},
      {Schedule::zbv, 2, 2, {1, 4}},
      {Schedule::dualpipev, 2, 2, {4, 6}},
  };
  std::mt19937 rng(2712);
  int improved = 0;  // runs where the pairs moved the best plan (the search resumed with a new cut)
  for (const Case& c : cases) {
    int paused = 0;
    for (int trial = 0; trial < 12; ++trial) {
      const auto [model, shape, device] = random_trial(rng, c, 8, trial);
      BalanceOptions options;
      options.recompute_options = {0, 1};
      const Exhaustive want = exhaustive(model, device, shape, options.recompute_options);
      if (!want.feasible) continue;
      for (int pause = 2; pause <= 38; pause += 3) {
        SearchParts parts(model, device, shape, options, std::numeric_limits<std::int64_t>::max(), false);
        balancer::BranchAndBound& search = *parts.search;
        const std::string label = std::string(schedule_name(c.schedule)) + " pp " + std::to_string(c.pp) + " trial " +
                                  std::to_string(trial) + " pause " + std::to_string(pause);
        search.pause_at(pause);
        const balancer::PhaseStatus first = search.step();
        if (first == balancer::PhaseStatus::paused && search.at_pause() && search.best_time() < kNoEnd) {
          ++paused;
          const double before = search.best_time();
          to_the_end([&] { return search.improve_in_pairs(pause % 2 == 1 ? 0 : kAnyWork); });
          improved += search.best_time() < before ? 1 : 0;
        }
        search.pause_at(std::numeric_limits<std::int64_t>::max());
        ASSERT_EQ(to_the_end([&] { return search.step(); }), balancer::PhaseStatus::done) << label;
        EXPECT_NEAR(search.best_time(), want.best_ms, 1e-9 * want.best_ms) << label;
        Exhaustive named;
        best_of_partition(model, device, shape, options.recompute_options, sizes_of(search.best_ends()), named);
        EXPECT_NEAR(named.best_ms, want.best_ms, 1e-9 * want.best_ms) << label;
      }
    }
    EXPECT_GE(paused, 30) << schedule_name(c.schedule) << " vpp " << c.vpp;
  }
  EXPECT_GT(improved, 0);
}

}  // namespace
}  // namespace ppb::test
