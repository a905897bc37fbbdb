// The balancer's linear programs: a bounded dual simplex on a condensed tableau. See dense_lp.hpp.
#include "dense_lp.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace ppb::balancer {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kPivotTolerance = 1e-9;   // smallest |entry| a pivot may take
constexpr double kPrimalTolerance = 1e-9;  // relative: a basic value this far past a bound is within it
constexpr double kDualTolerance = 1e-9;    // a reduced cost this far on the wrong side is zero
constexpr double kPerturbation = 1e-9;     // of the working costs that are 0
constexpr int kBlandAfter = 1000;          // pivots of one solve (over calls) before Bland's rule
constexpr int kRefresh = 32;               // pivots between fresh computations of the basic values

}  // namespace

DenseLp::DenseLp(std::vector<double> cost)
    : n_(static_cast<int>(cost.size())),
      cost_(std::move(cost)),
      d_(cost_),
      lo_(cost_.size(), 0),
      hi_(cost_.size(), 0),
      side_(cost_.size(), -1) {
  for (int j = 0; j < n_; ++j) nonbasic_.push_back(j);
  locate();
  for (double& d : d_) d = working_cost(d);
}

// The working costs of the variables that cost nothing are raised a little, differently for each, so
// that their reduced costs do not tie at zero: without it the dual simplex cycles on the count
// search's programs (every variable but T costs nothing). bound() prices with the true costs, so the
// bound stays valid; it is lower by at most each perturbation times its variable's range.
double DenseLp::working_cost(double cost) {
  seed_ = seed_ * 1664525u + 1013904223u;
  return cost == 0 ? kPerturbation * (1 + static_cast<double>(seed_ >> 8) / 16777216.0) : cost;
}

void DenseLp::locate() {
  place_.assign(static_cast<std::size_t>(n_ + m_), 0);
  for (int i = 0; i < m_; ++i) place_[static_cast<std::size_t>(basis_[static_cast<std::size_t>(i)])] = i;
  for (int q = 0; q < n_; ++q) place_[static_cast<std::size_t>(nonbasic_[static_cast<std::size_t>(q)])] = -1 - q;
}

void DenseLp::set_bounds(int j, double lower, double upper) {
  const auto uj = static_cast<std::size_t>(j);
  const int at = place_[uj];
  const double before = at < 0 ? value(j) : 0;
  lo_[uj] = lower;
  hi_[uj] = upper;
  if (at < 0) shift(-1 - at, value(j) - before);
}

void DenseLp::shift(int q, double delta) {
  if (delta == 0) return;
  work_ += m_;
  const auto n = static_cast<std::size_t>(n_);
  for (int i = 0; i < m_; ++i)
    xb_[static_cast<std::size_t>(i)] += tau_[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(q)] * delta;
  ++shifts_;
}

int DenseLp::add_column(double cost, const std::vector<double>& column, double lower, double upper) {
  const auto n = static_cast<std::size_t>(n_), m = static_cast<std::size_t>(m_);
  for (std::size_t k = 0; k < a_.size(); ++k) a_[k].push_back(column[k]);
  // The tableau wrote each basic variable in the nonbasic ones, a nonbasic row's logical standing
  // for a_i . x without the new variable: r_i - c_i x_new now. So x_new's column is, in each row,
  // minus the sum of the nonbasic logicals' entries times their c_i, plus c_i where the row's basic
  // variable is logical i itself (r_i = its old expression + c_i x_new); its reduced cost likewise.
  std::vector<std::pair<std::size_t, double>> logicals;
  double d = working_cost(cost);
  for (std::size_t q = 0; q < n; ++q) {
    const int k = nonbasic_[q];
    const double c = k >= n_ ? column[static_cast<std::size_t>(active_[static_cast<std::size_t>(k - n_)])] : 0;
    if (c == 0) continue;
    logicals.emplace_back(q, c);
    d -= d_[q] * c;
  }
  tau_.resize(m * (n + 1));
  for (std::size_t i = m; i-- > 0;) {  // each row moved to its wider place, the last first
    std::copy_backward(tau_.begin() + static_cast<std::ptrdiff_t>(i * n),
                       tau_.begin() + static_cast<std::ptrdiff_t>(i * n + n),
                       tau_.begin() + static_cast<std::ptrdiff_t>(i * (n + 1) + n));
    double* row = tau_.data() + i * (n + 1);
    const int b = basis_[i];
    double v = b >= n_ ? column[static_cast<std::size_t>(active_[static_cast<std::size_t>(b - n_)])] : 0;
    for (const auto& [q, c] : logicals) v -= row[q] * c;
    row[n] = v;
  }
  work_ += static_cast<double>(m) * static_cast<double>(n + logicals.size());
  // The logicals are numbered after the variables: one more variable moves each up by one.
  for (int& k : basis_) k += k >= n_ ? 1 : 0;
  for (int& k : nonbasic_) k += k >= n_ ? 1 : 0;
  lo_.insert(lo_.begin() + n_, lower);
  hi_.insert(hi_.begin() + n_, upper);
  cost_.push_back(cost);
  d_.push_back(d);
  nonbasic_.push_back(n_);
  side_.push_back(-1);
  const int j = n_++;
  locate();
  shift(j, lower);  // its column times its value, in the basic values
  return j;
}

