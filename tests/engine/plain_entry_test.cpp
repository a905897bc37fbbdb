// The model reader's two ways to an entry: a layer entry the parse kept as text (json_text.hpp) is read
// straight from its text when it is plain (model_reader.cpp, read_plain_entry), any other through its
// JSON object (read_entry). Over thousands of generated entries, plain and not, the model read from the
// deferred parse is the model read from the whole parse: every layer field, the recompute options in
// their order, the errors and warnings.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "ppb/core/json_text.hpp"
#include "ppb/io/model_reader.hpp"

namespace ppb::test {
namespace {

// Values of every kind a field may meet: in range, out of range, at the edges, of another type, and
// numbers written every way JSON allows.
const std::vector<std::string> kNumbers = {"0",
                                           "-0",
                                           "1",
                                           "2.5",
                                           "1e3",
                                           "1E-2",
                                           "0.000001",
                                           "123456789012",
                                           "1000000000000",
                                           "1000000000001",
                                           "-1",
                                           "-0.5",
                                           "3.25",
                                           "7e-1",
                                           "2e12",
                                           "1e20",
                                           "1e21",
                                           "2e21",
                                           "18446744073709551616",
                                           "4.0",
                                           "8",
                                           "16",
                                           "64",
                                           "0.125",
                                           "\"3\"",
                                           "true",
                                           "null",
                                           "[1]",
                                           "{\"a\": 1}"};
const std::vector<std::string> kStrings = {"\"decoder\"", "\"d\\u0065c\"",         "\"\"", "\"first\"", "\"last\"",
                                           "\"middle\"",  "\"\xc3\xa9t\xc3\xa9\"", "3",    "null",      "[\"x\"]"};
const std::vector<std::string> kNumericFields = {
    "forward_ms", "backward_ms",     "weight_backward_ms", "params",         "expert_params", "weights_mib",
    "grads_mib",  "optimizer_mib",   "static_mib",         "activation_mib", "send_mib",      "weight_activation_mib",
    "flops",      "forward_comm_ms", "backward_comm_ms"};

class EntryMaker {
 public:
  explicit EntryMaker(unsigned seed) : random_(seed) {}

  // A plain entry, as a profiler writes one: a name, the times, one form of static memory, activation,
  // send size, flops, recompute options with both costs; nothing out of range.
  std::string clean_entry() {
    std::vector<std::string> members = {member("name", "\"decoder\""), member("forward_ms", plain_number())};
    if (chance(0.5)) members.push_back(member("backward_ms", pick({"3", "4.5", "20"})));
    const int form = static_cast<int>(random_() % 4);
    if (form == 1) members.push_back(member("params", pick({"80000000", "123456789", "1e9"})));
    if (form == 2) members.push_back(member("static_mib", plain_number()));
    if (form == 3) members.push_back(member("weights_mib", plain_number()));
    for (const char* field : {"activation_mib", "send_mib", "flops", "kind"})
      if (chance(0.5)) members.push_back(member(field, std::string(field) == "kind" ? "\"decoder\"" : plain_number()));
    if (chance(0.7)) {
      std::string options = "{";
      for (const char* name : {"selective", "full", "mlp"}) {
        if (!chance(0.6)) continue;
        if (options.size() > 1) options += ',';
        std::string cost = "{";
        cost += member("activation_mib", plain_number());
        cost += ',';
        cost += member("extra_ms", plain_number());
        cost += '}';
        options += member(name, cost);
      }
      options += '}';
      members.push_back(member("recompute", options));
    }
    return object_of(members);
  }

  std::string entry() {
    std::vector<std::string> members;
    // Mostly plain entries (a name and a forward time, some costs, recompute options), some not.
    members.push_back(member("name", chance(0.9) ? "\"decoder\"" : pick(kStrings)));
    if (chance(0.95)) members.push_back(member("forward_ms", chance(0.85) ? plain_number() : pick(kNumbers)));
    for (const std::string& field : kNumericFields)
      if (field != "forward_ms" && chance(0.25))
        members.push_back(member(field, chance(0.8) ? plain_number() : pick(kNumbers)));
    if (chance(0.2)) members.push_back(member("kind", pick(kStrings)));
    if (chance(0.1)) members.push_back(member("pin", pick(kStrings)));
    if (chance(0.5)) members.push_back(member("recompute", recompute()));
    if (chance(0.03)) members.push_back(member("count", pick({"1", "2", "0", "1.5"})));
    if (chance(0.03)) members.push_back(member("components", R"({"tp": {"forward_ms": 1}})"));
    if (chance(0.03)) members.push_back(member("colour", "\"red\""));
    if (chance(0.03)) members.push_back(members[random_() % members.size()]);  // a field twice
    if (chance(0.02)) members.push_back(member(std::string(1001, 'n'), "1"));
    return object_of(members);
  }

