// Happens-before queries on the task graph: is there a path from a to b?
#pragma once

#include <memory>
#include <vector>

#include "graph/graph.h"
#include "graph/marks.h"

namespace cc {

struct ReachOptions {
  bool eager_order2 = false;  // build τ2 at once (tests use it to cover both paths)
  unsigned workers = 1;       // threads building the index (the same index for any number)
};

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
//    after p (the marks of tasks with out-edges jump over the data tasks
//    between them); the
//    backward half does the same from b through in-edges. Every
//    edge goes forward in τ and τ2, so the forward half never looks past b
//    and the backward half never before a in either order. They alternate
//    and stop when they meet.
// The backward cone is kept for as long as the target stays the same: the
// memory-conflict sweep asks about one target with every frontier member in
// turn. Memory is O(tasks + streams); nothing is stored per (task, stream).
//
// Not thread-safe: it keeps per-chain scratch state between queries. A
// thread of its own gets a fork (the second constructor): the index built
// from the graph (the marks, the one-hop edges) is shared, the
// search state is its own. The index is built by ReachOptions::workers
// threads, the same for any number of them.
class Reachability {
 public:
  Reachability(const Trace& trace, const TaskGraph& graph, bool eager_order2 = false);
  Reachability(const Trace& trace, const TaskGraph& graph, ReachOptions options);
  // A fork of `base`: the same answers, its own search state, sharing
  // base's index (and τ2, if base has built it). Made on the thread that
  // owns `base`, then used on another.
  struct Fork {};
  Reachability(const Reachability& base, Fork);

  // a ≤ b: a == b, or a path from a to b exists.
  bool happens_before(u32 a, u32 b);

  // The answer of the cheap layers alone (one stream, τ, τ2 when built):
  // 1 yes, 0 no, -1 only a search could tell.
  int quick(u32 a, u32 b) const;
  // quick() and then the one-hop index: every layer but the search (and
  // it never builds τ2). 1 yes, 0 no, -1 only a search could tell.
  int without_search(u32 a, u32 b) const;

  // Number of tasks scanned by all queries so far (for statistics).
  u64 scanned() const { return scanned_; }

  // What the constructor derives from the graph, read-only afterwards
  // (shared by forks; public for the tests that compare its builds).
  struct Index {
    TaskMarks out_marks;  // the tasks with out-edges (sync or explicit)
    TaskMarks in_marks;   // the tasks with in-edges
    // One-hop index: the edges leaving each chain, grouped by the chain
    // they enter (in chain order), a group sorted by target task (then
    // source), each with the latest source task of its group so far.
    struct Hop {
      u32 to, latest_from;
      bool operator==(const Hop&) const = default;
    };
    std::vector<Hop> hops;
    // The groups of chain c are pairs[pair_begin[c] .. pair_begin[c+1]),
    // by entered chain: a flat table, searched in the few groups of one
    // chain, where a hash map would hash and chase a node on every query.
    struct Pair {
      u32 to_chain, begin, end;  // hops [begin, end)
      bool operator==(const Pair&) const = default;
    };
    std::vector<u32> pair_begin;
    std::vector<Pair> pairs;
    bool operator==(const Index&) const = default;
  };
  const Index& index() const { return *index_; }

 private:
  void build_index(Index& ix, unsigned workers) const;
  void build_order2();
  bool one_hop(u32 a, u32 b) const;
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
  std::shared_ptr<const Index> index_;
  const TaskMarks& out_;
  const TaskMarks& in_;
  // τ2, null until built. Once built it is only read: a fork made after
  // shares it (4 bytes per task, once), a fork made before builds its own.
  std::shared_ptr<const std::vector<u32>> tau2_owner_;
  const u32* tau2_ = nullptr;
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
