// The JSON faces of a search: the `search` command, which runs one to the end, and SearchSession,
// which runs one in slices; both read the request, step a Search and write the response, every
// failure turned into the contract's error response with its exit status.
#include "ppb/commands/search_session.hpp"

#include <optional>

#include "command_support.hpp"
#include "io/search_request.hpp"
#include "io/search_response.hpp"
#include "ppb/io/io.hpp"

namespace ppb {

struct SearchSession::Impl {
  CommandOutput error;
  Diagnostics diagnostics;  // the request's warnings, repeated in the response
  std::optional<Search> search;
};

SearchSession::SearchSession(std::string_view request_json, std::optional<KeptModelId> model)
    : impl_(std::make_unique<Impl>()) {
  const detail::RequestClock clock;
  try {
    // The same checked parse as every other command: size, depth, value count, number range.
    auto document = detail::read_request_text(request_json, impl_->diagnostics, true, model);
    if (!document) {
      impl_->error = detail::invalid(impl_->diagnostics);
      return;
    }
    auto request = detail::parse_search_request(*document, impl_->diagnostics);
    if (!request) {
      impl_->error = detail::invalid(impl_->diagnostics);
      return;
    }
    document.reset();  // read: freed inside the budget
    request->settings.spent_before_ms =
        detail::RequestClock::counted_ms(clock.elapsed_ms(), request->settings.time_budget_ms);
    impl_->search.emplace(std::move(request->problem), std::move(request->enumeration), request->settings);
  } catch (...) {
    impl_->error = failure_output(std::current_exception());
  }
}

SearchSession::SearchSession(Search search) : impl_(std::make_unique<Impl>()) {
  impl_->search.emplace(std::move(search));
}

SearchSession::~SearchSession() = default;

const CommandOutput& SearchSession::error() const { return impl_->error; }

SearchProgress SearchSession::step(double slice_ms) {
  if (!impl_->error.json.empty()) return {0, 0, true};
  try {
    return impl_->search->step(slice_ms);
  } catch (...) {
    impl_->error = failure_output(std::current_exception());
    return {0, 0, true};
  }
}

CommandOutput SearchSession::result(bool cancelled) {
  if (!impl_->error.json.empty()) return impl_->error;
  try {
    const SearchResult r = impl_->search->result(cancelled);
    return detail::ok_response("search", detail::search_result_json(r, impl_->search->problem()), impl_->diagnostics);
  } catch (...) {
    impl_->error = failure_output(std::current_exception());
    return impl_->error;
  }
}

namespace detail {

CommandOutput run_search(nlohmann::json document, const RequestClock& clock) {
  Diagnostics d;
  auto request = parse_search_request(document, d);
  if (!request) return invalid(d);
  document = nullptr;  // read: freed inside the budget
  request->settings.spent_before_ms = RequestClock::counted_ms(clock.elapsed_ms(), request->settings.time_budget_ms);
  Search search(std::move(request->problem), std::move(request->enumeration), request->settings);
  while (!search.step(1e9).finished) {
  }
  // A failure inside escapes to run_command, which answers it with exit status 1.
  return ok_response("search", search_result_json(search.result(false), search.problem()), d);
}

}  // namespace detail
}  // namespace ppb
