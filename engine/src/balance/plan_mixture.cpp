// The whole-plan bound's restricted master. See plan_mixture.hpp.
//
// Columns: 0 is t (the largest bound), 1..nm the memory over each limit (paid price_cap each),
// then a slack for every bound and memory row, then the plans. Rows: the bounds (sum_k alpha_k g_k
// - t + slack = 0), the memories (sum_k alpha_k s_k - over + slack = 0), and sum_k alpha_k = 1.
#include "plan_mixture.hpp"

#include <algorithm>
#include <cmath>

namespace ppb::balancer {

PlanMixture::PlanMixture(int bounds, int memories, double price_cap)
    : nb_(bounds), nm_(memories), rows_(bounds + memories + 1), price_cap_(price_cap) {
  const auto n = static_cast<std::size_t>(rows_);
  inverse_.assign(n * n, 0);
  basis_.assign(n, 0);
  in_basis_.assign(static_cast<std::size_t>(1 + nm_ + nb_ + nm_), 0);
  x_.assign(n, 0);
  y_.assign(n, 0);
  a_.assign(n, 0);
  u_.assign(n, 0);
}

double PlanMixture::entry(int q, int row) const {
  if (q == 0) return row < nb_ ? -1 : 0;
  if (q <= nm_) return row == nb_ + q - 1 ? -1 : 0;
  const int first_plan = 1 + nm_ + nb_ + nm_;
  if (q < first_plan) return row == q - 1 - nm_ ? 1 : 0;
  const auto& plan = plans_[static_cast<std::size_t>(q - first_plan)];
  return row < nb_ + nm_ ? plan[static_cast<std::size_t>(row)] : 1;
}

double PlanMixture::cost(int q) const {
  if (q == 0) return 1;
  if (q <= nm_) return price_cap_;
  return 0;
}

void PlanMixture::column(int q, std::vector<double>& out) const {
  for (int row = 0; row < rows_; ++row) out[static_cast<std::size_t>(row)] = entry(q, row);
}

// The master's arithmetic in units of about a search node, as the ascent counts its tables.
constexpr double kWorkPerUnit = 256;

bool PlanMixture::spend(double work, Budget& budget) {
  work_ += work;
  const double units = std::floor((work_ - ticked_) / kWorkPerUnit);
  if (units < 1) return budget.hit();
  ticked_ += units * kWorkPerUnit;
  return budget.tick(static_cast<std::int64_t>(units));
}

// The basis inverse by Gauss-Jordan elimination with partial pivoting, and the basic values
// (the right side is 1 in the convexity row only). Built aside, so that a stop part way leaves the
// inverse the pivots kept (of the same basis, only less accurate).
bool PlanMixture::invert(Budget& budget) {
  const auto n = static_cast<std::size_t>(rows_);
  std::vector<double>& b = scratch_;
  std::vector<double>& inverse = next_inverse_;
  b.resize(n * n);
  inverse.assign(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    column(basis_[i], a_);
    for (std::size_t row = 0; row < n; ++row) b[row * n + i] = a_[row];
  }
  for (std::size_t i = 0; i < n; ++i) inverse[i * n + i] = 1;
  for (std::size_t c = 0; c < n; ++c) {
    if (spend(2.0 * static_cast<double>(n * n), budget)) return false;
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::fabs(b[r * n + c]) > std::fabs(b[pivot * n + c])) pivot = r;
    if (std::fabs(b[pivot * n + c]) < 1e-12) continue;  // singular: leave it (only the bound's strength suffers)
    if (pivot != c)
      for (std::size_t k = 0; k < n; ++k) {
        std::swap(b[pivot * n + k], b[c * n + k]);
        std::swap(inverse[pivot * n + k], inverse[c * n + k]);
      }
    const double d = b[c * n + c];
    for (std::size_t k = 0; k < n; ++k) b[c * n + k] /= d, inverse[c * n + k] /= d;
    for (std::size_t r = 0; r < n; ++r) {
      if (r == c || b[r * n + c] == 0) continue;
      const double f = b[r * n + c];
      for (std::size_t k = 0; k < n; ++k)
        b[r * n + k] -= f * b[c * n + k], inverse[r * n + k] -= f * inverse[c * n + k];
    }
  }
  inverse_.swap(next_inverse_);
  for (std::size_t i = 0; i < n; ++i) x_[i] = inverse_[i * n + n - 1];
  since_invert_ = 0;
  return true;
}

