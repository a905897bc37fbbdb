// Long-running work in slices behind one face, for the WASM boundary's one protocol (docs/page.md,
// "The worker protocol"): every command that runs in slices (sliced_commands(): balance, search) is
// started, stepped slice by slice with its progress in one JSON shape (progress_writer.hpp), asked
// for its best plan so far where it has one, and answered (cancelled or not) the same way. A thin
// wrapper over BalanceSession and SearchSession.
//   WorkSession work("balance", request_json);
//   if (!work.error().json.empty()) return work.error();
//   while (!work.step(40).finished) {}      // step() also writes the progress JSON
//   return work.result(false);               // as run_command("balance", request_json)
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ppb/commands/commands.hpp"

namespace ppb {

// One slice's report: the progress as JSON (progress_writer.hpp) and whether the work is over.
struct WorkStep {
  std::string progress_json;
  bool finished = false;
  // A best plan so far can be asked for (best_so_far()): a balance with an incumbent.
  bool has_best_so_far = false;
};

class WorkSession {
 public:
  // Reads and checks the request of `command`; error() tells whether it can run. A command that does
  // not run in slices is an error (COMMAND_UNKNOWN, exit status 2) naming the ones that do. With
  // `model`, the request names that kept model (kept_models.hpp) instead of holding one.
  WorkSession(std::string_view command, std::string_view request_json, std::optional<KeptModelId> model = std::nullopt);
  ~WorkSession();
  WorkSession(const WorkSession&) = delete;
  WorkSession& operator=(const WorkSession&) = delete;

  // The commands that run in slices, in the contract's order: "balance", "search".
  static const std::vector<std::string>& sliced_commands();

  // Why the work cannot run or go on: the contract's error response with its exit status; an empty
  // json when nothing failed.
  [[nodiscard]] const CommandOutput& error() const;
  // Works for about `slice_ms` (at least one unit of work) and reports; finished after a failure,
  // which error() then holds (with an empty progress_json when the command does not run in slices).
  WorkStep step(double slice_ms);
  // While the work goes on, its best plan so far as a response of its command (a balance's, not
  // proven); nothing for work without one (a search lists its candidates at the end).
  [[nodiscard]] std::optional<CommandOutput> best_so_far();
  // The response (exit status 0), or error() after a failure; before the end, the work so far, marked
  // as stopped (with `cancelled`: cancelled).
  [[nodiscard]] CommandOutput result(bool cancelled);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppb
