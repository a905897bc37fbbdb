// Writing a search result as the contract's `result` of `search` (docs/contract.md).
#pragma once

#include <nlohmann/json.hpp>

#include "ppb/model/model.hpp"
#include "ppb/search/search.hpp"

namespace ppb::detail {

// One candidate: every candidate has the same keys, the figures of a plan null for one ruled out
// before it could be balanced.
nlohmann::json search_candidate_json(const SearchCandidate& candidate, const Model& model);
nlohmann::json search_result_json(const SearchResult& result, const SearchProblem& problem);

}  // namespace ppb::detail
