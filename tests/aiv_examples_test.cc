// aiv.md §8: the three worked examples, node by node, edge by edge and
// finding by finding (tests/cases/aiv/example*.jsonl; the golden test checks
// their codes through the binary).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <tuple>

#include "aiv_test_util.h"
#include "graph/graph.h"
#include "model/describe.h"
#include "report/dot.h"

namespace cc::test {
namespace {

// The lanes of example 1's kernel (aiv.md §8.1): S 7, MTE2 5, MTE3 7 tasks.
constexpr u32 kLane[3] = {7, 5, 7};
const char* kPipe[3] = {"S", "MTE2", "MTE3"};

std::set<std::string> example1_edges(bool drop_t0) {
  std::set<std::string> e;
  for (u32 r = 0; r < 2; ++r) {
    u32 p = 1 - r;
    auto n = [&](u32 rank, const char* pipe, u32 pos) { return fmt::format("rank{} L0.b0.{}[{}]", rank, pipe, pos); };
    // events m1→t0, t3→s0, s3→m2, m4→t4, t6→s4 (MTE3 positions one less on
    // rank 0 of example 2, whose t0 is gone: its m1 is then never waited for)
    u32 d = drop_t0 && r == 0 ? 1 : 0;
    if (!(drop_t0 && r == 0)) e.insert(n(r, "MTE2", 1) + " -> " + n(r, "MTE3", 0));
    e.insert(n(r, "MTE3", 3 - d) + " -> " + n(r, "S", 0));
    e.insert(n(r, "S", 3) + " -> " + n(r, "MTE2", 2));
    e.insert(n(r, "MTE2", 4) + " -> " + n(r, "MTE3", 4 - d));
    e.insert(n(r, "MTE3", 6 - d) + " -> " + n(r, "S", 4));
    // flags s1_p → s2_r (cell (r, READY(p))), s5_p → s6_r (cell (r, DONE(p)))
    e.insert(n(p, "S", 1) + " -> " + n(r, "S", 2));
    e.insert(n(p, "S", 5) + " -> " + n(r, "S", 6));
  }
  return e;
}

// Every lane is a chain START → t0 → … → END in array order.
void expect_lanes(const Trace& t, const TaskGraph& g, u32 mte3_len0) {
  auto pred_of = [&](u32 v, u32 u) {  // an edge u → v
    if (g.has_stream_pred(v) && v - 1 == u) return true;
    for (u32 e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e)
      if (g.in_from[e] == u) return true;
    return false;
  };
  for (const AivLaunch& l : t.aiv.launches) {
    u32 first = kNone;
    for (const Stream& s : t.streams)
      if (s.rank == l.rank && s.id == l.stream) first = s.first_task;
    ASSERT_NE(first, kNone);
    u32 start = first, end = first + static_cast<u32>(l.nodes.size()) - 1;
    EXPECT_EQ(l.nodes.front().kind, AivNodeKind::Start);
    EXPECT_EQ(l.nodes.back().kind, AivNodeKind::End);
    for (u32 p = 0; p < 3; ++p) {
      u32 len = p == 2 && l.rank == 0 ? mte3_len0 : kLane[p];
      u32 prev = start;
      for (u32 k = 0; k < len; ++k) {
        u32 v = aiv_task(t, l.rank, 0, 0, kPipe[p], k);
        ASSERT_NE(v, kNone) << l.rank << " " << kPipe[p] << k;
        EXPECT_TRUE(pred_of(v, prev)) << aiv_short_name(t, v);
        prev = v;
      }
      EXPECT_TRUE(pred_of(end, prev)) << "END after " << aiv_short_name(t, prev);
      EXPECT_EQ(aiv_task(t, l.rank, 0, 0, kPipe[p], len), kNone);
    }
    // The placeholder's stream: END → placeholder.
    EXPECT_TRUE(pred_of(l.placeholder, end));
  }
}

TEST(AivExamples, Example1PassesWithTheEdgesOfTheSpec) {
  AivChecked c = check_aiv_case("example1_pass.jsonl");
  ASSERT_EQ(c.error, "");
  const Trace& t = c.trace;
  // 2 placeholders + 2 × (START, 7 + 5 + 7 lane nodes, END).
  EXPECT_EQ(t.tasks.size(), 44u);
  ASSERT_EQ(t.aiv.launches.size(), 2u);
  for (const AivLaunch& l : t.aiv.launches) {
    EXPECT_TRUE(l.expanded);
    EXPECT_EQ(l.nodes.size(), 21u);
  }
  TaskGraph g = build_graph(t);
  EXPECT_TRUE(g.complete);
  expect_lanes(t, g, 7);
  EXPECT_EQ(aiv_sync_edges(t), example1_edges(false));
  // Every cell written once (no AIV-W-FLAG-RESENT), no event left pending (no 103).
  for (const AivCell& cell : t.aiv.cells) EXPECT_EQ(cell.writes.size(), 1u);
  EXPECT_TRUE(c.result.pass);
  EXPECT_TRUE(c.result.findings.empty()) << c.result.findings.front().message;
  // The kinds of node, by the spec's table (§4.1).
  u32 v = aiv_task(t, 0, 0, 0, "MTE2", 0);
  EXPECT_EQ(t.tasks[v].type, TaskType::TRANS_MEM);
  EXPECT_EQ(t.tasks[v].link, Link::AIV);
  EXPECT_EQ(describe_task(t, v),
            "TRANS_MEM src=rank 0 INPUT [0x0,0x100) dst=rank 0 AIV_UB(launch 0, block 0) [0x0,0x100) link=AIV");
  EXPECT_EQ(describe_task(t, aiv_task(t, 0, 0, 0, "MTE2", 1)), "SET_FLAG MTE2\u2192MTE3 #0");
  EXPECT_EQ(describe_task(t, aiv_task(t, 0, 0, 0, "S", 1)), "SEND_FLAG cell 1:0x100000 := 1");
  EXPECT_EQ(describe_task(t, aiv_task(t, 0, 0, 0, "S", 2)), "RECV_FLAG cell 0:0x100080 == 1");
  EXPECT_EQ(task_position(t, aiv_task(t, 1, 0, 0, "MTE3", 4)), "1/0/0:L0.b0.MTE3[4]");
  EXPECT_EQ(task_ref(t, aiv_task(t, 1, 0, 0, "MTE3", 4)), "1/0/0:L0.b0.MTE3[4] taskId=13 (example1_pass.jsonl:5)");
}

TEST(AivExamples, Example2MissingWaitIsTwoRacesAndAWarning) {
  AivChecked c = check_aiv_case("example2_missing_wait.jsonl");
  ASSERT_EQ(c.error, "");
  const Trace& t = c.trace;
  TaskGraph g = build_graph(t);
  expect_lanes(t, g, 6);
  EXPECT_EQ(aiv_sync_edges(t), example1_edges(true));
  EXPECT_EQ(aiv_codes(c.result), (std::set<std::string>{"103", "302"}));
  // 103: m1_0's event, set once and never waited.
  auto w = findings_of(c.result, 103);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0]->severity, Severity::Warning);
  EXPECT_EQ(w[0]->tasks, std::vector<u32>{aiv_task(t, 0, 0, 0, "MTE2", 1)});
  EXPECT_NE(w[0]->message.find("SetFlag MTE2\u2192MTE3 #0 is set 1 time more than it is waited for"),
            std::string::npos)
      << w[0]->message;
  // 302 on UB [0x0,0x100): m0_0 against t1_0 (UB → CCL) and t2_0 (UB → OUTPUT).
  auto races = findings_of(c.result, 302);
  ASSERT_EQ(races.size(), 2u);
  u32 m0 = aiv_task(t, 0, 0, 0, "MTE2", 0);
  for (u32 i = 0; i < 2; ++i) {
    const Finding& f = *races[i];
    EXPECT_EQ(f.tasks, (std::vector<u32>{m0, aiv_task(t, 0, 0, 0, "MTE3", i)}));
    ASSERT_GE(f.details.size(), 5u);
    EXPECT_EQ(f.details[0], "Bytes   : rank 0 AIV_UB(launch 0, block 0) [0x0,0x100)");
    EXPECT_NE(f.details[1].find("Earlier : 0/0/0:L0.b0.MTE2[0] taskId=0"), std::string::npos) << f.details[1];
    EXPECT_NE(f.details[1].find("writes [0x0,0x100)"), std::string::npos) << f.details[1];
    EXPECT_NE(f.details[2].find(fmt::format("Later   : 0/0/0:L0.b0.MTE3[{}]", i)), std::string::npos) << f.details[2];
    EXPECT_NE(f.details[2].find(i == 0 ? "dst=rank 0 CCL" : "dst=rank 0 OUTPUT"), std::string::npos);
    EXPECT_EQ(f.details[3], "Last sync before the earlier task on its stream : (none)");
    EXPECT_EQ(f.details[4],
              "First sync after the earlier task on its stream : 0/0/0:L0.b0.MTE2[1] SET_FLAG MTE2\u2192MTE3 #0");
    // The JSON report's task entries carry the AIV position (§4.1).
    ASSERT_EQ(f.refs.size(), 2u);
    EXPECT_EQ(f.refs[0].aiv_pipe, "MTE2");
    EXPECT_EQ(f.refs[1].aiv_pipe, "MTE3");
    EXPECT_EQ(f.refs[1].aiv_pos, i);
    EXPECT_EQ(f.refs[1].aiv_task_id, 3 + i);
    // ... at the placeholder's host position, as the text names them
    // (0/0/0:L0…), not the stream the expansion keeps the nodes in; the
    // line is the snapshot's, in the checked file.
    for (const TaskRef& r : f.refs) {
      EXPECT_EQ(std::tie(r.rank, r.stream, r.index), std::make_tuple(0u, 0u, 0u));
      EXPECT_EQ(r.line, 5u);
      EXPECT_NE(r.file.find("example2_missing_wait.jsonl"), std::string::npos) << r.file;
    }
  }
  // Stage 5 ran (m0_0 runs before t1_0 in the simulated order) and found the data right.
  bool semantic = false;
  for (const StageTime& s : c.result.times) semantic |= s.stage == "semantic";
  EXPECT_TRUE(semantic);
  EXPECT_LT(g.tau[m0], g.tau[aiv_task(t, 0, 0, 0, "MTE3", 0)]);
}

