// PPB: branch and bound over stage boundaries with exact per-stage recompute. See balance.hpp.
#include "ppb/balance.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <map>
#include <memory>
#include <unordered_map>

namespace ppb {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::size_t kFrontierCap = 128;  // beyond this a frontier is thinned and the proof dropped

bool fits(double used, double budget) { return used <= budget + 1e-9 * std::max(1.0, std::fabs(budget)); }

// One Pareto-optimal way to treat a range of layers: the activation it keeps per micro batch and the
// backward time it adds. `parent`/`option` lead back to the choice of every layer.
struct Point {
  double act = 0;
  double extra = 0;
  int parent = -1;
  int option = -1;  // -1 none
};
using Frontier = std::vector<Point>;

// Hash of the 64-bit cache keys. std::hash of a 64-bit integer is the identity where size_t has 64
// bits, but where it has 32 (WebAssembly) libc++ runs MurmurHash2 over its 8 bytes, at every lookup
// of the search's inner loop; folding the halves is as good for these keys.
struct KeyHash {
  std::size_t operator()(std::uint64_t k) const noexcept {
    if constexpr (sizeof(std::size_t) >= sizeof(std::uint64_t)) return static_cast<std::size_t>(k);
    else return static_cast<std::size_t>(k ^ (k >> 32));
  }
};

// Keeps the points no other point beats in both activation and extra time, sorted by activation
// (extra time then strictly decreases). Thins to kFrontierCap points, keeping both ends.
// Keeps, from points sorted by activation (ties by extra time), those no other point beats in
// both; extra time then strictly decreases. Thins to kFrontierCap points, keeping both ends.
void sweep(Frontier& f, bool& thinned) {
  Frontier kept;
  kept.reserve(f.size());
  for (const Point& p : f)
    if (kept.empty() || p.extra < kept.back().extra) kept.push_back(p);
  if (kept.size() > kFrontierCap) {
    thinned = true;
    Frontier thin;
    thin.reserve(kFrontierCap);
    for (std::size_t i = 0; i < kFrontierCap; ++i) thin.push_back(kept[i * (kept.size() - 1) / (kFrontierCap - 1)]);
    kept.swap(thin);
  }
  f.swap(kept);
}

bool by_act(const Point& x, const Point& y) { return x.act != y.act ? x.act < y.act : x.extra < y.extra; }

void prune(Frontier& f, bool& thinned) {
  std::sort(f.begin(), f.end(), by_act);
  sweep(f, thinned);
}

// Index of the point with the least extra time whose activation fits `budget`, or -1.
int best_point(const Frontier& f, double budget) {
  int best = -1;
  // Activation rises and extra falls along the frontier: the last point that fits is the best.
  int lo = 0, hi = static_cast<int>(f.size()) - 1;
  while (lo <= hi) {
    const int mid = (lo + hi) / 2;
    if (fits(f[static_cast<std::size_t>(mid)].act, budget)) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

class Balancer {
 public:
  Balancer(const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options)
      : model_(model), device_(device), shape_(shape), options_(options) {
    L_ = model.layer_count();
    pp_ = shape.pp_degree;
    V_ = shape.virtual_stages();
    m_ = static_cast<double>(shape.micro_batch_num);
    split_ = splits_weight_gradient(shape.schedule);
    limit_ = device.memory_limit_mib ? *device.memory_limit_mib - device.reserved_mib : kInf;
    component_memory_ = component_memory_mib(options.components, pp_);
    tail_ = component_tail_ms(options.components, pp_);
    prefix_f_.assign(static_cast<std::size_t>(L_) + 1, 0);
    prefix_b_.assign(static_cast<std::size_t>(L_) + 1, 0);
    prefix_w_.assign(static_cast<std::size_t>(L_) + 1, 0);
    prefix_static_.assign(static_cast<std::size_t>(L_) + 1, 0);
    prefix_act_.assign(static_cast<std::size_t>(L_) + 1, 0);
    prefix_least_act_.assign(static_cast<std::size_t>(L_) + 1, 0);
    for (int i = 0; i < L_; ++i) {
      const Layer& l = layer(i);
      const auto k = static_cast<std::size_t>(i);
      prefix_f_[k + 1] = prefix_f_[k] + l.forward_ms;
      prefix_b_[k + 1] = prefix_b_[k] + l.backward_ms;
      prefix_w_[k + 1] = prefix_w_[k] + l.weight_backward_ms;
      prefix_static_[k + 1] = prefix_static_[k] + l.static_mib();
      double least = l.activation_mib;
      for (int o : options.recompute_options)
        if (const auto& r = l.recompute[static_cast<std::size_t>(o)]) least = std::min(least, r->activation_mib);
      prefix_act_[k + 1] = prefix_act_[k] + l.activation_mib;
      prefix_least_act_[k + 1] = prefix_least_act_[k] + least;
    }
    held_ = held_per_virtual_stage();
    set_best_time(kInf);
    build_signatures();
    min_size_ = options.allow_empty_stages ? 0 : 1;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::microseconds(static_cast<std::int64_t>(std::min(options.time_budget_ms, 1e12) * 1000));
  }

  BalanceResult run() {
    BalanceResult result;
    result.notes = {};
    ends_.assign(static_cast<std::size_t>(V_), 0);
    chunk_ranges_.assign(static_cast<std::size_t>(pp_), {});
    stage_pf_.assign(static_cast<std::size_t>(pp_) + 1, 0);
    stage_pb_.assign(static_cast<std::size_t>(pp_) + 1, 0);
    costs_.assign(static_cast<std::size_t>(V_), VirtualStageCost{});
    children_.assign(static_cast<std::size_t>(V_), {});
    later_.assign(static_cast<std::size_t>(pp_), 0);
    static_cast<PipelineShape&>(sim_in_) = shape_;
    sim_in_.stage_tail_ms = tail_;

    // The bound table with exact recompute gets half the time budget; when it cannot finish, the
    // relaxed table (recompute time left out, still a lower bound) is built in what is left, and
    // when even that cannot finish the search runs on its per-stage bounds alone.
    const auto start = std::chrono::steady_clock::now();
    if (!options_.exact_bound_table || !suffix_bound(true, start + (deadline_ - start) / 2)) {
      table_ = Table::relaxed;
      if (!suffix_bound(false, deadline_)) {
        table_ = Table::none;
        for (auto& row : suffix_) std::fill(row.begin(), row.end(), 0.0);
      }
    }
    // Incumbents: the plan the suffix bound is built from, and the even split.
    if (table_ != Table::none && suffix_[0][0] < kInf) try_plan(suffix_plan());
    try_plan(even_ends());
    lower_bound_ = suffix_[0][0];

    dfs(0, 0, 0.0);

    result.nodes = nodes_;
    result.simulations = simulations_;
    if (best_time_ < kInf) {
      result.feasible = true;
      result.step_time_ms = best_time_;
      result.plan = make_plan(best_ends_, true);
      const bool model_exact = shape_.vpp_degree == 1 &&
                               (shape_.schedule == Schedule::gpipe || shape_.schedule == Schedule::one_f_one_b);
      const bool complete = !budget_hit_ && !thinned_;
      if (model_exact && complete) {
        result.proven_optimal = options_.tolerance == 0;
        result.within_tolerance = options_.tolerance;
        result.lower_bound_ms = best_time_ / (1.0 + options_.tolerance);
      } else if (model_exact) {
        result.lower_bound_ms = std::min(lower_bound_, best_time_);
        result.within_tolerance = (best_time_ - result.lower_bound_ms) / result.lower_bound_ms;
      }
      result.notes = why_not_exact();
      if (model_exact && complete && options_.tolerance > 0)
        result.notes.push_back("searched to within the requested tolerance of the optimum");
    } else {
      result.feasible = false;
      result.plan = make_plan(least_over_ends(), false);
      result.notes.push_back("no plan fits the memory limit with the recompute options allowed; this is the plan that "
                             "exceeds it least");
    }
    return result;
  }

  // Best recompute for fixed stage ends.
  Plan plan_for(const std::vector<int>& ends) { return make_plan(ends, true); }

 private:
  const Layer& layer(int i) const { return model_.layers[static_cast<std::size_t>(i)]; }
  // Memory a physical stage may use for layers: the limit less reserved and component memory.
  double limit_for(int s) const { return limit_ - component_memory_[static_cast<std::size_t>(s)]; }
  double range(const std::vector<double>& prefix, int a, int b) const {
    return prefix[static_cast<std::size_t>(b)] - prefix[static_cast<std::size_t>(a)];
  }

  // Most micro batches of each virtual stage its physical stage holds at once. Exact for the fixed
  // orders; for zb_h1 the in-flight cap min(pp - s, m), which bounds what the greedy rule holds.
  std::vector<double> held_per_virtual_stage() const {
    std::vector<double> held(static_cast<std::size_t>(V_), 0);
    for (int s = 0; s < pp_; ++s) {
      if (shape_.schedule == Schedule::zb_h1) {
        held[static_cast<std::size_t>(s)] = static_cast<double>(std::min<std::int64_t>(pp_ - s, shape_.micro_batch_num));
        continue;
      }
      std::vector<int> now(static_cast<std::size_t>(V_), 0);
      for (const OpRef& op : stage_order(shape_.schedule, pp_, shape_.vpp_degree, shape_.micro_batch_num, s)) {
        int& n = now[static_cast<std::size_t>(op.virtual_stage)];
        n += op.kind == OpKind::F ? 1 : -1;
        held[static_cast<std::size_t>(op.virtual_stage)] = std::max<double>(held[static_cast<std::size_t>(op.virtual_stage)], n);
      }
    }
    return held;
  }

  double send_after(int end) const {
    if (end <= 0) return device_.p2p_latency_ms;
    return transfer_ms(device_, layer(end - 1).send_mib);
  }
  bool crosses(int v) const { return v + 1 < V_ && (v % pp_) != ((v + 1) % pp_); }

  // Frontier of the layers [a, b). Layers with the same activation and the same allowed options
  // (the same signature) give the same frontiers, so ranges with the same sequence of signatures
  // share one: on a model of repeated blocks most ranges are found, not built.
  const Frontier& frontier(int a, int b) {
    if (a == b) return empty_frontier_;
    if (const auto it = by_range_.find(key(a, b)); it != by_range_.end()) return *it->second;
    // The longest cached range [a, c) to extend, then one layer at a time.
    int c = b - 1;
    while (c > a && !cached(a, c)) --c;
    for (int e = c + 1; e <= b; ++e) {
      const Frontier& prev = e - 1 == a ? empty_frontier_ : *by_range_.at(key(a, e - 1));
      if (const Frontier* same = find_same(a, e)) {
        by_range_[key(a, e)] = same;
        continue;
      }
      auto built = std::make_unique<Frontier>(extend(prev, layer(e - 1)));
      cached_points_ += built->size();
      clock_work_ += 1 + static_cast<std::int64_t>(built->size() / 64);
      by_range_[key(a, e)] = built.get();
      by_hash_[range_hash(a, e)].push_back({a, e, std::move(built)});
    }
    return *by_range_.at(key(a, b));
  }

  bool cached(int a, int b) const { return by_range_.count(key(a, b)) > 0; }
  std::uint64_t key(int a, int b) const {
    return static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(L_ + 1) + static_cast<std::uint64_t>(b);
  }

  // A built frontier of another range with the same signatures, checked layer by layer.
  const Frontier* find_same(int a, int b) const {
    auto it = by_hash_.find(range_hash(a, b));
    if (it == by_hash_.end()) return nullptr;
    for (const auto& entry : it->second)
      if (entry.b - entry.a == b - a &&
          std::equal(signature_.begin() + a, signature_.begin() + b, signature_.begin() + entry.a))
        return entry.frontier.get();
    return nullptr;
  }

  // Two polynomial hashes of the signatures of [a, b), modulo two primes below 2^31, in one key.
  // A match is still checked layer by layer (find_same); the hash only narrows the candidates.
  static constexpr std::uint64_t kMod[2] = {2'147'483'647, 1'000'000'007};
  static constexpr std::uint64_t kBase[2] = {1'000'003, 911'382'323};
  std::uint64_t range_hash(int a, int b) const {
    std::uint64_t out = 0;
    for (int h = 0; h < 2; ++h) {
      const auto& prefix = hash_prefix_[static_cast<std::size_t>(h)];
      const std::uint64_t high = prefix[static_cast<std::size_t>(b)];
      const std::uint64_t low = prefix[static_cast<std::size_t>(a)] * power_[static_cast<std::size_t>(h)][static_cast<std::size_t>(b - a)] % kMod[h];
      out = (out << 32) | ((high + kMod[h] - low) % kMod[h]);
    }
    return out;
  }

  void build_signatures() {
    std::map<std::vector<double>, int> ids;
    signature_.resize(static_cast<std::size_t>(L_));
    for (int h = 0; h < 2; ++h) {
      hash_prefix_[h].assign(static_cast<std::size_t>(L_) + 1, 0);
      power_[h].assign(static_cast<std::size_t>(L_) + 1, 1);
    }
    for (int i = 0; i < L_; ++i) {
      const Layer& l = layer(i);
      std::vector<double> sig{l.activation_mib};
      for (int o : options_.recompute_options) {
        const auto& r = l.recompute[static_cast<std::size_t>(o)];
        sig.insert(sig.end(), {r ? 1.0 : 0.0, r ? r->activation_mib : 0.0, r ? r->extra_ms : 0.0});
      }
      const int id = ids.emplace(sig, static_cast<int>(ids.size())).first->second;
      const auto k = static_cast<std::size_t>(i);
      signature_[k] = id;
      for (int h = 0; h < 2; ++h) {
        hash_prefix_[h][k + 1] = (hash_prefix_[h][k] * kBase[h] + static_cast<std::uint64_t>(id) + 1) % kMod[h];
        power_[h][k + 1] = power_[h][k] * kBase[h] % kMod[h];
      }
    }
  }

  // The frontier of a range extended by one more layer: each option shifts the whole (sorted)
  // frontier, so the shifted copies are merged rather than sorted.
  Frontier extend(const Frontier& prev, const Layer& l) {
    Frontier merged;
    Frontier shifted;
    auto add_copy = [&](double act, double extra, int option) {
      shifted.clear();
      for (std::size_t p = 0; p < prev.size(); ++p)
        shifted.push_back({prev[p].act + act, prev[p].extra + extra, static_cast<int>(p), option});
      Frontier out;
      out.reserve(merged.size() + shifted.size());
      std::merge(merged.begin(), merged.end(), shifted.begin(), shifted.end(), std::back_inserter(out), by_act);
      merged.swap(out);
    };
    add_copy(l.activation_mib, 0, -1);
    for (int o : options_.recompute_options)
      if (const auto& r = l.recompute[static_cast<std::size_t>(o)]) add_copy(r->activation_mib, r->extra_ms, o);
    sweep(merged, thinned_);
    return merged;
  }

  // Bounds the frontier cache. Called only where no reference into it is held.
  void trim_cache() {
    if (cached_points_ <= 4'000'000) return;
    by_range_.clear();
    by_hash_.clear();
    cached_points_ = 0;
  }

  // Least recompute time for a physical stage whose chunks are `ranges`, or kInf when even the
  // most recompute does not fit. `chosen` receives each chunk's (activation kept per micro batch,
  // time added). Frontiers are built only when memory binds: a stage that fits without recompute
  // adds nothing, and one that does not fit with the most-saving option everywhere is out.
  double stage_extra(int s, const std::vector<std::pair<int, int>>& ranges, std::vector<Point>* chosen) {
    double statics = 0, none = 0, least = 0;
    for (std::size_t c = 0; c < ranges.size(); ++c) {
      const auto [a, b] = ranges[c];
      const double h = held_[static_cast<std::size_t>(s) + c * static_cast<std::size_t>(pp_)];
      statics += range(prefix_static_, a, b);
      none += h * range(prefix_act_, a, b);
      least += h * range(prefix_least_act_, a, b);
    }
    const double budget = limit_for(s) - statics;
    if (fits(none, budget)) {
      if (chosen) {
        chosen->clear();
        for (auto [a, b] : ranges) chosen->push_back({range(prefix_act_, a, b), 0, -1, -1});
      }
      return 0;
    }
    if (!fits(least, budget)) return kInf;
    if (ranges.size() == 1) {
      const auto [a, b] = ranges[0];
      const double h = held_[static_cast<std::size_t>(s)];
      const Frontier& f = frontier(a, b);
      const int k = best_point(f, budget / h);
      if (k < 0) return kInf;
      if (chosen) *chosen = {f[static_cast<std::size_t>(k)]};
      return f[static_cast<std::size_t>(k)].extra;
    }
    // Several chunks share the stage's memory: combine their frontiers, each scaled by how many
    // of its micro batches the stage holds (an upper bound of the simultaneous peak).
    Frontier joint{Point{}};
    std::vector<Frontier> parts;
    for (std::size_t c = 0; c < ranges.size(); ++c) {
      const double h = held_[static_cast<std::size_t>(s) + c * static_cast<std::size_t>(pp_)];
      const Frontier& f = frontier(ranges[c].first, ranges[c].second);
      Frontier next;
      next.reserve(joint.size() * f.size());
      for (std::size_t i = 0; i < joint.size(); ++i)
        for (std::size_t j = 0; j < f.size(); ++j)
          next.push_back({joint[i].act + h * f[j].act, joint[i].extra + f[j].extra, static_cast<int>(i), static_cast<int>(j)});
      clock_work_ += static_cast<std::int64_t>(next.size() / 64);
      prune(next, thinned_);
      parts.push_back(next);
      joint.swap(next);
    }
    const int k = best_point(joint, budget);
    if (k < 0) return kInf;
    if (chosen) {
      chosen->assign(ranges.size(), Point{});
      int idx = k;
      for (std::size_t c = ranges.size(); c-- > 0;) {
        const Point& p = parts[c][static_cast<std::size_t>(idx)];
        (*chosen)[c] = frontier(ranges[c].first, ranges[c].second)[static_cast<std::size_t>(p.option)];
        idx = p.parent;
      }
    }
    return joint[static_cast<std::size_t>(k)].extra;
  }

  // stage_extra of the one chunk [a, b), without `chosen`: the same arithmetic, kept apart (small
  // and inline) for the inner loops over a stage's end, which call it for every end they try. What
  // it reads of stage s is read once per loop (one_chunk): the frontier call in those loops would
  // otherwise make the compiler read every member again at each end.
  struct OneChunk {
    double held, limit;
    const double *statics, *act, *least_act;  // prefix sums
  };
  OneChunk one_chunk(int s) const {
    return {held_[static_cast<std::size_t>(s)], limit_for(s), prefix_static_.data(), prefix_act_.data(),
            prefix_least_act_.data()};
  }
  // With `exact` false, a lower bound without frontiers: 0 when the most-saving options fit (the
  // relaxed bound table's stage cost).
  [[gnu::always_inline]] double one_extra(const OneChunk& c, int a, int b, bool exact = true) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    const double budget = c.limit - (c.statics[ub] - c.statics[ua]);
    if (fits(c.held * (c.act[ub] - c.act[ua]), budget)) return 0;
    if (!fits(c.held * (c.least_act[ub] - c.least_act[ua]), budget)) return kInf;
    if (!exact) return 0;
    const Frontier& f = frontier(a, b);
    const int k = best_point(f, budget / c.held);
    return k < 0 ? kInf : f[static_cast<std::size_t>(k)].extra;
  }

  // ---- lower bounds -----------------------------------------------------------------------------
  struct Bounds {
    double growing;  // never falls as the stage takes more layers: ends the loop over its end
    double strong;   // the best bound: prunes a branch
  };

  // Lower bounds on the step time from physical stage s (one chunk per stage) holding layers [a, b),
  // whose first forward starts no earlier than pf and whose last gradient then drains through the
  // earlier stages in pb. With F, B its forward and backward (recompute included), S the round trip
  // of one micro batch through the later stages (their base times at least), and nf the forwards it
  // runs before its first backward (min(pp - s, m) for 1f1b, m for gpipe):
  //  - its own work: pf + m (F + B) + pb;
  //  - its timeline: the first backward waits for nf forwards and for F + S; then (m - nf) forward-
  //    backward pairs; then the last backward waits for nf backwards and for the last micro batch's
  //    round trip S + B:  pf + max(nf F, F + S) + (m - nf)(F + B) + max(nf B, S + B) + pb.
  //    On equal stages this is (m + pp - 1)(F + B) for every stage, the exact step time. When all
  //    forwards come first (nf = m), the steady part is empty and the two waits overlap instead.
  // zb_h1: the drain is not counted (W can overlap it), the round trip needs only the later stages'
  // input gradients, and at most min(pp - s, m) forwards precede the first B.
  Bounds stage_bounds(int s, double pf, double pb, int a, int b, double extra) const {
    double later = range(prefix_f_, b, L_) + range(prefix_b_, b, L_) + 2.0 * (pp_ - 1 - s) * min_send_;
    if (split_) later -= range(prefix_w_, b, L_);
    return bounds_from(s, pf, pb, range(prefix_f_, a, b), range(prefix_b_, a, b) + extra, later);
  }

  // The same bounds from a stage's forward f and backward full_b (recompute included), and `later`,
  // the round trip through the stages after it (exact, or a lower bound of it).
  Bounds bounds_from(int s, double pf, double pb, double f, double full_b, double later) const {
    // The stage's tail (outside components after its last operation) comes after all its work.
    const double drain = split_ ? 0 : pb;
    const double tail = tail_[static_cast<std::size_t>(s)];
    const double own = pf + m_ * (f + full_b) + std::max(drain, tail);
    if (V_ != pp_) return {own, own};
    const double nf = shape_.schedule == Schedule::gpipe ? m_ : std::min<double>(pp_ - s, m_);
    if (split_) return {own, std::max(own, pf + f + later + (m_ - nf) * f + m_ * full_b + tail)};
    double timeline;
    if (nf < m_) {
      timeline = pf + std::max(nf * f, f + later) + (m_ - nf) * (f + full_b) + std::max(nf * full_b, later + full_b);
    } else {  // every forward before the first backward: F(m-1) ends by m F, B0 waits F + S
      timeline = pf + std::max({m_ * (f + full_b), f + later + m_ * full_b, m_ * f + later + full_b});
    }
    return {own, std::max(own, timeline + std::max(drain, tail))};
  }

  // The bound of a complete plan (one chunk per stage) from its exact stage costs.
  double plan_bound() {
    if (V_ != pp_) return 0;
    std::vector<double>& later = later_;  // every entry but the last is set below; that one stays 0
    for (int k = pp_ - 2; k >= 0; --k) {
      const auto& next = costs_[static_cast<std::size_t>(k) + 1];
      later[static_cast<std::size_t>(k)] = later[static_cast<std::size_t>(k) + 1] + next.forward_ms + next.backward_ms -
                                           (split_ ? next.weight_ms : 0) + 2 * costs_[static_cast<std::size_t>(k)].send_ms;
    }
    double pf = 0, pb = 0, bound = 0;
    for (int k = 0; k < pp_; ++k) {
      const auto& c = costs_[static_cast<std::size_t>(k)];
      bound = std::max(bound, bounds_from(k, pf, pb, c.forward_ms, c.backward_ms, later[static_cast<std::size_t>(k)]).strong);
      pf += c.forward_ms + c.send_ms;
      pb += c.backward_ms + c.send_ms;
    }
    return bound;
  }

  // ---- the suffix bound (one chunk per stage) ---------------------------------------------------
  // suffix_[v][a]: the least possible max over virtual stages v.. of the stage bound, when stage v
  // starts at layer a, using the base prefix times (no recompute in earlier stages, the cheapest
  // transfer). For vpp > 1 it is computed per virtual stage, a relaxation, and used for the incumbent.
  // With `with_recompute` false a stage's recompute time counts as 0 when its most-saving options
  // fit (a weaker bound without frontiers: O(1) per cell instead of a frontier per range, which on
  // thousands of distinct layers is what dominates). Returns false, the table unfinished, when
  // `until` passes.
  bool suffix_bound(bool with_recompute, std::chrono::steady_clock::time_point until) {
    double min_send = kInf;
    for (int i = 0; i < L_; ++i) min_send = std::min(min_send, transfer_ms(device_, layer(i).send_mib));
    if (pp_ == 1 || min_send == kInf) min_send = 0;
    min_send_ = min_send;
    suffix_.assign(static_cast<std::size_t>(V_) + 1, std::vector<double>(static_cast<std::size_t>(L_) + 1, kInf));
    suffix_next_.assign(static_cast<std::size_t>(V_), std::vector<int>(static_cast<std::size_t>(L_) + 1, -1));
    suffix_[static_cast<std::size_t>(V_)][static_cast<std::size_t>(L_)] = 0;
    // Start layer outermost (descending), so each start's frontier chain is used in one burst.
    for (int a = L_; a >= 0; --a) {
      if (std::chrono::steady_clock::now() > until) return false;
      trim_cache();
      for (int v = V_ - 1; v >= 0; --v) {
        const int s = v % pp_;
        double best = kInf;
        int best_b = -1;
        const double pf = range(prefix_f_, 0, a) + v * min_send;
        const double pb = range(prefix_b_, 0, a) + v * min_send;
        const double* const after_row = suffix_[static_cast<std::size_t>(v) + 1].data();
        const OneChunk chunk_memory = one_chunk(s);
        const int last = last_end(v, a);
        for (int b = first_end(v, a); b <= last; ++b) {
          const double after = after_row[static_cast<std::size_t>(b)];
          if (after == kInf) continue;
          const double extra = V_ != pp_ ? 0.0 : one_extra(chunk_memory, a, b, with_recompute);
          if (extra == kInf) break;  // more layers only need more memory
          const Bounds bound = V_ == pp_ ? stage_bounds(s, pf, pb, a, b, extra) : Bounds{0, 0};
          if (bound.growing >= best) break;  // only grows with b
          const double value = std::max(bound.strong, after);
          if (value < best) {
            best = value;
            best_b = b;
          }
        }
        suffix_[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)] = best;
        suffix_next_[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)] = best_b;
      }
    }
    return true;
  }

