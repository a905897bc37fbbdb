// The count search: branch and cut over layer counts. See count_search.hpp.
#include "count_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ppb/model/device.hpp"
#include "ppb/plan/stage_costs.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb::balancer {
namespace {

// Whether two layers are interchangeable in every plan: the same times, memory, output and
// recompute options (those the balance may use).
bool alike(const Layer& x, const Layer& y, const std::vector<int>& options) {
  if (x.forward_ms != y.forward_ms || x.backward_ms != y.backward_ms || x.weight_backward_ms != y.weight_backward_ms ||
      x.static_mib() != y.static_mib() || x.activation_mib != y.activation_mib ||
      x.weight_activation_mib != y.weight_activation_mib || x.forward_comm_ms != y.forward_comm_ms ||
      x.backward_comm_ms != y.backward_comm_ms || x.send_mib != y.send_mib)
    return false;
  for (int o : options) {
    const auto& a = x.recompute[static_cast<std::size_t>(o)];
    const auto& b = y.recompute[static_cast<std::size_t>(o)];
    if (a.has_value() != b.has_value()) return false;
    if (a && (a->extra_ms != b->extra_ms || a->activation_mib != b->activation_mib)) return false;
  }
  return true;
}

constexpr double kIntegral = 1e-6;  // a value this close to an integer is that integer
// Below the root, a path is added at a fractional solution only when it is longer than T by this
// share (measured on issue 18's interleaved case: 0.1% to 1% prove it in about the same time, fewer
// rows meaning more nodes).
constexpr double kFractionalCut = 0.003;
// A node whose solution is a plan is closed when its bound is within this share of the best time
// below the cutoff (the perturbed costs and the solver's tolerances can leave it that far under).
constexpr double kRounding = 1e-7;

}  // namespace

CountSearch::CountSearch(const BalanceProblem& problem) : p_(problem) {
  const Model& model = p_.model;
  const auto& options = p_.options.recompute_options;
  V_ = p_.V;
  N_ = model.body_count();
  // zb_auto: its proof would be for the even split's program, not the plan's (balance_problem.hpp).
  if (V_ < 2 || p_.overlaps || !p_.memory_exact || p_.min_size != 1 || N_ <= 0 || needs_costs(p_.shape.schedule))
    return;
  const int needed = V_ - (model.pinned_first > 0 ? 1 : 0) - (model.pinned_last > 0 ? 1 : 0);
  if (N_ < needed) return;
  body_ = &model.layers[static_cast<std::size_t>(model.body_begin())];
  for (int i = model.body_begin(); i < model.body_end(); ++i)
    if (!alike(*body_, p_.layer(i), options)) return;
  for (int i = 0; i < p_.L; ++i) {
    if (i >= model.body_begin() && i < model.body_end()) continue;
    for (int o : options)
      if (p_.layer(i).recompute[static_cast<std::size_t>(o)]) return;
  }
  send_ = transfer_ms(p_.device, body_->send_mib);
  if (model.pinned_first > 0 && p_.send_after(model.pinned_first) != send_) return;
  for (int o : options)
    if (const auto& r = body_->recompute[static_cast<std::size_t>(o)]) {
      option_.push_back(o);
      extra_.push_back(r->extra_ms);
      act_.push_back(r->activation_mib);
    }
  K_ = static_cast<int>(option_.size());
  if (V_ * (K_ + 1) + 1 > kMaxVariables) return;
  const auto V = static_cast<std::size_t>(V_);
  for (auto* pin : {&pin_f_, &pin_b_, &pin_w_, &pin_static_, &pin_act_}) pin->assign(V, 0);
  const auto pinned = [&](std::size_t v, int a, int b) {
    pin_f_[v] = p_.range(p_.prefix_f, a, b);
    pin_b_[v] = p_.range(p_.prefix_b, a, b);
    pin_w_[v] = p_.range(p_.prefix_w, a, b);
    pin_static_[v] = p_.range(p_.prefix_static, a, b);
    pin_act_[v] = p_.range(p_.prefix_act, a, b);
  };
  pinned(0, 0, model.pinned_first);
  pinned(V - 1, model.body_end(), p_.L);
  // The step time's grain: the largest of a few round steps that every term is a whole multiple of.
  std::vector<double> terms = {body_->forward_ms, body_->backward_ms, body_->weight_backward_ms, send_};
  for (auto* pin : {&pin_f_, &pin_b_, &pin_w_}) terms.insert(terms.end(), pin->begin(), pin->end());
  terms.insert(terms.end(), extra_.begin(), extra_.end());
  terms.insert(terms.end(), p_.tail.begin(), p_.tail.end());
  for (const double g : {1.0, 0.5, 0.25, 0.2, 0.125, 0.1, 0.05, 0.025, 0.02, 0.01, 0.005, 0.001}) {
    const bool whole = std::all_of(terms.begin(), terms.end(), [g](double t) {
      const double q = t / g;
      return std::fabs(q - std::round(q)) <= 1e-9 * std::max(1.0, std::fabs(q));
    });
    if (whole) {
      grain_ = g;
      break;
    }
  }
  applies_ = true;
}

