// A user's program read from PyTorch pipelining actions and checked. See program_import.hpp.
//
// The action grammar is PyTorch's (torch/distributed/pipelining/schedules.py, _Action.from_str and
// _action_regex: a stage index, a computation type, a micro batch index; OVERLAP_F_B with its sub
// actions in parentheses, separated by ';'); the checks are PPB's own: what PyTorch's
// _validate_schedule asserts (one forward and one backward per stage and micro batch, I and W in
// pairs, one rank per stage) plus the placement, the micro batch count and the absence of deadlock,
// which PyTorch finds only by running the program.
#include "ppb/schedule/program_import.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "ppb/core/limits.hpp"
#include "program_text.hpp"

namespace ppb {
namespace {

using program_text::Kind;
using program_text::parse_action;
using program_text::Simple;
using program_text::trim;

std::string action_text(std::int64_t stage, char kind, std::int64_t micro_batch) {
  std::string out = std::to_string(stage);
  out += kind;
  out += std::to_string(micro_batch);
  return out;
}

// Reads and checks one program; the members hold what the checks share.
class Importer {
 public:
  Importer(const PipelineShape& shape, const ProgramText& text, const std::string& path,
           std::vector<ScheduleProblem>& problems)
      : shape_(shape),
        text_(text),
        path_(path),
        problems_(problems),
        before_(problems.size()),
        V_(shape.virtual_stages()),
        m_(shape.micro_batch_num) {}

  std::optional<Program> run() {
    if (!count_fits() || !ranks_fit()) return std::nullopt;
    read_actions();
    if (problems_.size() == before_) check_micro_batches();
    if (problems_.size() == before_) check_complete();
    if (problems_.size() == before_) check_deadlock();
    if (problems_.size() != before_) return std::nullopt;
    return Program::from_stages(ops_);
  }

 private:
  // The pointer of rank r's action i (of its list when i < 0), and the words that name it.
  [[nodiscard]] std::string pointer(int rank, std::int64_t index = -1) const {
    if (text_.csv) return path_;
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on chains of string concatenation.
    std::string out = path_;
    out += '/';
    out += std::to_string(rank);
    if (index >= 0) {
      out += '/';
      out += std::to_string(index);
    }
    return out;
  }
  [[nodiscard]] std::string where(int rank, std::int64_t index) const {
    std::string out = "rank " + std::to_string(rank) + "'s action " + std::to_string(index);
    if (text_.csv) out += " (line " + std::to_string(rank + 1) + ", field " + std::to_string(index + 1) + ")";
    return out;
  }
  // Kept up to one past the response's cap, so that the response still says that more were found
  // (TOO_MANY_ERRORS) without a program of millions of faults holding a sentence for each.
  [[nodiscard]] bool full() const {
    return problems_.size() - before_ > static_cast<std::size_t>(limits::max_diagnostics);
  }
  void problem(const char* code, std::string path, std::string message) {
    if (!full()) problems_.push_back({code, std::move(path), std::move(message)});
  }

  // More actions than any program of this shape holds (one F, I and W per stage and micro batch).
  bool count_fits() {
    std::int64_t actions = 0;
    for (const auto& rank : text_.ranks) actions += static_cast<std::int64_t>(rank.size());
    const std::int64_t most =
        3 * std::min<std::int64_t>(static_cast<std::int64_t>(V_) * m_, limits::max_simulated_pairs);
    if (actions <= most) return true;
    problem("SIMULATION_LIMIT", path_,
            "pipeline.program holds " + std::to_string(actions) + " actions; a program of " + std::to_string(V_) +
                " virtual stages and " + std::to_string(m_) + " micro batches holds at most " + std::to_string(most) +
                " (an F, an I and a W of each stage and micro batch).");
    return false;
  }

  bool ranks_fit() {
    const auto ranks = static_cast<std::int64_t>(text_.ranks.size());
    if (ranks == shape_.pp_degree) return true;
    problem("PROGRAM_RANKS", path_,
            "pipeline.program has " + std::to_string(ranks) + (text_.csv ? " lines" : " lists") +
                " of actions but pp_degree is " + std::to_string(shape_.pp_degree) + ": give one " +
                (text_.csv ? "line" : "list") + " per rank, rank 0 first.");
    return false;
  }

