#include <fmt/format.h>
#include <gtest/gtest.h>

#include <queue>
#include <regex>
#include <set>

#include "graph/neighbourhood.h"
#include "report/dot.h"
#include "random_trace.h"
#include "test_util.h"

namespace cc::test {
namespace {

// Two ranks, a slave stream on rank 0, cross-rank syncs.
const std::string kTrace =
    header(R"({"type":"AllGather","ranks":2,"dataType":"INT8","count":64})") +
    R"({"rank":0,"stream":0,"type":"RECORD","waitRank":0,"notifyId":1}
{"rank":0,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"INPUT","offset":0,"len":64},"dst":{"rank":0,"type":"OUTPUT","offset":0,"len":64}}
{"rank":0,"stream":0,"type":"WAIT","recordRank":0,"notifyId":2}
{"rank":0,"stream":0,"type":"RECORD","waitRank":1,"notifyId":3}
{"rank":0,"stream":1,"type":"WAIT","recordRank":0,"notifyId":1}
{"rank":0,"stream":1,"type":"TRANS_MEM","src":{"rank":1,"type":"INPUT","offset":0,"len":64},"dst":{"rank":0,"type":"OUTPUT","offset":64,"len":64},"link":"SDMA"}
{"rank":0,"stream":1,"type":"RECORD","waitRank":0,"notifyId":2}
{"rank":1,"stream":0,"type":"WAIT","recordRank":0,"notifyId":3}
{"rank":1,"stream":0,"type":"REDUCE","src":{"rank":0,"type":"OUTPUT","offset":0,"len":64},"dst":{"rank":1,"type":"OUTPUT","offset":0,"len":64},"dataType":"INT8","reduceOp":"MAX"}
)";

int count(const std::string& s, const std::regex& re) {
  return static_cast<int>(std::distance(std::sregex_iterator(s.begin(), s.end(), re), std::sregex_iterator()));
}

TEST(Dot, ClustersLanesAndEdges) {
  Trace t = parse(kTrace);
  TaskGraph g = build_graph(t);
  std::string dot = format_dot(t, g, {}, {});
  EXPECT_EQ(dot.rfind("digraph collcheck {", 0), 0u);
  EXPECT_EQ(count(dot, std::regex("subgraph cluster_rank\\d+ ")), 2);
  EXPECT_EQ(count(dot, std::regex("subgraph cluster_r\\d+_s\\d+ ")), 3);
  EXPECT_EQ(count(dot, std::regex("\\n\\s+t\\d+ \\[label=")), 9);
  // Stream edges: 3 + 2 + 1; START to each of three stream heads; three sync edges.
  EXPECT_EQ(count(dot, std::regex("t\\d+ -> t\\d+ \\[weight=10\\]")), 6);
  EXPECT_EQ(count(dot, std::regex("START -> t\\d+")), 3);
  EXPECT_EQ(count(dot, std::regex("t\\d+ -> t\\d+ \\[style=dashed")), 3);
  // Labels: type, position, slices, notify key, reduce op.
  EXPECT_NE(dot.find("0/1/1  TRANS_MEM  SDMA\\l  rank 1 INPUT [0x0,0x40)\\l\u2192 rank 0 OUTPUT [0x40,0x80)\\l"),
            std::string::npos) << dot;
  EXPECT_NE(dot.find("0/0/3  RECORD(0\u21921 #3)"), std::string::npos);
  EXPECT_NE(dot.find("1/0/1  REDUCE MAX INT8"), std::string::npos);
  // Lanes: every task of a stream in one group.
  EXPECT_EQ(count(dot, std::regex("group=\"r0s1\"")), 3);
  EXPECT_EQ(dot.find("penwidth=3"), std::string::npos) << "no finding, no highlight";
}

TEST(Dot, FindingsHighlightedWithTheirCodes) {
  Trace t = parse(kTrace);
  TaskGraph g = build_graph(t);
  Finding e = make_finding(302, StageTag::MemConflict, "x");
  e.tasks = {1, 5};
  Finding e2 = make_finding(406, StageTag::SemanticCheck, "y");
  e2.tasks = {5};
  Finding w = make_finding(404, StageTag::SemanticCheck, "z");
  w.tasks = {8};
  std::string dot = format_dot(t, g, {e, e2, w, e}, {});
  EXPECT_NE(dot.find("t1 [label=\"[302]\\l0/0/1"), std::string::npos) << dot;
  EXPECT_NE(dot.find("t5 [label=\"[302, 406]\\l"), std::string::npos) << "each code once";
  EXPECT_NE(dot.find("t8 [label=\"[404]\\l"), std::string::npos);
  EXPECT_EQ(count(dot, std::regex("color=\"#c62828\", penwidth=3")), 2) << "errors in red";
  EXPECT_EQ(count(dot, std::regex("color=\"#ef6c00\", penwidth=3")), 1) << "a warning in orange";
}