TEST(AivExamples, Example3ReportsEveryBlockedHeadWithItsChain) {
  AivChecked c = check_aiv_case("example3_recv_never.jsonl");
  ASSERT_EQ(c.error, "");
  const Trace& t = c.trace;
  EXPECT_EQ(aiv_codes(c.result), (std::set<std::string>{"102", "902"}));
  auto dl = findings_of(c.result, 102);
  ASSERT_EQ(dl.size(), 1u);
  EXPECT_EQ(dl[0]->message, "Deadlock: 4 AIV lane heads can never run.");
  std::vector<std::string> want = {
      "rank0 L0.b0.S[2] RECV_FLAG cell 0:0x100080 has 1 (from rank1 L0.b0.S[1]) wants 2: no SendFlag writes 2 to "
      "this cell",
      "rank0 L0.b0.MTE2[2] WAIT_FLAG S\u2192MTE2 #1 needs rank0 L0.b0.S[3], which is behind rank0 L0.b0.S[2] (1 "
      "SetFlag of this event in the block, 0 executed)",
      "  Wait-for chain: rank0 L0.b0.MTE2[2] \u2192 rank0 L0.b0.S[2]",
      "rank0 L0.b0.MTE3[4] WAIT_FLAG MTE2\u2192MTE3 #1 needs rank0 L0.b0.MTE2[4], which is behind rank0 "
      "L0.b0.MTE2[2] (1 SetFlag of this event in the block, 0 executed)",
      "  Wait-for chain: rank0 L0.b0.MTE3[4] \u2192 rank0 L0.b0.MTE2[2] \u2192 rank0 L0.b0.S[2]",
      "rank1 L0.b0.S[6] RECV_FLAG cell 1:0x100100 has 0 wants 1: written only by rank0 L0.b0.S[5], which is "
      "behind rank0 L0.b0.S[2]",
      "  Wait-for chain: rank1 L0.b0.S[6] \u2192 rank0 L0.b0.S[2]",
  };
  EXPECT_EQ(dl[0]->details, want);
  EXPECT_EQ(dl[0]->tasks, (std::vector<u32>{aiv_task(t, 0, 0, 0, "S", 2), aiv_task(t, 0, 0, 0, "MTE2", 2),
                                            aiv_task(t, 0, 0, 0, "MTE3", 4), aiv_task(t, 1, 0, 0, "S", 6)}));
  // The heads never run in the final graph either, and nothing behind them.
  TaskGraph g = build_graph(t);
  EXPECT_FALSE(g.complete);
  for (u32 h : dl[0]->tasks) EXPECT_FALSE(g.executed(h));
  EXPECT_TRUE(g.executed(aiv_task(t, 1, 0, 0, "S", 5)));  // rank 1 ran up to its last RecvFlag
  // Stage 1 reports no second 102 for the AIV nodes or the placeholders.
  EXPECT_EQ(findings_of(c.result, 102).size(), 1u);
}

// DOT: a launch is a cluster named after the host stream that started it,
// with a cluster per block inside; START and END span the blocks.
TEST(AivExamples, DotClustersPerLaunchAndBlock) {
  AivChecked c = check_aiv_case("example1_pass.jsonl");
  ASSERT_EQ(c.error, "");
  TaskGraph g = build_graph(c.trace);
  std::string dot = format_dot(c.trace, g, c.result.findings, DotOptions{});
  for (u32 r = 0; r < 2; ++r) {
    std::size_t launch = dot.find(fmt::format("subgraph cluster_r{}_s1 {{", r));
    std::size_t block = dot.find(fmt::format("subgraph cluster_r{}_s1_b0 {{", r));
    ASSERT_NE(launch, std::string::npos) << dot;
    ASSERT_NE(block, std::string::npos) << dot;
    EXPECT_NE(dot.find("label=\"AIV launch 0 (from stream 0)\"", launch), std::string::npos);
    EXPECT_NE(dot.find("label=\"block 0\"", block), std::string::npos);
    // START is in the launch, before the block's cluster; the lanes inside it.
    u32 start = aiv_task(c.trace, r, 0, 0, "S", 0) - 1;
    std::size_t at = dot.find(fmt::format("t{} [label=", start));
    EXPECT_LT(launch, at);
    EXPECT_LT(at, block);
    EXPECT_LT(block, dot.find(fmt::format("t{} [label=", aiv_task(c.trace, r, 0, 0, "MTE3", 6))));
  }
}

}  // namespace
}  // namespace cc::test
