// Stage 3 (SyncCheck): the pairing of RECORDs and WAITs must not depend on
// timing (602), and the graph with its sync edges must be acyclic (601).
// Where the record cannot tell whether two uses share a notify (an ST
// dump's inexact keys, Trace::inexact_notifies, kTaskNotifyIndexLost), a
// 602 would be a guess: one STLOG-W-NOTIFY-AMBIGUOUS warning per key.
#pragma once

#include "check/sink.h"
#include "graph/reach.h"

namespace cc {

void check_sync(const Trace& trace, const TaskGraph& graph, Reachability& reach, FindingSink& out);

// Whether stream, sync and explicit edges form a cycle; if so, fills `cycle`
// with the tasks of one cycle in edge order.
bool find_cycle(const Trace& trace, const TaskGraph& graph, std::vector<u32>& cycle);

}  // namespace cc
