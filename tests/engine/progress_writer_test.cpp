// The progress writer: a balance's and a search's progress in the one shape the page reads, every
// field always there, null where it does not apply (docs/contract.md, "Progress").
#include "ppb/io/progress_writer.hpp"

#include <gtest/gtest.h>

#include "helpers.hpp"

namespace ppb::test {
namespace {

TEST(ProgressWriter, BalanceHasNoTotalAndItsBoundsAsNumbersOrNull) {
  BalanceProgress running;
  running.phase = "search";
  running.nodes = 120;
  running.simulations = 37;
  running.incumbent_ms = 4188.25;
  running.lower_bound_ms = 4100.5;
  EXPECT_EQ(progress_json(running),
            R"({"command":"balance","done":120,"finished":false,"incumbent_ms":4188.25,"lower_bound_ms":4100.5,)"
            R"("phase":"search","simulations":37,"total":null})");
  BalanceProgress starting;
  starting.phase = "least over";
  EXPECT_EQ(progress_json(starting),
            R"({"command":"balance","done":0,"finished":false,"incumbent_ms":null,"lower_bound_ms":null,)"
            R"("phase":"least over","simulations":0,"total":null})");
}

TEST(ProgressWriter, SearchCountsCandidatesOfTheSpaceAndSaysDoneAtTheEnd) {
  EXPECT_EQ(progress_json(SearchProgress{3, 12, false}),
            R"({"command":"search","done":3,"finished":false,"incumbent_ms":null,"lower_bound_ms":null,)"
            R"("phase":"candidates","simulations":null,"total":12})");
  EXPECT_EQ(json::parse(progress_json(SearchProgress{12, 12, true}))["phase"], "done");
}

TEST(ProgressWriter, BothHaveTheSameFields) {
  json balance = json::parse(progress_json(BalanceProgress{}));
  json search = json::parse(progress_json(SearchProgress{}));
  std::vector<std::string> a, b;
  for (auto it = balance.begin(); it != balance.end(); ++it) a.push_back(it.key());
  for (auto it = search.begin(); it != search.end(); ++it) b.push_back(it.key());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 8u);
}

}  // namespace
}  // namespace ppb::test