  // Parses every action into ops_, checking each stage against the placement.
  void read_actions() {
    ops_.assign(static_cast<std::size_t>(shape_.pp_degree), {});
    index_.assign(ops_.size(), {});
    for (int r = 0; r < shape_.pp_degree; ++r) {
      const auto& list = text_.ranks[static_cast<std::size_t>(r)];
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string_view written = trim(list[i]);
        if (written.empty()) continue;  // PyTorch's empty slot (None): no operation
        const auto at = static_cast<std::int64_t>(i);
        std::string why;
        const std::vector<Simple> parts = parse_action(written, why);
        if (parts.empty()) {
          problem("PROGRAM_ACTION_INVALID", pointer(r, at),
                  where(r, at) + ", \"" + std::string(written) + "\", is not a pipelining action: " + why + ".");
          continue;
        }
        bool placed = true;
        for (const Simple& s : parts) placed = stage_placed(s, r, at) && placed;
        if (!placed) continue;
        for (const Simple& s : parts) most_micro_batch_ = std::max(most_micro_batch_, s.micro_batch);
        ops_[static_cast<std::size_t>(r)].push_back(to_op(parts));
        index_[static_cast<std::size_t>(r)].push_back(at);
      }
    }
  }

  bool stage_placed(const Simple& s, int rank, std::int64_t at) {
    if (s.stage >= V_) {
      problem("PROGRAM_STAGE", pointer(rank, at),
              where(rank, at) + " names stage " + std::to_string(s.stage) +
                  ", but pp_degree x vpp_degree = " + std::to_string(shape_.pp_degree) + " x " +
                  std::to_string(shape_.vpp_degree) + " gives stages 0 to " + std::to_string(V_ - 1) + ".");
      return false;
    }
    const int holder = shape_.physical_stage(static_cast<int>(s.stage));
    if (holder == rank) return true;
    problem("PROGRAM_STAGE", pointer(rank, at),
            where(rank, at) + " runs stage " + std::to_string(s.stage) + ", which rank " + std::to_string(holder) +
                " holds under " + schedule_name(shape_.schedule) + "'s placement (" +
                (is_v_shape(shape_.schedule) ? "stage i < pp on rank i, i >= pp on rank 2 pp - 1 - i"
                                             : "stage i on rank i mod pp_degree") +
                "): move the action to rank " + std::to_string(holder) +
                "'s list, or set the schedule whose placement "
                "the program follows.");
    return false;
  }

  static Op to_op(const std::vector<Simple>& parts) {
    const auto v = [](const Simple& s) { return static_cast<std::int32_t>(s.stage); };
    const auto mb = [](const Simple& s) { return static_cast<std::int32_t>(s.micro_batch); };
    if (parts.size() == 2)
      return {OpKind::FB, parts[1].kind == Kind::I, v(parts[0]), mb(parts[0]), v(parts[1]), mb(parts[1])};
    const Simple& s = parts[0];
    switch (s.kind) {
      case Kind::F: return {OpKind::F, false, v(s), mb(s), -1, -1};
      case Kind::I: return {OpKind::B, true, v(s), mb(s), -1, -1};
      case Kind::B: return {OpKind::B, false, v(s), mb(s), -1, -1};
      case Kind::W: return {OpKind::W, false, v(s), mb(s), -1, -1};
    }
    return {};
  }

  // The program's micro batches must be the request's: 0 .. micro_batch_num - 1.
  void check_micro_batches() {
    if (most_micro_batch_ + 1 == m_) return;
    problem("PROGRAM_MICRO_BATCHES", path_,
            "pipeline.program runs micro batches 0 to " + std::to_string(most_micro_batch_) + " (" +
                std::to_string(most_micro_batch_ + 1) + " of them), but micro_batch_num is " + std::to_string(m_) +
                ": set pipeline.micro_batch_num to " + std::to_string(most_micro_batch_ + 1) +
                " (or the batch sizes that derive it), or write the actions of every micro batch.");
  }

  [[nodiscard]] std::size_t pair(std::int64_t v, std::int64_t mb) const {
    return static_cast<std::size_t>(v * m_ + mb);
  }

  // One F and either one B or one I and one W per stage and micro batch (PyTorch's _validate_schedule
  // asserts the same counts).
  void check_complete() {
    const std::size_t pairs = pair(V_, 0);
    std::vector<std::int32_t> f(pairs, 0), b(pairs, 0), in(pairs, 0), w(pairs, 0);
    for (int r = 0; r < shape_.pp_degree; ++r) {
      const auto& ops = ops_[static_cast<std::size_t>(r)];
      for (std::size_t k = 0; k < ops.size(); ++k) {
        const Op& op = ops[k];
        const std::int64_t at = index_[static_cast<std::size_t>(r)][k];
        const auto count = [&](std::vector<std::int32_t>& c, std::int64_t v, std::int64_t mb, char kind) {
          if (++c[pair(v, mb)] == 2)
            problem("PROGRAM_INCOMPLETE", pointer(r, at),
                    where(r, at) + " runs " + action_text(v, kind, mb) +
                        " a second time; every stage runs each of its operations once per micro batch.");
        };
        if (op.kind == OpKind::F || op.kind == OpKind::FB) count(f, op.virtual_stage, op.micro_batch, 'F');
        if (op.kind == OpKind::W) count(w, op.virtual_stage, op.micro_batch, 'W');
        if (op.kind == OpKind::B)
          count(op.weight_apart ? in : b, op.virtual_stage, op.micro_batch, op.weight_apart ? 'I' : 'B');
        if (op.kind == OpKind::FB)
          count(op.weight_apart ? in : b, op.backward_virtual_stage, op.backward_micro_batch,
                op.weight_apart ? 'I' : 'B');
      }
    }
    for (std::int64_t v = 0; v < V_ && !full(); ++v)
      for (std::int64_t mb = 0; mb < m_ && !full(); ++mb) {
        const std::size_t k = pair(v, mb);
        const std::string list = pointer(shape_.physical_stage(static_cast<int>(v)));
        const std::string rank = "rank " + std::to_string(shape_.physical_stage(static_cast<int>(v)));
        if (f[k] == 0)
          problem("PROGRAM_INCOMPLETE", list,
                  rank + " never runs " + action_text(v, 'F', mb) + ", the forward of stage " + std::to_string(v) +
                      " on micro batch " + std::to_string(mb) + ": add it.");
        if (b[k] + in[k] == 0)
          problem("PROGRAM_INCOMPLETE", list,
                  rank + " never runs the backward of stage " + std::to_string(v) + " on micro batch " +
                      std::to_string(mb) + ": add " + action_text(v, 'B', mb) + ", or " + action_text(v, 'I', mb) +
                      " and " + action_text(v, 'W', mb) + ".");
        else if (b[k] + in[k] == 1 && b[k] == 1 && w[k] > 0)
          problem("PROGRAM_INCOMPLETE", list,
                  rank + " runs " + action_text(v, 'W', mb) + " after the full backward " + action_text(v, 'B', mb) +
                      ", which already computes the weight gradient: write " + action_text(v, 'I', mb) +
                      " for the input gradient, or drop the W.");
        else if (b[k] + in[k] == 1 && in[k] == 1 && w[k] == 0)
          problem("PROGRAM_INCOMPLETE", list,
                  rank + " runs " + action_text(v, 'I', mb) +
                      ", the input gradient only, and never its weight gradient " + action_text(v, 'W', mb) +
                      ": add it, or write the full backward " + action_text(v, 'B', mb) + ".");
        else if (b[k] + in[k] > 1 && b[k] < 2 && in[k] < 2)
          problem("PROGRAM_INCOMPLETE", list,
                  rank + " runs both " + action_text(v, 'B', mb) + " and " + action_text(v, 'I', mb) +
                      "; a micro batch's backward runs once, whole (B) or split (I, then W).");
        if (w[k] > 0 && b[k] + in[k] == 0)
          problem("PROGRAM_INCOMPLETE", list,
                  rank + " runs " + action_text(v, 'W', mb) + " with no " + action_text(v, 'I', mb) + " before it.");
      }
  }

