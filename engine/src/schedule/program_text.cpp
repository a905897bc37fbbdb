// PyTorch pipelining actions as text: one action ("3F0", "(1F3;6B1)OVERLAP_F_B") and the CSV of a
// program. The grammar is PyTorch's (torch/distributed/pipelining/schedules.py, _Action.from_str and
// _action_regex: a stage index, a computation type, a micro batch index; OVERLAP_F_B with its sub
// actions in parentheses, separated by ';'), read, not copied. See program_text.hpp.
#include "program_text.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "ppb/schedule/program_import.hpp"

namespace ppb::program_text {
namespace {

bool all_digits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// Indices of up to 9 digits: far above every cap, and never an overflow.
std::int64_t index_of(std::string_view digits) {
  std::int64_t n = 0;
  for (char c : digits) n = n * 10 + (c - '0');
  return n;
}

// One action such as "3F0"; nothing, with the reason in `why`, when it is not one.
std::optional<Simple> parse_simple(std::string_view text, std::string& why) {
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) ++i;
  std::size_t j = i;
  while (j < text.size() && (std::isalpha(static_cast<unsigned char>(text[j])) != 0 || text[j] == '_')) ++j;
  const std::string_view stage = text.substr(0, i), type = text.substr(i, j - i), micro_batch = text.substr(j);
  if (stage.empty()) {
    why = "an action starts with its stage index, as in 3F0 (stage 3, forward, micro batch 0)";
    return std::nullopt;
  }
  static constexpr std::string_view kCommunication[] = {"UNSHARD", "RESHARD", "REDUCE_GRAD", "SEND_F",
                                                        "RECV_F",  "SEND_B",  "RECV_B"};
  if (std::find(std::begin(kCommunication), std::end(kCommunication), type) != std::end(kCommunication)) {
    why = std::string(type) +
          " is a communication or sharding action, which PyTorch adds when it lowers a compute_only program; "
          "give the compute actions only (F, I, B, W and OVERLAP_F_B), as the pytorch export writes them";
    return std::nullopt;
  }
  Simple out;
  if (type == "F") {
    out.kind = Kind::F;
  } else if (type == "I") {
    out.kind = Kind::I;
  } else if (type == "B") {
    out.kind = Kind::B;
  } else if (type == "W") {
    out.kind = Kind::W;
  } else {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on chains of string concatenation.
    if (type.empty()) {
      why = "the stage index must be followed by the action type F, I, B or W";
    } else {
      why.clear();
      why.push_back('"');
      why.append(type.data(), type.size());
      why.append("\" is not an action type: use F, I, B or W (or OVERLAP_F_B)");
    }
    return std::nullopt;
  }
  if (micro_batch.empty() || !all_digits(micro_batch)) {
    why = "the action type must be followed by the micro batch index, as in 3F0";
    return std::nullopt;
  }
  if (stage.size() > 9 || micro_batch.size() > 9) {
    why = "its indices are longer than 9 digits";
    return std::nullopt;
  }
  out.stage = index_of(stage);
  out.micro_batch = index_of(micro_batch);
  return out;
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return s;
}

// One action as written (one or, for OVERLAP_F_B, two simple ones: the forward first).
std::vector<Simple> parse_action(std::string_view text, std::string& why) {
  if (!text.empty() && text.front() == '(') {
    const std::size_t close = text.find(')');
    if (close == std::string_view::npos || text.substr(close + 1) != "OVERLAP_F_B") {
      why = "an overlapped pair is written (forward;backward)OVERLAP_F_B, as in (1F3;6B1)OVERLAP_F_B";
      return {};
    }
    const std::string_view inside = text.substr(1, close - 1);
    const std::size_t semicolon = inside.find(';');
    if (semicolon == std::string_view::npos || inside.find(';', semicolon + 1) != std::string_view::npos) {
      why = "OVERLAP_F_B holds exactly two actions, a forward and a backward, separated by ';'";
      return {};
    }
    auto first = parse_simple(trim(inside.substr(0, semicolon)), why);
    if (!first) return {};
    auto second = parse_simple(trim(inside.substr(semicolon + 1)), why);
    if (!second) return {};
    if (second->kind == Kind::F) std::swap(first, second);
    if (first->kind != Kind::F || (second->kind != Kind::B && second->kind != Kind::I)) {
      why = "OVERLAP_F_B pairs one forward (F) with one backward (B, or I when its W runs apart)";
      return {};
    }
    return {*first, *second};
  }
  auto simple = parse_simple(text, why);
  if (!simple) return {};
  return {*simple};
}

}  // namespace ppb::program_text

namespace ppb {

ProgramText program_from_csv(const std::string& csv) {
  ProgramText out;
  out.csv = true;
  std::string_view rest = csv;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::vector<std::string> cells;
    while (true) {
      const std::size_t comma = line.find(',');
      std::string_view cell = program_text::trim(line.substr(0, comma));
      if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"')
        cell = program_text::trim(cell.substr(1, cell.size() - 2));
      cells.emplace_back(cell);
      if (comma == std::string_view::npos) break;
      line.remove_prefix(comma + 1);
    }
    out.ranks.push_back(std::move(cells));
  }
  // Blank lines at the end (a final newline and more) are no ranks.
  while (!out.ranks.empty() && out.ranks.back().size() == 1 && out.ranks.back().front().empty()) out.ranks.pop_back();
  return out;
}

}  // namespace ppb