  int first_end(int v, int a) const {
    int b = a + min_size_;
    if (v == 0) b = std::max(b, model_.pinned_first);
    if (v == V_ - 1) b = L_;
    return b;
  }
  int last_end(int v, int /*a*/) const {
    if (v == V_ - 1) return L_;
    return std::min(model_.body_end(), L_ - min_size_ * (V_ - 1 - v));
  }

  std::vector<int> suffix_plan() const {
    std::vector<int> ends;
    int a = 0;
    for (int v = 0; v < V_; ++v) {
      a = suffix_next_[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)];
      ends.push_back(a);
    }
    return ends;
  }

  std::vector<int> even_ends() const {
    std::vector<int> ends;
    int a = 0;
    for (int n : even_stage_layers(model_, V_)) ends.push_back(a += n);
    return ends;
  }

  // ---- the search -------------------------------------------------------------------------------
  // A branch is cut when its bound reaches this: the best time so far, lowered by the tolerance.
  [[nodiscard]] double cut() const { return cut_; }
  void set_best_time(double t) {
    best_time_ = t;
    cut_ = best_time_ / (1.0 + options_.tolerance);
  }

  bool out_of_budget() {
    if (budget_hit_) return true;
    ++nodes_;
    if (nodes_ > options_.node_budget || simulations_ > options_.simulation_budget) budget_hit_ = true;
    // The clock is read at the first node, then whenever the work since the last reading (a unit per
    // node, more for frontier builds and simulations: clock_work_) reaches kClockWork: in WebAssembly
    // each reading is a call out to JavaScript, which at every node took an eighth of a long search.
    if (++clock_work_ >= kClockWork) {
      clock_work_ = 0;
      if (std::chrono::steady_clock::now() > deadline_) budget_hit_ = true;
    }
    return budget_hit_;
  }

  struct Child {
    int b;
    double priority;  // the least step time any plan in this branch can have
    double bound;
  };

  void dfs(int v, int a, double bound) {
    if (out_of_budget()) return;
    trim_cache();
    const int s = v % pp_;
    const int chunk = v / pp_;
    const bool completes = chunk == shape_.vpp_degree - 1;
    auto& ranges = chunk_ranges_[static_cast<std::size_t>(s)];
    const double pf = stage_pf_[static_cast<std::size_t>(s)];
    const double pb = stage_pb_[static_cast<std::size_t>(s)];
    // The ends this stage may take; the loop stops where memory or the growing bound rules out
    // every larger end.
    std::vector<Child>& children = children_[static_cast<std::size_t>(v)];  // one per depth, reused
    children.clear();
    if (V_ == pp_) {  // one chunk per stage (ranges is empty): the stage is this range
      // What does not change with b is read once: stores to `children` would otherwise make the
      // compiler read every member again at each end.
      const double* const after = suffix_[static_cast<std::size_t>(v) + 1].data();
      const OneChunk chunk_memory = one_chunk(s);
      const double cut_now = cut();  // no plan is simulated in this loop
      const int last = last_end(v, a);
      for (int b = first_end(v, a); b <= last; ++b) {
        const double extra = one_extra(chunk_memory, a, b);
        if (!(extra < kInf)) break;  // more layers only need more memory
        const Bounds term = stage_bounds(s, pf, pb, a, b, extra);
        if (std::max(bound, term.growing) >= cut_now) break;  // only grows with b
        const double priority = std::max({bound, term.strong, after[static_cast<std::size_t>(b)]});
        if (priority < cut_now) children.push_back({b, priority, std::max(bound, term.strong)});
      }
    } else {  // one chunk of several: its stage's own work with the chunks assigned so far
      for (int b = first_end(v, a); b <= last_end(v, a); ++b) {
        ranges.emplace_back(a, b);
        double extra = 0;
        bool fits_memory = true;
        if (completes) {
          extra = stage_extra(s, ranges, nullptr);
          fits_memory = extra < kInf;
        } else {
          double statics = 0;
          for (auto [x, y] : ranges) statics += range(prefix_static_, x, y);
          fits_memory = fits(statics, limit_for(s));
        }
        Bounds term{0, 0};
        if (fits_memory) {
          double base = 0;
          for (auto [x, y] : ranges) base += range(prefix_f_, x, y) + range(prefix_b_, x, y);
          const double own = pf + m_ * (base + extra) + (split_ ? 0 : pb);
          term = {own, own};
        }
        ranges.pop_back();
        if (!fits_memory || std::max(bound, term.growing) >= cut()) break;  // only grows with b
        const double priority = std::max({bound, term.strong, 0.0});
        if (priority < cut()) children.push_back({b, priority, std::max(bound, term.strong)});
      }
    }
    // Most promising first, so that good plans are found early and cut more.
    std::sort(children.begin(), children.end(), [](const Child& x, const Child& y) { return x.priority < y.priority; });
    for (const Child& child : children) {
      if (budget_hit_ || child.priority >= cut()) return;
      const int b = child.b;
      ranges.emplace_back(a, b);
      std::vector<Point>& chosen = chosen_;  // used before the recursion only
      if (completes) stage_extra(s, ranges, &chosen);
      ends_[static_cast<std::size_t>(v)] = b;
      // Costs of this virtual stage, for the simulation of complete plans.
      auto& c = costs_[static_cast<std::size_t>(v)];
      c.forward_ms = range(prefix_f_, a, b);
      c.backward_ms = range(prefix_b_, a, b);
      c.weight_ms = range(prefix_w_, a, b);
      c.send_ms = crosses(v) ? send_after(b) : 0;
      if (completes) assign_chunk_costs(s, ranges, chosen);
      // Chunk 0 of this stage feeds the prefix bound of the next stage.
      if (chunk == 0) {
        stage_pf_[static_cast<std::size_t>(s) + 1] = pf + c.forward_ms + c.send_ms;
        // (c.backward_ms already holds the recompute time when this stage is complete)
        stage_pb_[static_cast<std::size_t>(s) + 1] = pb + c.backward_ms + c.send_ms;
      }
      if (v == V_ - 1) evaluate();
      else dfs(v + 1, b, child.bound);
      ranges.pop_back();
    }
  }

  void assign_chunk_costs(int s, const std::vector<std::pair<int, int>>& ranges, const std::vector<Point>& chosen) {
    for (std::size_t c = 0; c < ranges.size(); ++c) {
      auto& cost = costs_[static_cast<std::size_t>(s) + c * static_cast<std::size_t>(pp_)];
      cost.activation_mib = chosen[c].act;
      cost.backward_ms = range(prefix_b_, ranges[c].first, ranges[c].second) + chosen[c].extra;
    }
  }

  void evaluate() {
    if (plan_bound() >= cut()) return;  // its exact stage costs already rule it out
    ++simulations_;
    clock_work_ += static_cast<std::int64_t>(V_) * shape_.micro_batch_num / 32;
    SimulationInput& in = sim_in_;  // the rest was set in run()
    in.costs = costs_;
    in.abort_above_ms = best_time_;  // a plan that cannot beat the best is not finished
    const SimulationResult r = simulate(in);
    if (r.aborted) return;
    const double t = r.step_time_ms;
    if (t < best_time_ - 1e-9 * std::max(1.0, t)) {
      set_best_time(t);
      best_ends_ = ends_;
    }
  }

  // Simulates a plan given by its stage ends (used for the incumbents).
  void try_plan(const std::vector<int>& ends) {
    if (static_cast<int>(ends.size()) != V_) return;
    std::vector<std::vector<std::pair<int, int>>> per_stage(static_cast<std::size_t>(pp_));
    int a = 0;
    for (int v = 0; v < V_; ++v) {
      const int b = ends[static_cast<std::size_t>(v)];
      if (b < a + min_size_) return;
      per_stage[static_cast<std::size_t>(v % pp_)].emplace_back(a, b);
      auto& c = costs_[static_cast<std::size_t>(v)];
      c.forward_ms = range(prefix_f_, a, b);
      c.backward_ms = range(prefix_b_, a, b);
      c.weight_ms = range(prefix_w_, a, b);
      c.send_ms = crosses(v) ? send_after(b) : 0;
      a = b;
    }
    for (int s = 0; s < pp_; ++s) {
      std::vector<Point> chosen;
      if (stage_extra(s, per_stage[static_cast<std::size_t>(s)], &chosen) == kInf) return;
      assign_chunk_costs(s, per_stage[static_cast<std::size_t>(s)], chosen);
    }
    ends_ = ends;
    evaluate();
  }

  // ---- when nothing fits: the plan over the limit by the least ---------------------------------
  std::vector<int> least_over_ends() {
    // Minimise the largest overshoot with the most activation-saving recompute, one chunk per
    // stage as a relaxation for vpp > 1 (the even split is kept when that does not apply).
    if (V_ != pp_) return even_ends();
    std::vector<std::vector<double>> over(static_cast<std::size_t>(V_) + 1,
                                          std::vector<double>(static_cast<std::size_t>(L_) + 1, kInf));
    std::vector<std::vector<int>> next(static_cast<std::size_t>(V_), std::vector<int>(static_cast<std::size_t>(L_) + 1, -1));
    over[static_cast<std::size_t>(V_)][static_cast<std::size_t>(L_)] = -kInf;
    for (int v = V_ - 1; v >= 0; --v)
      for (int a = 0; a <= L_; ++a)
        for (int b = first_end(v, a); b <= last_end(v, a); ++b) {
          const double after = over[static_cast<std::size_t>(v) + 1][static_cast<std::size_t>(b)];
          if (after == kInf) continue;
          const double need =
              range(prefix_static_, a, b) + held_[static_cast<std::size_t>(v)] * range(prefix_least_act_, a, b) -
              limit_for(v % pp_);
          if (need >= over[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)]) break;  // grows with b
          const double value = std::max(need, after);
          if (value < over[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)]) {
            over[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)] = value;
            next[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)] = b;
          }
        }
    std::vector<int> ends;
    int a = 0;
    for (int v = 0; v < V_; ++v) ends.push_back(a = next[static_cast<std::size_t>(v)][static_cast<std::size_t>(a)]);
    return ends;
  }

  // ---- the result -------------------------------------------------------------------------------
  Plan make_plan(const std::vector<int>& ends, bool within_limit) {
    Plan plan{shape_};
    plan.stage_layers.clear();
    plan.recompute.assign(static_cast<std::size_t>(L_), -1);
    std::vector<std::vector<std::pair<int, int>>> per_stage(static_cast<std::size_t>(pp_));
    int a = 0;
    for (int v = 0; v < V_; ++v) {
      const int b = ends[static_cast<std::size_t>(v)];
      plan.stage_layers.push_back(b - a);
      per_stage[static_cast<std::size_t>(v % pp_)].emplace_back(a, b);
      a = b;
    }
    for (int s = 0; s < pp_; ++s) {
      const auto& ranges = per_stage[static_cast<std::size_t>(s)];
      std::vector<Point> chosen;
      const bool ok = within_limit && stage_extra(s, ranges, &chosen) < kInf;
      for (std::size_t c = 0; c < ranges.size(); ++c) {
        const auto [x, y] = ranges[c];
        const Frontier& f = frontier(x, y);
        // Within the limit: the least extra time that fits; otherwise the least activation.
        int k = ok ? best_point(f, chosen[c].act) : 0;
        choose_layers(x, y, k, plan.recompute);
      }
    }
    return plan;
  }

  // Walks the frontiers of [a, b), [a, b - 1), ... back from point k to the option of every layer.
  void choose_layers(int a, int b, int k, std::vector<int>& choice) {
    frontier(a, b);  // builds every prefix range too
    for (int i = b; i > a; --i) {
      const Point& p = (*by_range_.at(key(a, i)))[static_cast<std::size_t>(k)];
      choice[static_cast<std::size_t>(i) - 1] = p.option;
      k = p.parent;
    }
  }

  std::vector<std::string> why_not_exact() const {
    std::vector<std::string> notes;
    if (table_ == Table::relaxed)
      notes.push_back("the time budget did not allow the bound table with exact recompute (one recompute frontier per "
                      "layer range); a weaker table that leaves recompute time out was used");
    if (table_ == Table::none)
      notes.push_back("the time budget did not allow even the relaxed bound table (it grows with layers x layers); the "
                      "search used per-stage bounds only, starting from the even split");
    if (budget_hit_) notes.push_back("the search stopped at its budget before every candidate was ruled out");
    if (thinned_) notes.push_back("a recompute frontier was thinned to " + std::to_string(kFrontierCap) + " points");
    if (shape_.vpp_degree > 1)
      notes.push_back("with several model chunks per stage the memory bound adds each chunk's largest in-flight count, "
                      "which can rule out plans that would fit");
    if (shape_.schedule == Schedule::zb_h1)
      notes.push_back("zb_h1 picks operations by arrival, so its step time is not proven monotone in stage times, and "
                      "memory is bounded by the in-flight cap min(pp - s, m)");
    return notes;
  }

  const Model& model_;
  const Device& device_;
  const PipelineShape& shape_;
  const BalanceOptions& options_;
  int L_ = 0, pp_ = 1, V_ = 1, min_size_ = 1;
  double m_ = 1;
  bool split_ = false;
  double limit_ = kInf;
  std::vector<double> component_memory_, tail_;  // per physical stage, from outside components
  double min_send_ = 0;
  std::vector<double> prefix_f_, prefix_b_, prefix_w_, prefix_static_, prefix_act_, prefix_least_act_;
  std::vector<double> held_;
  struct Built {
    int a, b;
    std::unique_ptr<Frontier> frontier;  // stable address
  };
  const Frontier empty_frontier_{Point{}};
  std::vector<int> signature_;
  std::vector<std::uint64_t> hash_prefix_[2], power_[2];
  std::unordered_map<std::uint64_t, std::vector<Built>, KeyHash> by_hash_;
  std::unordered_map<std::uint64_t, const Frontier*, KeyHash> by_range_;
  std::size_t cached_points_ = 0;
  bool thinned_ = false;
  std::vector<std::vector<double>> suffix_;
  std::vector<std::vector<int>> suffix_next_;
  enum class Table { exact, relaxed, none };
  Table table_ = Table::exact;  // which suffix table the search had
  double lower_bound_ = 0;
  // search state
  std::vector<int> ends_;
  std::vector<std::vector<std::pair<int, int>>> chunk_ranges_;
  std::vector<double> stage_pf_, stage_pb_;
  std::vector<VirtualStageCost> costs_;
  std::vector<std::vector<Child>> children_;  // dfs: the children of the node at each depth
  std::vector<Point> chosen_;                 // dfs: stage_extra's choice for the child being entered
  std::vector<double> later_;                 // plan_bound
  SimulationInput sim_in_;                    // evaluate
  double best_time_ = kInf;
  double cut_ = kInf;  // cut(), kept with best_time_
  std::vector<int> best_ends_;
  std::int64_t nodes_ = 0, simulations_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  // Work since the clock was last read, in units of about one search node (out_of_budget).
  static constexpr std::int64_t kClockWork = 64;
  std::int64_t clock_work_ = kClockWork;
  bool budget_hit_ = false;
};