TEST(Dot, LongBatchesCutInTheLabelNotInTheTooltip) {
  std::string pairs;
  for (int i = 0; i < 9; ++i)
    pairs += fmt::format(R"({}{{"src":{{"rank":0,"type":"INPUT","offset":{},"len":1}},"dst":{{"rank":0,"type":"OUTPUT","offset":{},"len":1}}}})",
                         i ? "," : "", i, i);
  Trace t = parse(header(R"({"type":"AllGather","ranks":1,"dataType":"INT8","count":64})") +
                  R"({"rank":0,"stream":0,"type":"BATCH_TRANS_MEM","pairs":[)" + pairs + "]}\n");
  TaskGraph g = build_graph(t);
  std::string dot = format_dot(t, g, {}, {});
  EXPECT_NE(dot.find("→ rank 0 OUTPUT [0x5,0x6)\\l… 3 more groups\\l"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("→ rank 0 OUTPUT [0x6,0x7)\\l"), std::string::npos);
  EXPECT_NE(dot.find("rank 0 INPUT [0x8,0x9) → rank 0 OUTPUT [0x8,0x9)]"), std::string::npos) << "tooltip";
}

TEST(Dot, EscapesQuotesAndBackslashes) {
  Trace t = parse(kTrace);
  t.file = "dir\\we\"ird.jsonl";
  TaskGraph g = build_graph(t);
  DotOptions opt;
  opt.title = t.file;
  std::string dot = format_dot(t, g, {}, opt);
  EXPECT_NE(dot.find("label=\"dir\\\\we\\\"ird.jsonl\""), std::string::npos) << dot.substr(0, 300);
}

TEST(Dot, UnexecutedTasksDashed) {
  Trace t = parse(header(R"({"type":"AllGather","ranks":2,"dataType":"INT8","count":64})") +
                  R"({"rank":0,"stream":0,"type":"WAIT","recordRank":1,"notifyId":9}
{"rank":0,"stream":0,"type":"RECORD","waitRank":1,"notifyId":1}
{"rank":1,"stream":0,"type":"RECORD","waitRank":0,"notifyId":2}
)");
  TaskGraph g = build_graph(t);
  std::string dot = format_dot(t, g, {}, {});
  EXPECT_EQ(count(dot, std::regex("style=\"rounded,filled,dashed\"")), 2) << dot;
}

TEST(Dot, FocusDrawsTheNeighbourhoodOnly) {
  Trace t = parse(kTrace);
  TaskGraph g = build_graph(t);
  DotOptions opt;
  opt.focus = {8};  // 1/0/1
  opt.radius = 1;
  std::string dot = format_dot(t, g, {}, opt);
  EXPECT_EQ(count(dot, std::regex("\\n\\s+t\\d+ \\[label=")), 2) << dot;  // 1/0/1 and 1/0/0
  EXPECT_EQ(dot.find("cluster_rank0"), std::string::npos) << "an empty rank is not drawn";
  EXPECT_NE(dot.find("2 of 9 tasks: within 1 edges of 1/0/1"), std::string::npos);
  opt.radius = 2;  // + its RECORD 0/0/3
  dot = format_dot(t, g, {}, opt);
  EXPECT_EQ(count(dot, std::regex("\\n\\s+t\\d+ \\[label=")), 3) << dot;
  EXPECT_EQ(count(dot, std::regex("t3 -> t7 \\[style=dashed")), 1);
  EXPECT_EQ(dot.find("START"), dot.find("START [shape")) << "START only as a node: no head shown";
}

// Brute force: undirected distances by plain BFS over every edge.
std::vector<u32> distances(const Trace& t, const TaskGraph& g, const std::vector<u32>& seeds) {
  std::vector<std::vector<u32>> adj(t.tasks.size());
  auto link = [&](u32 a, u32 b) { adj[a].push_back(b); adj[b].push_back(a); };
  for (const Stream& s : t.streams)
    for (u32 i = s.first_task; i + 1 < s.first_task + s.task_count; ++i) link(i, i + 1);
  for (u32 i = 0; i < t.tasks.size(); ++i)
    if (g.partner[i] != kNone) link(i, g.partner[i]);
  for (auto [a, b] : t.extra_edges) link(a, b);
  std::vector<u32> d(t.tasks.size(), kNone);
  std::queue<u32> q;
  for (u32 s : seeds) if (d[s] == kNone) { d[s] = 0; q.push(s); }
  while (!q.empty()) {
    u32 v = q.front();
    q.pop();
    for (u32 w : adj[v]) if (d[w] == kNone) { d[w] = d[v] + 1; q.push(w); }
  }
  return d;
}

TEST(Neighbourhood, MatchesBruteForceOnRandomTraces) {
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 2000; ++iter) {
    Trace t = random_trace(rng);
    if (t.tasks.empty()) continue;
    TaskGraph g = build_graph(t);
    std::vector<u32> seeds;
    for (int k = rng() % 3 + 1; k > 0; --k) seeds.push_back(static_cast<u32>(rng() % t.tasks.size()));
    std::vector<u32> d = distances(t, g, seeds);
    u32 radius = static_cast<u32>(rng() % 6);
    u64 cap = rng() % 2 ? ~u64{0} : rng() % (t.tasks.size() + 1);
    Neighbourhood n = neighbourhood(t, g, seeds, radius, cap);
    // The kept set is exactly the tasks within n.radius, the largest radius
    // <= `radius` whose ball fits in `cap` (the seeds always fit).
    std::vector<u64> ball(radius + 2, 0);
    for (u32 x : d) if (x != kNone && x <= radius) for (u32 r = x; r <= radius; ++r) ball[r]++;
    u32 want = 0;
    while (want < radius && ball[want + 1] <= cap && ball[want + 1] > ball[want]) ++want;
    if (n.closed) {
      ASSERT_LE(n.radius, radius);
    } else {
      ASSERT_EQ(n.radius, want) << "iter " << iter;
    }
    u64 kept = 0;
    for (u32 i = 0; i < t.tasks.size(); ++i) {
      ASSERT_EQ(bool(n.keep[i]), d[i] != kNone && d[i] <= n.radius) << "iter " << iter << " task " << i;
      kept += n.keep[i];
    }
    ASSERT_EQ(kept, n.count);
    u64 component = 0;
    for (u32 x : d) component += x != kNone;
    if (n.closed) {
      ASSERT_EQ(kept, component) << "closed: the whole component";
    }
  }
}

}  // namespace
}  // namespace cc::test