Plan CountSearch::plan_of(const std::vector<int>& c, const std::vector<int>& r) const {
  const Model& model = p_.model;
  Plan plan{p_.shape};
  plan.recompute.assign(static_cast<std::size_t>(p_.L), -1);
  int layer = model.body_begin();
  for (int v = 0; v < V_; ++v) {
    const auto uv = static_cast<std::size_t>(v);
    int n = c[uv];
    if (v == 0) n += model.pinned_first;
    if (v == V_ - 1) n += model.pinned_last;
    plan.stage_layers.push_back(n);
    int at = layer;
    for (int k = 0; k < K_; ++k)
      for (int q = 0; q < r[uv * static_cast<std::size_t>(K_) + static_cast<std::size_t>(k)]; ++q)
        plan.recompute[static_cast<std::size_t>(at++)] = option_[static_cast<std::size_t>(k)];
    layer += c[uv];
  }
  return plan;
}

Plan CountSearch::best_plan() const { return plan_of(best_c_, best_r_); }

void CountSearch::start(double incumbent, std::int64_t simulations_before) {
  simulations_before_ = simulations_before;
  // With no plan yet, an upper bound of every plan's step time: every operation and transfer one
  // after another (each at its slowest recompute), and the largest tail.
  double serial = 0;
  for (int i = 0; i < p_.L; ++i) {
    const Layer& l = p_.layer(i);
    double extra = 0;
    for (int o : p_.options.recompute_options)
      if (const auto& r = l.recompute[static_cast<std::size_t>(o)]) extra = std::max(extra, r->extra_ms);
    serial += l.forward_ms + l.backward_ms + l.weight_backward_ms + extra;
  }
  serial = p_.m * (serial + 2 * V_ * send_);
  for (double t : p_.tail) serial += t;
  best_time_ = incumbent < kInf ? incumbent : serial + 1;
  found_ = false;
  best_c_.clear();
  best_r_.clear();
  nodes_ = simulations_ = 0;
  rounded_ = kInf;
  path_rows_ = 0;
  open_.clear();
  const int n = t_var() + 1;
  std::vector<double> cost(static_cast<std::size_t>(n), 0);
  cost.back() = 1;
  lp_ = std::make_unique<DenseLp>(cost);
  const Model& model = p_.model;
  for (int v = 0; v < V_; ++v) {
    const bool holds_pins = (v == 0 && model.pinned_first > 0) || (v == V_ - 1 && model.pinned_last > 0);
    lp_->set_bounds(c_var(v), holds_pins ? 0 : 1, N_);
    for (int k = 0; k < K_; ++k) lp_->set_bounds(r_var(v, k), 0, N_);
  }
  lp_->set_bounds(t_var(), 0, best_time_);
  std::vector<double> a(static_cast<std::size_t>(n), 0);
  const auto clear = [&] { std::fill(a.begin(), a.end(), 0.0); };
  // Every movable layer is placed.
  for (int v = 0; v < V_; ++v) a[static_cast<std::size_t>(c_var(v))] = 1;
  lp_->activate(lp_->add_row(a, N_, N_));
  // At most c_v of them recompute.
  if (K_ > 0)
    for (int v = 0; v < V_; ++v) {
      clear();
      a[static_cast<std::size_t>(c_var(v))] = -1;
      for (int k = 0; k < K_; ++k) a[static_cast<std::size_t>(r_var(v, k))] = 1;
      lp_->activate(lp_->add_row(a, -kInf, 0));
    }
  // Each stage's memory at each of its count vectors: its static memory, and each chunk's activation
  // times the chunk's micro batches held.
  if (p_.limit < kInf)
    for (int s = 0; s < p_.pp; ++s)
      for (const auto& counts : p_.peaks[static_cast<std::size_t>(s)]) {
        clear();
        double fixed = 0;
        for (int chunk = 0; chunk < p_.shape.vpp_degree; ++chunk) {
          const int v = p_.virtual_of(s, chunk);
          const auto uv = static_cast<std::size_t>(v);
          const double held = counts[static_cast<std::size_t>(chunk)];
          fixed += pin_static_[uv] + held * pin_act_[uv];
          a[static_cast<std::size_t>(c_var(v))] += body_->static_mib() + held * body_->activation_mib;
          for (int k = 0; k < K_; ++k)
            a[static_cast<std::size_t>(r_var(v, k))] -=
                held * (body_->activation_mib - act_[static_cast<std::size_t>(k)]);
        }
        lp_->activate(lp_->add_row(a, -kInf, p_.limit_for(s) - fixed));
      }
  fixed_rows_ = lp_->pool();
  pooled_.clear();
  max_path_rows_ = std::min(kMaxPathRows, static_cast<int>(kMaxPoolEntries / n));
  paths_ = std::make_unique<ProgramPaths>(p_);
  replay_ = std::make_unique<PlanReplay>(p_.shape, p_.program, p_.tail);
  x_.assign(static_cast<std::size_t>(n), 0);
  gain_sum_.assign(2 * static_cast<std::size_t>(n), 0);
  gain_count_.assign(2 * static_cast<std::size_t>(n), 0);
  open_.push_back(Node{});
  open_.back().bound = 0;
}

