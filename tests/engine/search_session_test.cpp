// The JSON faces of the search (the `search` command and SearchSession) as thin wrappers over the
// value search: the same answers, and each failure with its exit status (0 result, 2 invalid
// request, 1 internal failure or out of memory).
#include "ppb/commands/search_session.hpp"

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>

#include "helpers.hpp"
#include "search_helpers.hpp"

namespace ppb::test {
namespace {

const char* const kValid = R"({"model": {"layers": [{"name": "l", "count": 8, "forward_ms": 1}]},
                               "search": {"pp_degree": [2, 4], "micro_batch_num": [8]}})";
const char* const kInvalid = R"({"model": {"layers": [{"name": "l", "count": 8, "forward_ms": 1}]},
                                 "search": {"pp_degree": [2, 4], "micro_batch_num": [8], "schedule": ["2f2b"]}})";

TEST(SearchSession, ResultExitsZero) {
  SearchSession session(kValid);
  EXPECT_TRUE(session.error().json.empty());
  while (!session.step(1000).finished) {
  }
  const CommandOutput out = session.result(false);
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_TRUE(json::parse(out.json)["ok"]);
  EXPECT_EQ(run_command("search", kValid).exit_code, 0);
}

TEST(SearchSession, InvalidRequestExitsTwo) {
  SearchSession session(kInvalid);
  EXPECT_EQ(session.error().exit_code, 2);
  EXPECT_TRUE(has_error(json::parse(session.error().json), "SCHEDULE_UNKNOWN", "/search/schedule/0"));
  EXPECT_TRUE(session.step(1000).finished);
  EXPECT_EQ(session.result(false).exit_code, 2);
  EXPECT_EQ(run_command("search", kInvalid).exit_code, 2);
}

// A search stated in C++ with pp_degree 0 breaks evaluate_candidate's invariant inside step(): the
// session answers INTERNAL with exit status 1 from then on, never a result with exit status 0.
TEST(SearchSession, FailureInsideStepExitsOne) {
  SearchProblem problem;
  problem.model = equal_layers(4, 1, 2, 0, 0);
  SearchEnumeration broken;
  broken.combinations = {{PipelineShape{0, 1, 4, Schedule::one_f_one_b}, 1}};
  broken.space = 1;
  SearchSession session(Search(std::move(problem), std::move(broken), SearchSettings{}));
  EXPECT_TRUE(session.error().json.empty());
  EXPECT_TRUE(session.step(1000).finished);
  EXPECT_EQ(session.error().exit_code, 1);
  const json error = json::parse(session.error().json);
  EXPECT_EQ(error_codes(error), std::vector<std::string>{"INTERNAL"});
  const CommandOutput out = session.result(false);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.json, session.error().json);
}

// The one mapping of escaped exceptions that run_command, and so the search command, and the
// session share: out of memory has its own code, both exit with status 1.
TEST(SearchSession, EscapedExceptionsExitOne) {
  const CommandOutput memory = failure_output(std::make_exception_ptr(std::bad_alloc()));
  EXPECT_EQ(memory.exit_code, 1);
  EXPECT_EQ(error_codes(json::parse(memory.json)), std::vector<std::string>{"OUT_OF_MEMORY"});
  const CommandOutput internal = failure_output(std::make_exception_ptr(std::logic_error("stage order lost")));
  EXPECT_EQ(internal.exit_code, 1);
  const json r = json::parse(internal.json);
  EXPECT_EQ(error_codes(r), std::vector<std::string>{"INTERNAL"});
  EXPECT_EQ(r["errors"][0]["message"], "internal error: stage order lost");
}

// The session and the command give the same answer to the same request (elapsed time aside).
TEST(SearchSession, SameAnswerAsTheCommand) {
  SearchSession session(kValid);
  while (!session.step(0).finished) {
  }
  json from_session = json::parse(session.result(false).json);
  json from_command = json::parse(run_command("search", kValid).json);
  from_session["result"].erase("elapsed_ms");
  from_command["result"].erase("elapsed_ms");
  EXPECT_EQ(from_session, from_command);
}

}  // namespace
}  // namespace ppb::test
