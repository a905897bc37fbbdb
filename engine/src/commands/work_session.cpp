// WorkSession: the balance and the search in slices behind one face, each slice's progress written
// by the one progress writer.
#include "ppb/commands/work_session.hpp"

#include <nlohmann/json.hpp>

#include "command_support.hpp"
#include "ppb/commands/balance_session.hpp"
#include "ppb/commands/search_session.hpp"
#include "ppb/io/progress_writer.hpp"

namespace ppb {

struct WorkSession::Impl {
  CommandOutput unknown;  // the command does not run in slices
  std::unique_ptr<BalanceSession> balance;
  std::unique_ptr<SearchSession> search;
};

const std::vector<std::string>& WorkSession::sliced_commands() {
  static const std::vector<std::string> commands = {"balance", "search"};
  return commands;
}

WorkSession::WorkSession(std::string_view command, std::string_view request_json, std::optional<KeptModelId> model)
    : impl_(std::make_unique<Impl>()) {
  if (command == "balance") {
    impl_->balance = std::make_unique<BalanceSession>(request_json, model);
  } else if (command == "search") {
    impl_->search = std::make_unique<SearchSession>(request_json, model);
  } else {
    nlohmann::json out = {{"ok", false},
                          {"errors",
                           {{{"code", "COMMAND_UNKNOWN"},
                             {"path", ""},
                             {"message", "command \"" + std::string(command) +
                                             "\" does not run in slices; the commands that do: balance, search."}}}}};
    // The name may be any bytes.
    impl_->unknown = {out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 2};
  }
}

WorkSession::~WorkSession() = default;

const CommandOutput& WorkSession::error() const {
  if (impl_->balance) return impl_->balance->error();
  if (impl_->search) return impl_->search->error();
  return impl_->unknown;
}

WorkStep WorkSession::step(double slice_ms) {
  if (impl_->balance) {
    const BalanceProgress p = impl_->balance->step(slice_ms);
    return {progress_json(p), p.finished, !p.finished && p.incumbent_ms.has_value()};
  }
  if (impl_->search) {
    const SearchProgress p = impl_->search->step(slice_ms);
    return {progress_json(p), p.finished, false};
  }
  return {"", true, false};  // a command that does not run in slices has no progress
}

std::optional<CommandOutput> WorkSession::best_so_far() {
  if (impl_->balance) return impl_->balance->best_so_far();
  return std::nullopt;
}

CommandOutput WorkSession::result(bool cancelled) {
  if (impl_->balance) return impl_->balance->result(cancelled);
  if (impl_->search) return impl_->search->result(cancelled);
  return impl_->unknown;
}

}  // namespace ppb