  // Runs the program on dependencies alone (no times): an F waits for the previous stage's F of its
  // micro batch, a B or I for its own F and the next stage's B or I, a W for its I. Every rank runs
  // its list in order; when no rank can go on, the ranks wait on each other in a cycle, which the
  // message names.
  void check_deadlock() {
    const std::size_t pairs = pair(V_, 0);
    // Key of an F: its pair; of a B or I: pairs + its pair. Where each is written, and whether a B key
    // is an I.
    std::vector<std::int32_t> rank_of(2 * pairs, -1), waiter(2 * pairs, -1);
    std::vector<std::int64_t> position_of(2 * pairs, -1);
    std::vector<char> done(2 * pairs, 0), is_input(pairs, 0);
    for (int r = 0; r < shape_.pp_degree; ++r)
      for (std::size_t k = 0; k < ops_[static_cast<std::size_t>(r)].size(); ++k) {
        const Op& op = ops_[static_cast<std::size_t>(r)][k];
        const auto note = [&](std::size_t key) {
          rank_of[key] = r;
          position_of[key] = static_cast<std::int64_t>(k);
        };
        if (op.kind == OpKind::F || op.kind == OpKind::FB) note(pair(op.virtual_stage, op.micro_batch));
        if (op.kind == OpKind::B) {
          note(pairs + pair(op.virtual_stage, op.micro_batch));
          is_input[pair(op.virtual_stage, op.micro_batch)] = op.weight_apart ? 1 : 0;
        }
        if (op.kind == OpKind::FB) {
          note(pairs + pair(op.backward_virtual_stage, op.backward_micro_batch));
          is_input[pair(op.backward_virtual_stage, op.backward_micro_batch)] = op.weight_apart ? 1 : 0;
        }
      }
    const auto forward_needs = [&](std::int64_t v, std::int64_t mb) -> std::int64_t {
      if (v > 0 && !done[pair(v - 1, mb)]) return static_cast<std::int64_t>(pair(v - 1, mb));
      return -1;
    };
    const auto backward_needs = [&](std::int64_t v, std::int64_t mb) -> std::int64_t {
      if (!done[pair(v, mb)]) return static_cast<std::int64_t>(pair(v, mb));
      if (v + 1 < V_ && !done[pairs + pair(v + 1, mb)]) return static_cast<std::int64_t>(pairs + pair(v + 1, mb));
      return -1;
    };
    const auto needs = [&](const Op& op) -> std::int64_t {
      switch (op.kind) {
        case OpKind::F: return forward_needs(op.virtual_stage, op.micro_batch);
        case OpKind::B: return backward_needs(op.virtual_stage, op.micro_batch);
        case OpKind::W:
          return done[pairs + pair(op.virtual_stage, op.micro_batch)]
                     ? -1
                     : static_cast<std::int64_t>(pairs + pair(op.virtual_stage, op.micro_batch));
        case OpKind::FB: {
          const std::int64_t f = forward_needs(op.virtual_stage, op.micro_batch);
          return f >= 0 ? f : backward_needs(op.backward_virtual_stage, op.backward_micro_batch);
        }
      }
      return -1;
    };
    std::vector<std::size_t> next(static_cast<std::size_t>(shape_.pp_degree), 0);
    std::vector<std::int64_t> waits_for(next.size(), -1);
    std::vector<int> ready;
    for (int r = shape_.pp_degree - 1; r >= 0; --r) ready.push_back(r);
    const auto finish = [&](std::size_t key) {
      done[key] = 1;
      if (waiter[key] >= 0) ready.push_back(waiter[key]);
      waiter[key] = -1;
    };
    while (!ready.empty()) {
      const int r = ready.back();
      ready.pop_back();
      const auto& ops = ops_[static_cast<std::size_t>(r)];
      std::size_t& k = next[static_cast<std::size_t>(r)];
      waits_for[static_cast<std::size_t>(r)] = -1;
      for (; k < ops.size(); ++k) {
        const Op& op = ops[k];
        const std::int64_t missing = needs(op);
        if (missing >= 0) {
          waiter[static_cast<std::size_t>(missing)] = r;
          waits_for[static_cast<std::size_t>(r)] = missing;
          break;
        }
        if (op.kind == OpKind::F || op.kind == OpKind::FB) finish(pair(op.virtual_stage, op.micro_batch));
        if (op.kind == OpKind::B) finish(pairs + pair(op.virtual_stage, op.micro_batch));
        if (op.kind == OpKind::FB) finish(pairs + pair(op.backward_virtual_stage, op.backward_micro_batch));
      }
    }
    int stuck = -1;
    for (int r = 0; r < shape_.pp_degree && stuck < 0; ++r)
      if (next[static_cast<std::size_t>(r)] < ops_[static_cast<std::size_t>(r)].size()) stuck = r;
    if (stuck < 0) return;
    // Follow the waits from a stuck rank until one repeats: those ranks wait on each other.
    std::vector<int> visited(next.size(), -1), chain;
    int r = stuck;
    while (visited[static_cast<std::size_t>(r)] < 0) {
      visited[static_cast<std::size_t>(r)] = static_cast<int>(chain.size());
      chain.push_back(r);
      r = rank_of[static_cast<std::size_t>(waits_for[static_cast<std::size_t>(r)])];
    }
    const std::vector<int> cycle(chain.begin() + visited[static_cast<std::size_t>(r)], chain.end());
    const auto key_text = [&](std::int64_t key) {
      const bool backward = key >= static_cast<std::int64_t>(pairs);
      const std::int64_t p = backward ? key - static_cast<std::int64_t>(pairs) : key;
      const char kind = !backward ? 'F' : is_input[static_cast<std::size_t>(p)] ? 'I' : 'B';
      return action_text(p / m_, kind, p % m_);
    };
    const auto head_text = [&](int rank) {
      const std::size_t k = next[static_cast<std::size_t>(rank)];
      const std::int64_t at = index_[static_cast<std::size_t>(rank)][k];
      return "rank " + std::to_string(rank) + "'s " +
             std::string(trim(text_.ranks[static_cast<std::size_t>(rank)][static_cast<std::size_t>(at)])) +
             " (action " + std::to_string(at) + ")";
    };
    std::string message = "pipeline.program deadlocks: ";
    for (std::size_t i = 0; i < cycle.size(); ++i) {
      const int rank = cycle[i];
      const std::int64_t key = waits_for[static_cast<std::size_t>(rank)];
      const int holder = rank_of[static_cast<std::size_t>(key)];
      if (i > 0) message += ", while ";
      message += head_text(rank) + " waits for " + key_text(key);
      if (holder != rank) {
        message += ", which rank " + std::to_string(holder) + " runs later";
      } else if (position_of[static_cast<std::size_t>(key)] ==
                 static_cast<std::int64_t>(next[static_cast<std::size_t>(rank)])) {
        message += ", a part of the same action";
      } else {
        message += ", which comes later in its own list (action " +
                   std::to_string(index_[static_cast<std::size_t>(rank)]
                                        [static_cast<std::size_t>(position_of[static_cast<std::size_t>(key)])]) +
                   ")";
      }
    }
    message += ". Reorder the lists so that every action's inputs come first.";
    const int first = cycle.front();
    problem("PROGRAM_DEADLOCK",
            pointer(first, index_[static_cast<std::size_t>(first)][next[static_cast<std::size_t>(first)]]), message);
  }

  const PipelineShape& shape_;
  const ProgramText& text_;
  const std::string& path_;
  std::vector<ScheduleProblem>& problems_;
  const std::size_t before_;
  const std::int64_t V_;
  const std::int64_t m_;
  std::vector<std::vector<Op>> ops_;              // per rank, the actions read
  std::vector<std::vector<std::int64_t>> index_;  // per rank, each op's position in the list as written
  std::int64_t most_micro_batch_ = -1;
};

}  // namespace

std::optional<Program> import_program(const PipelineShape& shape, const ProgramText& text, const std::string& path,
                                      std::vector<ScheduleProblem>& problems) {
  return Importer(shape, text, path, problems).run();
}

}  // namespace ppb
