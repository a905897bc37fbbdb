// The `import` command: anything that describes a model in, a ppb.model.v1 document out. Sources:
// a SAPP layer description file (as the request, or under "sapp"), a symbolic "transformer"
// section, a Hugging Face config.json (as the request, or under "hf_config"), which becomes a
// transformer description (and its model when the request has a device), or a ppb.model.v1
// document (as the request, or under "model"), which is validated and passed through.
#include <stdexcept>
#include <string>
#include <vector>

#include "command_support.hpp"
#include "core/field_reader.hpp"
#include "ppb/interop/hf_config.hpp"
#include "ppb/interop/sapp.hpp"
#include "ppb/io/model_reader.hpp"

#include "ppb/model/transformer.hpp"

namespace ppb::detail {

using nlohmann::json;

namespace {

void check_imported(const json& model, const char* source) {
  // What an importer produces must itself be a valid model; a failure here is a bug, not bad input.
  Diagnostics check;
  parse_model(model, "/model", BytesPerParam{}, check);
  if (!check.ok())
    throw std::logic_error("import from " + std::string(source) + " produced an invalid model: " +
                           check.errors().front().code + " at " + check.errors().front().path);
}

CommandOutput imported(json model, const char* source, const Diagnostics& d) {
  check_imported(model, source);
  return ok_response("import", {{"model", std::move(model)}, {"source", source}}, d);
}

// A config.json: its transformer description, and the model generated from it when the request
// has a device for the generator.
CommandOutput from_hf_config(const json& document, bool config_itself, Diagnostics& d) {
  HfImportOptions options;
  json sections = nullptr;
  if (!config_itself) {
    FieldReader wrapper(document, "", d, "an import of a Hugging Face config.json");
    wrapper.allow("hf_config");
    options.seq_length = wrapper.integer("seq_length", {1, 1'000'000'000});  // the description's cap on a size
    options.name = wrapper.string("name");
    if (wrapper.has("device")) sections = json::object();
    for (const char* key : {"parallel", "training", "device", "pipeline"}) {
      const json* section = wrapper.get(key);
      if (section && sections.is_object())
        sections[key] = *section;
      else if (section)
        d.warning("IGNORED_FIELD", wrapper.at(key),
                  std::string(key) +
                      " is read only to generate result.model, which needs a device (with peak_tflops); "
                      "without one the import gives the description alone.");
    }
  }
  if (!d.ok()) return invalid(d);
  auto description = hf_transformer(config_itself ? document : document.at("hf_config"),
                                    config_itself ? "" : "/hf_config", options, d);
  if (!description) return invalid(d);
  auto model = hf_model(*description, sections, d);
  if (!d.ok()) return invalid(d);
  json result = {{"transformer", description->transformer}, {"source", "hf_config"}};
  if (model) {
    check_imported(*model, "hf_config");
    result["model"] = std::move(*model);
  }
  return ok_response("import", std::move(result), d);
}

CommandOutput pass_through(const json& model, const std::string& path, Diagnostics& d) {
  parse_model(model, path, BytesPerParam{}, d);
  if (!d.ok()) return invalid(d);
  return ok_response("import", {{"model", model}, {"source", "ppb.model.v1"}}, d);
}

}  // namespace

CommandOutput run_import(json document, const RequestClock& /*clock*/) {
  Diagnostics d;
  if (!document.is_object()) {
    d.error("TYPE_MISMATCH", "",
            "the import request must be a JSON object: a SAPP layer file, {\"sapp\": ...}, "
            "{\"transformer\": ...}, a Hugging Face config.json, {\"hf_config\": ...} or a ppb.model.v1 document.");
    return invalid(d);
  }
  const bool sapp_itself = is_sapp_file(document);
  const bool hf_itself = is_hf_config(document);
  const bool model_itself = document.contains("layers") || document.contains("format");
  std::vector<std::string> sources;
  if (sapp_itself) sources.emplace_back("layers_description");
  if (hf_itself) sources.emplace_back("model_type");
  for (const char* key : {"sapp", "transformer", "hf_config", "model"})
    if (document.contains(key)) sources.emplace_back(key);
  if (model_itself && !sapp_itself) sources.emplace_back("layers");
  if (sources.size() > 1) {
    std::string list;
    for (const auto& s : sources) list += (list.empty() ? "" : ", ") + s;
    d.error("IMPORT_SOURCE_CONFLICT", "",
            "the request describes the model more than one way (" + list + "); give exactly one source.");
    return invalid(d);
  }
  if (sources.empty()) {
    d.error("IMPORT_SOURCE_UNKNOWN", "",
            "nothing to import: give a SAPP layer file (with layers_description), {\"sapp\": file}, a "
            "\"transformer\" section, a Hugging Face config.json (with model_type), {\"hf_config\": config} or a "
            "ppb.model.v1 document.");
    return invalid(d);
  }

  if (sapp_itself || document.contains("sapp")) {
    const std::string path = sapp_itself ? "" : "/sapp";
    if (!sapp_itself) {
      FieldReader wrapper(document, "", d, "an import of a SAPP file");
      wrapper.allow("sapp");
    }
    auto model = sapp_model(sapp_itself ? document : document.at("sapp"), path, d);
    if (!model) return invalid(d);
    return imported(std::move(*model), "sapp", d);
  }
  if (hf_itself || document.contains("hf_config")) return from_hf_config(document, hf_itself, d);
  if (document.contains("transformer")) {
    auto model = transformer_model(document, d);
    if (!model || !d.ok()) return invalid(d);
    return imported(std::move(*model), "transformer", d);
  }
  if (document.contains("model")) return pass_through(document.at("model"), "/model", d);
  return pass_through(document, "", d);
}

}  // namespace ppb::detail
