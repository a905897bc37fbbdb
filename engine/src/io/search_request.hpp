// Reading a search request: the request as every command reads it, plus its `search` section and
// the cluster fields of `training` / `parallel`, into the values a Search runs on.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "ppb/core/diagnostics.hpp"
#include "ppb/search/search.hpp"

namespace ppb::detail {

struct SearchRequest {
  SearchProblem problem;
  SearchEnumeration enumeration;  // of the space the request states, checked against SEARCH_LIMIT
  SearchSettings settings;
};

// Every problem goes to `diagnostics` (warnings too); the request is returned only when there are
// no errors.
std::optional<SearchRequest> parse_search_request(const nlohmann::json& document, Diagnostics& diagnostics);

}  // namespace ppb::detail
