// The task graph (stage 1): stream chains, RECORD->WAIT pairing by simulated
// execution, explicit edges, and the topological order that simulation gives.
//
// Nodes are the trace's tasks (ids 0..N-1) plus a virtual START that
// precedes every stream's first task. Edges are implicit where possible:
// stream order is "id+1 within the chain's range", a sync edge is `partner`,
// and only explicit edges (imports, CCU) are stored, in CSR form.
//
// A chain is a maximal run of consecutive tasks of one stream linked by
// implicit stream edges. It starts at its stream's first task or at an
// unchained task (kTaskUnchained, e.g. every CCU node). Without unchained
// tasks the chains are exactly the streams, with the same indices.
#pragma once

#include <algorithm>
#include <vector>

#include "model/trace.h"

namespace cc {

struct TaskGraph {
  u32 task_count = 0;

  // Task -> its stream (index into Trace::streams). A stream's tasks are
  // consecutive ids, so the streams' starts and the stream of every
  // kStreamStep-th task answer it in a load or two of small tables: a table
  // per task would be 4 bytes each (40 MB at 10^7 tasks), and a cache miss
  // per question.
  static constexpr u32 kStreamStep = 256;
  std::vector<u32> stream_first;    // per stream its first task, then task_count
  std::vector<u32> stream_at_step;  // [i]: stream of task i * kStreamStep; then the last stream
  u32 stream_of(u32 task) const {
    u32 step = task / kStreamStep, s = stream_at_step[step];
    if (stream_first[s + 1] > task) return s;
    // Streams shorter than a step: the answer lies up to the next step's.
    auto first = stream_first.begin();
    return static_cast<u32>(std::upper_bound(first + s + 1, first + stream_at_step[step + 1] + 1, task) - first) - 1;
  }

  // Chain c is tasks [chain_first[c], chain_first[c+1]); chain_of maps a
  // task to its chain, and is empty when chains are streams.
  std::vector<u32> chain_first;
  std::vector<u32> chain_of;

  // Sync keys (recordRank, waitRank, notifyId), interned densely. key_of is
  // kNone for non-sync tasks, prematched syncs and syncs naming a rank
  // outside the operator (those are 101).
  std::vector<u32> key_of;
  u32 key_count = 0;
  // All valid, non-prematched sync tasks grouped by key: tasks of key k are
  // key_tasks[key_begin[k] .. key_begin[k+1]), in task-id order.
  // key_of, key_begin and key_tasks (and pair_begin and pairs below) are
  // empty once release_sync_keys ran.
  std::vector<u32> key_begin;
  std::vector<u32> key_tasks;

  // RECORD -> the WAIT it released, WAIT -> the RECORD it consumed (kNone).
  std::vector<u32> partner;

  // Explicit edges, CSR by source and by target.
  std::vector<u32> out_begin, out_to;
  std::vector<u32> in_begin, in_from;

  // Simulated execution order: a topological order of every executed task.
  std::vector<u32> order;
  std::vector<u32> tau;  // task -> position in `order`, kNone if never executed

  // Outcome of the simulation.
  bool complete = false;                  // every task executed
  std::vector<u32> blocked_heads;         // first unexecuted task of each stuck stream
  std::vector<u32> unconsumed_records;    // executed RECORDs nobody consumed
  // Consumed pairs in pairing order, grouped by key: WAIT ids of key k are
  // pairs[pair_begin[k] .. pair_begin[k+1]), the RECORD is partner[wait].
  std::vector<u32> pair_begin;
  std::vector<u32> pairs;

  bool executed(u32 task) const { return tau[task] != kNone; }
  bool has_explicit_edges() const { return !out_to.empty(); }

  u32 chain_count() const { return static_cast<u32>(chain_first.size()) - 1; }
  u32 chain(u32 task) const { return chain_of.empty() ? stream_of(task) : chain_of[task]; }
  u32 chain_begin(u32 c) const { return chain_first[c]; }
  u32 chain_end(u32 c) const { return chain_first[c + 1]; }
  // Whether the implicit stream edge (task-1) -> task exists.
  bool has_stream_pred(u32 task) const { return chain_first[chain(task)] != task; }
  // The task the implicit stream edge from `task` leads to, or kNone.
  u32 stream_next(u32 task) const { return task + 1 < chain_end(chain(task)) ? task + 1 : kNone; }
};

// Work the pairing simulation does not find in the trace (CCU missions,
// ccu.md §5.1) plugs in here: the hook may hold tasks back and release them
// while it reacts to the tasks the simulation executes.
class SimulationControl {
 public:
  // One hold on `task` is lifted; it runs once all are and its edges allow.
  virtual void release(u32 task) = 0;

 protected:
  ~SimulationControl() = default;
};

class SimulationHooks {
 public:
  virtual ~SimulationHooks() = default;
  // Before the simulation: holds[task] += the number of releases it waits for.
  virtual void add_holds(std::vector<u32>& holds) = 0;
  // When the simulation starts, before any task runs (work that waits for
  // no task, e.g. a CCU mission whose placeholder heads its stream, starts
  // here).
  virtual void started(SimulationControl& /*control*/) {}
  // Called after `task` executed and its own edges were followed.
  virtual void executed(u32 task, SimulationControl& control) = 0;
};

// Builds the graph and runs the pairing simulation of checks.md. Tasks of a
// chain that starts with an unchained task run as soon as they can: right
// after the step that made them ready, before the simulation goes on.
// `workers` threads share the passes over all tasks (the simulation itself
// runs on one); the graph is the same for every number of them.
TaskGraph build_graph(const Trace& trace, SimulationHooks* hooks = nullptr, unsigned workers = 1);

// Frees key_of, key_begin, key_tasks, pair_begin and pairs (key_count
// stays) of a complete graph: only the graph's own build and the checks of
// stages 1 and 3 read them, and at 10^7 tasks they hold 10-12 bytes per
// task that stages 4 and 5 can use instead. An incomplete graph keeps them
// (reverse_priority_order tells a WAIT that never ran by its key).
void release_sync_keys(TaskGraph& graph);

// Makes `order` again from `tau` (the `executed` tasks that have a place in
// it), for a caller that freed it while it needed only `tau`.
void restore_order(TaskGraph& graph, u32 executed);

// A second topological order of the paired graph (stream, sync and explicit
// edges), breaking ties the other way round: the highest (rank, stream) that
// can advance runs first. Returns each task's position (kNone if it never
// runs). Two orders that disagree on a pair prove the pair unordered.
std::vector<u32> reverse_priority_order(const Trace& trace, const TaskGraph& graph);

// Whether a sync task takes part in notify pairing.
bool pairs_by_notify(const Trace& trace, const Task& task);

}  // namespace cc
