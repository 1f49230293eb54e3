// The task graph and the reachability index are the same at every thread
// count (build_graph's and ReachOptions' workers): every field of the
// graph, the index and the answers, built with 1, 2, 3 and 8 threads, on
// random graphs (plain, CCU-style with unchained nodes and explicit edges,
// SDMA reduces), on graphs large enough that the passes really start
// threads (graph/parts.h), on a trace naming huge ranks, and on the golden
// cases. The one-thread build is checked against the plain definitions
// too: the sync keys against one sort of every sync task, the one-hop
// index against one sort of every edge.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "gen_cases.h"
#include "golden_cases.h"
#include "graph/graph.h"
#include "graph/reach.h"
#include "model/builder.h"
#include "random_trace.h"
#include "reference.h"

namespace cc::test::graph_threads_test {
namespace {

constexpr unsigned kManyThreads[] = {2, 3, 8};

// The pairs by their definition: a key's RECORDs are consumed in the order
// they ran, by its WAITs in the order those ran; the pairs list each key's
// paired WAITs in that order, and every RECORD that ran and was not
// consumed is listed as such (partner kNone, as is every unpaired task).
void expect_pairs_first_in_first_out(const Trace& t, const TaskGraph& g, const std::string& what) {
  std::vector<std::vector<u32>> waits(g.key_count), records(g.key_count);
  for (u32 x : g.order) {
    if (g.key_of[x] == kNone) continue;
    if (t.tasks[x].type == TaskType::WAIT && g.partner[x] != kNone) waits[g.key_of[x]].push_back(x);
    if (t.tasks[x].type == TaskType::RECORD) records[g.key_of[x]].push_back(x);
  }
  std::vector<u32> pairs, pair_begin{0}, unconsumed;
  for (u32 k = 0; k < g.key_count; ++k) {
    for (std::size_t i = 0; i < records[k].size(); ++i) {
      if (i < waits[k].size()) {
        EXPECT_EQ(g.partner[waits[k][i]], records[k][i]) << what << ": key " << k << " pair " << i;
        EXPECT_EQ(g.partner[records[k][i]], waits[k][i]) << what << ": key " << k << " pair " << i;
      } else {
        EXPECT_EQ(g.partner[records[k][i]], kNone) << what << ": unconsumed RECORD " << records[k][i];
        unconsumed.push_back(records[k][i]);
      }
    }
    pairs.insert(pairs.end(), waits[k].begin(), waits[k].end());
    pair_begin.push_back(static_cast<u32>(pairs.size()));
  }
  std::sort(unconsumed.begin(), unconsumed.end());
  EXPECT_TRUE(g.pairs == pairs) << what << ": pairs";
  EXPECT_TRUE(g.pair_begin == pair_begin) << what << ": pair_begin";
  EXPECT_TRUE(g.unconsumed_records == unconsumed) << what << ": unconsumed_records";
}

// Keys by their definition: every valid sync task sorted by (recordRank,
// waitRank, notifyId, task), a key per run of equal (recordRank, waitRank,
// notifyId).
void expect_keys_by_definition(const Trace& t, const TaskGraph& g, const std::string& what) {
  struct Entry {
    u32 record_rank, wait_rank, notify, task;
    auto operator<=>(const Entry&) const = default;
  };
  std::vector<Entry> entries;
  for (u32 i = 0; i < t.tasks.size(); ++i) {
    const Task& k = t.tasks[i];
    if (!pairs_by_notify(t, k)) continue;
    bool rec = k.type == TaskType::RECORD;
    entries.push_back({rec ? k.rank : k.peer(), rec ? k.peer() : k.rank, k.notify(), i});
  }
  std::sort(entries.begin(), entries.end());
  std::vector<u32> key_of(t.tasks.size(), kNone), key_begin, key_tasks;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (i == 0 || std::tie(e.record_rank, e.wait_rank, e.notify) !=
                      std::tie(entries[i - 1].record_rank, entries[i - 1].wait_rank, entries[i - 1].notify))
      key_begin.push_back(static_cast<u32>(i));
    key_of[e.task] = static_cast<u32>(key_begin.size() - 1);
    key_tasks.push_back(e.task);
  }
  EXPECT_EQ(g.key_count, key_begin.size()) << what;
  key_begin.push_back(static_cast<u32>(entries.size()));
  EXPECT_TRUE(g.key_of == key_of) << what << ": key_of";
  EXPECT_TRUE(g.key_begin == key_begin) << what << ": key_begin";
  EXPECT_TRUE(g.key_tasks == key_tasks) << what << ": key_tasks";
  expect_pairs_first_in_first_out(t, g, what);
}

// The one-hop index by its definition: every sync and explicit edge sorted
// by (source chain, target chain, target, source), grouped by chain pair,
// with the running latest source.
void expect_hops_by_definition(const Trace& t, const TaskGraph& g, const Reachability::Index& ix,
                               const std::string& what) {
  struct Edge {
    u32 from_chain, to_chain, to, from;
    auto operator<=>(const Edge&) const = default;
  };
  std::vector<Edge> edges;
  for (u32 a = 0; a < g.task_count; ++a) {
    if (t.tasks[a].type == TaskType::RECORD && g.partner[a] != kNone)
      edges.push_back({g.chain(a), g.chain(g.partner[a]), g.partner[a], a});
    if (g.has_explicit_edges())
      for (u32 e = g.out_begin[a]; e < g.out_begin[a + 1]; ++e)
        edges.push_back({g.chain(a), g.chain(g.out_to[e]), g.out_to[e], a});
  }
  std::sort(edges.begin(), edges.end());
  std::vector<Reachability::Index::Hop> hops;
  std::vector<Reachability::Index::Pair> pairs;
  std::vector<u32> pair_begin(g.chain_count() + 1, 0);
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    u32 latest = 0;
    for (; j < edges.size() && edges[j].from_chain == edges[i].from_chain && edges[j].to_chain == edges[i].to_chain;
         ++j) {
      latest = std::max(latest, edges[j].from);
      hops.push_back({edges[j].to, latest});
    }
    pairs.push_back({edges[i].to_chain, static_cast<u32>(i), static_cast<u32>(j)});
    pair_begin[edges[i].from_chain + 1]++;
    i = j;
  }
  for (u32 c = 0; c < g.chain_count(); ++c) pair_begin[c + 1] += pair_begin[c];
  EXPECT_TRUE(ix.hops == hops) << what << ": hops";
  EXPECT_TRUE(ix.pairs == pairs) << what << ": pairs";
  EXPECT_TRUE(ix.pair_begin == pair_begin) << what << ": pair_begin";
  // The marks by their definition: a task with an out-edge, one with an in-edge.
  std::vector<bool> out(g.task_count), in(g.task_count);
  for (u32 a = 0; a < g.task_count; ++a) {
    if (g.partner[a] != kNone) (t.tasks[a].type == TaskType::RECORD ? out : in)[a] = true;
    if (g.has_explicit_edges()) {
      if (g.out_begin[a + 1] > g.out_begin[a]) out[a] = true;
      if (g.in_begin[a + 1] > g.in_begin[a]) in[a] = true;
    }
  }
  for (u32 a = 0; a < g.task_count; ++a) {
    ASSERT_EQ(ix.out_marks.has(a), out[a]) << what << ": out mark of " << a;
    ASSERT_EQ(ix.in_marks.has(a), in[a]) << what << ": in mark of " << a;
  }
}