 private:
  // The members in a shuffled order, with white space between them.
  std::string object_of(std::vector<std::string> members) {
    std::shuffle(members.begin(), members.end(), random_);
    std::string text = "{";
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i) text += ',';
      text += space();
      text += members[i];
    }
    text += space();
    return text += '}';
  }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(random_) < p; }
  std::string pick(const std::vector<std::string>& from) { return from[random_() % from.size()]; }
  std::string space() { return pick({"", "", " ", "\n  ", "\t"}); }
  std::string member(const std::string& key, const std::string& value) {
    std::string text = "\"";
    text += key;
    text += '"';
    text += space();
    text += ':';
    text += space();
    return text += value;
  }
  std::string plain_number() {
    return pick({"1", "2", "0.5", "1.25", "3e1", "100", "4096", "80000000", "0.1", "2.75"});
  }
  std::string recompute() {
    std::vector<std::string> options;
    const int n = static_cast<int>(random_() % 4);
    for (int i = 0; i < n; ++i) {
      std::string name = pick({"full", "selective", "attention", "mlp", "none", "", "layers", "full"});
      std::vector<std::string> parts;
      if (chance(0.9)) parts.push_back(member("activation_mib", chance(0.9) ? plain_number() : pick(kNumbers)));
      if (chance(0.9)) parts.push_back(member("extra_ms", chance(0.9) ? plain_number() : pick(kNumbers)));
      if (chance(0.05)) parts.push_back(member("other", "1"));
      std::string cost = "{";
      for (std::size_t j = 0; j < parts.size(); ++j) {
        if (j) cost += ',';
        cost += parts[j];
      }
      options.push_back(member(name, chance(0.97) ? cost + "}" : "3"));
    }
    std::string text = "{";
    for (std::size_t i = 0; i < options.size(); ++i) {
      if (i) text += ',';
      text += options[i];
    }
    return chance(0.97) ? text + "}" : "[]";
  }

  std::mt19937 random_;
};

void expect_same_layer(const Layer& a, const Layer& b, const std::string& where) {
  EXPECT_EQ(a.name, b.name) << where;
  EXPECT_EQ(a.kind, b.kind) << where;
  EXPECT_EQ(a.pin, b.pin) << where;
  EXPECT_EQ(a.entry, b.entry) << where;
  for (const auto& [x, y] : std::vector<std::pair<double, double>>{{a.forward_ms, b.forward_ms},
                                                                   {a.backward_ms, b.backward_ms},
                                                                   {a.weight_backward_ms, b.weight_backward_ms},
                                                                   {a.params, b.params},
                                                                   {a.expert_params, b.expert_params},
                                                                   {a.weights_mib, b.weights_mib},
                                                                   {a.grads_mib, b.grads_mib},
                                                                   {a.optimizer_mib, b.optimizer_mib},
                                                                   {a.other_static_mib, b.other_static_mib},
                                                                   {a.activation_mib, b.activation_mib},
                                                                   {a.forward_comm_ms, b.forward_comm_ms},
                                                                   {a.backward_comm_ms, b.backward_comm_ms},
                                                                   {a.send_mib, b.send_mib}}) {
    EXPECT_EQ(x, y) << where;
    EXPECT_EQ(std::signbit(x), std::signbit(y)) << where;
  }
  EXPECT_EQ(a.weight_activation_mib, b.weight_activation_mib) << where;
  EXPECT_EQ(a.flops, b.flops) << where;
  ASSERT_EQ(a.recompute.size(), b.recompute.size()) << where;
  for (std::size_t i = 0; i < a.recompute.size(); ++i) {
    ASSERT_EQ(a.recompute[i].has_value(), b.recompute[i].has_value()) << where;
    if (!a.recompute[i]) continue;
    EXPECT_EQ(a.recompute[i]->activation_mib, b.recompute[i]->activation_mib) << where;
    EXPECT_EQ(a.recompute[i]->extra_ms, b.recompute[i]->extra_ms) << where;
  }
  EXPECT_EQ(a.components.size(), b.components.size()) << where;
}

std::string diagnostics_text(const Diagnostics& d) { return errors_json(d).dump() + warnings_json(d).dump(); }

TEST(PlainEntries, ReadAsTheirJsonObjectsAre) {
  int plain_models = 0;
  for (unsigned seed = 1; seed <= 400; ++seed) {
    EntryMaker maker(seed);
    std::string layers;
    const int entries = 1 + static_cast<int>(seed % 12);
    const bool clean = seed % 3 == 0;
    for (int i = 0; i < entries; ++i) {
      if (i) layers += ',';
      layers += clean ? maker.clean_entry() : maker.entry();
    }
    const std::string text = R"({"model": {"name": "m", "layers": [)" + layers + "]}}";
    const std::string where = "seed " + std::to_string(seed) + ": " + text;
    Diagnostics parse_deferred, parse_whole;
    const auto deferred = parse_json_text(text, parse_deferred, DeferLayers::model_layers);
    const auto whole = parse_json_text(text, parse_whole);
    ASSERT_EQ(deferred.has_value(), whole.has_value()) << where;
    if (!deferred) continue;
    Diagnostics read_deferred_d, read_whole_d;
    const BytesPerParam bytes{2, 4, 12};
    const ParsedModel a = parse_model((*deferred)["model"], "/model", bytes, read_deferred_d);
    const ParsedModel b = parse_model((*whole)["model"], "/model", bytes, read_whole_d);
    EXPECT_EQ(diagnostics_text(read_deferred_d), diagnostics_text(read_whole_d)) << where;
    EXPECT_EQ(a.layers_known, b.layers_known) << where;
    EXPECT_EQ(a.model.recompute_options, b.model.recompute_options) << where;
    EXPECT_EQ(a.model.pinned_first, b.model.pinned_first) << where;
    EXPECT_EQ(a.model.pinned_last, b.model.pinned_last) << where;
    ASSERT_EQ(a.model.layers.size(), b.model.layers.size()) << where;
    for (std::size_t i = 0; i < a.model.layers.size(); ++i)
      expect_same_layer(a.model.layers[i], b.model.layers[i], where);
    if (read_whole_d.ok() && read_whole_d.warnings().empty()) ++plain_models;
    if (::testing::Test::HasFailure()) return;
  }
  // The generator makes both kinds: models every entry of which is plain (a third of them, and a few
  // others by chance), and models with problems.
  EXPECT_GE(plain_models, 133);
  EXPECT_LT(plain_models, 300);
}

}  // namespace
}  // namespace ppb::test
