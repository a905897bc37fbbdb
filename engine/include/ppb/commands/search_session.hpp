// A search for the WASM boundary: request JSON in, progress and the response JSON out, run in
// slices so that a browser worker can report progress and stop it between slices. A thin wrapper
// over Search (search.hpp) that carries each answer's exit status as run_command does.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "ppb/commands/commands.hpp"
#include "ppb/search/search.hpp"

namespace ppb {

class SearchSession {
 public:
  // Reads and checks the request; error() tells whether it can run. With `model`, the request names
  // that kept model (kept_models.hpp) instead of holding one, as run_command's.
  explicit SearchSession(std::string_view request_json, std::optional<KeptModelId> model = std::nullopt);
  // A session over a search stated in C++, answering in the same JSON.
  explicit SearchSession(Search search);
  ~SearchSession();
  SearchSession(const SearchSession&) = delete;
  SearchSession& operator=(const SearchSession&) = delete;

  // Why the search cannot run or go on: the contract's error response with its exit status (2 an
  // invalid request, 1 an internal failure or OUT_OF_MEMORY, also inside step() or result()); an
  // empty json when nothing failed.
  [[nodiscard]] const CommandOutput& error() const;
  // Evaluates candidates for about `slice_ms` (at least one) and says how far the search is;
  // finished after a failure, which error() then holds.
  SearchProgress step(double slice_ms);
  // The search response so far (exit status 0), or error() after a failure. `partial` is set when
  // cancelled, budgeted or unfinished.
  [[nodiscard]] CommandOutput result(bool cancelled);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppb
