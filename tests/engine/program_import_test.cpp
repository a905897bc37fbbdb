// A user's program (pipeline.program, schedule/program_import.hpp): every schedule's PyTorch export
// read back, as its JSON action lists and as its CSV text, runs to the same step time; malformed
// actions, programs that leave something out and deadlocks are errors with a code, a pointer and a
// sentence; balance, compare and search refuse a program.
#include "ppb/schedule/program_import.hpp"

#include <gtest/gtest.h>

#include <string>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// Layers with unequal costs, transfers on every crossing and communication inside the times, so that
// every kind of wait and overlap takes part.
json model_document() {
  return {{"format", "ppb.model.v1"},
          {"name", "program import"},
          {"layers",
           {{{"name", "embedding"}, {"pin", "first"}, {"forward_ms", 1}, {"backward_ms", 2}, {"activation_mib", 5}},
            {{"name", "decoder"},
             {"count", 8},
             {"forward_ms", 3},
             {"backward_ms", 7},
             {"weight_backward_ms", 2.5},
             {"forward_comm_ms", 0.5},
             {"backward_comm_ms", 1},
             {"activation_mib", 10},
             {"weight_activation_mib", 4},
             {"send_mib", 64}},
            {{"name", "head"}, {"pin", "last"}, {"forward_ms", 2}, {"backward_ms", 5}, {"activation_mib", 3}}}}};
}

json request(const json& pipeline) {
  return {{"model", model_document()},
          {"device", {{"p2p_bandwidth_gbs", 25}, {"p2p_latency_ms", 0.02}}},
          {"pipeline", pipeline}};
}

// pp 2, 2 micro batches, 1f1b's placement.
json small(const json& program) { return request({{"pp_degree", 2}, {"micro_batch_num", 2}, {"program", program}}); }

// A program written as JSON text (braced lists of two strings would read as objects).
json lists(const char* text) { return json::parse(text); }

json only_error(const json& response) {
  EXPECT_FALSE(response["ok"]) << response.dump();
  EXPECT_EQ(response["errors"].size(), 1U) << response.dump();
  return response["errors"][0];
}

// Issue 31: an exported PyTorch program imports back to the same step time, span and memory, for every
// schedule (each at a shape it runs), from the JSON actions and from the CSV text alike.
TEST(ProgramImport, ExportedProgramsImportToTheSameStepTime) {
  for (const Schedule schedule : all_schedules) {
    json pipeline = {{"pp_degree", 2}, {"micro_batch_num", 8}, {"schedule", schedule_name(schedule)}};
    if (usual_shape(schedule, 2, 8).vpp_degree == 2) pipeline["vpp_degree"] = 2;
    const json plain = run("estimate", request(pipeline));
    ASSERT_TRUE(plain["ok"]) << schedule_name(schedule) << plain.dump();
    json export_request = request(pipeline);
    export_request["export"] = {{"to", "pytorch"}};
    const json exported = run("export", export_request);
    ASSERT_TRUE(exported["ok"]) << schedule_name(schedule) << exported.dump();
    for (const json& program : {exported["result"]["json"]["actions"], exported["result"]["text"]}) {
      json with_program = pipeline;
      with_program["program"] = program;
      const json imported = run("estimate", request(with_program));
      ASSERT_TRUE(imported["ok"]) << schedule_name(schedule) << imported.dump();
      const json& a = plain["result"];
      const json& b = imported["result"];
      EXPECT_EQ(a["step_time_ms"], b["step_time_ms"]) << schedule_name(schedule) << (program.is_string() ? " csv" : "");
      EXPECT_EQ(a["span_ms"], b["span_ms"]) << schedule_name(schedule);
      for (std::size_t s = 0; s < a["stages"].size(); ++s)
        EXPECT_EQ(a["stages"][s]["memory"]["peak_mib"], b["stages"][s]["memory"]["peak_mib"])
            << schedule_name(schedule);
    }
  }
}

// A hand-written CSV whose ranks wait on each other: rank 0 runs 0F0 and then needs micro batch 0's
// gradient from rank 1 (0B0 waits for 1B0), while rank 1 starts with micro batch 1, whose forward
// rank 0 runs only after 0B0 (1F1 waits for 0F1).
TEST(ProgramImport, DeadlockNamesTheActionsThatWaitOnEachOther) {
  const json e = only_error(run("estimate", small("0F0,0B0,0F1,0B1\n1F1,1B1,1F0,1B0\n")));
  EXPECT_EQ(e["code"], "PROGRAM_DEADLOCK");
  EXPECT_EQ(e["path"], "/pipeline/program");
  EXPECT_EQ(e["message"],
            "pipeline.program deadlocks: rank 0's 0B0 (action 1) waits for 1B0, which rank 1 runs later, while "
            "rank 1's 1F1 (action 0) waits for 0F1, which rank 0 runs later. Reorder the lists so that every "
            "action's inputs come first.");
  // The same program as lists: the pointer names the first waiting action.
  const json l = only_error(run("estimate", small(lists(R"([["0F0","0B0","0F1","0B1"],["1F1","1B1","1F0","1B0"]])"))));
  EXPECT_EQ(l["path"], "/pipeline/program/0/1");
}

// A rank that waits for itself: its backward before its own forward, a W before its I, an overlapped
// pair whose backward needs its own forward.
TEST(ProgramImport, DeadlockWithinOneRank) {
  const json e = only_error(run("estimate", small(lists(R"([["0B0","0F0","0F1","0B1"],["1F0","1B0","1F1","1B1"]])"))));
  EXPECT_EQ(e["message"],
            "pipeline.program deadlocks: rank 0's 0B0 (action 0) waits for 0F0, which comes later in its own list "
            "(action 1). Reorder the lists so that every action's inputs come first.");
  const json& w =
      only_error(run("estimate", small(lists(R"([["0F0","0F1","0W0","0I0","0B1"],["1F0","1B0","1F1","1B1"]])"))));
  EXPECT_EQ(w["path"], "/pipeline/program/0/2");
  EXPECT_NE(w["message"].get<std::string>().find("rank 0's 0W0 (action 2) waits for 0I0"), std::string::npos);
  // pp 1: stage 0 and 1 both on rank 0 is not a placement; one stage, two micro batches instead.
  const json one = request(
      {{"pp_degree", 1}, {"micro_batch_num", 2}, {"program", lists(R"([["0F0","(0F1;0B0)OVERLAP_F_B","0B1"]])")}});
  EXPECT_TRUE(run("estimate", one)["ok"]);
  const json self = request({{"pp_degree", 1},
                             {"micro_batch_num", 2},
                             {"program", lists(R"([["0F0","(0F1;0I0)OVERLAP_F_B","0W0","0B1"]])")}});
  EXPECT_TRUE(run("estimate", self)["ok"]);
  const json same =
      request({{"pp_degree", 1}, {"micro_batch_num", 1}, {"program", lists(R"([["(0F0;0B0)OVERLAP_F_B"]])")}});
  const json s = only_error(run("estimate", same));
  EXPECT_EQ(s["message"],
            "pipeline.program deadlocks: rank 0's (0F0;0B0)OVERLAP_F_B (action 0) waits for 0F0, a part of the same "
            "action. Reorder the lists so that every action's inputs come first.");
}

