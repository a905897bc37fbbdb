// Strategy search: pp_degree x vpp_degree x micro_batch_num x schedule, every candidate balanced by
// PPB (partition, layer offset, recompute) and simulated; ranked by step time, with the Pareto front
// of step time against the largest stage peak memory and the reasons of every infeasible one.
//
// A session runs in slices so that a browser worker can report progress and stop it between
// slices; `search` on the command line runs one session to the end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ppb {

struct SearchProgress {
  std::int64_t done = 0;
  std::int64_t total = 0;
  bool finished = false;
};

class SearchSession {
 public:
  // Parses and checks the request; error() tells whether it can run.
  explicit SearchSession(std::string_view request_json);
  ~SearchSession();
  SearchSession(const SearchSession&) = delete;
  SearchSession& operator=(const SearchSession&) = delete;

  // The contract's error response when the request is invalid, otherwise empty.
  [[nodiscard]] const std::string& error() const;
  // Evaluates candidates for about `slice_ms` (at least one) and says how far the search is.
  SearchProgress step(double slice_ms);
  // The search response so far; `partial` is set when cancelled, budgeted or unfinished.
  [[nodiscard]] std::string result(bool cancelled);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppb
