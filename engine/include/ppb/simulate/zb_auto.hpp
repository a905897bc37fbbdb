// zb_auto: the zero-bubble paper's automatic scheduling (Qi et al., arXiv 2401.10241, Section 3) as
// PPB does it. Its program depends on what the stages cost, so it is written here, beside the
// simulator, and not by the schedule room from the shape alone.
//
// Candidates are written round by round, as the authors' heuristic does: a forward on each stage
// down the pipeline, then one micro batch's backward on each stage back up; each stage first warms up
// with as many forwards as end before micro batch 0's backward returns (within the cap), and a weight
// gradient runs where it ends before the next input arrives. Twelve variants of these rules (may the
// warm-up overrun that return, must each stage warm up with fewer forwards than the one before, does
// a W that would delay an input run, wait, or run only when waiting would make the stage the most idle),
// a greedy list scheduler (the operation that can start earliest on any stage next: a backward
// whose input has arrived, else such a forward within the cap, else a W) and the
// handcrafted ZB-H1 and ZB-H2 are each run by the real simulator; one over the cap is dropped and the
// least span wins (ties: the least step time, then the first). The cap counts micro batches' worth of
// activation on a stage, as the paper's memory limit does: a full activation (F to B) one, a weight
// part held for W (B to W) its share weight_activation_mib / activation_mib. It holds whatever the
// durations: a stage's memory changes only at its own operations, in program order.
//
//   SimulationInput in = ...;              // schedule zb_auto, one chunk per stage, costs per stage
//   const Program program = zb_auto_program(in);
#pragma once

#include "ppb/schedule/schedule.hpp"
#include "ppb/simulate/simulate.hpp"

namespace ppb {

// zb_auto's program for the shape and costs of `in` (its program field is not read). The shape must
// meet zb_auto's conditions (one chunk per stage).
Program zb_auto_program(const SimulationInput& in);

// The program `in` runs: its own when it brings one, zb_auto's for its costs, or the schedule's.
Program program_for(const SimulationInput& in);

}  // namespace ppb
