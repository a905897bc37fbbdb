// A user's own program (pipeline.program): PyTorch pipelining actions per rank, as the pytorch export
// writes them (torch.distributed.pipelining's compute_only format: "3F0" forward of stage 3 on micro
// batch 0, "3I0" its input gradient, "3W0" its weight gradient, "3B0" its full backward,
// "(1F3;6B1)OVERLAP_F_B" a forward and a backward run as one overlapped operation), read into a
// Program the simulator runs in place of the schedule's generator. Every problem is reported with a
// code, the JSON Pointer of the action (or of the list) and a sentence:
//   PROGRAM_ACTION_INVALID   an action that is not one of the forms above;
//   PROGRAM_RANKS            not one list per rank (pp_degree of them);
//   PROGRAM_STAGE            a stage outside pp_degree x vpp_degree, or on a rank that does not hold it
//                            (the schedule's placement, PipelineShape::physical_stage);
//   PROGRAM_MICRO_BATCHES    micro batches other than 0 .. micro_batch_num - 1;
//   PROGRAM_INCOMPLETE       a forward, backward (B, or I and W) missing or repeated;
//   PROGRAM_DEADLOCK         ranks waiting on each other: the message names the actions of the cycle.
//   SIMULATION_LIMIT         more actions than any program of the shape holds (3 per virtual stage and
//                            micro batch); the reader caps every program at limits::max_program_actions.
//
//   ProgramText text{{{"0F0", "0B0"}}};  // pp 1, m 1
//   std::vector<ScheduleProblem> problems;
//   std::optional<Program> program = import_program(shape, text, "/pipeline/program", problems);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ppb/model/pipeline_shape.hpp"
#include "ppb/model/request.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb {

// The program `text` states for `shape` (degrees and micro_batch_num at least 1), or nothing with every
// problem found in `problems`. `path` is the JSON Pointer of the program field.
std::optional<Program> import_program(const PipelineShape& shape, const ProgramText& text, const std::string& path,
                                      std::vector<ScheduleProblem>& problems);

// The CSV text of a program (one rank per line, actions separated by commas, as PyTorch's _dump_csv
// and the pytorch export write it) split into lists; surrounding quotes and spaces are dropped, a final
// newline ends the last line.
ProgramText program_from_csv(const std::string& csv);

}  // namespace ppb