void expect_same_graph(const TaskGraph& a, const TaskGraph& b, const std::string& what) {
  EXPECT_EQ(a.task_count, b.task_count) << what;
  EXPECT_EQ(a.key_count, b.key_count) << what;
  EXPECT_EQ(a.complete, b.complete) << what;
  const std::pair<const char*, std::vector<u32> TaskGraph::*> fields[] = {
      {"stream_first", &TaskGraph::stream_first},
      {"stream_at_step", &TaskGraph::stream_at_step},
      {"chain_first", &TaskGraph::chain_first},
      {"chain_of", &TaskGraph::chain_of},
      {"key_of", &TaskGraph::key_of},
      {"key_begin", &TaskGraph::key_begin},
      {"key_tasks", &TaskGraph::key_tasks},
      {"partner", &TaskGraph::partner},
      {"out_begin", &TaskGraph::out_begin},
      {"out_to", &TaskGraph::out_to},
      {"in_begin", &TaskGraph::in_begin},
      {"in_from", &TaskGraph::in_from},
      {"order", &TaskGraph::order},
      {"tau", &TaskGraph::tau},
      {"blocked_heads", &TaskGraph::blocked_heads},
      {"unconsumed_records", &TaskGraph::unconsumed_records},
      {"pair_begin", &TaskGraph::pair_begin},
      {"pairs", &TaskGraph::pairs},
  };
  for (const auto& [name, field] : fields) EXPECT_TRUE(a.*field == b.*field) << what << ": " << name;
}

