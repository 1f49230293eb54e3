// The pairing simulation of checks.md and the findings of stages 1-3.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "check/pairing.h"
#include "pipeline/stages.h"
#include "check/sync.h"
#include "graph/graph.h"
#include "export/jsonl.h"
#include "model/builder.h"
#include "random_trace.h"
#include "reference.h"
#include "test_util.h"

namespace cc::test {
namespace {

Op op_of(u32 ranks) {
  Op op;
  op.type = OpType::AllGather;
  op.ranks = ranks;
  op.data_type = DataType::INT8;
  op.count = 16;
  return op;
}

TEST(Pairing, WaitConsumesEarliestExecutedRecord) {
  // Rank 0 posts key #1 twice; rank 1 waits twice. FIFO: first WAIT gets the
  // first RECORD.
  TraceBuilder b(op_of(2));
  u32 r1 = b.record(0, 0, 1, 1), r2 = b.record(0, 0, 1, 1);
  u32 w1 = b.wait(1, 0, 0, 1), w2 = b.wait(1, 0, 0, 1);
  std::vector<u32> id;
  Trace t = b.finish(&id);
  TaskGraph g = build_graph(t);
  ASSERT_TRUE(g.complete);
  EXPECT_EQ(g.partner[id[w1]], id[r1]);
  EXPECT_EQ(g.partner[id[w2]], id[r2]);
  EXPECT_EQ(g.pairs.size(), 2u);
  EXPECT_TRUE(g.unconsumed_records.empty());
}

TEST(Pairing, LowestStreamRunsFirstUntilItBlocks) {
  // Two streams of rank 1 wait for the same key; rank 0 posts once, then
  // again after a WAIT. The lower stream (s0) runs first and takes the first
  // RECORD.
  TraceBuilder b(op_of(2));
  u32 ra = b.record(0, 0, 1, 5);
  b.wait(0, 0, 1, 6);
  u32 rb = b.record(0, 0, 1, 5);
  u32 w_s1 = b.wait(1, 1, 0, 5);
  u32 w_s0 = b.wait(1, 0, 0, 5);
  b.record(1, 0, 0, 6);
  std::vector<u32> id;
  Trace t = b.finish(&id);
  TaskGraph g = build_graph(t);
  ASSERT_TRUE(g.complete);
  EXPECT_EQ(g.partner[id[w_s0]], id[ra]);
  EXPECT_EQ(g.partner[id[w_s1]], id[rb]);
  // The order is topological: every edge goes forward.
  for (u32 i = 0; i < t.tasks.size(); ++i) {
    if (g.partner[i] != kNone && t.tasks[i].type == TaskType::RECORD) {
      EXPECT_LT(g.tau[i], g.tau[g.partner[i]]);
    }
  }
}

TEST(Pairing, DeadlockKeepsBlockedHeadsAndUnconsumedRecords) {
  TraceBuilder b(op_of(2));
  b.wait(0, 0, 1, 1);   // never released
  b.record(1, 0, 0, 2); // executed, never consumed (typo'd key)
  std::vector<u32> id;
  Trace t = b.finish(&id);
  TaskGraph g = build_graph(t);
  EXPECT_FALSE(g.complete);
  ASSERT_EQ(g.blocked_heads.size(), 1u);
  EXPECT_EQ(g.blocked_heads[0], id[0]);
  ASSERT_EQ(g.unconsumed_records.size(), 1u);
  FindingSink sink(20);
  check_gen_graph(t, g, sink);
  ASSERT_EQ(sink.findings().size(), 2u);
  EXPECT_EQ(sink.findings()[0].code, 102);
  EXPECT_NE(sink.findings()[0].details[1].find("no RECORD with this key exists anywhere"), std::string::npos);
  EXPECT_EQ(sink.findings()[1].code, 103);
}

TEST(Pairing, DeadlockChainNamesTheStreamsInTheCycle) {
  TraceBuilder b(op_of(3));
  // 0 waits for 1, 1 waits for 2, 2 waits for 0: each posts after waiting.
  for (u32 r = 0; r < 3; ++r) {
    b.wait(r, 0, (r + 1) % 3, 1);
    b.record(r, 0, (r + 2) % 3, 1);
  }
  Trace t = b.finish();
  TaskGraph g = build_graph(t);
  FindingSink sink(20);
  check_gen_graph(t, g, sink);
  ASSERT_EQ(sink.findings().size(), 3u);
  const Finding& f = sink.findings()[0];
  EXPECT_EQ(f.code, 102);
  ASSERT_GE(f.details.size(), 2u);
  EXPECT_EQ(f.details[f.details.size() - 2], "Wait-for cycle: rank0/s0 \u2192 rank1/s0 \u2192 rank2/s0 \u2192 rank0/s0");
  // One cycle, one cause: the first stream of the cycle; the others hang on it.
  EXPECT_EQ(f.cause_id, 1u);
  EXPECT_EQ(f.details.back(),
            "Root cause (a wait-for cycle): 2 other blocked streams hang on it (rank1/s0, rank2/s0); break the cycle "
            "first.");
  EXPECT_EQ(sink.findings()[1].consequence_of, 1u);
  EXPECT_EQ(sink.findings()[2].consequence_of, 1u);
  EXPECT_NE(f.details[1].find("needs rank1/s0 (RECORD at 1/0/1) which is blocked at 1/0/0 WAIT(2\u21921 #1)"),
            std::string::npos)
      << f.details[1];
}

// A ring where rank 0 waits for a key nobody records: every other rank
// hangs behind it, and the RECORDs each rank posted for its neighbour's last
// WAIT stay unconsumed. One root cause; everything else says it follows.
Trace blocked_ring(u32 n) {
  TraceBuilder b(op_of(n));
  for (u32 r = 0; r < n; ++r) {
    b.record(r, 0, (r + n - 1) % n, 5);                      // for the previous rank's last WAIT
    if (r == 0) b.wait(0, 0, n - 1, 9);                       // the typo: no RECORD #9 anywhere
    else b.wait(r, 0, r - 1, 1);
    b.record(r, 0, (r + 1) % n, 1);
    b.wait(r, 0, (r + 1) % n, 5);
  }
  return b.finish();
}

TEST(Pairing, DeadlockCascadeHasOneRootCause) {
  const u32 n = 64;
  Trace t = blocked_ring(n);
  TaskGraph g = build_graph(t);
  FindingSink sink(1000);
  check_gen_graph(t, g, sink);
  u32 deadlocks = 0, unconsumed = 0, causes = 0, consequences = 0;
  for (const Finding& f : sink.findings()) {
    deadlocks += f.code == 102;
    unconsumed += f.code == 103;
    causes += f.cause_id != 0;
    consequences += f.consequence_of == 1;
  }
  EXPECT_EQ(deadlocks, n);
  EXPECT_EQ(unconsumed, n);
  EXPECT_EQ(causes, 1u);
  EXPECT_EQ(consequences, 2 * n - 1);
  const Finding& root = sink.findings()[0];
  EXPECT_EQ(root.code, 102);
  EXPECT_EQ(root.cause_id, 1u);
  EXPECT_EQ(root.tasks[0], 1u);  // rank 0's WAIT #9 (after its RECORD #5)
  EXPECT_NE(root.details[1].find("no RECORD with this key exists anywhere"), std::string::npos) << root.details[1];
  EXPECT_EQ(root.details.back(),
            "Root cause: 63 other blocked streams hang on this one (rank1/s0, rank2/s0, rank3/s0, rank4/s0, "
            "\u2026 (59 more)); fix this one first.");
}

TEST(Pairing, IndependentDeadlocksAreTheirOwnCauses) {
  // Two rings of two ranks, each stuck on its own typo: two causes, each
  // with its one consequence.
  TraceBuilder b(op_of(4));
  for (u32 base : {0u, 2u}) {
    b.wait(base, 0, base + 1, 9);
    b.record(base, 0, base + 1, 1);
    b.wait(base + 1, 0, base, 1);
  }
  Trace t = b.finish();
  TaskGraph g = build_graph(t);
  FindingSink sink(20);
  check_gen_graph(t, g, sink);
  ASSERT_EQ(sink.findings().size(), 4u);
  EXPECT_EQ(sink.findings()[0].cause_id, 1u);
  EXPECT_EQ(sink.findings()[1].consequence_of, 1u);
  EXPECT_EQ(sink.findings()[2].cause_id, 2u);
  EXPECT_EQ(sink.findings()[3].consequence_of, 2u);
}

TEST(Pairing, ExplicitEdgesOrderAndCycles) {
  TraceBuilder b(op_of(1));
  u32 a = b.record(0, 0, 0, 1);
  u32 c = b.wait(0, 1, 0, 1);
  Trace t = b.finish();
  t.tasks[a].flags |= kTaskPrematched;
  t.tasks[c].flags |= kTaskPrematched;
  t.extra_edges = {{a, c}};
  TaskGraph g = build_graph(t);
  ASSERT_TRUE(g.complete);
  EXPECT_LT(g.tau[a], g.tau[c]);
  // A cycle of explicit edges: nothing runs, 601 names the cycle.
  t.extra_edges = {{a, c}, {c, a}};
  TaskGraph cyc = build_graph(t);
  EXPECT_FALSE(cyc.complete);
  std::vector<u32> cycle;
  ASSERT_TRUE(find_cycle(t, cyc, cycle));
  EXPECT_EQ(cycle.size(), 2u);
  Reachability reach(t, cyc);
  FindingSink sink(20);
  check_sync(t, cyc, reach, sink);
  ASSERT_EQ(sink.findings().size(), 1u);
  EXPECT_EQ(sink.findings()[0].code, 601);
}

TEST(Pairing, SecondOrderIsTopologicalOnRandomGraphs) {
  for (u64 seed = 0; seed < 500; ++seed) {
    std::mt19937_64 rng(seed);
    Trace t = random_trace(rng);
    TaskGraph g = build_graph(t);
    if (!g.complete) continue;
    std::vector<u32> tau2 = reverse_priority_order(t, g);
    ReferenceReach ref(t, g);
    for (u32 a = 0; a < t.tasks.size(); ++a) {
      ASSERT_NE(tau2[a], kNone);
      for (u32 b2 = 0; b2 < t.tasks.size(); ++b2)
        if (a != b2 && ref.reaches(a, b2)) {
          ASSERT_LT(g.tau[a], g.tau[b2]);
          ASSERT_LT(tau2[a], tau2[b2]);
        }
    }
  }
}

TEST(Pairing, SecondOrderIsTopologicalOnGraphsWithUnchainedNodes) {
  for (u64 seed = 0; seed < 500; ++seed) {
    std::mt19937_64 rng(seed);
    Trace t = random_trace(rng, ccu_style_shape());
    TaskGraph g = build_graph(t);
    if (!g.complete) continue;
    std::vector<u32> tau2 = reverse_priority_order(t, g);
    ReferenceReach ref(t, g);
    for (u32 a = 0; a < t.tasks.size(); ++a)
      for (u32 b2 = 0; b2 < t.tasks.size(); ++b2)
        if (a != b2 && ref.reaches(a, b2)) {
          ASSERT_LT(g.tau[a], g.tau[b2]) << "seed " << seed;
          ASSERT_LT(tau2[a], tau2[b2]) << "seed " << seed;
        }
  }
}

// Host stream 0: copy A, copy P, copy C; unchained nodes U1 (after A) and
// U2 (after U1) on another stream, and U2 -> C.
struct Unchained {
  Trace t;
  u32 a, p, c, u1, u2;
};
Unchained unchained_trace(bool block_u1) {
  TraceBuilder b(op_of(1));
  Slice in = b.slice(0, "INPUT", 0, 4), out = b.slice(0, "OUTPUT", 0, 4);
  u32 a = b.copy(0, 0, in, out), p = b.copy(0, 0, in, out), c = b.copy(0, 0, in, out);
  u32 u1 = b.copy(0, 7, in, out), u2 = b.copy(0, 7, in, out);
  for (u32 u : {u1, u2}) b.trace().tasks[u].flags |= kTaskUnchained | kTaskCcu;
  if (block_u1) b.trace().tasks[u1].flags |= kTaskBlocked;
  b.trace().extra_edges = {{a, u1}, {u1, u2}, {u2, c}};
  std::vector<u32> id;
  Trace t = b.finish(&id);
  return {std::move(t), id[a], id[p], id[c], id[u1], id[u2]};
}

TEST(Chains, UnchainedTasksRunRightAfterTheStepThatReadiesThem) {
  Unchained x = unchained_trace(false);
  TaskGraph g = build_graph(x.t);
  ASSERT_TRUE(g.complete);
  EXPECT_EQ(g.chain_count(), 3u);  // the host stream, U1, U2
  EXPECT_FALSE(g.has_stream_pred(x.u1));
  EXPECT_FALSE(g.has_stream_pred(x.u2));
  EXPECT_TRUE(g.has_stream_pred(x.p));
  EXPECT_EQ(g.stream_next(x.u1), kNone);
  // A, then U1 and U2 at once (before P goes on), then P, C.
  EXPECT_EQ(g.order, (std::vector<u32>{x.a, x.u1, x.u2, x.p, x.c}));
  Reachability reach(x.t, g);
  EXPECT_TRUE(reach.happens_before(x.a, x.u2));
  EXPECT_TRUE(reach.happens_before(x.u1, x.c));
  EXPECT_FALSE(reach.happens_before(x.u1, x.p));  // no stream edge into or out of U1
  EXPECT_FALSE(reach.happens_before(x.p, x.u2));
}

TEST(Chains, BlockedTaskNeverRunsNorItsSuccessors) {
  Unchained x = unchained_trace(true);
  TaskGraph g = build_graph(x.t);
  EXPECT_FALSE(g.complete);
  EXPECT_FALSE(g.executed(x.u1));
  EXPECT_FALSE(g.executed(x.u2));
  EXPECT_FALSE(g.executed(x.c));
  EXPECT_TRUE(g.executed(x.p));
  std::vector<u32> tau2 = reverse_priority_order(x.t, g);
  EXPECT_EQ(tau2[x.u1], kNone);
  EXPECT_EQ(tau2[x.c], kNone);
}

// A hook that holds P's successor until it has seen P run, as the CCU
// co-simulation holds a placeholder's successor until its mission ends.
struct HoldAfter final : SimulationHooks {
  u32 trigger, held;
  std::vector<u32> seen;
  void add_holds(std::vector<u32>& holds) override { holds[held]++; }
  void executed(u32 task, SimulationControl& ctl) override {
    seen.push_back(task);
    if (task == trigger) ctl.release(held);
  }
};

TEST(Chains, HooksHoldAndReleaseTasks) {
  TraceBuilder b(op_of(2));
  u32 a0 = b.record(0, 0, 1, 1), a1 = b.wait(0, 0, 1, 2);
  u32 b0 = b.wait(1, 0, 0, 1), b1 = b.record(1, 0, 0, 2);
  std::vector<u32> id;
  Trace t = b.finish(&id);
  // Rank 1's RECORD waits for the hook, which releases it after rank 0's
  // RECORD ran: the trace still completes.
  HoldAfter h;
  h.trigger = id[a0];
  h.held = id[b1];
  TaskGraph g = build_graph(t, &h);
  EXPECT_TRUE(g.complete);
  EXPECT_EQ(h.seen.size(), 4u);
  // Released by a task that never runs: rank 1 stays stuck at its RECORD.
  HoldAfter never;
  never.trigger = id[a1];
  never.held = id[b1];
  TaskGraph g2 = build_graph(t, &never);
  EXPECT_FALSE(g2.complete);
  EXPECT_TRUE(g2.executed(id[b0]));
  EXPECT_FALSE(g2.executed(id[b1]));
}

TEST(JsonlWriter, RoundTripKeepsTasksAndFindings) {
  for (u64 seed = 0; seed < 200; ++seed) {
    std::mt19937_64 rng(seed);
    Trace t = random_trace(rng);
    std::string text = to_jsonl(t);
    Trace back = parse(text);
    ASSERT_EQ(back.tasks.size(), t.tasks.size());
    ASSERT_EQ(to_jsonl(back), text) << "seed " << seed;
    EXPECT_EQ(codes_of(back), codes_of(t)) << "seed " << seed;
  }
}

TEST(Sink, CapsPerCodeButCountsAll) {
  FindingSink sink(2);
  for (int i = 0; i < 5; ++i) sink.add(make_finding(302, StageTag::MemConflict, "x"));
  sink.add(make_finding(404, StageTag::SemanticCheck, "w"));
  EXPECT_EQ(sink.findings().size(), 3u);
  EXPECT_EQ(sink.errors(), 5u);
  EXPECT_EQ(sink.warnings(), 1u);
  EXPECT_FALSE(sink.wants(302));
  EXPECT_TRUE(sink.wants(404));
}

// A stage that ran on a sink of its own, absorbed afterwards, leaves what
// it would have left had it added to the first sink after the first stage:
// the same findings kept in the same order, the same counts.
TEST(Sink, AbsorbIsAddingAfterwards) {
  std::mt19937_64 rng(7);
  const u16 codes[] = {0, 302, 401, 902};
  for (int round = 0; round < 300; ++round) {
    u32 cap = static_cast<u32>(rng() % 4);
    std::vector<Finding> first, second;
    for (std::vector<Finding>* list : {&first, &second})
      for (int n = static_cast<int>(rng() % 9); n-- > 0;) {
        u16 code = codes[rng() % 4];
        Finding f = make_finding(code, StageTag::SemanticCheck, fmt::format("m{}", rng() % 1000));
        if (code == 0) f.tag = rng() % 2 ? "A" : "B", f.severity = Severity::Warning;
        if (rng() % 5 == 0) f.cause_id = 1;
        list->push_back(f);
      }
    FindingSink sequential(cap), main(cap), own(cap);
    for (const Finding& f : first) sequential.add(f), main.add(f);
    for (const Finding& f : second) sequential.add(f), own.add(f);
    main.absorb(std::move(own));
    ASSERT_EQ(main.findings().size(), sequential.findings().size()) << "round " << round;
    for (std::size_t i = 0; i < main.findings().size(); ++i) {
      EXPECT_EQ(main.findings()[i].code, sequential.findings()[i].code);
      EXPECT_EQ(main.findings()[i].message, sequential.findings()[i].message);
    }
    EXPECT_EQ(main.totals(), sequential.totals());
    EXPECT_EQ(main.errors(), sequential.errors());
    EXPECT_EQ(main.warnings(), sequential.warnings());
    EXPECT_EQ(main.root_causes(), sequential.root_causes());
    for (u16 code : codes) EXPECT_EQ(main.wants(code, "A"), sequential.wants(code, "A"));
  }
}

}  // namespace
}  // namespace cc::test

