// The tasks near some seed tasks: a breadth-first search over the task graph
// taken as undirected (stream neighbours, RECORD<->WAIT partners, explicit
// edges). Lets the DOT writer and the HTML report draw the surroundings of a
// finding when the whole graph is too big to draw.
#pragma once

#include <vector>

#include "graph/graph.h"

namespace cc {

struct Neighbourhood {
  std::vector<char> keep;  // by task id: 1 if within the neighbourhood
  u64 count = 0;           // tasks kept
  u32 radius = 0;          // every task within this many edges of a seed is kept
  bool closed = false;     // no task outside is connected to a seed
};

// Keeps whole BFS levels from `seeds` (invalid ids are ignored) up to
// `max_radius`, and stops before a level that would take the count past
// `max_tasks`, so that "within `radius` edges" is exact. The seeds themselves
// are always kept, even when they alone exceed `max_tasks`.
Neighbourhood neighbourhood(const Trace& trace, const TaskGraph& graph,
                            const std::vector<u32>& seeds, u32 max_radius,
                            u64 max_tasks = ~u64{0});

}  // namespace cc