int DenseLp::add_row(const std::vector<double>& a, double lo, double hi) {
  a_.push_back(a);
  row_lo_.push_back(lo);
  row_hi_.push_back(hi);
  return pool() - 1;
}

bool DenseLp::is_active(int row) const { return std::find(active_.begin(), active_.end(), row) != active_.end(); }

double DenseLp::bound_of(int k, int side) const {
  return side < 0 ? lo_[static_cast<std::size_t>(k)] : hi_[static_cast<std::size_t>(k)];
}

double DenseLp::value(int k) const {
  const int at = place_[static_cast<std::size_t>(k)];
  if (at >= 0) return xb_[static_cast<std::size_t>(at)];
  return bound_of(k, side_[static_cast<std::size_t>(-1 - at)]);
}

double DenseLp::objective() const {
  double z = 0;
  for (int j = 0; j < n_; ++j)
    if (cost_[static_cast<std::size_t>(j)] != 0) z += cost_[static_cast<std::size_t>(j)] * value(j);
  return z;
}

void DenseLp::activate(int k) {
  const auto n = static_cast<std::size_t>(n_);
  const auto uk = static_cast<std::size_t>(k);
  tau_.resize(static_cast<std::size_t>(m_ + 1) * n, 0);
  double* row = tau_.data() + static_cast<std::size_t>(m_) * n;
  std::fill(row, row + n, 0.0);
  // r = a . x, each variable as the tableau has it: a nonbasic one itself, a basic one its row.
  for (int j = 0; j < n_; ++j) {
    const double aj = a_[uk][static_cast<std::size_t>(j)];
    if (aj == 0) continue;
    const int at = place_[static_cast<std::size_t>(j)];
    if (at < 0) {
      row[-1 - at] += aj;
    } else {
      const double* src = tau_.data() + static_cast<std::size_t>(at) * n;
      for (std::size_t q = 0; q < n; ++q) row[q] += aj * src[q];
      work_ += static_cast<double>(n);
    }
  }
  basis_.push_back(n_ + m_);
  active_.push_back(k);
  lo_.push_back(row_lo_[uk]);
  hi_.push_back(row_hi_[uk]);
  place_.push_back(m_);
  double v = 0;
  for (std::size_t q = 0; q < n; ++q) v += row[q] * bound_of(nonbasic_[q], side_[q]);
  ++m_;
  xb_.push_back(v);
}

void DenseLp::pivot(int r, int q) {
  const auto n = static_cast<std::size_t>(n_);
  const auto uq = static_cast<std::size_t>(q);
  double* pr = tau_.data() + static_cast<std::size_t>(r) * n;
  const double inv = 1.0 / pr[uq];
  // Row r solved for the entering variable: x_E = (x_L - sum_{j != q} tau_rj x_j) / tau_rq.
  for (std::size_t j = 0; j < n; ++j) pr[j] = -pr[j] * inv;
  pr[uq] = inv;
  for (int i = 0; i < m_; ++i) {
    if (i == r) continue;
    double* pi = tau_.data() + static_cast<std::size_t>(i) * n;
    const double f = pi[uq];
    if (f == 0) continue;
    for (std::size_t j = 0; j < n; ++j) pi[j] += f * pr[j];
    pi[uq] = f * inv;
  }
  const double f = d_[uq];
  if (f != 0) {
    for (std::size_t j = 0; j < n; ++j) d_[j] += f * pr[j];
    d_[uq] = f * inv;
  }
  work_ += static_cast<double>(m_ + 1) * static_cast<double>(n);
  const int leaving = basis_[static_cast<std::size_t>(r)], entering = nonbasic_[uq];
  basis_[static_cast<std::size_t>(r)] = entering;
  nonbasic_[uq] = leaving;
  place_[static_cast<std::size_t>(entering)] = r;
  place_[static_cast<std::size_t>(leaving)] = -1 - q;
  ++pivots_;
}