namespace cc::test {
namespace {

// run_stages hands the sync-key and pair tables' memory to stages 4 and 5
// once stages 1 and 3 read them; every other table is as built afterwards,
// for the reports that follow (`order`, freed while stages 4 and 5 run, is
// made again).
TEST(RunStages, ReleasesOnlyTheSyncKeyAndPairTables) {
  std::mt19937_64 rng(7);
  u32 with_keys = 0, complete = 0;
  for (int round = 0; round < 200; ++round) {
    Trace t = random_trace(rng, round % 2 ? RandomTraceShape{} : ccu_style_shape());
    TaskGraph g = build_graph(t);
    TaskGraph built = g;
    with_keys += !built.key_tasks.empty();
    run_stages(t, g, {}, CheckOptions{});
    // Released only from a complete graph; the second order is the same.
    complete += built.complete;
    EXPECT_EQ(g.key_of.empty() && g.key_begin.empty() && g.key_tasks.empty(), built.complete) << round;
    EXPECT_EQ(g.pairs.empty() && g.pair_begin.empty(), built.complete) << round;
    if (!built.complete) {
      EXPECT_TRUE(g.pairs == built.pairs && g.pair_begin == built.pair_begin) << round;
    }
    EXPECT_TRUE(reverse_priority_order(t, g) == reverse_priority_order(t, built)) << round;
    EXPECT_EQ(g.key_count, built.key_count) << round;
    EXPECT_TRUE(g.stream_first == built.stream_first && g.stream_at_step == built.stream_at_step && g.partner == built.partner && g.order == built.order &&
                g.tau == built.tau && g.out_to == built.out_to && g.in_from == built.in_from &&
                g.unconsumed_records == built.unconsumed_records && g.blocked_heads == built.blocked_heads)
        << round;
  }
  EXPECT_GT(with_keys, 150u);
  EXPECT_GT(complete, 20u);
  EXPECT_LT(complete, 180u);
}

TEST(Finalize, InterleavedStreamsKeepFileOrderInPlace) {
  for (u64 seed = 0; seed < 50; ++seed) {
    std::mt19937_64 rng(seed);
    Op op;
    op.type = OpType::AllGather;
    op.ranks = 3;
    op.data_type = DataType::INT8;
    op.count = 8;
    Trace t;
    t.op = op;
    for (u32 i = 0; i < 500; ++i) {
      Task k;
      k.type = TaskType::RECORD;
      k.rank = static_cast<u32>(rng() % 3);
      k.stream = static_cast<u32>(rng() % 4) * 1000;
      k.set_peer(k.rank);
      k.line = i + 1;  // file order
      t.tasks.push_back(k);
    }
    std::vector<Task> before = t.tasks;
    std::vector<u32> new_id;
    ASSERT_EQ(message_of(finalize_trace(t, &new_id)), "");
    for (u32 i = 0; i < before.size(); ++i) {
      const Task& k = t.tasks[new_id[i]];
      ASSERT_EQ(k.line, before[i].line);
      ASSERT_EQ(k.rank, before[i].rank);
      ASSERT_EQ(k.stream, before[i].stream);
    }
    for (const Stream& s : t.streams)
      for (u32 id = s.first_task; id < s.first_task + s.task_count; ++id) {
        ASSERT_EQ(t.tasks[id].rank, s.rank);
        ASSERT_EQ(t.tasks[id].stream, s.id);
        ASSERT_EQ(t.task_index(id), id - s.first_task);
        if (id > s.first_task) {
          ASSERT_LT(t.tasks[id - 1].line, t.tasks[id].line);
        }
      }
    for (std::size_t s = 1; s < t.streams.size(); ++s)
      ASSERT_LT(std::pair(t.streams[s - 1].rank, t.streams[s - 1].id), std::pair(t.streams[s].rank, t.streams[s].id));
  }
}

}  // namespace
}  // namespace cc::test

namespace cc::test {
namespace {

// TaskGraph::stream_of against the streams' ranges: random traces of short
// streams (many per step of the table), and of streams around a step long,
// so that the answer is found at once, one stream on, and many streams on.
TEST(StreamOf, EveryTaskIsInTheStreamThatHoldsIt) {
  std::mt19937_64 rng(11);
  u32 checked = 0;
  for (int round = 0; round < 300; ++round) {
    RandomTraceShape shape;
    shape.max_ranks = 1 + round % 8;
    shape.max_streams = 1 + round % 5;
    shape.max_tasks = round % 3 == 0 ? 3 : round % 3 == 1 ? 40 : 2 * TaskGraph::kStreamStep + 7;
    Trace t = random_trace(rng, shape);
    TaskGraph g = build_graph(t);
    for (u32 s = 0; s < t.streams.size(); ++s)
      for (u32 i = 0; i < t.streams[s].task_count; ++i) {
        ASSERT_EQ(g.stream_of(t.streams[s].first_task + i), s) << "round " << round << " task " << i;
        ++checked;
      }
  }
  EXPECT_GT(checked, 20000u);
}

}  // namespace
}  // namespace cc::test
