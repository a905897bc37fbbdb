// The balance command for the WASM boundary: request JSON in, progress and the response JSON out,
// run in slices, so that a browser worker can report progress (the incumbent and the proven lower
// bound closing on it), stop between slices, and make each slice a fresh call into the module (V8
// moves a module's hot code to its optimising tier between calls, not within one). A thin wrapper
// over Balancer (balance.hpp) that carries each answer's exit status as run_command does; the
// `balance` command is the same run in one slice.
//   BalanceSession session(request_json);
//   if (!session.error().json.empty()) return session.error();
//   while (!session.step(50).finished) {}
//   return session.result(false);  // as run_command("balance", request_json)
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "ppb/balance/balance.hpp"
#include "ppb/commands/commands.hpp"

namespace ppb {

class BalanceSession {
 public:
  // Reads and checks the request; error() tells whether it can run. With `model`, the request names
  // that kept model (kept_models.hpp) instead of holding one, as run_command's.
  explicit BalanceSession(std::string_view request_json, std::optional<KeptModelId> model = std::nullopt);
  ~BalanceSession();
  BalanceSession(const BalanceSession&) = delete;
  BalanceSession& operator=(const BalanceSession&) = delete;

  // Why the balance cannot run or go on: the contract's error response with its exit status (2 an
  // invalid request, 1 an internal failure or OUT_OF_MEMORY, also inside step() or result()); an
  // empty json when nothing failed.
  [[nodiscard]] const CommandOutput& error() const;
  // Balances for about `slice_ms` (at least one unit of work) and says how far it is; finished
  // after a failure, which error() then holds. The offset mode runs whole in its first step.
  BalanceProgress step(double slice_ms);
  // The balance response (exit status 0), or error() after a failure. Before the balance has
  // finished, the best plan so far, not proven, its notes saying the balance was stopped (with
  // `cancelled`: cancelled) before it finished.
  [[nodiscard]] CommandOutput result(bool cancelled);
  // While the balance goes on, its best plan so far as a balance response, not proven, its notes
  // saying the balance is still running (a page draws it at once and refines it); after the end,
  // result(). The balance can go on after it.
  [[nodiscard]] CommandOutput best_so_far();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppb
