// Megatron-LM's pipeline layout string, read and written. The reading follows
// PipelineParallelLayerLayout.parse_str_to_list (commas dropped, "(...)*n" then "x*n" unrolled in
// one left-to-right pass each, then one character per layer) and the order rules of its
// validate_layer_layout.
#include "ppb/plan/megatron_layout.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "core/message_text.hpp"
#include "ppb/core/limits.hpp"

namespace ppb {
namespace {

// Layer characters and separators of one model: anything longer is not a plan.
constexpr std::size_t kMaxExpanded = static_cast<std::size_t>(4 * limits::max_layers);

std::string str(std::int64_t n) { return std::to_string(n); }

// The repeat count of "*n" starting at `at` (the first digit), saturated above the cap; `after` is
// the first character after the digits. False when there is no digit.
bool count_at(const std::string& text, std::size_t at, std::size_t& count, std::size_t& after) {
  after = at;
  count = 0;
  while (after < text.size() && std::isdigit(static_cast<unsigned char>(text[after]))) {
    count = std::min<std::size_t>(count * 10 + static_cast<std::size_t>(text[after] - '0'), kMaxExpanded + 1);
    ++after;
  }
  return after > at;
}

// "(...)*n": the text up to the first ")" repeated n times. Nothing when the result is too long.
std::optional<std::string> unroll_groups(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '(') {
      const std::size_t close = s.find(')', i + 1);
      std::size_t count = 0, after = 0;
      if (close != std::string::npos && close > i + 1 && close + 1 < s.size() && s[close + 1] == '*' &&
          count_at(s, close + 2, count, after)) {
        const std::size_t group = close - i - 1;
        if (group * count + out.size() > kMaxExpanded) return std::nullopt;
        for (std::size_t k = 0; k < count; ++k) out.append(s, i + 1, group);
        i = after;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

// "x*n": the character before "*" repeated n times (not a line break, as Python's "." is not).
std::optional<std::string> unroll_characters(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t count = 0, after = 0;
    if (i + 1 < s.size() && s[i] != '\n' && s[i + 1] == '*' && count_at(s, i + 2, count, after)) {
      if (out.size() + count > kMaxExpanded) return std::nullopt;
      out.append(count, s[i]);
      i = after;
      continue;
    }
    out += s[i++];
  }
  return out;
}

}  // namespace

std::optional<std::vector<int>> parse_megatron_layout(std::string_view layout, const std::string& path,
                                                      Diagnostics& d) {
  std::string text;
  for (char c : layout)
    if (c != ',') text += c;
  auto flat = unroll_groups(text);
  if (flat) flat = unroll_characters(*flat);
  if (!flat) {
    d.error("TOO_LARGE", path,
            "megatron_layout expands to more than " + str(static_cast<std::int64_t>(kMaxExpanded)) +
                " characters, the cap; a model has at most " + str(limits::max_layers) + " layers.");
    return std::nullopt;
  }

  std::vector<int> body(1, 0);
  int embeddings = 0, losses = 0;
  bool mtp_seen = false, decoder_after_mtp = false;
  for (char c : *flat) {
    switch (c) {
      case '|': body.push_back(0); break;
      case 'E': ++embeddings; break;
      case 'L': ++losses; break;
      case 'm':
        mtp_seen = true;
        ++body.back();
        break;
      case 't':
        decoder_after_mtp = decoder_after_mtp || mtp_seen;
        ++body.back();
        break;
      default:
        d.error("MEGATRON_LAYOUT_SYNTAX", path,
                "megatron_layout holds " + quoted_input(std::string(1, c)) + " in virtual stage " +
                    str(static_cast<std::int64_t>(body.size()) - 1) +
                    "; a layout knows E (embedding), t (decoder layer), m (MTP layer), L (loss), \"|\" between "
                    "virtual stages, x*n and (...)*n to repeat, and commas.");
        return std::nullopt;
    }
  }
  // Megatron-LM's validate_layer_layout, in one sentence (one code at one path is listed once).
  std::vector<std::string> problems;
  if (flat->empty() || flat->front() != 'E' || embeddings != 1)
    problems.push_back("it must open with E (the embedding), once");
  if (flat->empty() || flat->back() != 'L' || losses != 1) problems.push_back("it must close with L (the loss), once");
  if (decoder_after_mtp) problems.push_back("no decoder layer (t) may follow an MTP layer (m)");
  if (!problems.empty()) {
    std::string sentence = "megatron_layout breaks Megatron-LM's layout rules: ";
    for (std::size_t i = 0; i < problems.size(); ++i) sentence += (i == 0 ? "" : "; ") + problems[i];
    d.error("MEGATRON_LAYOUT_ENDS", path,
            sentence + ". E and L stand for the model's pinned-first and pinned-last layers.");
    return std::nullopt;
  }
  return body;
}

std::string megatron_layout(const Plan& plan, const Model& model) {
  const int v_count = plan.virtual_stages();
  const std::vector<int> body = body_layers_per_stage(model, plan.stage_layers);
  std::vector<std::string> tokens;
  for (int v = 0; v < v_count; ++v) {
    const int n = body[static_cast<std::size_t>(v)];
    std::string token = v == 0 ? "E" : "";
    token += n == 0 ? "" : n == 1 ? "t" : "t*" + str(n);
    if (v == v_count - 1) token += "L";
    tokens.push_back(std::move(token));
  }
  std::string out;
  for (int v = 0; v < v_count - 1;) {
    int run = 1;
    while (v + run < v_count - 1 && tokens[static_cast<std::size_t>(v + run)] == tokens[static_cast<std::size_t>(v)])
      ++run;
    const std::string& token = tokens[static_cast<std::size_t>(v)];
    if (run >= 2)
      out += "(" + token + "|)*" + str(run) + ",";
    else
      out += token + "|";
    v += run;
  }
  out += tokens.back();
  return out;
}

}  // namespace ppb
