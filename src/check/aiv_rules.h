// The stage rules of aiv.md §6 that only AIV nodes have; the stages call
// them beside their own rules, which treat AIV copies and reduces like any
// data task.
//  * stage 2: UB and AIV_COMM bounds from the snapshot that holds the task,
//    UB of another rank, flag cells (alignment, bounds, owner) — 201;
//    AIV-W-NO-SIZE and AIV-W-SIZE-MISMATCH;
//  * stage 3: pipe events and flag cells must not depend on the schedule — 602;
//  * stage 4: a flag operation is a 4-byte access of its cell, checked
//    against data tasks only.
#pragma once

#include <string>
#include <vector>

#include "check/sink.h"
#include "graph/reach.h"

namespace cc {

// Stage 2, the part of a task's problems only AIV copies and reduces have
// (appended to `why`, as check_single_tasks gathers them).
void aiv_task_problems(const Trace& trace, u32 task, std::vector<std::string>& why);
// False when aiv_task_problems finds one: stage 5 then treats the task like
// any task stage 2 rejects (its destination holds unknown data).
bool aiv_task_valid(const Trace& trace, u32 task);
// Stage 2: flag cells and the snapshot-wide warnings.
void check_aiv_single(const Trace& trace, FindingSink& out);
// Stage 3.
void check_aiv_sync(const Trace& trace, const TaskGraph& graph, Reachability& reach, FindingSink& out);

}  // namespace cc
