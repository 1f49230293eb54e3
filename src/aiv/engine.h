// The state of one AIV expansion (aiv.md §4): launches, their lanes and
// nodes as built from the snapshots, and what the co-simulation did. Node
// ids are positions in `nodes`; once materialised, node n is task
// `host_tasks + n` until finalize_trace renumbers.
#pragma once

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "aiv/expand.h"
#include "graph/graph.h"
#include "model/trace.h"

namespace cc::aiv {

struct Node {
  AivNodeInfo info;
  u32 launch = 0;  // index into Engine::launches
  TaskType type = TaskType::AIV_GRAPH;
  u8 flags = 0;
  DataType data_type = DataType::INT8;
  ReduceOp reduce_op = ReduceOp::SUM;
  Slice src, dst;  // Copy, Reduce
  // Barrier, SyncAll: the lanes whose heads meet here.
  std::vector<u32> member_lanes;
  u32 arrived = 0;
  bool executed = false;
  bool blocked = false;  // a head the simulation ended at (102)
};

struct Lane {
  u32 launch = 0;
  u32 block = 0, block_pos = 0;
  u8 pipe = 0;
  std::vector<u32> nodes;
  u32 head = 0;
  bool arrived = false;  // its head is a group node it has arrived at
  bool queued = false;
  u32 priority = 0;  // unit order (aiv.md §4.4)
  bool done() const { return head >= nodes.size(); }
};

struct Launch {
  u32 rank = 0;
  u64 launch = 0;
  u32 placeholder = kNone;
  u32 record = kNone;
  u32 snapshot = kNone;  // kNone: none usable
  u32 host_stream = 0;   // stream id of the placeholder
  u32 ordinal = 0;       // among the launches of its host stream
  bool usable = false;
  u32 start = kNone, end = kNone;  // nodes
  std::vector<u32> lanes;
  std::vector<AivGroup> groups;
  // co-simulation
  u32 preds_left = 0;
  bool started = false, ended = false;
  u32 lanes_left = 0;
};

struct EventKey {
  u32 launch = 0, block_pos = 0, src_pipe = 0, dst_pipe = 0;
  i32 event = 0;
  std::vector<u32> queue;  // executed, unconsumed sets (FIFO from `next`)
  std::size_t next = 0;
  std::vector<u32> waiters;  // lanes blocked at a wait of this key
  std::vector<std::pair<u32, u32>> pairs;
  std::vector<u32> sets;  // every set node of the key, in node order
};

struct Cell {
  u32 owner = 0;
  u64 offset = 0;
  i32 value = 0;
  u32 producer = kNone;  // the node that last changed the value
  std::vector<u32> writes;
  std::vector<u8> changed;
  std::set<u32> heads;  // priorities of lanes whose head is a wait on this cell
  std::vector<u32> setters;  // every FLAGSET node of the cell, in node order
};

struct Engine {
  Engine(Trace& t, const AivOptions& o) : trace(t), opt(o), host_tasks(static_cast<u32>(t.tasks.size())) {}

  Trace& trace;
  const AivOptions& opt;
  u32 host_tasks;
  std::vector<Launch> launches;
  std::vector<Node> nodes;
  std::vector<Lane> lanes;
  std::vector<u32> lane_by_priority;
  std::vector<EventKey> events;
  std::vector<Cell> cells;
  std::map<std::pair<u32, u64>, u32> cell_of;
  std::vector<AivObservation> observations;  // node ids until materialised
  std::vector<std::pair<u32, u32>> sync_edges;
  std::vector<std::pair<u32, u32>> resent;  // (FLAGSET, producer kept) of writes that repeated the value
  std::vector<u32> order;  // execution order: host task ids and host_tasks + node
  std::vector<Finding> findings;
  BufId comm_buf = kNoBuf, ccl_buf = kNoBuf;
  std::vector<BufId> own_buffers;
  AivExpansionStats stats;

  // "rank0 L0.b0.S[2]"; a merged node by its members.
  std::string name(u32 node) const;
  std::string launch_name(const Launch& l) const;
  Finding launch_finding(u16 code, const Launch& l, std::string message) const;
  u32 task_of(u32 node) const { return host_tasks + node; }
};

// build.cc: launches, validation (104–107, 111), nodes and lanes.
void build(Engine& en);
// cosim.cc: runs the co-simulation (through build_graph) and leaves its
// outcome in the engine; returns the graph of the host tasks it ran.
TaskGraph cosimulate(Engine& en);
// report.cc: 102 for every blocked head, 103 for unconsumed events.
void report_outcome(Engine& en, const TaskGraph& host);

}  // namespace cc::aiv
