// The balancer's linear programs (dense_lp.hpp): small programs whose optimum, and duals, are worked
// by hand; a branch and its undoing; rows and columns added after a solve, as the count search and
// the whole-plan bound's column generation add them; infeasibility; the bound at every basis.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "balance/balance_problem.hpp"
#include "balance/dense_lp.hpp"

namespace ppb::test {
namespace {

using balancer::DenseLp;
using balancer::kInf;

// min x0 + x1 subject to x0 + 2 x1 >= 4 and 3 x0 + x1 >= 6, 0 <= x <= 10. The two rows meet at
// (8/5, 6/5), worth 14/5; the axes' vertices are worth 4 (x1 = 0, x0 >= 4) and 6 (x0 = 0, x1 >= 6).
DenseLp two_rows() {
  DenseLp lp({1, 1});
  lp.set_bounds(0, 0, 10);
  lp.set_bounds(1, 0, 10);
  lp.activate(lp.add_row({1, 2}, 4, kInf));
  lp.activate(lp.add_row({3, 1}, 6, kInf));
  return lp;
}

TEST(DenseLp, SolvesAHandWorkedProgram) {
  DenseLp lp = two_rows();
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  EXPECT_NEAR(lp.x(0), 1.6, 1e-6);
  EXPECT_NEAR(lp.x(1), 1.2, 1e-6);
  EXPECT_NEAR(lp.objective(), 2.8, 1e-5);
  // The dual bound is the optimum, to the working costs' perturbation, never above.
  EXPECT_LE(lp.bound(), 2.8 + 1e-9);
  EXPECT_GE(lp.bound(), 2.8 - 1e-4);
}

TEST(DenseLp, ABranchAndItsUndoingAndRowsAddedAfter) {
  DenseLp lp = two_rows();
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  DenseLp::State root;
  lp.save(root);
  // x0 <= 1: then x1 >= max((4 - x0) / 2, 6 - 3 x0) = 3 at x0 = 1, worth 4.
  lp.set_bounds(0, 0, 1);
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  EXPECT_NEAR(lp.objective(), 4, 1e-5);
  // A row added in the branch: x0 + x1 >= 5, worth 5 (x0 = 1, x1 = 4).
  lp.activate(lp.add_row({1, 1}, 5, kInf));
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  EXPECT_NEAR(lp.objective(), 5, 1e-5);
  EXPECT_EQ(lp.rows(), 3);
  // Back at the root: the branch's bound and row are gone.
  lp.restore(root);
  EXPECT_EQ(lp.rows(), 2);
  EXPECT_EQ(lp.pool(), 3);
  EXPECT_EQ(lp.upper(0), 10);
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  EXPECT_NEAR(lp.objective(), 2.8, 1e-5);
  // x0 >= 2 (the other branch): x1 >= max(1, 0) = 1, worth 3.
  lp.set_bounds(0, 2, 10);
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  EXPECT_NEAR(lp.objective(), 3, 1e-5);
}

TEST(DenseLp, InfeasibleProgramsAreSaidToBe) {
  DenseLp lp = two_rows();
  // x0 + 2 x1 <= 3 against x0 + 2 x1 >= 4.
  lp.activate(lp.add_row({1, 2}, -kInf, 3));
  EXPECT_EQ(lp.solve(100), DenseLp::Status::infeasible);
  DenseLp boxed = two_rows();
  boxed.set_bounds(0, 0, 1);
  boxed.set_bounds(1, 0, 1);  // x0 + 2 x1 <= 3 < 4
  EXPECT_EQ(boxed.solve(100), DenseLp::Status::infeasible);
}

// Whatever the basis, bound() is at most the optimum: after one pivot (stopped), at the start, and
// on a program whose every row is written many times over (degenerate: many ties) with costs that
// are mostly zero, which must still be solved, not cycle.
TEST(DenseLp, TheBoundIsValidAtEveryBasisAndDegenerateProgramsEnd) {
  DenseLp lp = two_rows();
  EXPECT_LE(lp.bound(), 2.8 + 1e-9);
  EXPECT_EQ(lp.solve(1), DenseLp::Status::stopped);
  EXPECT_LE(lp.bound(), 2.8 + 1e-9);

  // min t subject to t >= x_i + x_j for every pair (each row 5 times), sum x = 3, 0 <= x <= 3 over
  // four x: the least largest pair sum is 1.5 (every x at 3/4).
  DenseLp many({0, 0, 0, 0, 1});
  for (int j = 0; j < 4; ++j) many.set_bounds(j, 0, 3);
  many.set_bounds(4, 0, 100);
  many.activate(many.add_row({1, 1, 1, 1, 0}, 3, 3));
  for (int copy = 0; copy < 5; ++copy)
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) {
        std::vector<double> a(5, 0);
        a[static_cast<std::size_t>(i)] = -1;
        a[static_cast<std::size_t>(j)] = -1;
        a[4] = 1;
        many.activate(many.add_row(a, 0, kInf));
      }
  ASSERT_EQ(many.solve(10'000), DenseLp::Status::optimal);
  EXPECT_NEAR(many.objective(), 1.5, 1e-5);
  EXPECT_LE(many.bound(), 1.5 + 1e-9);
  EXPECT_GE(many.bound(), 1.5 - 1e-4);
}

// two_rows' duals by hand: both x are basic, so their reduced costs vanish, 1 = y1 + 3 y2 and
// 1 = 2 y1 + y2: y = (2/5, 1/5), worth 4 y1 + 6 y2 = 14/5, the optimum. A row in the pool that is not
// active, and an active row with slack at the optimum, have none.
TEST(DenseLp, RowDualsAtAHandWorkedOptimum) {
  DenseLp lp = two_rows();
  lp.activate(lp.add_row({1, 1}, -kInf, 5));  // 14/5 < 5
  lp.add_row({1, 0}, -kInf, 1);               // pooled, not active
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  std::vector<double> y;
  lp.row_duals(y);
  ASSERT_EQ(y.size(), 4u);
  EXPECT_NEAR(y[0], 0.4, 1e-9);
  EXPECT_NEAR(y[1], 0.2, 1e-9);
  EXPECT_EQ(y[2], 0);
  EXPECT_EQ(y[3], 0);
}

// A column added after a solve, priced out (as column generation adds one): x2 of cost 1 with
// coefficients 1 and 4 in two_rows' rows, 1 in a slack row x0 + x1 + x2 <= 5 and 1 in a pooled row
// x2 <= 1 activated after. Its reduced cost at the duals (2/5, 1/5) is 1 - 2/5 - 4/5 = -1/5, so the
// optimum moves. The new dual program, max 4 y1 + 6 y2 subject to y1 + 3 y2 <= 1, 2 y1 + y2 <= 1,
// y1 + 4 y2 <= 1, y >= 0: the last two tight give y = (3/7, 1/7), worth 18/7, and x0's constraint is
// slack (6/7 < 1), so x0 = 0 and x1, x2 solve 2 x1 + x2 = 4, x1 + 4 x2 = 6: (10/7, 8/7).
// Then x2 <= 1 cuts that off: with x2 = 1, x0 + 2 x1 = 3 and 3 x0 + x1 = 2 give (1/5, 7/5), worth
// 13/5; its duals keep y1 = 2/5, y2 = 1/5 (x0 and x1 basic), and x2's reduced cost 0 gives the new
// row's 1 - 2/5 - 4/5 = -1/5 (an upper row: <= 0). The dual value 4 (2/5) + 6 (1/5) - 1/5 = 13/5.
TEST(DenseLp, AColumnAddedAfterASolveGoesOnFromItsBasis) {
  DenseLp lp = two_rows();
  lp.activate(lp.add_row({1, 1}, -kInf, 5));
  const int cap = lp.add_row({0, 0}, -kInf, 1);
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  EXPECT_EQ(lp.add_column(1, {1, 4, 1, 1}, 0, 10), 2);
  EXPECT_EQ(lp.variables(), 3);
  EXPECT_EQ(lp.row(cap), (std::vector<double>{0, 0, 1}));
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  EXPECT_NEAR(lp.objective(), 18.0 / 7, 1e-9);
  EXPECT_NEAR(lp.x(0), 0, 1e-9);
  EXPECT_NEAR(lp.x(1), 10.0 / 7, 1e-9);
  EXPECT_NEAR(lp.x(2), 8.0 / 7, 1e-9);
  std::vector<double> y;
  lp.row_duals(y);
  EXPECT_NEAR(y[0], 3.0 / 7, 1e-9);
  EXPECT_NEAR(y[1], 1.0 / 7, 1e-9);
  EXPECT_EQ(y[2], 0);
  EXPECT_NEAR(lp.bound(), 18.0 / 7, 1e-9);  // no cost is 0, so nothing is perturbed

  lp.activate(cap);
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  EXPECT_NEAR(lp.objective(), 2.6, 1e-9);
  EXPECT_NEAR(lp.x(0), 0.2, 1e-9);
  EXPECT_NEAR(lp.x(1), 1.4, 1e-9);
  EXPECT_NEAR(lp.x(2), 1, 1e-9);
  lp.row_duals(y);
  EXPECT_NEAR(y[0], 0.4, 1e-9);
  EXPECT_NEAR(y[1], 0.2, 1e-9);
  EXPECT_EQ(y[2], 0);
  EXPECT_NEAR(y[3], -0.2, 1e-9);
  EXPECT_NEAR(lp.bound(), 2.6, 1e-9);
}

// The whole-plan bound's master in small: min t over mixtures of plans A (bound values 4, 2) and
// B (1, 3), t >= each bound's mixed value, the shares summing to 1. Columns come after the rows,
// as plans do. 4a + b = 2a + 3b with a + b = 1 gives a = 1/2, t = 5/2; the weights on the bounds
// price both plans alike, 4 l1 + 2 l2 = l1 + 3 l2 with l1 + l2 = 1: (1/4, 3/4), the row duals'
// negatives (a bound's row is at most 0), and the convexity row's dual is the value, 5/2.
// A third bound (a path row) then values A at 3.5 and B at 2: bounds 2 and 3 meet where
// 2a + 3b = 3.5a + 2b, at a = 2/5, t = 13/5, with bound 1 slack (4a + b = 11/5); the weights price
// both plans alike, 2 l2 + 3.5 l3 = 3 l2 + 2 l3 with l2 + l3 = 1: (0, 3/5, 2/5).
TEST(DenseLp, AMasterOfPlansAddedAsColumnsAndBoundsAsRows) {
  DenseLp lp({1});  // t
  lp.set_bounds(0, 0, 10);
  const int bound1 = lp.add_row({-1}, -kInf, 0), bound2 = lp.add_row({-1}, -kInf, 0);
  const int convexity = lp.add_row({0}, 1, 1);
  for (int k = 0; k < lp.pool(); ++k) lp.activate(k);
  lp.add_column(0, {4, 2, 1}, 0, 1);  // plan A
  lp.add_column(0, {1, 3, 1}, 0, 1);  // plan B
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  // The shares cost nothing, so their working costs are perturbed by about 1e-9: the optimum moves
  // by that much at most.
  EXPECT_NEAR(lp.objective(), 2.5, 1e-6);
  EXPECT_NEAR(lp.x(1), 0.5, 1e-6);
  std::vector<double> y;
  lp.row_duals(y);
  EXPECT_NEAR(y[static_cast<std::size_t>(bound1)], -0.25, 1e-6);
  EXPECT_NEAR(y[static_cast<std::size_t>(bound2)], -0.75, 1e-6);
  EXPECT_NEAR(y[static_cast<std::size_t>(convexity)], 2.5, 1e-6);

  const int bound3 = lp.add_row({-1, 3.5, 2}, -kInf, 0);
  lp.activate(bound3);
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  EXPECT_NEAR(lp.objective(), 2.6, 1e-6);
  EXPECT_NEAR(lp.x(1), 0.4, 1e-6);
  EXPECT_NEAR(lp.x(2), 0.6, 1e-6);
  lp.row_duals(y);
  EXPECT_NEAR(y[static_cast<std::size_t>(bound1)], 0, 1e-6);
  EXPECT_NEAR(y[static_cast<std::size_t>(bound2)], -0.6, 1e-6);
  EXPECT_NEAR(y[static_cast<std::size_t>(bound3)], -0.4, 1e-6);
  EXPECT_NEAR(y[static_cast<std::size_t>(convexity)], 2.6, 1e-6);
}

// The work it counts depends on the program alone: a pivot updates every row of the tableau
// (rows x variables, the reduced costs' row too), so a solve counts at least that per pivot, and the
// same solve counts the same again.
TEST(DenseLp, CountsItsWorkByThePrograms) {
  DenseLp lp = two_rows();
  EXPECT_EQ(lp.work(), 0);
  ASSERT_EQ(lp.solve(100), DenseLp::Status::optimal);
  EXPECT_GE(lp.work(), static_cast<double>(lp.pivots()) * (lp.rows() + 1) * lp.variables());
  DenseLp again = two_rows();
  ASSERT_EQ(again.solve(100), DenseLp::Status::optimal);
  EXPECT_EQ(again.work(), lp.work());
}

}  // namespace
}  // namespace ppb::test