void DenseLp::compute_basics() {
  shifts_ = 0;
  const auto n = static_cast<std::size_t>(n_);
  work_ += static_cast<double>(m_) * static_cast<double>(n);
  std::vector<double>& xn = scratch_;
  xn.resize(n);
  for (std::size_t q = 0; q < n; ++q) xn[q] = bound_of(nonbasic_[q], side_[q]);
  for (int i = 0; i < m_; ++i) {
    const double* pi = tau_.data() + static_cast<std::size_t>(i) * n;
    double v = 0;
    for (std::size_t q = 0; q < n; ++q) v += pi[q] * xn[q];
    xb_[static_cast<std::size_t>(i)] = v;
  }
}

DenseLp::Status DenseLp::solve(int pivots) {
  const auto n = static_cast<std::size_t>(n_);
  // A reduced cost on the wrong side of its bound (rounding, or a bound that moved) is put right by
  // moving the variable to its other bound, which keeps the basis dual feasible.
  for (std::size_t q = 0; q < n; ++q) {
    const auto k = static_cast<std::size_t>(nonbasic_[q]);
    const double before = bound_of(nonbasic_[q], side_[q]);
    if (side_[q] < 0 && d_[q] < -kDualTolerance && hi_[k] < kInfinity) side_[q] = 1;
    if (side_[q] > 0 && d_[q] > kDualTolerance && lo_[k] > -kInfinity) side_[q] = -1;
    shift(static_cast<int>(q), bound_of(nonbasic_[q], side_[q]) - before);
  }
  work_ += static_cast<double>(n);
  for (int step = 0;; ++step, ++run_) {
    if (shifts_ >= kRefresh || pivots_ == 0) compute_basics();
    work_ += static_cast<double>(m_) + 2 * static_cast<double>(n);  // the leaving row, the ratio test
    // The row whose basic value is furthest past a bound leaves, to that bound. After kBlandAfter
    // pivots (degenerate pivots can cycle) Bland's rule instead: the infeasible basic variable of the
    // least index leaves, and the entering one is the least index among the least ratios, which
    // cannot cycle.
    const bool bland = run_ >= kBlandAfter;
    int r = -1;
    double worst = 0;
    bool up = false;
    for (int i = 0; i < m_; ++i) {
      const int k = basis_[static_cast<std::size_t>(i)];
      const auto b = static_cast<std::size_t>(k);
      const double v = xb_[static_cast<std::size_t>(i)];
      const double below = lo_[b] - v, above = v - hi_[b];
      const bool low = below > kPrimalTolerance * std::max(1.0, std::fabs(lo_[b]));
      const bool high = above > kPrimalTolerance * std::max(1.0, std::fabs(hi_[b]));
      if (!low && !high) continue;
      if (bland) {
        if (r < 0 || k < basis_[static_cast<std::size_t>(r)]) r = i, up = low;
        continue;
      }
      if (low && below > worst) r = i, worst = below, up = true;
      if (high && above > worst) r = i, worst = above, up = false;
    }
    if (r < 0) {
      run_ = 0;
      return Status::optimal;
    }
    if (step >= pivots) return Status::stopped;
    // The entering column: a two-pass (Harris) ratio test over the columns that move the leaving
    // value towards its bound, the largest entry among those within the least ratio's allowance.
    const double* pr = tau_.data() + static_cast<std::size_t>(r) * n;
    const auto eligible = [&](std::size_t q) {
      const auto k = static_cast<std::size_t>(nonbasic_[q]);
      if (lo_[k] == hi_[k]) return false;
      // x_B = sum tau_q x_q: raising it takes x_q up where tau > 0 and down where tau < 0.
      const double tau = up ? pr[q] : -pr[q];
      return side_[q] < 0 ? tau > kPivotTolerance : tau < -kPivotTolerance;
    };
    double limit = kInfinity;
    for (std::size_t q = 0; q < n; ++q)
      if (eligible(q)) limit = std::min(limit, (std::fabs(d_[q]) + (bland ? 0 : kDualTolerance)) / std::fabs(pr[q]));
    if (limit == kInfinity) {
      run_ = 0;
      return Status::infeasible;
    }
    int enter = -1;
    double best = 0;
    for (std::size_t q = 0; q < n; ++q) {
      if (!eligible(q) || std::fabs(d_[q]) / std::fabs(pr[q]) > limit * (bland ? 1 + 1e-12 : 1)) continue;
      if (bland ? enter < 0 || nonbasic_[q] < nonbasic_[static_cast<std::size_t>(enter)] : std::fabs(pr[q]) > best)
        enter = static_cast<int>(q), best = std::fabs(pr[q]);
    }
    // The entering variable moves until the leaving one reaches its bound; the other basic values
    // move with it.
    const auto uq = static_cast<std::size_t>(enter);
    const int leaving = basis_[static_cast<std::size_t>(r)];
    const double target = up ? lo_[static_cast<std::size_t>(leaving)] : hi_[static_cast<std::size_t>(leaving)];
    const double delta = (target - xb_[static_cast<std::size_t>(r)]) / pr[uq];
    const double entering = bound_of(nonbasic_[uq], side_[uq]) + delta;
    shift(enter, delta);
    xb_[static_cast<std::size_t>(r)] = entering;
    pivot(r, enter);
    side_[uq] = up ? -1 : 1;
  }
}

