// The longest path through a schedule program (internal to the engine): at given times of the
// virtual stages, every operation starts at the later of its stage's previous end and its input's
// arrival, and runs its terms (both as timing.hpp defines them), and the step ends at
// the latest end plus its stage's tail. The path that sets it is a sum of operations and transfers:
// a row linear in the virtual stages' times, and the step time of every plan is at least the row's
// value at that plan's times (the whole-plan bound's path rows, docs/ppb.md). Programs with F&B
// pairs (dualpipev) are not read.
#pragma once

#include <vector>

#include "balance_problem.hpp"
#include "plan_replay.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb::balancer {

class ProgramPaths {
 public:
  // The terms of a virtual stage's time, as the whole-plan bound counts them.
  enum Term { kF, kB, kW, kComm, kSend, kTerms };

  explicit ProgramPaths(const BalanceProblem& problem);

  // The step time at `times` (kTerms x V: forward, backward with recompute, weight gradient,
  // communication, transfer after each virtual stage), and its longest path as a row of the same
  // shape in `row` with its tail in `tail`.
  double longest(const std::vector<double>& times, std::vector<double>& row, double& tail);
  // The operations of the program: what a call to longest() passes over.
  [[nodiscard]] std::size_t operations() const { return order_.size(); }

 private:
  struct Node {
    PlanReplay::Step step;
    int dependency;  // the node whose end the input waits for (-1: none)
    int send;        // the virtual stage whose transfer lies on that edge (-1: none)
    int previous;    // the stage's previous node (-1: none)
  };
  const BalanceProblem& p_;
  std::vector<Node> order_;  // every operation, in PlanReplay's execution order
  std::vector<int> last_;    // per stage, its last node
  std::vector<double> end_;
  std::vector<int> from_;  // per node: the node its start waited for (-1: none)
};

}  // namespace ppb::balancer
