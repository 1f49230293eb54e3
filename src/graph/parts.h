// How the graph's passes (sync keys, the reachability index) share their
// work between threads: a pass is cut into parts, a few per worker, and
// each part writes only what belongs to it, so the result is the same
// whatever the number of parts and whichever thread runs which.
#pragma once

#include <algorithm>
#include <vector>

#include "model/jobs.h"
#include "model/types.h"

namespace cc {

// Below this many tasks a pass runs its parts on the calling thread:
// starting threads would cost more than they save. The parts are cut the
// same way either way, so small graphs still take the paths that join them.
inline constexpr u64 kParallelTasks = u64{1} << 15;

inline unsigned pass_threads(unsigned workers, u64 tasks) {
  return tasks < kParallelTasks ? 1u : std::max(1u, workers);
}

// Parts of a pass over `items`: one for one worker, else four per worker
// (uneven parts even out), never more than `items` nor `most`.
inline u32 part_count(unsigned workers, u64 items, u64 most = ~u32{0}) {
  if (workers <= 1) return 1;
  return static_cast<u32>(std::max<u64>(1, std::min({u64{workers} * 4, items, most})));
}

// Part p of [0, n) cut into `parts` nearly equal ranges is [cut(n, parts, p), cut(n, parts, p + 1)).
inline u32 cut(u64 n, u32 parts, u32 p) { return static_cast<u32>(n * p / parts); }

// A counting sort's placement: count[p * keys + k] holds how many items of
// key k part p has; it becomes where part p's first one goes when the items
// are grouped by key, and within a key part after part (so the order of
// the parts, and the order each part keeps, is kept). Returns the start of
// each key's group, and the total last (keys + 1 entries).
inline std::vector<u32> place_by_key(std::vector<u32>& count, u32 parts, u32 keys) {
  std::vector<u32> start(keys + 1);
  u32 sum = 0;
  for (u32 k = 0; k < keys; ++k) {
    start[k] = sum;
    for (u32 p = 0; p < parts; ++p) {
      u32 x = count[u64{p} * keys + k];
      count[u64{p} * keys + k] = sum;
      sum += x;
    }
  }
  start[keys] = sum;
  return start;
}

}  // namespace cc
