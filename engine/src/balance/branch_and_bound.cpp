// PPB's depth-first branch and bound. See branch_and_bound.hpp.
#include "branch_and_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ppb::balancer {

BranchAndBound::BranchAndBound(const BalanceProblem& problem, StageRecompute& recompute, FrontierCache& frontiers,
                               StageBounds& bounds, const SuffixBound& suffix, Budget& budget,
                               std::int64_t whole_after_nodes)
    : p_(problem),
      recompute_(recompute),
      frontiers_(frontiers),
      bounds_(bounds),
      suffix_(suffix),
      budget_(budget),
      replay_(p_.shape, p_.program, p_.tail),
      whole_after_nodes_(whole_after_nodes) {
  const auto V = static_cast<std::size_t>(p_.V), pp = static_cast<std::size_t>(p_.pp);
  ends_.assign(V, 0);
  chunk_ranges_.assign(pp, {});
  stage_pf_.assign(pp + 1, 0);
  stage_pb_.assign(pp + 1, 0);
  costs_.assign(V, VirtualStageCost{});
  children_.assign(V, {});
  choices_.assign(pp, {});
  whole_prefix_.assign(V + 1, 0);
}

void BranchAndBound::start(double root_bound) {
  stack_.clear();
  stack_.push_back({0, 0, 0.0, root_bound});
  stack_.reserve(static_cast<std::size_t>(p_.V));
}

PhaseStatus BranchAndBound::step() {
  while (!stack_.empty()) {
    // The whole-plan bound is built only for a search that did not end within whole_after_nodes_ nodes:
    // most balances finish well before, and its ascent costs more than their whole search.
    if (whole_pending() && ascend_whole() == PhaseStatus::paused) return PhaseStatus::paused;
    if (budget_.hit()) return PhaseStatus::given_up;
    if (budget_.nodes() >= pause_at_) return PhaseStatus::paused;
    Frame& f = stack_.back();
    if (!f.expanded) {
      f.expanded = true;
      if (budget_.node_out_of_budget(simulations_ - pair_simulations_)) return PhaseStatus::given_up;
      expand(f);
    } else {
      const std::vector<Child>& children = children_[static_cast<std::size_t>(f.v)];
      if (f.next == children.size() || children[f.next].priority >= cut()) {
        finish_frame();
      } else {
        const Child child = children[f.next];
        enter(f, child);
        if (f.v == p_.V - 1) {
          evaluate(chunk_ranges_);
          chunk_ranges_[static_cast<std::size_t>(p_.stage_of(f.v))].pop_back();
          ++f.next;
        } else {
          stack_.push_back({f.v + 1, child.b, child.bound, child.priority});
        }
      }
    }
    if (budget_.slice_over() && !stack_.empty() && !budget_.hit()) return PhaseStatus::paused;
  }
  return PhaseStatus::done;
}

PhaseStatus BranchAndBound::ascend_whole() {
  if (!whole_) {
    whole_ = std::make_unique<WholePlanBound>(p_);
    // Its tables and rows: about a node's work per 64 cells.
    budget_.add_work(static_cast<std::int64_t>(p_.V + 1) * (p_.L + 1) / 64);
  }
  const PhaseStatus status = whole_->ascend(budget_, best_time_);
  if (status == PhaseStatus::paused) return status;
  whole_ascended_ = true;
  whole_ready_ = whole_->applies() && whole_->best() > -kInf;
  // Sums of many charges: a little below, so that rounding never lifts the bound above a tie.
  whole_floor_ = whole_ready_ ? whole_->best() - 1e-9 * std::fabs(whole_->best()) : -kInf;
  // The relaxed sums of the virtual stages on the search path, entered before the tables existed.
  if (whole_ready_)
    for (std::size_t depth = 0; depth + 1 < stack_.size(); ++depth) {
      const auto v = static_cast<std::size_t>(stack_[depth].v);
      whole_prefix_[v + 1] = whole_prefix_[v] + whole_->range(static_cast<int>(v), stack_[depth].a, ends_[v]);
    }
  return status;
}

void BranchAndBound::finish_frame() {
  stack_.pop_back();
  if (stack_.empty()) return;
  Frame& parent = stack_.back();
  chunk_ranges_[static_cast<std::size_t>(p_.stage_of(parent.v))].pop_back();
  ++parent.next;
}