void CountSearch::times_at_solution() {
  const auto V = static_cast<std::size_t>(V_);
  times_.assign(ProgramPaths::kTerms * V, 0);
  for (int v = 0; v < V_; ++v) {
    const auto uv = static_cast<std::size_t>(v);
    const double c = x_[static_cast<std::size_t>(c_var(v))];
    double extra = 0;
    for (int k = 0; k < K_; ++k)
      extra += extra_[static_cast<std::size_t>(k)] * x_[static_cast<std::size_t>(r_var(v, k))];
    times_[ProgramPaths::kF * V + uv] = pin_f_[uv] + body_->forward_ms * c;
    times_[ProgramPaths::kB * V + uv] = pin_b_[uv] + body_->backward_ms * c + extra;
    times_[ProgramPaths::kW * V + uv] = pin_w_[uv] + body_->weight_backward_ms * c;
    times_[ProgramPaths::kSend * V + uv] = p_.crosses(v) ? send_ : 0;
  }
}

void CountSearch::try_solution() {
  std::vector<int> c(static_cast<std::size_t>(V_)), r(static_cast<std::size_t>(V_) * static_cast<std::size_t>(K_));
  for (int v = 0; v < V_; ++v) {
    c[static_cast<std::size_t>(v)] = static_cast<int>(std::lround(x_[static_cast<std::size_t>(c_var(v))]));
    for (int k = 0; k < K_; ++k)
      r[static_cast<std::size_t>(v) * static_cast<std::size_t>(K_) + static_cast<std::size_t>(k)] =
          static_cast<int>(std::lround(x_[static_cast<std::size_t>(r_var(v, k))]));
  }
  // The plan must meet the program's fixed rows exactly (the solver meets them to its tolerance): the
  // layers placed, the recompute counts, each stage's memory (to the search's rounding allowance).
  std::vector<double> point(static_cast<std::size_t>(t_var()) + 1, 0);
  for (int v = 0; v < V_; ++v) {
    point[static_cast<std::size_t>(c_var(v))] = c[static_cast<std::size_t>(v)];
    for (int k = 0; k < K_; ++k)
      point[static_cast<std::size_t>(r_var(v, k))] =
          r[static_cast<std::size_t>(v) * static_cast<std::size_t>(K_) + static_cast<std::size_t>(k)];
  }
  for (int row = 0; row < fixed_rows_; ++row) {
    const std::vector<double>& a = lp_->row(row);
    double value = 0;
    for (std::size_t j = 0; j < point.size(); ++j) value += a[j] * point[j];
    if (!fits(value, lp_->row_upper(row)) || !fits(-value, -lp_->row_lower(row))) return;
  }
  const Plan plan = plan_of(c, r);
  ++simulations_;
  bool aborted = false;
  const double t = replay_->step_time(virtual_stage_costs(p_.model, p_.device, plan), best_time_, aborted);
  if (aborted || !(t < best_time_)) return;
  best_time_ = t;
  found_ = true;
  best_c_ = c;
  best_r_ = r;
}

