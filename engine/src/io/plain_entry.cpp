// Plain layer entries read straight from the text the parse kept (plain_entry.hpp).
#include "io/plain_entry.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ppb/core/limits.hpp"

namespace ppb {

namespace {

constexpr double kMiB = 1048576.0;

// The text of one layer entry as the parse kept it (json_text.hpp), read by hand: the value of each
// field, no more checked than a parse that has already passed the text needs.
class EntryText {
 public:
  explicit EntryText(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool eat(char c) {
    skip_space();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  [[nodiscard]] bool at_end() {
    skip_space();
    return p_ == end_;
  }
  // A string written without escapes, or nothing.
  std::optional<std::string_view> string() {
    if (!eat('"')) return std::nullopt;
    const char* start = p_;
    while (p_ != end_ && *p_ != '"') {
      if (*p_ == '\\') return std::nullopt;
      ++p_;
    }
    if (p_ == end_) return std::nullopt;
    return std::string_view(start, static_cast<std::size_t>(p_++ - start));
  }
  // A number as nlohmann's lexer converts it and json::get<double>() gives it: a whole number through
  // strtoll / strtoull (strtod when it overflows them), any other through strtod. Nothing for a value
  // that is not a number.
  std::optional<double> number() {
    skip_space();
    const char* start = p_;
    bool whole = true;
    while (p_ != end_ &&
           ((*p_ >= '0' && *p_ <= '9') || *p_ == '-' || *p_ == '+' || *p_ == '.' || *p_ == 'e' || *p_ == 'E')) {
      whole = whole && *p_ != '.' && *p_ != 'e' && *p_ != 'E';
      ++p_;
    }
    const auto length = static_cast<std::size_t>(p_ - start);
    std::array<char, 64> token{};
    if (length == 0 || length >= token.size()) return std::nullopt;
    std::copy(start, p_, token.begin());
    char* stop = nullptr;
    if (whole) {
      errno = 0;
      if (token[0] == '-') {
        const long long value = std::strtoll(token.data(), &stop, 10);
        if (errno == 0 && stop == token.data() + length) return static_cast<double>(value);
      } else {
        const unsigned long long value = std::strtoull(token.data(), &stop, 10);
        if (errno == 0 && stop == token.data() + length) return static_cast<double>(value);
      }
    }
    const double value = std::strtod(token.data(), &stop);
    if (stop != token.data() + length) return std::nullopt;
    return value;
  }

 private:
  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  const char* p_;
  const char* end_;
};

// The fields a plain layer entry may hold, each at most once.
enum PlainField : int {
  kName,
  kKind,
  kPin,
  kForward,
  kBackward,
  kWeightBackward,
  kParams,
  kExpertParams,
  kWeights,
  kGrads,
  kOptimizer,
  kStatic,
  kActivation,
  kSend,
  kWeightActivation,
  kFlops,
  kForwardComm,
  kBackwardComm,
  kRecompute,
  kPlainFields
};

int plain_field(std::string_view key) {
  static constexpr std::array<std::string_view, kPlainFields> names = {"name",
                                                                       "kind",
                                                                       "pin",
                                                                       "forward_ms",
                                                                       "backward_ms",
                                                                       "weight_backward_ms",
                                                                       "params",
                                                                       "expert_params",
                                                                       "weights_mib",
                                                                       "grads_mib",
                                                                       "optimizer_mib",
                                                                       "static_mib",
                                                                       "activation_mib",
                                                                       "send_mib",
                                                                       "weight_activation_mib",
                                                                       "flops",
                                                                       "forward_comm_ms",
                                                                       "backward_comm_ms",
                                                                       "recompute"};
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == key) return static_cast<int>(i);
  return -1;
}

}  // namespace

bool read_plain_entry(std::string_view text, int entry_index, const BytesPerParam& bytes, Model& model) {
  if (model.layer_count() + 1 > limits::max_layers) return false;
  EntryText in(text);
  std::array<std::optional<double>, kPlainFields> numbers{};
  std::array<std::optional<std::string_view>, kPlainFields> strings{};
  std::array<bool, kPlainFields> seen{};
  std::vector<std::pair<std::string_view, RecomputeCost>> options;
  if (!in.eat('{')) return false;
  if (!in.eat('}')) {
    do {
      const auto key = in.string();
      if (!key || !in.eat(':')) return false;
      const int field = plain_field(*key);
      if (field < 0 || seen[static_cast<std::size_t>(field)]) return false;
      seen[static_cast<std::size_t>(field)] = true;
      if (field == kName || field == kKind || field == kPin) {
        const auto value = in.string();
        if (!value || static_cast<std::int64_t>(value->size()) > limits::max_name_length) return false;
        strings[static_cast<std::size_t>(field)] = value;
      } else if (field == kRecompute) {
        if (!in.eat('{')) return false;
        if (!in.eat('}')) {
          do {
            const auto name = in.string();
            if (!name || name->empty() || *name == "none" || *name == "layers" ||
                static_cast<std::int64_t>(name->size()) > limits::max_name_length || !in.eat(':') || !in.eat('{'))
              return false;
            RecomputeCost cost;
            bool activation = false, extra = false;
            if (!in.eat('}')) {
              do {
                const auto part = in.string();
                if (!part || !in.eat(':')) return false;
                const bool is_activation = *part == "activation_mib";
                if ((!is_activation && *part != "extra_ms") || (is_activation ? activation : extra)) return false;
                (is_activation ? activation : extra) = true;
                const auto value = in.number();
                if (!value || !(*value >= 0 && *value <= limits::max_quantity)) return false;
                (is_activation ? cost.activation_mib : cost.extra_ms) = *value;
              } while (in.eat(','));
              if (!in.eat('}')) return false;
            }
            for (const auto& [other, unused] : options)
              if (other == *name) return false;
            options.emplace_back(*name, cost);
          } while (in.eat(','));
          if (!in.eat('}')) return false;
        }
      } else {
        const auto value = in.number();
        const double max = field == kFlops ? limits::max_flops : limits::max_quantity;
        if (!value || !(*value >= 0 && *value <= max)) return false;
        numbers[static_cast<std::size_t>(field)] = value;
      }
    } while (in.eat(','));
    if (!in.eat('}')) return false;
  }
  if (!in.at_end() || !strings[kName] || !numbers[kForward]) return false;
  // As read_costs and read_zero_bubble_costs read them.
  Layer layer;
  layer.entry = entry_index;
  layer.name = std::string(*strings[kName]);
  layer.kind = std::string(strings[kKind].value_or(""));
  if (strings[kPin]) {
    if (*strings[kPin] == "first")
      layer.pin = Pin::first;
    else if (*strings[kPin] == "last")
      layer.pin = Pin::last;
    else
      return false;
  }
  layer.forward_ms = *numbers[kForward];
  layer.backward_ms = numbers[kBackward].value_or(2 * layer.forward_ms);
  layer.weight_backward_ms = numbers[kWeightBackward].value_or(layer.backward_ms / 2);
  if (layer.weight_backward_ms > layer.backward_ms) return false;
  const bool by_parts = numbers[kWeights] || numbers[kGrads] || numbers[kOptimizer];
  if (int(numbers[kParams].has_value()) + int(by_parts) + int(numbers[kStatic].has_value()) > 1) return false;
  if (numbers[kExpertParams] && (!numbers[kParams] || *numbers[kExpertParams] > *numbers[kParams])) return false;
  if (numbers[kParams]) {
    layer.params = *numbers[kParams];
    layer.expert_params = numbers[kExpertParams].value_or(0);
    layer.weights_mib = layer.params * bytes.weights / kMiB;
    layer.grads_mib = layer.params * bytes.grads / kMiB;
    layer.optimizer_mib = layer.params * bytes.optimizer / kMiB;
  }
  if (by_parts) {
    layer.weights_mib = numbers[kWeights].value_or(0);
    layer.grads_mib = numbers[kGrads].value_or(0);
    layer.optimizer_mib = numbers[kOptimizer].value_or(0);
  }
  layer.other_static_mib = numbers[kStatic].value_or(0);
  layer.activation_mib = numbers[kActivation].value_or(0);
  layer.send_mib = numbers[kSend].value_or(0);
  if (numbers[kWeightActivation] && *numbers[kWeightActivation] > layer.activation_mib) return false;
  layer.weight_activation_mib = numbers[kWeightActivation];
  layer.flops = numbers[kFlops];
  if (numbers[kForwardComm].value_or(0) > layer.forward_ms || numbers[kBackwardComm].value_or(0) > layer.backward_ms)
    return false;
  layer.forward_comm_ms = numbers[kForwardComm].value_or(0);
  layer.backward_comm_ms = numbers[kBackwardComm].value_or(0);
  // The options in the order read_recompute_options meets them (a JSON object's, by name); new names
  // join the model's list, every layer already read getting an empty slot for them.
  std::sort(options.begin(), options.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t added = 0;
  for (const auto& [name, cost] : options)
    if (model.option_index(std::string(name)) < 0) ++added;
  if (added > 0 && static_cast<std::int64_t>(model.recompute_options.size() + added) > limits::max_recompute_options)
    return false;
  for (const auto& [name, cost] : options) {
    if (model.option_index(std::string(name)) >= 0) continue;
    model.recompute_options.emplace_back(name);
    for (Layer& earlier : model.layers) earlier.recompute.push_back(std::nullopt);
  }
  layer.recompute.assign(model.recompute_options.size(), std::nullopt);
  for (const auto& [name, cost] : options)
    layer.recompute[static_cast<std::size_t>(model.option_index(std::string(name)))] = cost;
  model.layers.push_back(std::move(layer));
  return true;
}

}  // namespace ppb
