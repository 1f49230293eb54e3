// Nodes the expansion creates while it co-simulates the missions (ccu.md
// §5.3-§5.5), and their edges, until they are appended to the trace.
#pragma once

#include <vector>

#include "model/trace.h"

namespace cc::ccu {

struct Node {
  TaskType type = TaskType::CCU_GRAPH;
  u8 flags = 0;       // besides kTaskCcu | kTaskUnchained
  u32 rank = 0;
  u32 peer = 0;       // RECORD: waitRank; WAIT: recordRank
  u32 notify = 0;     // sync nodes: the CKE id (pairing never reads it)
  DataType data_type = DataType::INT8;
  ReduceOp reduce_op = ReduceOp::SUM;
  u32 first_group = 0, group_count = 0;  // into NodeStore::groups
  u32 mission = 0;
  CcuNodeInfo info;
};

// A copy or reduce being assembled: one destination and its sources.
struct GroupSpec {
  Slice dst;
  std::vector<Slice> srcs;
};

class NodeStore {
 public:
  u32 add(const Node& n);
  u32 add_data(Node n, const std::vector<GroupSpec>& groups);
  void edge(u32 from, u32 to) { edges.emplace_back(from, to); }
  void edges_from(const std::vector<u32>& from, u32 to) {
    for (u32 f : from) edge(f, to);
  }
  u32 size() const { return static_cast<u32>(nodes.size()); }

  std::vector<Node> nodes;
  std::vector<Group> groups;   // slice indices into `slices`
  std::vector<Slice> slices;
  std::vector<std::pair<u32, u32>> edges;  // node -> node
};

}  // namespace cc::ccu