double BranchAndBound::open_bound() const {
  double bound = cut();
  for (std::size_t depth = 0; depth < stack_.size(); ++depth) {
    const Frame& f = stack_[depth];
    if (!f.expanded || !f.scanned) {
      bound = std::min(bound, f.floor);
      continue;
    }
    // Children are in priority order; the one being searched is open in the frame above.
    const std::vector<Child>& children = children_[static_cast<std::size_t>(f.v)];
    const std::size_t open = depth + 1 < stack_.size() ? f.next + 1 : f.next;
    if (open < children.size()) bound = std::min(bound, children[open].priority);
  }
  // The whole-plan bound holds for every plan, those of branches listed before it was built too.
  return whole_ready_ ? std::max(bound, std::min(whole_floor_, cut())) : bound;
}

// The bounds of the stages before v (one chunk per stage), now that the round trip each waits for
// is known up to stage v - 1; the stages from v on (starting at layer a) count at their base times,
// the cheapest transfers and their least recompute. When stage k was chosen, only its base was
// known, so its bound can only have grown since.
double BranchAndBound::prefix_bound(int v, int a) const {
  if (v == 0 || p_.V != p_.pp) return 0;
  // With a threshold test, the plans below its target have the least later recompute among the
  // completions that pass it, and the others are at least the target.
  double later_extra = suffix_.least_extra(v)[static_cast<std::size_t>(a)], ceiling = kInf;
  if (threshold_) {
    ceiling = threshold_->target();
    const double passing = threshold_->after(v)[static_cast<std::size_t>(a)];
    if (passing == kInf) return ceiling;
    later_extra = std::max(later_extra, passing);
  }
  double later = p_.range(p_.prefix_f, a, p_.L) + p_.range(p_.prefix_b, a, p_.L) -
                 (p_.split ? p_.range(p_.prefix_w, a, p_.L) : 0) + 2.0 * (p_.pp - 1 - v) * p_.min_send + later_extra;
  double bound = 0;
  // The windows of stages k..v - 1 (stage_bounds.hpp, chain): those ending before v - 1 were bounded
  // at the nodes above. `within` is the round trip through stages k + 1..v - 1.
  double within = 0;
  for (int k = v - 1; k >= 0; --k) {
    const VirtualStageCost& c = costs_[static_cast<std::size_t>(k)];
    later += 2 * c.send_ms;  // to stage k + 1 and back
    const double pf = stage_pf_[static_cast<std::size_t>(k)], pb = stage_pb_[static_cast<std::size_t>(k)];
    bound = std::max(bound, bounds_.from_costs(k, pf, pb, c.forward_ms, c.backward_ms, later).strong);
    if (k < v - 1 && v < p_.pp && bounds_.has_windows(k)) {
      within += 2 * c.send_ms;
      // A window no heavier than delta - 1 copies of stage k gives exactly the timeline bound.
      if (within > (v - k - 1) * (c.forward_ms + c.backward_ms))
        bound = std::max(bound, bounds_.window(k, pf, pb, c.forward_ms, c.backward_ms, later, within, v - k));
    }
    later += c.forward_ms + c.backward_ms - (p_.split ? c.weight_ms : 0);
    within += c.forward_ms + c.backward_ms;
  }
  return std::min(bound, ceiling);
}

// The work of layers [x, y) on a stage: forward and backward, less the communication an F&B pair can
// hide (dualpipev).
double BranchAndBound::work(int x, int y) const {
  double w = p_.range(p_.prefix_f, x, y) + p_.range(p_.prefix_b, x, y);
  if (p_.overlaps) w -= p_.range(p_.prefix_fcomm, x, y) + p_.range(p_.prefix_bcomm, x, y);
  return w;
}

