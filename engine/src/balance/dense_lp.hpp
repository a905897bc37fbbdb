// The balancer's linear programs (internal to the engine): the count search's branch and cut and the
// whole-plan bound's master (its column generation over mixtures of plans). Each is
//     min cost . x   subject to   lo_i <= a_i . x <= hi_i (each row),   lower_j <= x_j <= upper_j,
// the variables' bounds finite, a row's may be infinite on one side. Solved by a bounded dual
// simplex on a condensed (Tucker) tableau: each basic variable as a combination of the n nonbasic
// ones, m x n for m rows, so that a pivot costs m x n however many rows there are (the count
// search's tens of variables, the master's hundreds of plans; hundreds of rows). Each row has a
// logical r_i = a_i . x, basic at first, which is dual feasible when no cost is negative. A branch
// changes a bound and a cut adds a row; both keep the basis dual feasible, so a node re-solves from
// its parent's basis in a few pivots. A column (a variable added after the start, as column
// generation adds plans) keeps the basis too: it enters nonbasic, and with every variable boxed a
// reduced cost on the wrong side only moves the variable to its other bound, so the dual simplex
// goes on from a dual feasible basis.
//
// What the count search relies on is bound(): a Lagrangian bound from the basis' duals evaluated on
// the rows as given, so that whatever rounding the tableau gathered, the bound is a valid lower bound
// (weak duality); the solver's accuracy moves its strength, never its validity. The whole-plan bound
// reads the row duals alone (row_duals()) and builds its own bound from them, valid for the same
// reason.
#pragma once

#include <cstdint>
#include <vector>

namespace ppb::balancer {

class DenseLp {
 public:
  // `cost` per variable, every cost >= 0; bounds [0, 0] until set.
  explicit DenseLp(std::vector<double> cost);

  void set_bounds(int j, double lower, double upper);
  [[nodiscard]] int variables() const { return n_; }
  // Adds a variable of cost `cost` (any sign: its box is finite), boxed in [lower, upper], whose
  // coefficient in each row of the pool is `column` (one entry per row, active or not), and returns
  // its index. It enters nonbasic at its lower bound; the basis and its tableau are kept. A State
  // saved before it no longer fits the program (restore only states saved after the last column).
  int add_column(double cost, const std::vector<double>& column, double lower, double upper);
  [[nodiscard]] double lower(int j) const { return lo_[static_cast<std::size_t>(j)]; }
  [[nodiscard]] double upper(int j) const { return hi_[static_cast<std::size_t>(j)]; }
  // Adds lo <= a . x <= hi (a dense, one entry per variable) to the pool of rows and returns its
  // index there; a row of the program once activated (in this state and those that follow from it).
  int add_row(const std::vector<double>& a, double lo, double hi);
  void activate(int row);
  [[nodiscard]] int rows() const { return m_; }  // active
  [[nodiscard]] bool is_active(int row) const;
  [[nodiscard]] int pool() const { return static_cast<int>(a_.size()); }
  [[nodiscard]] const std::vector<double>& row(int k) const { return a_[static_cast<std::size_t>(k)]; }
  [[nodiscard]] double row_lower(int k) const { return row_lo_[static_cast<std::size_t>(k)]; }
  [[nodiscard]] double row_upper(int k) const { return row_hi_[static_cast<std::size_t>(k)]; }

  enum class Status { optimal, infeasible, stopped };
  // Dual simplex from the current basis, at most `pivots` pivots (stopped when they run out; the
  // next call goes on with the same solve).
  Status solve(int pivots);
  // A variable's value in the last basis.
  [[nodiscard]] double x(int j) const { return value(j); }
  // The objective at the last basis' values.
  [[nodiscard]] double objective() const;
  // The Lagrangian bound of the last basis' duals (clamped to the signs their rows allow), on the
  // rows and bounds as given: a lower bound of every feasible x, whatever the basis. It is a sum over
  // the variables, each at its cheaper bound: with `slopes`, each variable's coefficient in it, so
  // that x_j moved k from that bound raises the bound by k |slope_j|.
  [[nodiscard]] double bound(std::vector<double>* slopes = nullptr) const;
  // The last basis' dual of each row of the pool into `y` (one entry per row): the reduced cost of
  // its logical where that is nonbasic (at the working costs), 0 where basic or the row inactive.
  // At an optimal basis, y_i <= 0 on a row at its upper bound and >= 0 at its lower, and
  // cost_j - sum_i y_i a_ij is >= 0 for a variable at its lower bound, <= 0 at its upper, 0 if basic.
  void row_duals(std::vector<double>& y) const;
  [[nodiscard]] std::int64_t pivots() const { return pivots_; }
  // Arithmetic done so far, in multiply-adds (about): pivots, refreshes, rows and columns added. It
  // depends only on the programs solved, so that a caller's budget can count it as work.
  [[nodiscard]] double work() const { return work_; }

  // The active rows, the basis, the tableau and the variables' bounds: what a branch changes.
  struct State {
    int m = 0;
    std::vector<int> active;
    std::vector<double> tau, d, lo, hi;
    std::vector<int> basis, nonbasic;
    std::vector<signed char> side;
    std::vector<double> xb;
    int shifts = 0;
  };
  void save(State& state) const;
  void restore(const State& state);

 private:
  [[nodiscard]] double value(int k) const;
  [[nodiscard]] double bound_of(int k, int side) const;
  // The working cost of a variable of cost `cost`: a cost of 0 perturbed (see the constructor).
  [[nodiscard]] double working_cost(double cost);
  // Exchanges the basic variable of row r with the nonbasic one of column q.
  void pivot(int r, int q);
  // The basic values into xb_, afresh; shift() moves them by nonbasic column q's change `delta`
  // (kept up to date that way, and computed afresh after a number of shifts).
  void compute_basics();
  void shift(int q, double delta);
  void locate();  // place_ from basis_ and nonbasic_

  int n_;
  std::vector<double> cost_;
  std::vector<std::vector<double>> a_;  // the pool: every row as given, and its bounds
  std::vector<double> row_lo_, row_hi_;
  std::vector<int> active_;  // per tableau row's logical: its row in the pool
  // The state: the active rows; tau_ (m_ x n_, row-major): basic variable i is
  // sum_q tau_iq x_nonbasic(q); d_: the objective's coefficient of each nonbasic variable (its
  // reduced cost); bounds per variable (the n_ variables, then one logical per row); which variable is
  // basic in each row and nonbasic in each column, and at which bound each nonbasic one sits (-1 its
  // lower, +1 its upper).
  int m_ = 0;
  std::vector<double> tau_, d_, lo_, hi_;
  std::vector<int> basis_, nonbasic_;
  std::vector<signed char> side_;
  std::vector<int> place_;  // per variable: its row (>= 0) or -1 - its column
  std::vector<double> xb_, scratch_;
  int shifts_ = 0;  // since the basic values were computed afresh
  int run_ = 0;     // pivots of the solve in progress
  std::int64_t pivots_ = 0;
  double work_ = 0;
  std::uint32_t seed_ = 12345;  // of the working costs' perturbation, the columns' included
};

}  // namespace ppb::balancer