// Builds the graph and the index at one thread and at every other count;
// `queries` random (a, b) pairs are asked of each index (and of the
// brute-force reference when `reference` and the graph is small).
void expect_same_at_every_thread_count(const Trace& t, const std::string& what, u32 queries, u64 seed,
                                       bool reference = true) {
  TaskGraph one = build_graph(t);
  expect_keys_by_definition(t, one, what);
  Reachability reach_one(t, one, ReachOptions{});
  expect_hops_by_definition(t, one, reach_one.index(), what);
  std::mt19937_64 rng(seed);
  std::vector<std::pair<u32, u32>> asked;
  std::vector<bool> answers;
  if (one.task_count > 0)
    for (u32 q = 0; q < queries; ++q) {
      u32 a = static_cast<u32>(rng() % one.task_count), b = static_cast<u32>(rng() % one.task_count);
      asked.emplace_back(a, b);
      answers.push_back(reach_one.happens_before(a, b));
    }
  if (reference && one.task_count <= 2000) {
    ReferenceReach ref(t, one);
    for (std::size_t q = 0; q < asked.size() && ref.acyclic(); ++q) {
      EXPECT_EQ(answers[q], ref.reaches(asked[q].first, asked[q].second))
          << what << ": " << asked[q].first << " -> " << asked[q].second;
    }
  }
  for (unsigned threads : kManyThreads) {
    std::string at = fmt::format("{}, {} threads", what, threads);
    TaskGraph many = build_graph(t, nullptr, threads);
    expect_same_graph(one, many, at);
    Reachability reach_many(t, many, ReachOptions{.workers = threads});
    EXPECT_TRUE(reach_many.index() == reach_one.index()) << at << ": index";
    for (std::size_t q = 0; q < asked.size(); ++q)
      ASSERT_EQ(reach_many.happens_before(asked[q].first, asked[q].second), answers[q])
          << at << ": " << asked[q].first << " -> " << asked[q].second;
  }
}

TEST(GraphThreads, RandomGraphs) {
  struct Family {
    const char* name;
    RandomTraceShape shape;
    u64 first_seed;
  };
  for (const Family& f : {Family{"plain", {}, 500000}, Family{"ccu-style", ccu_style_shape(), 510000},
                          Family{"sdma-reduce", sdma_reduce_shape(), 520000}}) {
    for (u64 seed = f.first_seed; seed < f.first_seed + scaled(300); ++seed) {
      std::mt19937_64 rng(seed);
      Trace t = random_trace(rng, f.shape);
      expect_same_at_every_thread_count(t, fmt::format("{} seed {}", f.name, seed), 64, seed);
      if (HasFailure()) return;
    }
  }
}