void BranchAndBound::expand(Frame& f) {
  frontiers_.trim();
  const int v = f.v, a = f.a;
  const double bound = std::max(f.bound, prefix_bound(v, a));
  const int s = p_.stage_of(v);
  const int chunk = p_.chunk_of(v);
  const bool completes = chunk == p_.shape.vpp_degree - 1;
  auto& ranges = chunk_ranges_[static_cast<std::size_t>(s)];
  const double pf = stage_pf_[static_cast<std::size_t>(s)];
  const double pb = stage_pb_[static_cast<std::size_t>(s)];
  // The loop stops where memory or the growing bound rules out every larger end.
  std::vector<Child>& children = children_[static_cast<std::size_t>(v)];  // one per depth, reused
  children.clear();
  bool cut_short = false;  // by the budget
  if (p_.V == p_.pp) {     // one chunk per stage (ranges is empty): the stage is this range
    // What does not change with b is read once: stores to `children` would otherwise make the
    // compiler read every member again at each end.
    const double* const after = suffix_.row(v + 1);
    const StageRecompute::OneChunk chunk_memory = recompute_.one_chunk(s);
    const double cut_now = cut();  // no plan is simulated in this loop
    // The suffix table bounds the later stages from the cheapest prefix (forward and backward of the
    // layers before, the cheapest transfers, no recompute); each later bound grows by what the
    // actual prefix adds to its fill and drain (docs/ppb.md).
    const double* const prefix_f = p_.prefix_f.data();
    const double* const prefix_b = p_.prefix_b.data();
    const bool drain_additive = p_.drain_additive;
    const double later_sends = (v + 1) * p_.min_send;
    const double* const later_extra = suffix_.least_extra(v + 1);
    const ThresholdBound* const threshold = threshold_;
    const int last = p_.last_end(v);
    const int first = p_.first_end(v, a);
    for (int b = first; b <= last; ++b) {
      // A node of a model with many layers scans many ends (and may build their frontiers): about
      // a node's work per 8 ends scanned (the frontiers count their own).
      if (((b - first) & 255) == 255 && budget_.tick(256 / 8)) {
        cut_short = true;
        break;
      }
      const double extra = recompute_.one_extra(chunk_memory, a, b);
      if (!(extra < kInf)) break;  // more layers only need more memory
      Bounds term = bounds_.stage(s, pf, pb, a, b, extra, later_extra[static_cast<std::size_t>(b)]);
      if (std::max(bound, term.growing) >= cut_now) break;  // only grows with b
      if (threshold) {  // no completion below the target (at least the cut): every plan here is above it
        const double passing = threshold->after(v + 1)[static_cast<std::size_t>(b)];
        if (passing == kInf) continue;
        const double send_back = 2 * threshold->send_excess(v, b);
        term.strong =
            std::max(term.strong,
                     std::min(threshold->target(), bounds_.stage(s, pf, pb, a, b, extra, send_back + passing).strong));
      }
      const auto ub = static_cast<std::size_t>(b), ua = static_cast<std::size_t>(a);
      const double send = v + 1 < p_.V ? p_.send_after(b) : 0;
      const double fill = pf + (prefix_f[ub] - prefix_f[ua]) + send - (prefix_f[ub] + later_sends);
      const double drain =
          drain_additive ? pb + (prefix_b[ub] - prefix_b[ua]) + extra + send - (prefix_b[ub] + later_sends) : 0;
      const double priority = std::max({bound, term.strong, after[ub] + std::max(0.0, fill + drain)});
      if (priority < cut_now) children.push_back({b, priority, std::max(bound, term.strong)});
    }
  } else {  // one chunk of several: its stage's own work with the chunks assigned so far
    levels(v);
    const double whole_base = whole_ready_ ? whole_prefix_[static_cast<std::size_t>(v)] + whole_->constant() : 0;
    for (int b = p_.first_end(v, a); b <= p_.last_end(v); ++b) {
      if (budget_.tick()) {
        cut_short = true;
        break;
      }
      ranges.emplace_back(a, b);
      double extra = 0;
      bool fits_memory = true;
      if (completes) {
        extra = recompute_.stage_extra(s, ranges, nullptr);
        fits_memory = extra < kInf;
      } else {
        double statics = 0;
        for (auto [x, y] : ranges) statics += p_.range(p_.prefix_static, x, y);
        fits_memory = fits(statics, p_.limit_for(s));
      }
      Bounds term{0, 0};
      if (fits_memory) {
        // The stage's own work from its first possible start, then the drain of its last backward
        // through the stages before it or its tail (docs/ppb.md, bounds for every schedule). An F&B
        // pair of DualPipeV hides at most its communication, so that much is taken off.
        double base = 0;
        for (auto [x, y] : ranges) {
          base += p_.range(p_.prefix_f, x, y) + p_.range(p_.prefix_b, x, y);
          if (p_.overlaps) base -= p_.range(p_.prefix_fcomm, x, y) + p_.range(p_.prefix_bcomm, x, y);
        }
        const double own =
            pf + p_.m * (base + extra) + std::max(p_.split ? 0.0 : pb, p_.tail[static_cast<std::size_t>(s)]);
        term = {own, own};
      }
      ranges.pop_back();
      if (!fits_memory || std::max(bound, term.growing) >= cut()) break;  // only grows with b
      const double rest = water_level(b, completes ? -1.0 : term.strong);
      double priority = std::max({bound, term.strong, rest});
      if (whole_ready_) {
        const double whole = whole_base + whole_->range(v, a, b) + whole_->rest(v + 1, b);
        priority = std::max(priority, whole - 1e-9 * std::fabs(whole));
      }
      if (priority < cut()) children.push_back({b, priority, std::max(bound, term.strong)});
    }
  }
  f.scanned = !cut_short;
  // Most promising first, so that good plans are found early and cut more.
  std::sort(children.begin(), children.end(), [](const Child& x, const Child& y) { return x.priority < y.priority; });
  f.next = 0;
}

