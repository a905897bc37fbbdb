// Recompute frontiers and their cache per layer range. See recompute_frontier.hpp.
#include "recompute_frontier.hpp"

#include <algorithm>
#include <iterator>
#include <map>

namespace ppb::balancer {
namespace {

bool by_act(const FrontierPoint& x, const FrontierPoint& y) {
  return x.act != y.act ? x.act < y.act : x.extra < y.extra;
}

// Keeps, from points sorted by activation (ties by extra time), those no other point beats in
// both; extra time then strictly decreases. Beyond kFrontierPoints, keeps a point only when its extra
// time is at least (largest - least) / kFrontierPoints below the last point kept (and always the
// last): a budget whose best point was dropped gets the kept point before it, whose extra time is
// less than that step above, which is added to f.error.
void sweep(Frontier& f) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < f.size(); ++i)
    if (kept == 0 || f[i].extra < f[kept - 1].extra) f[kept++] = f[i];
  f.resize(kept);
  if (kept <= kFrontierPoints) return;
  const double step = (f.front().extra - f.back().extra) / static_cast<double>(kFrontierPoints);
  double worst = 0;
  std::size_t thin = 1;
  for (std::size_t i = 1; i < kept; ++i) {
    const double gap = f[thin - 1].extra - f[i].extra;
    if (gap >= step || i + 1 == kept)
      f[thin++] = f[i];
    else
      worst = std::max(worst, gap);
  }
  f.resize(thin);
  f.error += worst;
}

// Two polynomial hashes of the signatures of a range, modulo two primes below 2^31, in one key.
// A match is still checked layer by layer (find_same); the hash only narrows the candidates.
constexpr std::uint64_t kMod[2] = {2'147'483'647, 1'000'000'007};
constexpr std::uint64_t kBase[2] = {1'000'003, 911'382'323};
// A frontier built, in units of work (about one search node): the hashing, lookup and allocation,
// and its points, a few nodes' time apiece (measured on the benchmark set, docs/benchmarks.md).
constexpr std::int64_t kBuildWork = 4;

}  // namespace

void prune(Frontier& f) {
  std::sort(f.begin(), f.end(), by_act);
  sweep(f);
}

FrontierCache::FrontierCache(const BalanceProblem& problem, Budget& budget) : problem_(problem), budget_(budget) {
  build_signatures();
}

// The longest cached range [a, c) is extended one layer at a time.
const Frontier& FrontierCache::build(int a, int b) {
  int c = b - 1;
  while (c > a && !cached(a, c)) --c;
  for (int e = c + 1; e <= b; ++e) {
    const Frontier& prev = e - 1 == a ? empty_ : *by_range_.at(key(a, e - 1));
    if (const Frontier* same = find_same(a, e)) {
      by_range_[key(a, e)] = same;
      continue;
    }
    auto built = std::make_unique<Frontier>(extend(prev, problem_.layer(e - 1)));
    note_error(built->error);
    cached_points_ += built->size();
    budget_.add_work(kBuildWork + static_cast<std::int64_t>(built->size() / 2));
    by_range_[key(a, e)] = built.get();
    by_hash_[range_hash(a, e)].push_back({a, e, std::move(built)});
  }
  return *by_range_.at(key(a, b));
}

void FrontierCache::clear() {
  by_range_.clear();
  by_hash_.clear();
  cached_points_ = 0;
}

// Walks the frontiers of [a, b), [a, b - 1), ... back from point k to the option of every layer.
void FrontierCache::choose_layers(int a, int b, int k, std::vector<int>& choice) {
  frontier(a, b);  // builds every prefix range too
  for (int i = b; i > a; --i) {
    const FrontierPoint& p = (*by_range_.at(key(a, i)))[static_cast<std::size_t>(k)];
    choice[static_cast<std::size_t>(i) - 1] = p.option;
    k = p.parent;
  }
}

// A built frontier of another range with the same signatures, checked layer by layer.
const Frontier* FrontierCache::find_same(int a, int b) const {
  auto it = by_hash_.find(range_hash(a, b));
  if (it == by_hash_.end()) return nullptr;
  for (const auto& entry : it->second)
    if (entry.b - entry.a == b - a &&
        std::equal(signature_.begin() + a, signature_.begin() + b, signature_.begin() + entry.a))
      return entry.frontier.get();
  return nullptr;
}

std::uint64_t FrontierCache::range_hash(int a, int b) const {
  std::uint64_t out = 0;
  for (std::size_t h = 0; h < 2; ++h) {
    const std::uint64_t high = hash_prefix_[h][static_cast<std::size_t>(b)];
    const std::uint64_t low =
        hash_prefix_[h][static_cast<std::size_t>(a)] * power_[h][static_cast<std::size_t>(b - a)] % kMod[h];
    out = (out << 32) | ((high + kMod[h] - low) % kMod[h]);
  }
  return out;
}

void FrontierCache::build_signatures() {
  const int L = problem_.L;
  std::map<std::vector<double>, int> ids;
  signature_.resize(static_cast<std::size_t>(L));
  for (std::size_t h = 0; h < 2; ++h) {
    hash_prefix_[h].assign(static_cast<std::size_t>(L) + 1, 0);
    power_[h].assign(static_cast<std::size_t>(L) + 1, 1);
  }
  for (int i = 0; i < L; ++i) {
    const Layer& l = problem_.layer(i);
    std::vector<double> sig{l.activation_mib};
    for (int o : problem_.options.recompute_options) {
      const auto& r = l.recompute[static_cast<std::size_t>(o)];
      sig.insert(sig.end(), {r ? 1.0 : 0.0, r ? r->activation_mib : 0.0, r ? r->extra_ms : 0.0});
    }
    const int id = ids.emplace(sig, static_cast<int>(ids.size())).first->second;
    const auto k = static_cast<std::size_t>(i);
    signature_[k] = id;
    for (std::size_t h = 0; h < 2; ++h) {
      hash_prefix_[h][k + 1] = (hash_prefix_[h][k] * kBase[h] + static_cast<std::uint64_t>(id) + 1) % kMod[h];
      power_[h][k + 1] = power_[h][k] * kBase[h] % kMod[h];
    }
  }
}

// The frontier of a range extended by one more layer: each option shifts the whole (sorted)
// frontier, so the shifted copies are merged rather than sorted.
Frontier FrontierCache::extend(const Frontier& prev, const Layer& l) {
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
  merged.error = prev.error;  // the dropped points of prev are missing from every shifted copy
  add_copy(l.activation_mib, 0, -1);
  for (int o : problem_.options.recompute_options)
    if (const auto& r = l.recompute[static_cast<std::size_t>(o)]) add_copy(r->activation_mib, r->extra_ms, o);
  sweep(merged);
  return merged;
}

}  // namespace ppb::balancer
