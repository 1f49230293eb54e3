// The executed tasks that touch memory, in the simulated order τ: what
// stages 4 and 5 visit, made once per operator and shared read-only by
// stage 4's shards and stage 5 (they run side by side).
//
// Why a list of its own: in a collective most tasks are RECORD/WAIT (four
// in five of a ring AllReduce), which neither stage looks at. Walking τ
// itself costs a load of every task's record at a scattered address; the
// list holds only the tasks that matter, and a task's *position* in it is a
// dense id that compares as τ does. Per-task state of the stages is indexed
// by position (a fifth of the memory of a per-task array in a ring), and
// "τ(a) < τ(b)" between two of them is a comparison of positions.
#pragma once

#include <vector>

#include "graph/graph.h"

namespace cc {

struct DataOrder {
  // Position -> task id, τ ascending: every executed data task (copy,
  // reduce, batch) and every executed AIV flag operation (it reads or
  // writes its flag cell, which stage 4 compares like a data access).
  // Tasks that never executed are absent.
  std::vector<u32> tasks;

  u32 size() const { return static_cast<u32>(tasks.size()); }
};

// Whether `task` reads or writes memory: a data task, or an AIV flag
// operation (model/describe.h, aiv_flag_access).
bool touches_memory(const Trace& trace, u32 task);

// The list of `graph`'s executed memory tasks in τ. `workers` threads share
// the pass over the tasks (graph/parts.h); the list is the same for any
// number of them.
DataOrder data_order(const Trace& trace, const TaskGraph& graph, unsigned workers = 1);

}  // namespace cc
