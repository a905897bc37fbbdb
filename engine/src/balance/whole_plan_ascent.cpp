// The whole-plan bound's ascent over its multipliers: column generation with row generation, its
// restricted master a DenseLp (dense_lp.hpp). See whole_plan_bound.hpp.
#include <algorithm>
#include <cmath>

#include "dense_lp.hpp"
#include "whole_plan_bound.hpp"

namespace ppb::balancer {
namespace {

// The price the master pays per MiB over a limit on average (ms per MiB): the prices never exceed it.
constexpr double kPriceCap = 10;
// Pivots per solve of the master, and the weight of the best multipliers in the next probe.
constexpr int kPivots = 5000;
constexpr double kSmoothing = 0.5;
// Path rows at most, and how often (in rounds) one is looked for before the master converges.
constexpr int kMaxPathRows = 200;
constexpr int kPathEvery = 5;
// The ascent's work, in table cells: its rounds are as many as fit (at most kRounds); and all of its
// work, the master's included (multiply-adds, about), checked before each round and at each pivot.
constexpr double kAscentCells = 1.5e8;
constexpr double kAscentWork = 3e9;
// The master's arithmetic in units of about a search node, as the ascent counts its tables.
constexpr double kWorkPerUnit = 256;

}  // namespace

void WholePlanBound::start_master() {
  std::vector<double> cost(static_cast<std::size_t>(1 + memories_), kPriceCap);
  cost[0] = 1;
  lp_ = std::make_unique<DenseLp>(cost);
  std::vector<double> a(cost.size(), 0.0);
  a[0] = -1;
  for (int j = 0; j < nb_; ++j) bound_row_.push_back(lp_->add_row(a, -kInf, 0));
  a[0] = 0;
  memory_row_ = lp_->pool();
  for (std::size_t r = 1; r < a.size(); ++r) {
    a[r] = -1;
    lp_->add_row(a, -kInf, 0);
    a[r] = 0;
  }
  convexity_row_ = lp_->add_row(a, 1, 1);
  for (int k = 0; k < lp_->pool(); ++k) lp_->activate(k);
  over_high_.assign(static_cast<std::size_t>(memories_), 0.0);
  for (int r = 0; r < memories_; ++r) lp_->set_bounds(1 + r, 0, 1);
}

// At an optimum t is the mixture's largest bound, between the least and the largest value of any
// plan at any bound, and over_r is at most the largest slack of row r (or 0): boxes wider than those
// by 1 and their span never bind there, so the optimal basis is one of the master without boxes and
// its duals are the master's (the weights then sum to 1: t is basic, its reduced cost 0).
void WholePlanBound::widen(double low, double high) {
  if (low >= g_low_ && high <= g_high_) return;
  g_low_ = std::min(g_low_, low);
  g_high_ = std::max(g_high_, high);
  const double margin = 1 + (g_high_ - g_low_);
  lp_->set_bounds(0, g_low_ - margin, g_high_ + margin);
}

void WholePlanBound::add_plan(Budget& budget) {
  if (!lp_) start_master();
  column_.assign(static_cast<std::size_t>(lp_->pool()), 0.0);
  for (int j = 0; j < nb_; ++j)
    column_[static_cast<std::size_t>(bound_row_[static_cast<std::size_t>(j)])] = g_[static_cast<std::size_t>(j)];
  widen(*std::min_element(g_.begin(), g_.end()), *std::max_element(g_.begin(), g_.end()));
  for (int r = 0; r < memories_; ++r) {
    const double s = flat_slack_[static_cast<std::size_t>(r)];
    column_[static_cast<std::size_t>(memory_row_ + r)] = s;
    double& high = over_high_[static_cast<std::size_t>(r)];
    if (s > high) lp_->set_bounds(1 + r, 0, 1 + 2 * (high = s));
  }
  column_[static_cast<std::size_t>(convexity_row_)] = 1;
  // A share's box [0, 1] (the convexity row's already): at an optimum with a share at 1, its reduced
  // cost may be below 0, yet the weights and prices price every plan at least at the master's value,
  // so they are optimal for the master without the box too.
  lp_->add_column(0, column_, 0, 1);
  plan_terms_.push_back(terms_);
  spend(budget);
}

bool WholePlanBound::spend(Budget& budget) {
  const double units = std::floor((lp_->work() - ticked_) / kWorkPerUnit);
  if (units < 1) return budget.hit();
  ticked_ += units * kWorkPerUnit;
  return budget.tick(static_cast<std::int64_t>(units));
}

PhaseStatus WholePlanBound::solve_master(double cap, Budget& budget) {
  for (; pivot_ < kPivots && lp_->work() < cap; ++pivot_) {
    const DenseLp::Status status = lp_->solve(1);
    if (spend(budget)) return PhaseStatus::given_up;
    // Infeasible cannot be (every plan alone is a solution): the master failed numerically, and the
    // ascent ends with its best so far.
    if (status == DenseLp::Status::infeasible) return PhaseStatus::given_up;
    if (status == DenseLp::Status::optimal) {
      optimal_ = true;
      pivot_ = 0;
      return PhaseStatus::done;
    }
    if (budget.slice_over()) {
      ++pivot_;
      return PhaseStatus::paused;
    }
  }
  // Stopped short of the optimum: the basis is dual feasible, so its duals are weights and prices
  // like any others, but its value is below the master's and bounds nothing from above.
  optimal_ = false;
  pivot_ = 0;
  return PhaseStatus::done;
}

static_assert(static_cast<int>(ProgramPaths::kSend) == 4 && static_cast<int>(ProgramPaths::kTerms) == 5,
              "the path rows' terms are the whole-plan bound's");

bool WholePlanBound::add_path(double master, Budget& budget) {
  if (!paths_ || path_rows_ >= kMaxPathRows || nb_ + memories_ + 1 >= kMaxRows) return false;
  const auto first_plan = static_cast<std::size_t>(1 + memories_);
  mixed_.assign(terms_.size(), 0);
  for (std::size_t k = 0; k < plan_terms_.size(); ++k) {
    const double share = std::max(0.0, lp_->x(static_cast<int>(first_plan + k)));
    if (share > 0)
      for (std::size_t t = 0; t < mixed_.size(); ++t) mixed_[t] += share * plan_terms_[k][t];
  }
  double tail = 0;
  const double longest = paths_->longest(mixed_, path_row_, tail);
  budget.add_work(static_cast<std::int64_t>(paths_->operations() / 16 + mixed_.size() / 64) + 1);
  if (!(longest > master + 1e-9 * std::fabs(master))) return false;
  add_bound(path_row_, tail);
  ++path_rows_;
  lambda_.push_back(0);
  best_lambda_.push_back(0);
  // The new bound's row in the master, each plan's value at it: a cut, which keeps the master's
  // basis dual feasible, so the next solve goes on from it.
  column_.assign(static_cast<std::size_t>(lp_->variables()), 0.0);
  column_[0] = -1;
  double low = kInf, high = -kInf;
  for (std::size_t k = 0; k < plan_terms_.size(); ++k) {
    double g = tail;
    for (std::size_t t = 0; t < path_row_.size(); ++t) g += path_row_[t] * plan_terms_[k][t];
    column_[first_plan + k] = g;
    low = std::min(low, g);
    high = std::max(high, g);
  }
  widen(low, high);
  bound_row_.push_back(lp_->add_row(column_, -kInf, 0));
  lp_->activate(bound_row_.back());
  spend(budget);
  return true;
}

// Column generation (Dantzig-Wolfe): the plans the program picks are the columns of a small linear
// program (the master, whole_plan_bound.hpp) whose duals are the next weights and prices; each is
// taken halfway from the best multipliers so far (in-out smoothing, which damps the oscillation of
// the duals), and at the duals themselves when that does not raise the bound. The master's value
// bounds the relaxation's best from above, so the ascent stops when the two meet.
PhaseStatus WholePlanBound::ascend(Budget& budget, double target) {
  if (!applies_) return PhaseStatus::done;
  if (round_units_ == 0) {
    round_units_ = static_cast<std::int64_t>(static_cast<double>(V_) * static_cast<double>(width_) / 64 +
                                             static_cast<double>(nb_) * static_cast<double>(kTerms) * V_ / 256) +
                   1;
    rounds_ = static_cast<int>(std::min<double>(kRounds, kAscentCells / static_cast<double>(round_units_ * 64)));
  }
  const std::int64_t units = round_units_;
  const int rounds = rounds_;
  const auto flat = [&](const std::vector<std::vector<double>>& x, std::vector<double>& out) {
    out.clear();
    for (const auto& y : x) out.insert(out.end(), y.begin(), y.end());
  };
  const auto unflat = [&](const std::vector<double>& in, std::vector<std::vector<double>>& x) {
    std::size_t k = 0;
    for (auto& y : x)
      for (double& v : y) v = in[k++];
  };
  // Evaluates the bound at (lambda_, mu_), keeps the best, and adds the plan picked as a column.
  const auto probe = [&]() {
    const double value = evaluate(lambda_, mu_);
    if (!(value < kInf)) return value;
    if (value > best_) {
      best_ = value;
      best_lambda_ = lambda_;
      best_mu_ = mu_;
    }
    subgradient();
    flat(slack_, flat_slack_);
    add_plan(budget);
    return value;
  };
  // The work of the tables' rounds so far and of the master: what kAscentWork caps.
  const auto work = [&]() { return master_work() + static_cast<double>(round_) * static_cast<double>(units) * 64; };
  while (!finished_ && (solving_ || round_ < rounds)) {
    if (!solving_) {
      if (work() > kAscentWork) break;
      if (budget.tick(units)) break;
      ++round_;
    }
    if (round_ == 1) {
      if (!(probe() < kInf)) {  // no partition at all: nothing to raise
        best_ = kInf;
        break;
      }
    } else {
      // The master, from its last basis; a slice may end inside it (it goes on in the next).
      solving_ = true;
      const PhaseStatus solved = solve_master(kAscentWork - work() + master_work(), budget);
      if (solved == PhaseStatus::paused) return solved;
      solving_ = false;
      if (solved == PhaseStatus::given_up) break;
      // The duals: a bound's row is at most 0 (y <= 0), a weight -y; a memory row's likewise a price.
      lp_->row_duals(y_);
      dual_lambda_.resize(static_cast<std::size_t>(nb_));
      dual_mu_.resize(static_cast<std::size_t>(memories_));
      double sum = 0;
      for (int j = 0; j < nb_; ++j)
        sum += dual_lambda_[static_cast<std::size_t>(j)] =
            std::max(0.0, -y_[static_cast<std::size_t>(bound_row_[static_cast<std::size_t>(j)])]);
      for (int r = 0; r < memories_; ++r)
        dual_mu_[static_cast<std::size_t>(r)] = std::max(0.0, -y_[static_cast<std::size_t>(memory_row_ + r)]);
      if (!(sum > 0)) break;  // no weights: the master failed (numerically); keep the best so far
      for (double& x : dual_lambda_) x /= sum;
      for (double& x : dual_mu_) x /= sum;
      if (optimal_) {
        const double master = lp_->objective();
        master_ = master;
        // The relaxation's best is reached: unless a path of the program at the master's mixture is
        // longer than its value (a row that cuts the mixture off), the ascent is done.
        if (master - best_ <= 1e-9 * std::fabs(master)) {
          if (add_path(master, budget)) continue;
          break;
        }
        if (round_ % kPathEvery == 0 && add_path(master, budget)) continue;
      }
      flat(best_mu_, flat_slack_);
      for (std::size_t j = 0; j < lambda_.size(); ++j)
        lambda_[j] = kSmoothing * best_lambda_[j] + (1 - kSmoothing) * dual_lambda_[j];
      for (std::size_t k = 0; k < flat_slack_.size(); ++k)
        flat_slack_[k] = kSmoothing * flat_slack_[k] + (1 - kSmoothing) * dual_mu_[k];
      unflat(flat_slack_, mu_);
      const double before = best_;
      probe();
      if (!(best_ > before)) {
        lambda_ = dual_lambda_;
        unflat(dual_mu_, mu_);
        probe();
      }
    }
    if (budget.hit()) break;
    if (target < kInf && best_ >= target) break;  // the bound meets the best plan
    if (budget.slice_over() && round_ < rounds) return PhaseStatus::paused;
  }
  finished_ = true;
  solving_ = false;
  if (best_ > -kInf && best_ < kInf) evaluate(best_lambda_, best_mu_);
  return budget.hit() ? PhaseStatus::given_up : PhaseStatus::done;
}

}  // namespace ppb::balancer
