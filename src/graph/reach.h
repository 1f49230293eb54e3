// Happens-before queries on the task graph: is there a path from a to b?
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "graph/graph.h"

namespace cc {

// Exact reachability, in layers, cheapest first:
// Streams are cut into chains at unchained tasks (graph.h); every "stream"
// below is a chain, and without unchained tasks a chain is a stream.
//  * tasks of one stream compare positions;
//  * the simulated order τ, and a second topological order τ2 (ties broken
//    the other way, built once searches have cost a pass over the graph),
//    prove "no" when they put a after b;
//  * one hop: an edge from a's stream at or after a into b's stream at or
//    before b (a per stream pair index of edges, by target position, with the
//    latest source so far) — the order collective handshakes usually give;
//  * otherwise a bidirectional earliest-arrival search over streams: entering
//    a stream at task p from a makes all of it after p reachable, so the
//    forward half only follows the sync and explicit edges leaving a stream
//    after p (`next_out_` jumps over the data tasks between them); the
//    backward half does the same from b through in-edges (`prev_in_`). Every
//    edge goes forward in τ and τ2, so the forward half never looks past b
//    and the backward half never before a in either order. They alternate
//    and stop when they meet.
// The backward cone is kept for as long as the target stays the same: the
// memory-conflict sweep asks about one target with every frontier member in
// turn. Memory is O(tasks + streams); nothing is stored per (task, stream).
//
// Not thread-safe: it keeps per-chain scratch state between queries. A
// thread of its own gets a fork (the second constructor): the index built
// from the graph (next_out_, prev_in_, the one-hop edges) is shared, the
// search state is its own.
class Reachability {
 public:
  // `eager_order2` builds τ2 at once (tests use it to cover both paths).
  Reachability(const Trace& trace, const TaskGraph& graph, bool eager_order2 = false);
  // A fork of `base`: the same answers, its own search state (and τ2, as
  // far as `base` has built it), sharing base's index. Made on the thread
  // that owns `base`, then used on another.
  struct Fork {};
  Reachability(const Reachability& base, Fork);

  // a ≤ b: a == b, or a path from a to b exists.
  bool happens_before(u32 a, u32 b);

  // The answer of the cheap layers alone (one stream, τ, τ2 when built):
  // 1 yes, 0 no, -1 only a search could tell.
  int quick(u32 a, u32 b) const;

  // Number of tasks scanned by all queries so far (for statistics).
  u64 scanned() const { return scanned_; }

 private:
  struct Index;
  bool has_out(u32 t) const;
  void build_hops(Index& ix) const;
  bool one_hop(u32 a, u32 b) const;
  bool has_in(u32 t) const;
  bool search_forward_only(u32 a, u32 b);
  bool search_both(u32 a, u32 b);
  void reach_forward(u32 task, bool& found, u32 b);
  void follow_out(u32 t, bool& found, u32 b);
  void scan_forward(u32 b, bool& found);
  void clear_forward();
  void set_target(u32 b);
  void reach_backward(u32 task, bool& found);
  void scan_backward(u32 a, bool& found);

  const Trace& trace_;
  const TaskGraph& g_;
  // What the constructor derives from the graph, read-only afterwards (shared by forks).
  struct Index {
    std::vector<u32> next_out;  // first task at or after t on its stream with out-edges
    std::vector<u32> prev_in;   // last task at or before t on its stream with in-edges, or kNone
    // One-hop index: edges of each (from stream, to stream) pair, sorted by
    // target task, with the latest source task among them so far.
    struct Hop {
      u32 to, latest_from;
    };
    std::unordered_map<u64, std::pair<u32, u32>> hop_range;  // pair -> [begin, end) in hops
    std::vector<Hop> hops;
  };
  std::shared_ptr<const Index> index_;
  const std::vector<u32>& next_out_;
  const std::vector<u32>& prev_in_;
  std::vector<u32> tau2_;      // empty until built
  // Forward half, per query: earliest task reached per stream.
  std::vector<u32> fwd_, fwd_touched_;
  std::vector<std::pair<u32, u32>> fwd_work_;  // [first task, stop)
  // Backward half, per target: latest task known to reach it per stream.
  u32 target_ = kNone;
  u32 source_ = kNone;  // a, while a search for it runs
  std::vector<u32> bwd_, bwd_touched_;
  std::vector<std::pair<u32, u32>> bwd_work_, parked_;  // [lo, hi]
  u64 scanned_ = 0;
};

}  // namespace cc