std::vector<int> ends_of(const std::vector<int>& stage_layers) {
  std::vector<int> ends;
  int a = 0;
  for (int n : stage_layers) ends.push_back(a += n);
  return ends;
}

}  // namespace

BalanceResult balance(const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options) {
  return Balancer(model, device, shape, options).run();
}

Plan with_best_recompute(const Model& model, const Device& device, Plan plan, const std::vector<int>& recompute_options,
                         const std::vector<StageComponent>& components) {
  BalanceOptions options;
  options.components = components;
  options.recompute_options = recompute_options;
  options.allow_empty_stages = true;
  return Balancer(model, device, plan, options).plan_for(ends_of(plan.stage_layers));
}

std::vector<OffsetCandidate> offset_search(const Model& model, const Device& device, const PipelineShape& shape,
                                           const std::vector<int>& recompute_options, int range,
                                           bool allow_empty_stages, std::int64_t limit, double time_budget_ms,
                                           OffsetSearchStop& stop, const std::vector<StageComponent>& components) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<std::int64_t>(std::min(time_budget_ms, 1e12) * 1000));
  const int V = shape.virtual_stages();
  const int body = model.body_count();
  const int base = body / V;
  const int remainder = body % V;
  Plan even{shape};
  even.stage_layers = even_stage_layers(model, V);
  const std::vector<int> even_offset = layer_offset_of(even, model);
  const int min_body = allow_empty_stages ? 0 : 1;
  // The least body a virtual stage may keep: pinned layers already make the first and last non-empty.
  auto floor_of = [&](int v) {
    const bool pinned = (v == 0 && model.pinned_first > 0) || (v == V - 1 && model.pinned_last > 0);
    return std::max(-base, (pinned ? 0 : min_body) - base);
  };
  std::vector<OffsetCandidate> out;
  stop = OffsetSearchStop::none;
  std::vector<int> offset(static_cast<std::size_t>(V));
  std::vector<int> lo(static_cast<std::size_t>(V)), hi(static_cast<std::size_t>(V));
  for (int v = 0; v < V; ++v) {
    lo[static_cast<std::size_t>(v)] = std::max(even_offset[static_cast<std::size_t>(v)] - range, floor_of(v));
    hi[static_cast<std::size_t>(v)] = even_offset[static_cast<std::size_t>(v)] + range;
  }
  // Over the stages from v on: the least and largest sum of offsets, and the largest distance from
  // the even split's offsets.
  std::vector<long long> lo_rest(static_cast<std::size_t>(V) + 1, 0), hi_rest(static_cast<std::size_t>(V) + 1, 0);
  std::vector<long long> far_rest(static_cast<std::size_t>(V) + 1, 0);
  for (int v = V - 1; v >= 0; --v) {
    const auto k = static_cast<std::size_t>(v);
    lo_rest[k] = lo_rest[k + 1] + lo[k];
    hi_rest[k] = hi_rest[k + 1] + hi[k];
    far_rest[k] = far_rest[k + 1] + std::max(hi[k] - even_offset[k], even_offset[k] - lo[k]);
  }
  auto evaluate = [&] {
    Plan plan{shape};
    plan.stage_layers.assign(static_cast<std::size_t>(V), 0);
    for (int u = 0; u < V; ++u) {
      plan.stage_layers[static_cast<std::size_t>(u)] = base + offset[static_cast<std::size_t>(u)];
      if (u == 0) plan.stage_layers[0] += model.pinned_first;
      if (u == V - 1) plan.stage_layers[static_cast<std::size_t>(u)] += model.pinned_last;
    }
    plan.recompute.assign(static_cast<std::size_t>(model.layer_count()), -1);
    plan = with_best_recompute(model, device, plan, recompute_options, components);
    out.push_back({offset, estimate(model, device, plan, false, components)});
  };
  // Depth-first over the stages, the offsets exactly `distance` (summed |offset - even offset|)
  // from the even split's, keeping the running sum reachable from what is left. Distances are taken
  // in increasing order, so a search cut by its limits has evaluated the smallest moves first.
  std::int64_t steps = 0;
  auto visit = [&](auto&& self, int v, long long sum, long long distance) -> void {
    if (stop != OffsetSearchStop::none) return;
    if (!out.empty() && (++steps & 63) == 0 && std::chrono::steady_clock::now() > deadline) {
      stop = OffsetSearchStop::time_budget;
      return;
    }
    if (v == V) {
      if (distance != 0) return;
      if (static_cast<std::int64_t>(out.size()) >= limit) {
        stop = OffsetSearchStop::max_candidates;
        return;
      }
      evaluate();
      if (std::chrono::steady_clock::now() > deadline) stop = OffsetSearchStop::time_budget;
      return;
    }
    const auto k = static_cast<std::size_t>(v);
    for (int o = lo[k]; o <= hi[k]; ++o) {
      const long long rest = remainder - sum - o;
      const long long left = distance - std::abs(o - even_offset[k]);
      if (rest < lo_rest[k + 1] || rest > hi_rest[k + 1] || left < 0 || left > far_rest[k + 1]) continue;
      offset[k] = o;
      self(self, v + 1, sum + o, left);
    }
  };
  for (long long distance = 0; distance <= far_rest[0] && stop == OffsetSearchStop::none; ++distance)
    visit(visit, 0, 0, distance);
  std::stable_sort(out.begin(), out.end(), [](const OffsetCandidate& x, const OffsetCandidate& y) {
    if (x.estimate.feasible != y.estimate.feasible) return x.estimate.feasible;
    return x.estimate.step_time_ms < y.estimate.step_time_ms;
  });
  return out;
}

}  // namespace ppb