void DenseLp::row_duals(std::vector<double>& y) const {
  y.assign(a_.size(), 0);
  for (int q = 0; q < n_; ++q) {
    const int k = nonbasic_[static_cast<std::size_t>(q)];
    if (k >= n_)
      y[static_cast<std::size_t>(active_[static_cast<std::size_t>(k - n_)])] = d_[static_cast<std::size_t>(q)];
  }
}

double DenseLp::bound(std::vector<double>* slopes) const {
  // y_i: the reduced cost of row i's logical where it is nonbasic, 0 where basic.
  std::vector<double> y(static_cast<std::size_t>(m_), 0);
  if (slopes) slopes->assign(static_cast<std::size_t>(n_), 0);
  for (int q = 0; q < n_; ++q) {
    const int k = nonbasic_[static_cast<std::size_t>(q)];
    if (k >= n_) y[static_cast<std::size_t>(k - n_)] = d_[static_cast<std::size_t>(q)];
  }
  double total = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const auto k = static_cast<std::size_t>(active_[i]);
    double& yi = y[i];
    if (row_lo_[k] == -kInfinity) yi = std::min(yi, 0.0);
    if (row_hi_[k] == kInfinity) yi = std::max(yi, 0.0);
    if (yi > 0) total += yi * row_lo_[k];
    if (yi < 0) total += yi * row_hi_[k];
  }
  for (int j = 0; j < n_; ++j) {
    const auto uj = static_cast<std::size_t>(j);
    double g = cost_[uj];
    for (std::size_t i = 0; i < y.size(); ++i)
      if (y[i] != 0) g -= y[i] * a_[static_cast<std::size_t>(active_[i])][uj];
    total += g > 0 ? g * lo_[uj] : g * hi_[uj];
    if (slopes) (*slopes)[uj] = g;
  }
  return total;
}

void DenseLp::save(State& state) const {
  state.m = m_;
  state.active = active_;
  state.tau = tau_;
  state.d = d_;
  state.lo = lo_;
  state.hi = hi_;
  state.basis = basis_;
  state.nonbasic = nonbasic_;
  state.side = side_;
  state.xb = xb_;
  state.shifts = shifts_;
}

void DenseLp::restore(const State& state) {
  m_ = state.m;
  active_ = state.active;
  tau_.assign(state.tau.begin(), state.tau.end());
  d_ = state.d;
  lo_ = state.lo;
  hi_ = state.hi;
  basis_ = state.basis;
  nonbasic_ = state.nonbasic;
  side_ = state.side;
  locate();
  xb_ = state.xb;
  shifts_ = state.shifts;
  run_ = 0;
}

}  // namespace ppb::balancer
