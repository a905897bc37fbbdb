// The whole-plan bound: its stage bounds, its tables and the dynamic program over them. The ascent
// over its multipliers is in whole_plan_ascent.cpp. See whole_plan_bound.hpp.
#include "whole_plan_bound.hpp"

#include <algorithm>
#include <cmath>

#include "ppb/schedule/schedule.hpp"

namespace ppb::balancer {
namespace {

// Tables of virtual stages x layers beyond this are not built (each round costs a pass over them).
constexpr double kMaxCells = 1e6;

}  // namespace

WholePlanBound::WholePlanBound(const BalanceProblem& problem, bool wanted) : p_(problem) {
  pp_ = p_.pp;
  V_ = p_.V;
  L_ = p_.L;
  width_ = static_cast<std::size_t>(L_) + 1;
  applies_ = wanted && L_ > 0 && static_cast<double>(V_ + 1) * static_cast<double>(width_) <= kMaxCells;
  if (!applies_) return;
  memories_ = 0;
  for (const auto& vectors : p_.peaks) memories_ += static_cast<int>(vectors.size());
  applies_ = pp_ + (p_.overlaps ? 0 : chain_bounds(nullptr)) + memories_ + 1 <= kMaxRows;
  if (!applies_) return;
  const auto V = static_cast<std::size_t>(V_), pp = static_cast<std::size_t>(pp_);
  const double m = p_.m, drain = p_.split ? 0 : 1;
  // Bound 1 of every physical stage s (docs/ppb.md): its fill PF_s (virtual stages 0..s-1, chunk 0
  // of the stages before it, with their transfers), its own work m x (forward + backward) of its
  // chunks (less what an F&B pair hides), and its drain PB_s, or its tail.
  for (int s = 0; s < pp_; ++s) {
    std::vector<double> rows(kTerms * V, 0);
    for (int u = 0; u < V_; ++u) {
      const auto uu = static_cast<std::size_t>(u);
      if (u < s) {
        rows[kF * V + uu] += 1;
        rows[kB * V + uu] += drain;
        rows[kSend * V + uu] += 1 + drain;
      }
      if (p_.stage_of(u) == s) {
        rows[kF * V + uu] += m;
        rows[kB * V + uu] += m;
        if (p_.overlaps) rows[kComm * V + uu] -= m;
      }
    }
    add_bound(rows, drain == 0 || s == 0 ? p_.tail[static_cast<std::size_t>(s)] : 0);
  }
  if (!p_.overlaps) {
    chain_bounds(this);
    paths_ = std::make_unique<ProgramPaths>(p_);
  }
  option_begin_.push_back(0);
  for (int i = 0; i < L_; ++i) {
    const Layer& l = p_.layer(i);
    option_extra_.push_back(0);
    option_act_.push_back(l.activation_mib);
    for (int o : p_.options.recompute_options)
      if (const auto& r = l.recompute[static_cast<std::size_t>(o)]) {
        option_extra_.push_back(r->extra_ms);
        option_act_.push_back(r->activation_mib);
      }
    option_begin_.push_back(static_cast<int>(option_extra_.size()));
  }
  weighed_.assign(kTerms * V, 0);
  terms_.assign(kTerms * V, 0);
  act_price_.assign(V, 0);
  static_price_.assign(V, 0);
  statics_.assign(pp, 0);
  cum_.assign(V * width_, 0);
  trans_.assign(V * width_, 0);
  rest_.assign((V + 1) * width_, kInf);
  next_.assign(V * width_, -1);
  g_.assign(static_cast<std::size_t>(nb_), 0);
  chunk_act_.assign(pp * static_cast<std::size_t>(p_.shape.vpp_degree), 0);
  lambda_.assign(static_cast<std::size_t>(nb_), 1.0 / nb_);
  for (int s = 0; s < pp_; ++s) mu_.emplace_back(p_.peaks[static_cast<std::size_t>(s)].size(), 0.0);
  slack_ = mu_;
  best_lambda_ = lambda_;
  best_mu_ = mu_;
}

void WholePlanBound::add_bound(const std::vector<double>& rows, double tail) {
  coef_.insert(coef_.end(), rows.begin(), rows.end());
  tail_.push_back(tail);
  nb_ = static_cast<int>(tail_.size());
}

// Chain bounds (docs/ppb.md, bounds for every schedule, 5): a stage runs its operations one at a
// time in program order, and operation o of micro batch j cannot start before j has passed every
// operation o depends on. So for any two operations o1 <= o2 of stage s,
//     T >= (the chain before o1) + (every operation of s from o1 to o2) + (the chain after o2),
// the chain before F(u, j) being j's forward through virtual stages 0..u-1, before B(u, j) its
// forward through all and its backward through V-1..u+1 (input gradients only, when W may run
// apart), the chain after F(u, j) its forward through u+1.. and backward through all, after B(u, j)
// its backward through u-1..0, after a W nothing; transfers between physical stages included. Each
// is linear in the virtual stages' times. o1 runs over the first F and the first B of each chunk
// and o2 over the last F, B and W of each chunk (other choices only lengthen a chain less than they
// shorten the run, or the reverse, for the same virtual stage).
int WholePlanBound::chain_bounds(WholePlanBound* into) const {
  const auto V = static_cast<std::size_t>(V_);
  const double split = p_.split ? 1 : 0;
  const int vpp = p_.shape.vpp_degree;
  int count = 0;
  for (int s = 0; s < pp_; ++s) {
    const std::span<const Op> program = p_.program[static_cast<std::size_t>(s)];
    const int n = static_cast<int>(program.size());
    std::vector<int> starts, ends;
    for (int c = 0; c < vpp; ++c)
      for (OpKind kind : {OpKind::F, OpKind::B, OpKind::W}) {
        int first = -1, last = -1;
        for (int k = 0; k < n; ++k)
          if (program[static_cast<std::size_t>(k)].kind == kind &&
              p_.chunk_of(program[static_cast<std::size_t>(k)].virtual_stage) == c) {
            if (first < 0) first = k;
            last = k;
          }
        if (first < 0) continue;
        if (kind != OpKind::W) starts.push_back(first);
        ends.push_back(last);
      }
    for (int i1 : starts)
      for (int i2 : ends) {
        if (i1 > i2) continue;
        ++count;
        if (!into) continue;
        std::vector<double> rows(kTerms * V, 0);
        const auto add = [&](Term t, int u, double x) { rows[t * V + static_cast<std::size_t>(u)] += x; };
        const auto backward = [&](int u) {  // input gradient, recompute included
          add(kB, u, 1);
          add(kW, u, -split);
        };
        const auto send = [&](int u) {
          if (p_.crosses(u)) add(kSend, u, 1);
        };
        const Op& o1 = program[static_cast<std::size_t>(i1)];
        const int u1 = o1.virtual_stage;
        if (o1.kind == OpKind::F) {
          for (int u = 0; u < u1; ++u) add(kF, u, 1), send(u);
        } else {
          for (int u = 0; u < V_; ++u) add(kF, u, 1), send(u);
          for (int u = u1 + 1; u < V_; ++u) backward(u);
          for (int u = u1; u < V_; ++u) send(u);
        }
        for (int k = i1; k <= i2; ++k) {
          const Op& op = program[static_cast<std::size_t>(k)];
          if (op.kind == OpKind::F) add(kF, op.virtual_stage, 1);
          if (op.kind == OpKind::B) {
            add(kB, op.virtual_stage, 1);
            if (op.weight_apart) add(kW, op.virtual_stage, -1);
          }
          if (op.kind == OpKind::W) add(kW, op.virtual_stage, 1);
        }
        const Op& o2 = program[static_cast<std::size_t>(i2)];
        const int u2 = o2.virtual_stage;
        bool empty_after = false;
        if (o2.kind == OpKind::F) {
          for (int u = u2 + 1; u < V_; ++u) add(kF, u, 1);
          for (int u = u2; u < V_; ++u) send(u);
          for (int u = 0; u < V_; ++u) backward(u), send(u);
        } else if (o2.kind == OpKind::B) {
          for (int u = 0; u < u2; ++u) backward(u), send(u);
          empty_after = u2 == 0;
        } else {
          empty_after = true;
        }
        // A stage's tails come after its last operation.
        into->add_bound(rows, empty_after && i2 == n - 1 ? p_.tail[static_cast<std::size_t>(s)] : 0);
      }
  }
  return count;
}

double WholePlanBound::layer_cost(int u, int i, int* which) const {
  const auto V = static_cast<std::size_t>(V_), uu = static_cast<std::size_t>(u);
  const double wx = weighed_[kB * V + uu], wa = act_price_[uu];
  double least = kInf;
  for (int k = option_begin_[static_cast<std::size_t>(i)]; k < option_begin_[static_cast<std::size_t>(i) + 1]; ++k) {
    const auto uk = static_cast<std::size_t>(k);
    const double c = wx * option_extra_[uk] + wa * option_act_[uk];
    if (c < least) {
      least = c;
      if (which) *which = k;
    }
  }
  const auto r = [&](const std::vector<double>& prefix) { return p_.range(prefix, i, i + 1); };
  return least + weighed_[kF * V + uu] * r(p_.prefix_f) + wx * r(p_.prefix_b) + weighed_[kW * V + uu] * r(p_.prefix_w) +
         weighed_[kComm * V + uu] * (r(p_.prefix_fcomm) + r(p_.prefix_bcomm)) + static_price_[uu] * r(p_.prefix_static);
}

void WholePlanBound::build(const std::vector<double>& lambda, const std::vector<std::vector<double>>& mu) {
  const auto V = static_cast<std::size_t>(V_);
  const std::size_t rows = kTerms * V;
  std::fill(weighed_.begin(), weighed_.end(), 0.0);
  constant_ = 0;
  for (std::size_t j = 0; j < static_cast<std::size_t>(nb_); ++j) {
    const double y = lambda[j];
    if (y == 0) continue;
    const double* c = coef_.data() + j * rows;
    for (std::size_t k = 0; k < rows; ++k) weighed_[k] += y * c[k];
    constant_ += y * tail_[j];
  }
  for (int u = 0; u < V_; ++u) {
    const auto uu = static_cast<std::size_t>(u);
    const int s = p_.stage_of(u), c = p_.chunk_of(u);
    const auto us = static_cast<std::size_t>(s);
    // Without a limit there is nothing to price (and no limit to take the prices off again).
    double act = 0, stat = 0;
    const auto& vectors = p_.peaks[us];
    for (std::size_t k = 0; k < vectors.size() && p_.limit < kInf; ++k) {
      act += mu[us][k] * vectors[k][static_cast<std::size_t>(c)];
      stat += mu[us][k];
    }
    act_price_[uu] = act;
    static_price_[uu] = stat;
  }
  for (int u = 0; u < V_; ++u) {
    const auto uu = static_cast<std::size_t>(u);
    double* cum = cum_.data() + uu * width_;
    double* trans = trans_.data() + uu * width_;
    cum[0] = 0;
    for (int i = 0; i < L_; ++i) cum[i + 1] = cum[i] + layer_cost(u, i, nullptr);
    const double w = weighed_[kSend * V + uu];
    for (int b = 0; b <= L_; ++b) trans[b] = w != 0 ? w * p_.send_after(b) : 0;
  }
  if (p_.limit < kInf)
    for (int s = 0; s < pp_; ++s)
      for (double y : mu[static_cast<std::size_t>(s)]) constant_ -= y * p_.limit_for(s);
  // rest(v, a) = least over v's ends b of range(v, a, b) + rest(v + 1, b); the first end grows with
  // a, so a sweep from the last start down keeps the least over the ends allowed so far.
  double* last_row = rest_.data() + static_cast<std::size_t>(V_) * width_;
  std::fill(last_row, last_row + width_, kInf);
  last_row[L_] = 0;
  for (int u = V_ - 1; u >= 0; --u) {
    const auto uu = static_cast<std::size_t>(u);
    const double* cum = cum_.data() + uu * width_;
    const double* trans = trans_.data() + uu * width_;
    const double* after = rest_.data() + (uu + 1) * width_;
    double* row = rest_.data() + uu * width_;
    int* next = next_.data() + uu * width_;
    const int last = p_.last_end(u);
    int added = last + 1;  // ends [added, last] are in `least`
    double least = kInf;
    int arg = -1;
    for (int a = L_; a >= 0; --a) {
      const int first = p_.first_end(u, a);
      while (added - 1 >= std::max(first, 0) && added - 1 >= a) {
        const int b = --added;
        const double h = cum[b] + trans[b] + after[b];
        if (h < least) {
          least = h;
          arg = b;
        }
      }
      const bool any = least < kInf && first <= last && first <= L_;
      row[a] = any ? least - cum[a] : kInf;
      next[a] = any ? arg : -1;
    }
  }
}

double WholePlanBound::evaluate(const std::vector<double>& lambda, const std::vector<std::vector<double>>& mu) {
  if (!applies_) return -kInf;
  build(lambda, mu);
  return rest(0, 0) + constant_;
}

void WholePlanBound::subgradient() {
  const auto V = static_cast<std::size_t>(V_);
  const int vpp = p_.shape.vpp_degree;
  std::fill(statics_.begin(), statics_.end(), 0.0);
  std::fill(chunk_act_.begin(), chunk_act_.end(), 0.0);
  int a = 0;
  for (int u = 0; u < V_; ++u) {
    const auto uu = static_cast<std::size_t>(u);
    const int b = next_[uu * width_ + static_cast<std::size_t>(a)];
    const auto us = static_cast<std::size_t>(p_.stage_of(u));
    double extra = 0;
    for (int i = a; i < b; ++i) {
      int k = 0;
      (void)layer_cost(u, i, &k);
      extra += option_extra_[static_cast<std::size_t>(k)];
      chunk_act_[us * static_cast<std::size_t>(vpp) + static_cast<std::size_t>(p_.chunk_of(u))] +=
          option_act_[static_cast<std::size_t>(k)];
    }
    terms_[kF * V + uu] = p_.range(p_.prefix_f, a, b);
    terms_[kB * V + uu] = p_.range(p_.prefix_b, a, b) + extra;
    terms_[kW * V + uu] = p_.range(p_.prefix_w, a, b);
    terms_[kComm * V + uu] = p_.range(p_.prefix_fcomm, a, b) + p_.range(p_.prefix_bcomm, a, b);
    terms_[kSend * V + uu] = p_.crosses(u) ? p_.send_after(b) : 0;
    statics_[us] += p_.range(p_.prefix_static, a, b);
    a = b;
  }
  values(terms_, g_);
  for (int s = 0; s < pp_; ++s) {
    const auto us = static_cast<std::size_t>(s);
    const auto& vectors = p_.peaks[us];
    for (std::size_t k = 0; k < vectors.size(); ++k) {
      double used = statics_[us];
      for (int c = 0; c < vpp; ++c)
        used += vectors[k][static_cast<std::size_t>(c)] *
                chunk_act_[us * static_cast<std::size_t>(vpp) + static_cast<std::size_t>(c)];
      slack_[us][k] = p_.limit < kInf ? used - p_.limit_for(s) : 0;
    }
  }
}

void WholePlanBound::values(const std::vector<double>& terms, std::vector<double>& out) const {
  const std::size_t rows = kTerms * static_cast<std::size_t>(V_);
  out.resize(static_cast<std::size_t>(nb_));
  for (std::size_t j = 0; j < static_cast<std::size_t>(nb_); ++j) {
    const double* c = coef_.data() + j * rows;
    double g = tail_[j];
    for (std::size_t k = 0; k < rows; ++k) g += c[k] * terms[k];
    out[j] = g;
  }
}

}  // namespace ppb::balancer