bool CountSearch::integral() const {
  for (int j = 0; j < t_var(); ++j) {
    const double v = x_[static_cast<std::size_t>(j)];
    if (std::fabs(v - std::round(v)) > kIntegral) return false;
  }
  return true;
}

DenseLp::Status CountSearch::solve(Budget& budget) {
  DenseLp& lp = *lp_;
  const std::int64_t start = lp.pivots();
  const std::int64_t n = t_var() + 1;
  for (;;) {
    const std::int64_t before = lp.pivots();
    const DenseLp::Status status = lp.solve(kPivotSlice);
    // A pivot is about rows x variables multiply-adds; a search node's unit of work is about 4,096.
    if (budget.tick((lp.pivots() - before + 1) * lp.rows() * n / 4096 + 1)) return DenseLp::Status::stopped;
    if (status != DenseLp::Status::stopped || lp.pivots() - start >= p_.options.count_search_pivots) return status;
  }
}

bool CountSearch::visit(const Node& node, Budget& budget) {
  ++nodes_;
  DenseLp& lp = *lp_;
  if (node.parent) {
    // The first child searched goes on from its parent's program as it stands.
    if (node.parent.get() != current_) lp.restore(*node.parent);
    lp.set_bounds(node.var, node.lo, node.hi);
  }
  current_ = nullptr;
  lp.set_bounds(t_var(), 0, best_time_);
  const int n = t_var() + 1;
  double bound = node.bound;
  for (;;) {
    const DenseLp::Status status = solve(budget);
    if (status == DenseLp::Status::infeasible) {  // no plan here beats the best
      learn(node, cutoff());
      return true;
    }
    if (status == DenseLp::Status::stopped) return false;
    // The solution's T is the program's least (to rounding), and no dual bound exceeds it: the valid
    // bound is priced only where it could close the node.
    if (lp.objective() >= cutoff() * (1 - 1e-6)) {
      bound = std::max(bound, lp.bound());
      if (bound >= cutoff()) {
        learn(node, lp.objective());
        return true;
      }
    }
    // The solution, within the node's box (the solver lets a value past its bound by its tolerance; a
    // variable just past an integral bound is that integer, and a branch always shrinks the box).
    for (int j = 0; j < n; ++j) x_[static_cast<std::size_t>(j)] = std::clamp(lp.x(j), lp.lower(j), lp.upper(j));
    const double t = x_[static_cast<std::size_t>(t_var())];
    times_at_solution();
    double tail = 0;
    const double longest = paths_->longest(times_, row_, tail);
    const bool longer = longest > t + 1e-9 * std::max(1.0, longest);
    // A longer path is added at the root and at plans; below the root at a fractional solution only
    // when it is longer than T by kFractionalCut: rows at every fractional solution deep in the tree
    // cost more in pivots than they save in nodes.
    if (!longer || path_rows_ >= max_path_rows_) break;
    if (node.parent && !integral() && longest - t <= kFractionalCut * t) break;
    // The path as a row: T - coef . (c, r) >= its constant part.
    const auto V = static_cast<std::size_t>(V_);
    std::vector<double> a(static_cast<std::size_t>(n), 0);
    double constant = tail;
    for (int v = 0; v < V_; ++v) {
      const auto uv = static_cast<std::size_t>(v);
      const double rf = row_[ProgramPaths::kF * V + uv], rb = row_[ProgramPaths::kB * V + uv];
      const double rw = row_[ProgramPaths::kW * V + uv], rs = row_[ProgramPaths::kSend * V + uv];
      constant += rf * pin_f_[uv] + rb * pin_b_[uv] + rw * pin_w_[uv] + rs * (p_.crosses(v) ? send_ : 0);
      a[static_cast<std::size_t>(c_var(v))] =
          -(rf * body_->forward_ms + rb * body_->backward_ms + rw * body_->weight_backward_ms);
      for (int k = 0; k < K_; ++k) a[static_cast<std::size_t>(r_var(v, k))] = -rb * extra_[static_cast<std::size_t>(k)];
    }
    a[static_cast<std::size_t>(t_var())] = 1;
    // The longest path is the row most violated at this solution; one found before is reused.
    std::uint64_t hash = 1469598103934665603ull;
    const auto mix = [&hash](double x) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &x, sizeof bits);
      hash = (hash ^ bits) * 1099511628211ull;
    };
    for (double x : a) mix(x);
    mix(constant);
    std::vector<int>& same = pooled_[hash];
    int id = -1;
    for (int k : same)
      if (lp.row(k) == a && lp.row_lower(k) == constant) id = k;
    if (id < 0) {
      id = lp.add_row(a, constant, kInf);
      same.push_back(id);
      ++path_rows_;
    } else if (lp.is_active(id)) {
      break;  // a row of the program already, met to the solver's tolerance only: nothing is closed on it
    }
    lp.activate(id);
  }
  learn(node, lp.objective());
  const int var = branching_variable(budget);
  if (var < 0) {
    // The solution is a plan (when it meets the fixed rows exactly): simulated, and kept when it is
    // the best. The node's least T is then its step time (no path is longer at it), so no plan here
    // beats the best; what closes the node is the safe bound, which says so to the programs'
    // rounding: within kRounding of the best time it still closes it, the answer's lower bound taking
    // it. Further under (a path it could not add, a solution past a row), the proof is given up.
    try_solution();
    const double here = lp.bound();
    if (here >= cutoff()) return true;
    if (here < cutoff() - kRounding * best_time_) return false;
    rounded_ = std::min(rounded_, here);
    return true;
  }
  // The bound the children start from (and open_bound() reads), and reduced-cost fixing: a variable
  // moved k from its cheaper bound raises the bound by k |slope|, so the values that would reach the
  // cutoff are cut from the children's bounds.
  const double here = lp.bound(&slopes_);
  bound = std::max(bound, here);
  if (here < cutoff())
    for (int j = 0; j < t_var(); ++j) {
      const double g = slopes_[static_cast<std::size_t>(j)];
      if (g == 0) continue;
      const double steps = std::ceil((cutoff() - here) / std::fabs(g));
      if (steps >= lp.upper(j) - lp.lower(j)) continue;
      if (g > 0)
        lp.set_bounds(j, lp.lower(j), lp.lower(j) + steps - 1);
      else
        lp.set_bounds(j, lp.upper(j) - steps + 1, lp.upper(j));
    }
  auto state = std::make_shared<DenseLp::State>();
  lp.save(*state);
  current_ = state.get();
  const double v = x_[static_cast<std::size_t>(var)];
  const double objective = lp.objective();
  Node down{state, var, lp.lower(var), std::floor(v), bound, objective, v - std::floor(v), 0};
  Node up{state, var, std::ceil(v), lp.upper(var), bound, objective, std::ceil(v) - v, 1};
  // The nearer side is searched first (pushed last); a side the fixing above left empty is closed.
  if (v - std::floor(v) < 0.5) std::swap(down, up);
  for (const Node* child : {&down, &up})
    if (child->lo <= child->hi) open_.push_back(*child);
  return true;
}

