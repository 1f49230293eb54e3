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

#include <cstddef>
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

// Visiting memory tasks in τ reads their records, first groups and those
// groups' slices at scattered addresses: the visits are bound by those
// cache misses. Called before visit i of n, where id_at(k) is the task of
// visit k, this fetches them ahead in three steps (the task 24 visits
// ahead, its first group 16 ahead, that group's slices 8 ahead), so each
// step finds what the one before brought in.
template <class IdAt>
void fetch_ahead(const Trace& trace, const IdAt& id_at, std::size_t i, std::size_t n) {
  // A data task may have no group (a batch of no pairs): its first_group
  // is then no index, possibly the end of `groups`.
  auto grouped = [&](const Task& k) { return is_data_task(k.type) && k.group_count() > 0; };
  if (i + 24 < n) __builtin_prefetch(&trace.tasks[id_at(i + 24)]);
  if (i + 16 < n) {
    const Task& k = trace.tasks[id_at(i + 16)];
    if (grouped(k)) __builtin_prefetch(&trace.groups[k.first_group()]);
  }
  if (i + 8 < n) {
    const Task& k = trace.tasks[id_at(i + 8)];
    if (grouped(k)) {
      const Group& g = trace.groups[k.first_group()];
      __builtin_prefetch(&trace.slices[g.first_src]);
      __builtin_prefetch(&trace.slices[g.dst]);
    }
  }
}

// Whether `task` reads or writes memory: a data task, or an AIV flag
// operation (model/describe.h, aiv_flag_access).
bool touches_memory(const Trace& trace, u32 task);

// The list of `graph`'s executed memory tasks in τ. `workers` threads share
// the pass over the tasks (graph/parts.h); the list is the same for any
// number of them.
DataOrder data_order(const Trace& trace, const TaskGraph& graph, unsigned workers = 1);

}  // namespace cc
