// The plan over the memory limit by the least. See least_over.hpp.
#include "least_over.hpp"

namespace ppb::balancer {

LeastOverSweep::LeastOverSweep(const BalanceProblem& problem) : p_(problem), v_(problem.V - 1) {
  const auto L = static_cast<std::size_t>(p_.L);
  rest_.assign(L + 1, kInf);
  over_.assign(L + 1, kInf);
  next_.assign(static_cast<std::size_t>(p_.V), std::vector<int>(L + 1, -1));
  rest_[L] = -kInf;  // nothing left after the last stage: no overshoot
}

PhaseStatus LeastOverSweep::step(Budget& budget) {
  while (v_ >= 0) {
    if (budget.out_of_budget()) return PhaseStatus::given_up;
    row(v_--);
    budget.add_work(1 + p_.L / 8);  // a row: each start layer once, with its window (about 8 per node's work)
    if (budget.slice_over() && v_ >= 0) return PhaseStatus::paused;  // at least one row per slice
  }
  return PhaseStatus::done;
}

void LeastOverSweep::row(int v) {
  const double held = p_.held_at(v), limit = p_.limit_for(p_.stage_of(v));
  const double* const statics = p_.prefix_static.data();
  const double* const least = p_.prefix_least_act.data();
  const int hi = p_.last_end(v);
  auto need = [&](int a, int b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    return (statics[ub] - statics[ua]) + held * (least[ub] - least[ua]) - limit;
  };
  auto rest = [&](int b) { return rest_[static_cast<std::size_t>(b)]; };
  auto& next_v = next_[static_cast<std::size_t>(v)];
  window_.clear();
  int c = 0;  // the first end where need reaches the least rest over [lo, c]
  for (int a = 0; a <= p_.L; ++a) {
    double& best = over_[static_cast<std::size_t>(a)];
    best = kInf;
    const int lo = p_.first_end(v, a);
    if (lo > hi) continue;
    if (c < lo) {
      c = lo;
      window_.clear();
    }
    while (!window_.empty() && window_.front() < lo) window_.pop_front();
    // need(a, b) never falls as b grows and the least rest over [lo, b] never rises, so below c every
    // end is worth its rest alone, and beyond c its need alone, which only grows.
    while (c <= hi) {
      const double least_rest = window_.empty() ? rest(c) : std::min(rest(window_.front()), rest(c));
      if (need(a, c) >= least_rest) break;
      while (!window_.empty() && rest(window_.back()) > rest(c)) window_.pop_back();
      window_.push_back(c);
      ++c;
    }
    int best_b = -1;
    if (!window_.empty() && rest(window_.front()) < kInf) {
      best = rest(window_.front());
      best_b = window_.front();
    }
    if (c <= hi) {
      const double value = std::max(need(a, c), rest(c));
      if (value < best) {
        best = value;
        best_b = c;
      }
    }
    next_v[static_cast<std::size_t>(a)] = best_b;
  }
  rest_.swap(over_);
}

std::optional<LeastOver> LeastOverSweep::result() const {
  if (v_ >= 0 || !(rest_[0] < kInf)) return std::nullopt;
  LeastOver out;
  out.overshoot_mib = rest_[0];
  int a = 0;
  for (const auto& next_v : next_) out.ends.push_back(a = next_v[static_cast<std::size_t>(a)]);
  return out;
}

std::vector<int> least_activation_options(const BalanceProblem& p) {
  std::vector<int> choice(static_cast<std::size_t>(p.L), -1);
  for (int i = 0; i < p.L; ++i) {
    const Layer& l = p.layer(i);
    double act = l.activation_mib, extra = 0;
    for (int o : p.options.recompute_options)
      if (const auto& r = l.recompute[static_cast<std::size_t>(o)])
        if (r->activation_mib < act || (r->activation_mib == act && r->extra_ms < extra)) {
          act = r->activation_mib;
          extra = r->extra_ms;
          choice[static_cast<std::size_t>(i)] = o;
        }
  }
  return choice;
}

}  // namespace ppb::balancer