// Every malformed action is reported at its pointer, with what is wrong; the rest of the program is
// not checked further (its counts would only repeat the same fault).
TEST(ProgramImport, MalformedActions) {
  const json r =
      run("estimate",
          small(lists(
              R"([["0F0","F1","0X0","0F","0SEND_F0","(0F1;1B0","(0F1;0W0)OVERLAP_F_B"],["1F0","1B0","1F1","1B1"]])")));
  ASSERT_FALSE(r["ok"]);
  std::vector<std::string> paths;
  for (const json& e : r["errors"]) {
    EXPECT_EQ(e["code"], "PROGRAM_ACTION_INVALID") << e.dump();
    paths.push_back(e["path"]);
  }
  EXPECT_EQ(paths,
            (std::vector<std::string>{"/pipeline/program/0/1", "/pipeline/program/0/2", "/pipeline/program/0/3",
                                      "/pipeline/program/0/4", "/pipeline/program/0/5", "/pipeline/program/0/6"}));
  EXPECT_EQ(r["errors"][1]["message"],
            "rank 0's action 2, \"0X0\", is not a pipelining action: \"X\" is not an action type: use F, I, B or W (or "
            "OVERLAP_F_B).");
  EXPECT_NE(r["errors"][3]["message"].get<std::string>().find("SEND_F is a communication or sharding action"),
            std::string::npos);
  // In the CSV the message names the line and field.
  const json c = only_error(run("estimate", small("0F0,0F1,0B0,0B1\n1F0,1Q0,1F1,1B1\n")));
  EXPECT_EQ(c["path"], "/pipeline/program");
  EXPECT_NE(c["message"].get<std::string>().find("rank 1's action 1 (line 2, field 2), \"1Q0\""), std::string::npos);
  // Not a list of lists of strings: the reader's type errors.
  EXPECT_TRUE(has_error(run("estimate", small(3)), "TYPE_MISMATCH", "/pipeline/program"));
  EXPECT_TRUE(has_error(run("estimate", small(lists(R"([["0F0",1]])"))), "TYPE_MISMATCH", "/pipeline/program/0/1"));
}

// Stages out of range and on the wrong rank (chunk-major, and the V of zbv), a wrong number of ranks,
// the micro batch count, and what is missing or repeated.
TEST(ProgramImport, PlacementCountsAndCompleteness) {
  const json good1 = lists(R"(["1F0","1B0","1F1","1B1"])");
  const json range = only_error(run("estimate", small({lists(R"(["0F0","0F1","0B0","0B1","7F0"])"), good1})));
  EXPECT_EQ(range["code"], "PROGRAM_STAGE");
  EXPECT_EQ(range["path"], "/pipeline/program/0/4");
  EXPECT_EQ(range["message"],
            "rank 0's action 4 names stage 7, but pp_degree x vpp_degree = 2 x 1 gives stages 0 to 1.");
  const json& rank =
      only_error(run("estimate", small(lists(R"([["0F0","1F0","0F1","0B0","0B1"],["1B0","1F1","1B1"]])"))));
  EXPECT_EQ(rank["code"], "PROGRAM_STAGE");
  EXPECT_EQ(rank["path"], "/pipeline/program/0/1");
  // zbv at pp 2: rank 0 holds stages 0 and 3, rank 1 stages 1 and 2.
  json v = request({{"pp_degree", 2},
                    {"micro_batch_num", 1},
                    {"schedule", "zbv"},
                    {"program", lists(R"([["0F0","2F0","3B0","0B0"],["1F0","3F0","2B0","1B0"]])")}});
  const json vr = run("estimate", v);
  ASSERT_FALSE(vr["ok"]);
  EXPECT_TRUE(has_error(vr, "PROGRAM_STAGE", "/pipeline/program/0/1"));
  EXPECT_TRUE(has_error(vr, "PROGRAM_STAGE", "/pipeline/program/1/1"));
  v["pipeline"]["program"] = lists(R"([["0F0","3F0","3B0","0B0"],["1F0","2F0","2B0","1B0"]])");
  EXPECT_TRUE(run("estimate", v)["ok"]) << run("estimate", v).dump();

  EXPECT_EQ(only_error(run("estimate", small(lists(R"([["0F0","0F1","0B0","0B1"]])"))))["code"], "PROGRAM_RANKS");
  json four = small({lists(R"(["0F0","0F1","0B0","0B1"])"), good1});
  four["pipeline"]["micro_batch_num"] = 4;
  const json mb = only_error(run("estimate", four));
  EXPECT_EQ(mb["code"], "PROGRAM_MICRO_BATCHES");
  EXPECT_EQ(mb["message"],
            "pipeline.program runs micro batches 0 to 1 (2 of them), but micro_batch_num is 4: set "
            "pipeline.micro_batch_num to 2 (or the batch sizes that derive it), or write the actions of every "
            "micro batch.");

  const json missing = only_error(run("estimate", small({lists(R"(["0F0","0F1","0B0"])"), good1})));
  EXPECT_EQ(missing["code"], "PROGRAM_INCOMPLETE");
  EXPECT_EQ(missing["path"], "/pipeline/program/0");
  EXPECT_EQ(missing["message"], "rank 0 never runs the backward of stage 0 on micro batch 1: add 0B1, or 0I1 and 0W1.");
  const json twice = only_error(run("estimate", small({lists(R"(["0F0","0F1","0B0","0B1","0F1"])"), good1})));
  EXPECT_EQ(twice["path"], "/pipeline/program/0/4");
  const json no_w = only_error(run("estimate", small({lists(R"(["0F0","0F1","0B0","0I1"])"), good1})));
  EXPECT_EQ(no_w["message"],
            "rank 0 runs 0I1, the input gradient only, and never its weight gradient 0W1: add it, or write the full "
            "backward 0B1.");
}

// A program replaces the order, not the placement: interleaved_1f1b's condition on micro batches (a
// multiple of pp) is its generator's and does not apply, its chunk count still does.
TEST(ProgramImport, ScheduleConditionsOnMicroBatchesDoNotApply) {
  json pipeline = {{"pp_degree", 2}, {"vpp_degree", 2}, {"micro_batch_num", 1}, {"schedule", "interleaved_1f1b"}};
  EXPECT_TRUE(has_error(run("estimate", request(pipeline)), "MICRO_BATCH_NOT_MULTIPLE", "/pipeline/micro_batch_num"));
  pipeline["program"] = lists(R"([["0F0","2F0","2B0","0B0"],["1F0","3F0","3B0","1B0"]])");
  const json r = run("estimate", request(pipeline));
  ASSERT_TRUE(r["ok"]) << r.dump();
  pipeline["vpp_degree"] = 1;
  pipeline["program"] = lists(R"([["0F0","0B0"],["1F0","1B0"]])");
  EXPECT_TRUE(has_error(run("estimate", request(pipeline)), "SCHEDULE_NEEDS_VPP", "/pipeline/vpp_degree"));
}

// balance, compare and search run each schedule's own order: a program is an error there.
TEST(ProgramImport, BalanceCompareAndSearchRefuseAProgram) {
  const json program = lists(R"([["0F0","0F1","0B0","0B1"],["1F0","1B0","1F1","1B1"]])");
  for (const char* command : {"balance", "compare", "search"}) {
    const json r = run(command, small(program));
    EXPECT_TRUE(has_error(r, "PROGRAM_NOT_SUPPORTED", "/pipeline/program")) << command << r.dump();
  }
}

// The exported PyTorch CSV of a program given is that program (nothing reordered), with a note.
TEST(ProgramImport, ExportWritesTheProgramGiven) {
  json r = small("0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
  r["export"] = {{"to", "pytorch"}};
  const json out = run("export", r);
  ASSERT_TRUE(out["ok"]) << out.dump();
  EXPECT_EQ(out["result"]["text"], "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
}

// The CSV reader: spaces, quotes, Windows line ends, empty fields (PyTorch's empty slots) and a final
// newline.
TEST(ProgramImport, CsvText) {
  const ProgramText t = program_from_csv(" 0F0 ,\"0B0\",,\r\n1F0,1B0\n\n");
  ASSERT_EQ(t.ranks.size(), 2U);
  EXPECT_EQ(t.ranks[0], (std::vector<std::string>{"0F0", "0B0", "", ""}));
  EXPECT_EQ(t.ranks[1], (std::vector<std::string>{"1F0", "1B0"}));
  EXPECT_TRUE(t.csv);
}

}  // namespace
}  // namespace ppb::test