void PlanMixture::add(const std::vector<double>& g, const std::vector<double>& slack, Budget& budget) {
  std::vector<double> plan(g.begin(), g.end());
  plan.insert(plan.end(), slack.begin(), slack.end());
  plans_.push_back(std::move(plan));
  in_basis_.push_back(0);
  if (plans_.size() > 1) return;
  // The first plan alone: it takes the convexity row, t the row of its largest bound, the slacks of
  // the other bounds and, per memory row, its slack or its part over the limit.
  std::fill(in_basis_.begin(), in_basis_.end(), 0);
  const int first_plan = 1 + nm_ + nb_ + nm_;
  const auto top = static_cast<int>(std::max_element(g.begin(), g.end()) - g.begin());
  for (int j = 0; j < nb_; ++j) basis_[static_cast<std::size_t>(j)] = j == top ? 0 : 1 + nm_ + j;
  for (int r = 0; r < nm_; ++r)
    basis_[static_cast<std::size_t>(nb_ + r)] = slack[static_cast<std::size_t>(r)] > 0 ? 1 + r : 1 + nm_ + nb_ + r;
  basis_[static_cast<std::size_t>(rows_ - 1)] = first_plan;
  for (int q : basis_) in_basis_[static_cast<std::size_t>(q)] = 1;
  invert(budget);
}

void PlanMixture::price_rows() {
  const auto n = static_cast<std::size_t>(rows_);
  for (std::size_t row = 0; row < n; ++row) {
    double y = 0;
    for (std::size_t i = 0; i < n; ++i) y += cost(basis_[i]) * inverse_[i * n + row];
    y_[row] = y;
  }
}

PhaseStatus PlanMixture::solve(int pivots, double work_cap, Budget& budget) {
  const auto n = static_cast<std::size_t>(rows_);
  const int columns = static_cast<int>(in_basis_.size());
  for (;; ++step_) {
    price_rows();
    if (step_ == pivots || work_ >= work_cap) break;
    if (spend(static_cast<double>(n * n) + static_cast<double>(columns) * static_cast<double>(n), budget))
      return PhaseStatus::given_up;
    // Dantzig's rule: the column of the most negative reduced cost.
    int enter = -1;
    double best = -1e-9;
    for (int q = 0; q < columns; ++q) {
      if (in_basis_[static_cast<std::size_t>(q)]) continue;
      double d = cost(q);
      for (std::size_t row = 0; row < n; ++row) {
        const double e = entry(q, static_cast<int>(row));
        if (e != 0) d -= y_[row] * e;
      }
      if (d < best) best = d, enter = q;
    }
    if (enter < 0) break;  // optimal
    column(enter, a_);
    for (std::size_t i = 0; i < n; ++i) {
      double u = 0;
      for (std::size_t row = 0; row < n; ++row) u += inverse_[i * n + row] * a_[row];
      u_[i] = u;
    }
    std::size_t leave = n;
    double ratio = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (u_[i] > 1e-7) {
        const double r = std::max(0.0, x_[i]) / u_[i];
        if (leave == n || r < ratio - 1e-12 || (r <= ratio + 1e-12 && basis_[i] < basis_[leave])) leave = i, ratio = r;
      }
    if (leave == n) break;  // unbounded: cannot happen with the convexity row; stop
    const double p = u_[leave];
    for (std::size_t k = 0; k < n; ++k) inverse_[leave * n + k] /= p;
    x_[leave] /= p;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == leave || u_[i] == 0) continue;
      for (std::size_t k = 0; k < n; ++k) inverse_[i * n + k] -= u_[i] * inverse_[leave * n + k];
      x_[i] -= u_[i] * x_[leave];
    }
    in_basis_[static_cast<std::size_t>(basis_[leave])] = 0;
    basis_[leave] = enter;
    in_basis_[static_cast<std::size_t>(enter)] = 1;
    if (spend(2.0 * static_cast<double>(n * n), budget)) return PhaseStatus::given_up;
    if (++since_invert_ >= 30 && !invert(budget)) return PhaseStatus::given_up;
    if (budget.slice_over()) {
      ++step_;
      return PhaseStatus::paused;
    }
  }
  step_ = 0;
  return PhaseStatus::done;
}

double PlanMixture::duals(std::vector<double>& lambda, std::vector<double>& mu) const {
  const auto n = static_cast<std::size_t>(rows_);
  lambda.assign(static_cast<std::size_t>(nb_), 0);
  mu.assign(static_cast<std::size_t>(nm_), 0);
  for (int j = 0; j < nb_; ++j) lambda[static_cast<std::size_t>(j)] = std::max(0.0, -y_[static_cast<std::size_t>(j)]);
  for (int r = 0; r < nm_; ++r) mu[static_cast<std::size_t>(r)] = std::max(0.0, -y_[static_cast<std::size_t>(nb_ + r)]);
  double value = 0;
  for (std::size_t i = 0; i < n; ++i) value += cost(basis_[i]) * x_[i];
  return value;
}

void PlanMixture::shares(std::vector<double>& alpha) const {
  alpha.assign(plans_.size(), 0);
  const int first_plan = 1 + nm_ + nb_ + nm_;
  for (std::size_t i = 0; i < basis_.size(); ++i)
    if (basis_[i] >= first_plan) alpha[static_cast<std::size_t>(basis_[i] - first_plan)] = std::max(0.0, x_[i]);
}

}  // namespace ppb::balancer