// Puts child.b as the end of virtual stage f.v: its range, its costs and the prefix times of the
// next physical stage.
void BranchAndBound::enter(const Frame& f, const Child& child) {
  const int v = f.v, a = f.a, b = child.b;
  const int s = p_.stage_of(v);
  const int chunk = p_.chunk_of(v);
  const bool completes = chunk == p_.shape.vpp_degree - 1;
  auto& ranges = chunk_ranges_[static_cast<std::size_t>(s)];
  ranges.emplace_back(a, b);
  if (completes)
    recompute_.stage_extra(s, ranges, &chosen_, several_chunks() ? &choices_[static_cast<std::size_t>(s)] : nullptr);
  ends_[static_cast<std::size_t>(v)] = b;
  if (whole_ready_)
    whole_prefix_[static_cast<std::size_t>(v) + 1] =
        whole_prefix_[static_cast<std::size_t>(v)] + whole_->range(v, a, b);
  // Costs of this virtual stage, for the simulation of complete plans.
  auto& c = costs_[static_cast<std::size_t>(v)];
  c.forward_ms = p_.range(p_.prefix_f, a, b);
  c.backward_ms = p_.range(p_.prefix_b, a, b);
  c.weight_ms = p_.range(p_.prefix_w, a, b);
  c.forward_comm_ms = p_.range(p_.prefix_fcomm, a, b);
  c.backward_comm_ms = p_.range(p_.prefix_bcomm, a, b);
  c.send_ms = p_.crosses(v) ? p_.send_after(b) : 0;
  if (completes) assign_chunk_costs(s, ranges, chosen_);
  // Chunk 0 of this stage feeds the prefix bound of the next stage; its backward already holds the
  // recompute time when the stage is complete.
  if (chunk == 0) {
    const double pf = stage_pf_[static_cast<std::size_t>(s)];
    const double pb = stage_pb_[static_cast<std::size_t>(s)];
    stage_pf_[static_cast<std::size_t>(s) + 1] = pf + c.forward_ms + c.send_ms;
    stage_pb_[static_cast<std::size_t>(s) + 1] = pb + c.backward_ms + c.send_ms;
  }
}

void BranchAndBound::assign_chunk_costs(int s, const Ranges& ranges, const std::vector<FrontierPoint>& chosen) {
  for (std::size_t c = 0; c < ranges.size(); ++c) {
    auto& cost = costs_[static_cast<std::size_t>(p_.virtual_of(s, static_cast<int>(c)))];
    cost.activation_mib = chosen[c].act;
    cost.backward_ms = p_.range(p_.prefix_b, ranges[c].first, ranges[c].second) + chosen[c].extra;
  }
}

bool BranchAndBound::simulate_costs() {
  ++simulations_;
  ++choice_simulations_;
  budget_.add_work(static_cast<std::int64_t>(p_.V) * p_.shape.micro_batch_num / 32);
  bool aborted = false;  // a plan that cannot beat the best is not finished
  const double t = replay_.step_time(costs_, best_time_, aborted);
  if (aborted) return false;
  if (t < best_time_ - 1e-9 * std::max(1.0, t)) {
    set_best_time(t);
    best_ends_ = ends_;
    return true;
  }
  return false;
}

