// ppb: the command-line face of the engine. Reads a request (file or stdin), runs one command,
// prints the contract's JSON on stdout and one line per error on stderr.
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "ppb/commands.hpp"

namespace {

constexpr const char* kUsage = R"(usage: ppb COMMAND FILE|- [--pretty] [--output FILE]
       ppb --help | --version

Commands (the request is JSON, read from FILE or from stdin with "-"; see docs/contract.md):
  estimate   evaluate the plan in "pipeline": per-stage memory and time, step time, bubble,
             violations of device.memory_limit_mib; "include_timeline": true adds every operation
  balance    PPB: the partition and recompute with the lowest simulated step time that fit memory,
             beside the even split ("baseline"); "balance": {"mode": "offset", "offset_range": k}
             ranks every layer_offset within +-k instead
  import     a MindFormers/HyperParallel SAPP layer file or a "transformer" description in,
             a ppb.model.v1 document out
  export     an estimate request with "export": {"to": "mindformers" | "megatron" | "chrome-trace"}

Examples:
  ppb estimate request.json --pretty
  echo '{"model": {"layers": [{"name": "l", "count": 8, "forward_ms": 1}]},
         "pipeline": {"pp_degree": 4, "micro_batch_num": 8}}' | ppb balance -
  ppb import examples/sapp-llama-80l.json --output model.json

Exit status: 0 result (feasible or not), 2 invalid request, 1 internal failure.
Errors: the JSON on stdout names each with a code and a JSON Pointer; stderr has one line each.
)";

}  // namespace

int main(int argc, char** argv) {
  std::string command, input, output;
  bool pretty = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--version") {
      std::cout << "ppb " << ppb::version() << "\n";
      return 0;
    }
    if (arg == "--pretty") pretty = true;
    else if (arg == "--output" && i + 1 < argc) output = argv[++i];
    else if (arg.rfind("--", 0) == 0) {
      std::cerr << "ppb: unknown option " << arg << "\n" << kUsage;
      return 2;
    } else if (command.empty()) command = arg;
    else if (input.empty()) input = arg;
    else {
      std::cerr << "ppb: unexpected argument " << arg << "\n" << kUsage;
      return 2;
    }
  }
  if (command.empty() || input.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  std::string text;
  if (input == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream file(input, std::ios::binary);
    if (!file) {
      std::cerr << "ppb: cannot read " << input << ": " << std::strerror(errno) << "\n";
      return 2;
    }
    text.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }
  const ppb::CommandOutput result = ppb::run_command(command, text);
  std::string out = result.json;
  const auto response = nlohmann::json::parse(out);
  if (pretty) out = response.dump(2);
  if (response.contains("errors"))
    for (const auto& e : response["errors"])
      std::cerr << "ppb: " << e.value("code", "") << " at " << (e.value("path", "").empty() ? "/" : e.value("path", ""))
                << ": " << e.value("message", "") << "\n";
  if (output.empty()) std::cout << out << "\n";
  else {
    std::ofstream file(output, std::ios::binary);
    if (!file || !(file << out << "\n")) {
      std::cerr << "ppb: cannot write " << output << "\n";
      return 1;
    }
  }
  return result.exit_code;
}
