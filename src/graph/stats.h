// Figures about a trace for `collcheck stats`.
#pragma once

#include <map>
#include <string>

#include "graph/graph.h"

namespace cc {

struct TraceStats {
  u32 ranks = 0;
  u64 streams = 0, slave_streams = 0, ccu_streams = 0, tasks = 0;
  std::map<std::string, u64> tasks_by_type;
  u64 sync_edges = 0, explicit_edges = 0, local_syncs = 0, cross_rank_syncs = 0;
  u64 sync_keys = 0;
  struct Bytes {
    u64 read = 0, written = 0;
  };
  std::map<std::string, Bytes> bytes_by_buffer;  // by buffer type name
  u64 remote_transfers = 0;                      // data tasks touching another rank
  // AIV mode: launches, the streams of their nodes, and the nodes by kind.
  u64 aiv_launches = 0, aiv_streams = 0;
  std::map<std::string, u64> aiv_by_kind;
};

TraceStats compute_stats(const Trace& trace, const TaskGraph& graph);
std::string format_stats(const Trace& trace, const TraceStats& s);

}  // namespace cc