void CountSearch::learn(const Node& node, double objective) {
  if (node.var < 0) return;
  const auto k = static_cast<std::size_t>(2 * node.var + node.side);
  gain_sum_[k] += std::max(0.0, objective - node.objective) / node.distance;
  ++gain_count_[k];
}

int CountSearch::branching_variable(Budget& budget) {
  // The candidates: the fractional c, or when there are none the fractional r. A side never branched
  // on is probed first: its bound set, the program re-solved (a few pivots), and the node's program
  // put back.
  DenseLp& lp = *lp_;
  bool saved = false;
  for (int j = 0; j < t_var(); ++j) {
    const double v = x_[static_cast<std::size_t>(j)];
    const double down = v - std::floor(v), up = std::ceil(v) - v;
    if (std::min(down, up) <= kIntegral) continue;
    for (int side = 0; side < 2; ++side) {
      if (gain_count_[static_cast<std::size_t>(2 * j + side)] > 0) continue;
      if (!saved) lp.save(probe_), saved = true;
      const double objective = lp.objective();
      if (side == 0)
        lp.set_bounds(j, lp.lower(j), std::floor(v));
      else
        lp.set_bounds(j, std::ceil(v), lp.upper(j));
      const std::int64_t before = lp.pivots();
      const DenseLp::Status status = lp.solve(kProbePivots);
      budget.add_work((lp.pivots() - before + 1) * lp.rows() * (t_var() + 1) / 4096 + 1);
      Node probed;
      probed.var = j;
      probed.side = side;
      probed.objective = objective;
      probed.distance = side == 0 ? down : up;
      learn(probed, status == DenseLp::Status::infeasible ? cutoff() : lp.objective());
      lp.restore(probe_);
    }
  }
  // The average gain of every variable's branches on each side stands in for one not yet branched on.
  double sum[2] = {0, 0}, count[2] = {0, 0};
  for (std::size_t k = 0; k < gain_sum_.size(); ++k) sum[k % 2] += gain_sum_[k], count[k % 2] += gain_count_[k];
  int var = -1;
  double best = -1;
  for (int j = 0; j < t_var(); ++j) {
    if (var >= 0 && var < V_ && j >= V_) break;
    const double v = x_[static_cast<std::size_t>(j)];
    const double down = v - std::floor(v), up = std::ceil(v) - v;
    if (std::min(down, up) <= kIntegral) continue;
    double estimate[2];
    for (int side = 0; side < 2; ++side) {
      const auto k = static_cast<std::size_t>(2 * j + side);
      const double unit = gain_count_[k] > 0 ? gain_sum_[k] / gain_count_[k]
                          : count[side] > 0  ? sum[side] / count[side]
                                             : 1;
      estimate[side] = std::max(unit * (side == 0 ? down : up), 1e-6);
    }
    const double score = estimate[0] * estimate[1];
    if (score > best) var = j, best = score;
  }
  return var;
}

PhaseStatus CountSearch::step(Budget& budget) {
  while (!open_.empty()) {
    if (budget.slice_over()) return PhaseStatus::paused;
    if (budget.node_out_of_budget(simulations_before_ + simulations_)) return PhaseStatus::given_up;
    const Node node = open_.back();
    open_.pop_back();
    if (node.bound >= cutoff()) continue;
    if (!visit(node, budget)) {
      open_.push_back(node);
      return PhaseStatus::given_up;
    }
  }
  return PhaseStatus::done;
}

double CountSearch::open_bound() const {
  const double tolerance = p_.options.tolerance;
  double least = tolerance > 0 ? best_time_ / (1 + tolerance) : best_time_;
  // A bound closed to rounding, up to the grain when there is one (no plan lies under it).
  double rounded = rounded_;
  if (rounded < kInf && on_grain())
    rounded = std::ceil(rounded / grain_ - 1e-9 * std::max(1.0, rounded / grain_)) * grain_;
  least = std::min(least, rounded);
  for (const Node& node : open_) least = std::min(least, node.bound);
  return least;
}

}  // namespace ppb::balancer
