// Stage 1 (GenGraph): findings of graph generation — 101 syncs that cannot
// become nodes, 102 deadlock with its wait-for chain, 103 unconsumed RECORDs.
#pragma once

#include "check/sink.h"
#include "graph/graph.h"

namespace cc {

void check_gen_graph(const Trace& trace, const TaskGraph& graph, FindingSink& out);

}  // namespace cc