void BranchAndBound::evaluate(const std::vector<Ranges>& ranges) {
  if (bounds_.plan(costs_) >= cut()) return;  // its exact stage costs already rule it out
  if (!several_chunks()) {
    simulate_costs();
    return;
  }
  // The stages' recompute choices (stage_extra), searched depth first over the stages with more than
  // one: the stages not yet chosen take, chunk by chunk, the least extra time any of their choices
  // gives it. The step time grows with every backward, so that simulation bounds every combination
  // below the node; a node whose bound cannot beat the best is cut. At most kMaxChoicePlans
  // simulations per partition; beyond them the rest is not searched and the answer is not proven.
  ideal_.assign(static_cast<std::size_t>(p_.pp), {});
  varied_.clear();
  for (int s = 0; s < p_.pp; ++s) {
    const auto us = static_cast<std::size_t>(s);
    Choice& ideal = ideal_[us];
    ideal = choices_[us][0];
    for (const Choice& c : choices_[us])
      for (std::size_t k = 0; k < c.size(); ++k)
        if (c[k].extra < ideal[k].extra) ideal[k] = c[k];
    assign_chunk_costs(s, ranges[us], ideal);
    if (choices_[us].size() > 1) varied_.push_back(s);
  }
  pick_.assign(static_cast<std::size_t>(p_.pp), 0);
  choice_simulations_ = 0;
  choose(ranges, 0);
}

// Chooses the recompute of the stage varied_[depth], the stages before it chosen, those after it at
// their ideal.
void BranchAndBound::choose(const std::vector<Ranges>& ranges, std::size_t depth) {
  if (depth == varied_.size()) {  // every stage chosen (or none varies): a plan
    if (simulate_costs()) {
      best_choices_.clear();
      for (int s = 0; s < p_.pp; ++s)
        best_choices_.push_back(choices_[static_cast<std::size_t>(s)][pick_[static_cast<std::size_t>(s)]]);
    }
    return;
  }
  if (!varied_.empty() && depth == 0 && !bound_beats_best()) return;  // even the ideal cannot beat it
  const int s = varied_[depth];
  const auto us = static_cast<std::size_t>(s);
  for (std::size_t i = 0; i < choices_[us].size(); ++i) {
    if (choice_simulations_ >= kMaxChoicePlans) {
      choices_cut_ = true;
      break;
    }
    pick_[us] = i;
    assign_chunk_costs(s, ranges[us], choices_[us][i]);
    if (depth + 1 == varied_.size() || bound_beats_best()) choose(ranges, depth + 1);
  }
  pick_[us] = 0;
  assign_chunk_costs(s, ranges[us], ideal_[us]);
}

// Simulates costs_ (some stages at their ideal) as a bound: whether it can still beat the best.
bool BranchAndBound::bound_beats_best() {
  ++simulations_;
  ++choice_simulations_;
  budget_.add_work(static_cast<std::int64_t>(p_.V) * p_.shape.micro_batch_num / 32);
  bool aborted = false;
  const double t = replay_.step_time(costs_, best_time_, aborted);
  return !aborted && t < best_time_ - 1e-9 * std::max(1.0, t);
}

void BranchAndBound::try_plan(const std::vector<int>& ends) {
  if (static_cast<int>(ends.size()) != p_.V) return;
  std::vector<Ranges> per_stage(static_cast<std::size_t>(p_.pp));
  int a = 0;
  for (int v = 0; v < p_.V; ++v) {
    const int b = ends[static_cast<std::size_t>(v)];
    if (b < p_.first_end(v, a) || b > p_.last_end(v)) return;
    per_stage[static_cast<std::size_t>(p_.stage_of(v))].emplace_back(a, b);
    auto& c = costs_[static_cast<std::size_t>(v)];
    c.forward_ms = p_.range(p_.prefix_f, a, b);
    c.backward_ms = p_.range(p_.prefix_b, a, b);
    c.weight_ms = p_.range(p_.prefix_w, a, b);
    c.forward_comm_ms = p_.range(p_.prefix_fcomm, a, b);
    c.backward_comm_ms = p_.range(p_.prefix_bcomm, a, b);
    c.send_ms = p_.crosses(v) ? p_.send_after(b) : 0;
    a = b;
  }
  for (int s = 0; s < p_.pp; ++s) {
    const auto us = static_cast<std::size_t>(s);
    std::vector<FrontierPoint> chosen;
    if (recompute_.stage_extra(s, per_stage[us], &chosen, several_chunks() ? &choices_[us] : nullptr) == kInf) return;
    assign_chunk_costs(s, per_stage[us], chosen);
  }
  ends_ = ends;
  evaluate(per_stage);
}

}  // namespace ppb::balancer
