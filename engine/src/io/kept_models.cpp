// Kept model documents: read once under the request's caps, named by an id in later requests.
#include "ppb/io/kept_models.hpp"

#include <map>
#include <mutex>

#include "ppb/core/json_text.hpp"

namespace ppb {

using nlohmann::json;

namespace {

// The marker's subtype: a deferred layer entry (json_text.cpp) is a binary value without one.
constexpr std::uint64_t kMarkerSubtype = 0x6b;  // 'k'

struct Store {
  std::mutex mutex;
  std::map<KeptModelId, std::shared_ptr<const KeptModel>> models;
  KeptModelId next = 1;
};

Store& store() {
  static Store s;
  return s;
}

}  // namespace

KeptModelId keep_model(std::string_view document_text) {
  auto kept = std::make_shared<KeptModel>();
  // Entries of /layers (a model document) or /model/layers (a request) stay text until the reader
  // builds each, as for a request.
  if (auto document = parse_json_text(document_text, kept->text_problems, DeferLayers::any_layers)) {
    const json* model = &*document;
    if (document->is_object() && !document->contains("layers")) {
      const auto inner = document->find("model");
      if (inner != document->end()) model = &*inner;
    }
    // The bytes per parameter set the layers' static memory, which every request sets again from its
    // own training state (request_reader.cpp): the defaults serve here.
    kept->parsed = parse_model(*model, "/model", BytesPerParam{}, kept->read_problems);
  }
  Store& s = store();
  const std::lock_guard lock(s.mutex);
  const KeptModelId id = s.next++;
  s.models.emplace(id, std::move(kept));
  return id;
}

bool drop_model(KeptModelId id) {
  Store& s = store();
  const std::lock_guard lock(s.mutex);
  return s.models.erase(id) > 0;
}

std::size_t kept_model_count() {
  Store& s = store();
  const std::lock_guard lock(s.mutex);
  return s.models.size();
}

std::shared_ptr<const KeptModel> find_kept_model(KeptModelId id) {
  Store& s = store();
  const std::lock_guard lock(s.mutex);
  const auto it = s.models.find(id);
  return it == s.models.end() ? nullptr : it->second;
}

json kept_model_marker(KeptModelId id) {
  std::vector<std::uint8_t> bytes(sizeof id);
  for (std::size_t i = 0; i < sizeof id; ++i)
    bytes[i] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(id) >> (8 * i));
  return json::binary(std::move(bytes), kMarkerSubtype);
}

std::shared_ptr<const KeptModel> kept_model_named(const json& value) {
  if (!value.is_binary()) return nullptr;
  const auto& bytes = value.get_binary();
  if (!bytes.has_subtype() || bytes.subtype() != kMarkerSubtype || bytes.size() != sizeof(KeptModelId)) return nullptr;
  std::uint32_t id = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) id |= static_cast<std::uint32_t>(bytes[i]) << (8 * i);
  return find_kept_model(static_cast<KeptModelId>(id));
}

}  // namespace ppb
