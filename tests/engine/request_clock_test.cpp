// The request's clock: how much of a command's time budget the reading of the request uses up.
#include "commands/command_support.hpp"

#include <gtest/gtest.h>

namespace ppb::detail {
namespace {

// All the time spent reading counts, up to nine tenths of the budget: the work keeps at least a
// tenth (200 ms of the default 2,000).
TEST(RequestClock, ReadingCountsAgainstTheBudgetButLeavesTheWorkATenth) {
  EXPECT_EQ(RequestClock::counted_ms(0, 2000), 0);
  EXPECT_EQ(RequestClock::counted_ms(600, 2000), 600);
  EXPECT_EQ(RequestClock::counted_ms(1800, 2000), 1800);
  EXPECT_EQ(RequestClock::counted_ms(2500, 2000), 1800);
  EXPECT_EQ(RequestClock::counted_ms(50, 40), 36);
}

}  // namespace
}  // namespace ppb::detail