// A fork (the oracle of another thread) answers as its base: made from an
// oracle that has built τ2, which it shares, or from one that has not, when
// it builds its own once its searches have cost a pass; both against the
// transitive closure, on every ordered pair of tasks.
TEST(GraphThreads, ForksAnswerAsTheirBase) {
  u32 graphs = 0, lazy_built = 0;
  for (const RandomTraceShape& shape : {RandomTraceShape{}, ccu_style_shape()}) {
    for (u64 seed = 530000; seed < 530000 + scaled(150); ++seed) {
      std::mt19937_64 rng(seed);
      Trace t = random_trace(rng, shape);
      TaskGraph g = build_graph(t);
      ReferenceReach ref(t, g);
      if (!g.complete || !ref.acyclic()) continue;
      ++graphs;
      Reachability eager(t, g, true), lazy(t, g, false);
      Reachability from_eager(eager, Reachability::Fork{}), from_lazy(lazy, Reachability::Fork{});
      for (u32 a = 0; a < g.task_count; ++a)
        for (u32 b = 0; b < g.task_count; ++b) {
          ASSERT_EQ(from_eager.happens_before(a, b), ref.reaches(a, b)) << "seed " << seed << ": " << a << " -> " << b;
          ASSERT_EQ(from_lazy.happens_before(a, b), ref.reaches(a, b)) << "seed " << seed << ": " << a << " -> " << b;
        }
      // The lazy fork's searches built its own τ2: its answers after that
      // came through it (quick() can then answer "no" without a search).
      bool built = false;
      for (u32 a = 0; a < g.task_count && !built; ++a)
        for (u32 b = 0; b < g.task_count && !built; ++b)
          built = from_lazy.quick(a, b) == 0 && lazy.quick(a, b) == -1;
      lazy_built += built;
    }
  }
  EXPECT_GT(graphs, scaled(150));
  EXPECT_GT(lazy_built, 0u);
}

// Large enough (over kParallelTasks) that every pass starts its threads.
TEST(GraphThreads, LargeGraphsRunOnThreads) {
  expect_same_at_every_thread_count(ring_over_parallel_threshold(), "ring 64", 2000, 1);

  // With unchained nodes, explicit edges and blocked tasks: the first draw
  // of this shape that is large enough.
  RandomTraceShape wide = ccu_style_shape();
  wide.max_ranks = 16;
  wide.max_streams = 8;
  wide.max_tasks = 1200;
  wide.notify_ids = 64;
  Trace t;
  for (u64 seed = 7; t.tasks.size() <= 40000 && seed < 100; ++seed) {
    std::mt19937_64 rng(seed);
    t = random_trace(rng, wide);
  }
  ASSERT_GT(t.tasks.size(), 40000u);
  expect_same_at_every_thread_count(t, fmt::format("wide ccu-style, {} tasks", t.tasks.size()), 2000, 2);
}

// Recording ranks far apart (and the largest u32) share buckets of ranks.
TEST(GraphThreads, HugeRanks) {
  Op op;
  op.type = OpType::AllGather;
  op.ranks = kNone;
  op.data_type = DataType::INT8;
  op.count = 16;
  TraceBuilder b(op);
  const u32 ranks[] = {0, 3, 70000, 1u << 31, kNone - 1, kNone};
  for (u32 from : ranks)
    for (u32 to : ranks) {
      if (from == to) continue;
      b.record(from, 0, to, 5);
      b.record(from, 1, to, from % 7);
      b.wait(to, 0, from, 5);
      b.wait(to, 1, from, from % 7);
    }
  Trace t = b.finish();
  TaskGraph g = build_graph(t);
  EXPECT_GT(g.key_count, 0u);
  expect_same_at_every_thread_count(t, "huge ranks", 200, 3);
}

TEST(GraphThreads, EmptyTrace) {
  Trace t;
  t.op.ranks = 1;
  expect_same_at_every_thread_count(t, "empty", 0, 4);
}

TEST(GraphThreads, GoldenCases) {
  u64 seed = 0;
  u64 checked = for_each_golden_trace([&](const Trace& t, const std::string& name) {
    expect_same_at_every_thread_count(t, name, 200, ++seed, false);
    return !HasFailure();
  });
  EXPECT_GT(checked, quick_tests() ? 50u : 200u);
}

}  // namespace
}  // namespace cc::test::graph_threads_test
