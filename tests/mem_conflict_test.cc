// Differential tests of stage 4 and of the ordering oracle against the
// brute-force references (memconflict.md: no false report, every later member
// reported, verdict equal; --all-pairs enumerates exactly every pair).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "check/mem_conflict.h"
#include "check/race_links.h"
#include "pipeline/stages.h"
#include "gen/registry.h"
#include "graph/reach.h"
#include "random_trace.h"
#include "gen_cases.h"
#include "reference.h"
#include "test_util.h"

namespace cc::test {
namespace {

// The ATOMIC-REDUCE-ORDER warning of a sweep: its (earlier, later) tasks.
using WarnedPair = std::optional<std::pair<u32, u32>>;

std::vector<ConflictPair> sweep(const Trace& t, const TaskGraph& g, bool all_pairs, u32 partner_cap = 64,
                                MemConflictStats* stats = nullptr, bool strict_reduce = false,
                                WarnedPair* warned = nullptr) {
  Reachability reach(t, g, all_pairs);
  FindingSink sink(1000000);
  std::vector<ConflictPair> pairs;
  check_mem_conflict(t, g, reach, MemConflictOptions{all_pairs, partner_cap, strict_reduce}, sink, &pairs, stats);
  if (warned) {
    warned->reset();
    for (const Finding& f : sink.findings())
      if (f.tag == "ATOMIC-REDUCE-ORDER") {
        EXPECT_FALSE(warned->has_value()) << "two ATOMIC-REDUCE-ORDER warnings";
        EXPECT_EQ(f.severity, Severity::Warning);
        *warned = std::pair{f.tasks.at(0), f.tasks.at(1)};
      }
  }
  return pairs;
}

struct Outcomes {
  int with_conflicts = 0, without = 0, incomplete = 0;
  int atomic_only = 0;  // graphs whose only unordered overlaps are atomic reduces
  int with_atomic = 0;  // graphs with an unordered pair of atomic reduces
};

// The oracle on every ordered pair of tasks, and the sweep's pairs, against
// the brute-force references on one graph; false once a check failed.
bool differential_one(const Trace& t, u64 seed, std::mt19937_64& rng, Outcomes& o) {
  {
    TaskGraph g = build_graph(t);
    ReferenceReach ref(t, g);
    EXPECT_TRUE(ref.acyclic()) << "seed " << seed;
    // The oracle itself, on every ordered pair of tasks, with the second
    // order built lazily (as in production) and from the start.
    Reachability lazy(t, g), eager(t, g, true);
    for (u32 a = 0; a < t.tasks.size(); ++a)
      for (u32 b = 0; b < t.tasks.size(); ++b) {
        EXPECT_EQ(lazy.happens_before(a, b), ref.reaches(a, b)) << "seed " << seed << " a=" << a << " b=" << b;
        EXPECT_EQ(eager.happens_before(a, b), ref.reaches(a, b)) << "seed " << seed << " a=" << a << " b=" << b;
        if (lazy.happens_before(a, b) != ref.reaches(a, b)) return false;
      }
    // Target-major, sources in random order: the backward cone is kept per
    // target and extended (parked stretches resumed) across these queries.
    Reachability by_target(t, g, seed % 2 == 0);
    std::vector<u32> sources(t.tasks.size());
    for (u32 i = 0; i < sources.size(); ++i) sources[i] = i;
    for (u32 b = 0; b < t.tasks.size(); ++b) {
      std::shuffle(sources.begin(), sources.end(), rng);
      for (u32 a : sources)
        if (by_target.happens_before(a, b) != ref.reaches(a, b)) {
          ADD_FAILURE() << "target-major, seed " << seed << " a=" << a << " b=" << b;
          return false;
        }
    }
    if (!g.complete) {
      ++o.incomplete;
      return true;
    }
    // With atomic SDMA reduces (the default) and with --strict-reduce.
    for (bool strict : {false, true}) {
      std::set<std::pair<u32, u32>> atomic, atomic_fp;
      std::set<std::pair<u32, u32>> expected = reference_conflicts(t, g, ref, strict, &atomic, &atomic_fp);
      std::set<u32> later_expected;
      for (auto [e, l] : expected) later_expected.insert(l);
      std::string what = fmt::format("seed {}{}", seed, strict ? " --strict-reduce" : "");
      // The default cap and a cap of one partner (every task with a partner
      // stops asking, frontiers keep untested members): both exact.
      for (u32 cap : {64u, 1u}) {
        std::set<u32> later_found;
        WarnedPair warned;
        for (const ConflictPair& p : sweep(t, g, false, cap, nullptr, strict, &warned)) {
          EXPECT_TRUE(expected.count({p.earlier, p.later})) << "false report, cap " << cap << ", " << what;
          later_found.insert(p.later);
        }
        EXPECT_EQ(later_found, later_expected) << "missed a later member, cap " << cap << ", " << what;
        // The warning names a real pair of floating-point reduces; it is
        // never missed when no race hides the pair behind a 302.
        if (warned) {
          EXPECT_TRUE(atomic_fp.count(*warned)) << "warning on a wrong pair, " << what;
        }
        if (expected.empty()) {
          EXPECT_EQ(warned.has_value(), !atomic_fp.empty()) << "cap " << cap << ", " << what;
        }
      }
      std::vector<ConflictPair> all = sweep(t, g, true, 64, nullptr, strict);
      std::set<std::pair<u32, u32>> all_set;
      for (const ConflictPair& p : all) all_set.insert({p.earlier, p.later});
      EXPECT_EQ(all_set, expected) << "--all-pairs, " << what;
      if (strict) {
        EXPECT_TRUE(atomic.empty());
      }
      if (::testing::Test::HasFailure()) return false;
      if (strict) continue;
      (expected.empty() ? o.without : o.with_conflicts)++;
      if (expected.empty() && !atomic.empty()) ++o.atomic_only;
      if (!atomic.empty()) ++o.with_atomic;
    }
  }
  return true;
}

// The same on `runs` random graphs of `shape`.
Outcomes differential(const RandomTraceShape& shape, u64 runs, u64 first_seed) {
  Outcomes o;
  for (u64 seed = first_seed; seed < first_seed + runs; ++seed) {
    std::mt19937_64 rng(seed);
    Trace t = random_trace(rng, shape);
    if (!differential_one(t, seed, rng, o)) break;
  }
  return o;
}

// Many writes into one slot, mutually unordered or not, then reads ordered
// after all of them (a barrier: one stream waits for every other) or after
// only some; reads of the slot write into one shared output block, so tasks
// are saturated by the races there (at a cap of 1) while they still meet
// ordered members in the slot. This exercises the segment's dominator and
// the per-segment partner cap (docs/MEMCONFLICT.md).
Trace slot_trace(std::mt19937_64& rng) {
  u32 streams = 2 + u32(rng() % 5);
  std::string text = header(R"({"type":"AllGather","ranks":1,"dataType":"INT8","count":64})",
                            R"("buffers":{"CCL":256})");
  u32 notify = 1;
  auto sync = [&](u32 from, u32 to) {
    text += fmt::format(R"({{"rank":0,"stream":{},"type":"RECORD","waitRank":0,"notifyId":{}}})" "\n", from, notify);
    text += fmt::format(R"({{"rank":0,"stream":{},"type":"WAIT","recordRank":0,"notifyId":{}}})" "\n", to, notify);
    ++notify;
  };
  auto copy = [&](u32 stream, const char* src, u64 src_off, const char* dst, u64 dst_off, u64 len) {
    text += fmt::format(
        R"({{"rank":0,"stream":{},"type":"TRANS_MEM","src":{{"rank":0,"type":"{}","offset":{},"len":{}}},"dst":{{"rank":0,"type":"{}","offset":{},"len":{}}}}})"
        "\n",
        stream, src, src_off, len, dst, dst_off, len);
  };
  u32 steps = 8 + u32(rng() % 40);
  for (u32 i = 0; i < steps; ++i) {
    u32 s = u32(rng() % streams), kind = u32(rng() % 12);
    u64 slot = 32 * (rng() % 2), len = 32 * (1 + rng() % 2);
    if (kind < 4) {
      copy(s, "INPUT", 0, "CCL", slot, len);  // a write into the slot
    } else if (kind < 8) {
      // A read of the slot, into the shared output block or a place of its own.
      copy(s, "CCL", slot, rng() % 2 ? "OUTPUT" : "CCL", rng() % 2 ? 0 : 128 + 32 * (rng() % 4), 32);
    } else if (kind < 10) {
      u32 to = u32(rng() % streams);
      if (to != s) sync(s, to);
    } else {
      // A barrier: stream s waits for every other stream, or for some.
      bool all = rng() % 2;
      for (u32 from = 0; from < streams; ++from)
        if (from != s && (all || rng() % 2)) sync(from, s);
    }
  }
  return parse(text);
}

TEST(MemConflictProperty, AgreesWithBruteForceOnReadsAfterManyWritesIntoOneSlot) {
  Outcomes o;
  for (u64 seed = 300000; seed < 300000 + scaled(2000); ++seed) {
    std::mt19937_64 rng(seed);
    Trace t = slot_trace(rng);
    if (!differential_one(t, seed, rng, o)) break;
  }
  EXPECT_GT(o.with_conflicts, int(scaled(500)));
  EXPECT_GT(o.without, int(scaled(8)));
  std::printf("one-slot graphs: %d with conflicts, %d without, %d incomplete\n", o.with_conflicts, o.without,
              o.incomplete);
}

TEST(MemConflictProperty, AgreesWithBruteForceOnRandomGraphs) {
  Outcomes o = differential({}, scaled(3000), 0);
  // The generator must exercise both verdicts, or this test proves nothing.
  EXPECT_GT(o.with_conflicts, int(scaled(300)));
  EXPECT_GT(o.without, int(scaled(300)));
  EXPECT_LT(o.incomplete, int(scaled(1500)));
  std::printf("random graphs: %d with conflicts, %d without, %d deadlocked (oracle only)\n", o.with_conflicts,
              o.without, o.incomplete);
}

// The same on graphs shaped like CCU expansions: unchained nodes whose only
// edges are explicit, and host tasks that wait for them.
TEST(MemConflictProperty, AgreesWithBruteForceOnGraphsWithUnchainedNodes) {
  Outcomes o = differential(ccu_style_shape(), scaled(2000), 100000);
  EXPECT_GT(o.with_conflicts, int(scaled(200)));
  EXPECT_GT(o.without, int(scaled(150)));
  EXPECT_LT(o.incomplete, int(scaled(1200)));
  std::printf("ccu-style graphs: %d with conflicts, %d without, %d incomplete (oracle only)\n", o.with_conflicts,
              o.without, o.incomplete);
}

// Graphs where most data tasks are SDMA reduces into a few shared bytes, of
// two operators and two data types: atomic pairs, pairs of different
// classes, reduces against copies and reads.
TEST(MemConflictProperty, AgreesWithBruteForceOnGraphsOfSdmaReduces) {
  Outcomes o = differential(sdma_reduce_shape(), scaled(3000), 200000);
  EXPECT_GT(o.with_conflicts, int(scaled(300)));
  EXPECT_GT(o.without, int(scaled(200)));
  EXPECT_GT(o.with_atomic, int(scaled(1000)));  // graphs where the atomic rule decides pairs
  EXPECT_GT(o.atomic_only, int(scaled(30)));    // and where it decides the verdict
  std::printf("sdma-reduce graphs: %d with conflicts, %d without, %d with atomic pairs (%d whose verdict they "
              "decide), %d deadlocked\n",
              o.with_conflicts, o.without, o.with_atomic, o.atomic_only, o.incomplete);
}

// --- Threads: the domains split into shards (docs/MEMCONFLICT.md) -----------

// Everything stage 4 gives, in its order: findings (code, tag, severity,
// message, details, tasks), pairs, the counts kept and the statistics.
std::string stage4_outcome(const Trace& t, const TaskGraph& g, MemConflictOptions opt, unsigned threads) {
  opt.threads = threads;
  Reachability reach(t, g);
  FindingSink sink(1000000);
  std::vector<ConflictPair> pairs;
  MemConflictStats stats;
  check_mem_conflict(t, g, reach, opt, sink, &pairs, &stats);
  std::string out = fmt::format("accesses {} queries {} pairs {} atomic {}\n", stats.accesses, stats.queries,
                                stats.pairs, stats.atomic_pairs);
  for (const ConflictPair& p : pairs) out += fmt::format("pair {} {}\n", p.earlier, p.later);
  for (const Finding& f : sink.findings()) {
    out += fmt::format("{} {} {} {}\n", f.code, f.tag, static_cast<int>(f.severity), f.message);
    for (const std::string& d : f.details) out += "  " + d + "\n";
    for (u32 task : f.tasks) out += fmt::format("  task {}\n", task);
  }
  return out;
}

struct ThreadsOutcomes {
  int graphs = 0, with_findings = 0, with_warning = 0;
};

// Stage 4 at 2, 3 and 8 threads against 1 thread on one graph, in every
// mode (the default cap, a cap of 1, --all-pairs; with and without
// --strict-reduce); false once they differ.
bool same_at_every_thread_count(const Trace& t, u64 seed, ThreadsOutcomes& o) {
  TaskGraph g = build_graph(t);
  if (!g.complete) return true;
  ++o.graphs;
  for (bool strict : {false, true})
    for (int mode = 0; mode < 3; ++mode) {
      MemConflictOptions opt{mode == 2, mode == 1 ? 1u : 64u, strict};
      std::string one = stage4_outcome(t, g, opt, 1);
      if (!strict && mode == 0) {
        o.with_findings += one.find("\n302 ") != std::string::npos;
        o.with_warning += one.find("ATOMIC-REDUCE-ORDER") != std::string::npos;
      }
      for (unsigned threads : {2u, 3u, 8u}) {
        std::string many = stage4_outcome(t, g, opt, threads);
        if (many != one) {
          ADD_FAILURE() << "seed " << seed << " threads " << threads << " mode " << mode << (strict ? " strict" : "")
                        << "\n--- 1 thread:\n" << one << "--- " << threads << " threads:\n" << many;
          return false;
        }
      }
    }
  return true;
}

TEST(MemConflictProperty, FindingsDoNotDependOnTheThreadCount) {
  ThreadsOutcomes o;
  struct Family {
    RandomTraceShape shape;
    u64 first_seed;
  };
  for (const Family& f : {Family{{}, 400000}, Family{ccu_style_shape(), 410000}, Family{sdma_reduce_shape(), 420000}})
    for (u64 seed = f.first_seed; seed < f.first_seed + scaled(500); ++seed) {
      std::mt19937_64 rng(seed);
      if (!same_at_every_thread_count(random_trace(rng, f.shape), seed, o)) return;
    }
  for (u64 seed = 430000; seed < 430000 + scaled(500); ++seed) {
    std::mt19937_64 rng(seed);
    if (!same_at_every_thread_count(slot_trace(rng), seed, o)) return;
  }
  // The graphs must have findings to compare, races and warnings alike.
  EXPECT_GT(o.with_findings, int(scaled(800)));
  EXPECT_GT(o.with_warning, int(scaled(40)));
  std::printf("threads: %d graphs, %d with 302, %d with ATOMIC-REDUCE-ORDER\n", o.graphs, o.with_findings,
              o.with_warning);
}

// k mutually unordered writes into one slot (a CCU loop without its CKE
// waits, found by fuzz_ccu_decoder): each is reported, and the sweep asks
// about O(k·cap) pairs, not k²/2 (the fuzzer's input took 13 s under ASan).
TEST(MemConflict, UnorderedWritesIntoOneSlotCostLinearQueries) {
  constexpr u32 k = 1500;
  std::string text = header(R"({"type":"AllGather","ranks":1,"dataType":"INT8","count":64})");
  for (u32 s = 0; s < k; ++s)
    text += fmt::format(R"({{"rank":0,"stream":{},"type":"TRANS_MEM","src":{{"rank":0,"type":"INPUT","offset":0,"len":64}},"dst":{{"rank":0,"type":"OUTPUT","offset":0,"len":64}}}})"
                        "\n",
                        s);
  Trace t = parse(text);
  TaskGraph g = build_graph(t);
  ASSERT_TRUE(g.complete);
  for (u32 cap : {64u, 1u}) {
    MemConflictStats stats;
    std::vector<ConflictPair> pairs = sweep(t, g, false, cap, &stats);
    std::set<u32> later;
    for (const ConflictPair& p : pairs) later.insert(p.later);
    EXPECT_EQ(later.size(), k - 1) << "cap " << cap;  // every write but the first
    EXPECT_LE(stats.queries, u64{k} * (cap + 1)) << "cap " << cap;
    EXPECT_GE(stats.queries, u64{k - 1}) << "cap " << cap;
  }
  // Without a cap worth the name, the frontier is asked about in full.
  MemConflictStats all;
  sweep(t, g, false, 1u << 30, &all);
  EXPECT_EQ(all.queries, u64{k} * (k - 1) / 2);
}

// The readers of one block after its writes run in parallel, and each
// becomes the segment's dominator in turn: asking whether the previous one
// happens before it took a search of that reader's whole cone, across the
// ring of servers of a hierarchical AllReduce (scans per question doubled
// with the ranks). The dominator gets the cheap layers when it covers few
// writes, so the searches now scan less than a task per question.
TEST(MemConflict, ParallelReadersOfABlockDoNotSearchEachOthersCones) {
  gen::GenParams p;
  p.op = OpType::AllReduce;
  p.ranks = 128;
  p.servers = 8;
  p.count = 65536;
  Result<Trace> t = gen::generate("hierarchical", p, true);
  ASSERT_TRUE(t.ok()) << t.error().message;
  TaskGraph g = build_graph(t.value());
  ASSERT_TRUE(g.complete);
  Reachability reach(t.value(), g);
  FindingSink sink(1000);
  MemConflictStats stats;
  check_mem_conflict(t.value(), g, reach, MemConflictOptions{}, sink, nullptr, &stats);
  EXPECT_TRUE(sink.findings().empty());
  EXPECT_GT(stats.queries, 50000u);
  EXPECT_LT(reach.scanned(), stats.queries) << stats.queries << " questions";
}

// --- The atomic SDMA reduce rule (checks.md stage 4) -----------------------

std::string reduce_line(u32 rank, u32 stream, const char* op, const char* type, const char* link,
                        u64 dst_off = 0, u64 len = 64) {
  std::string l = link[0] ? fmt::format(R"(,"link":"{}")", link) : "";
  return fmt::format(R"({{"rank":{},"stream":{},"type":"REDUCE","srcs":[{{"rank":{},"type":"INPUT","offset":0,"len":{}}}],"dst":{{"rank":0,"type":"CCL","offset":{},"len":{}}},"reduceOp":"{}","dataType":"{}"{}}})"
                     "\n",
                     rank, stream, rank, len, dst_off, len, op, type, l);
}

std::string two_ranks(const std::string& body) {
  return header(R"({"type":"AllGather","ranks":2,"dataType":"INT8","count":64})",
                R"("buffers":{"CCL":256})") +
         body;
}

int count(const std::vector<u16>& codes, u16 code) { return int(std::count(codes.begin(), codes.end(), code)); }

std::vector<std::string> warning_tags(const std::string& text, const CheckOptions& opt = {}) {
  CheckResult r = run_checks(parse(text), {}, opt);
  std::vector<std::string> tags;
  for (const Finding& f : r.findings)
    if (f.code == 0) tags.push_back(f.tag);
  return tags;
}

CheckOptions mem_only() { return CheckOptions{.stages = kStageGraph | kStageMem}; }
CheckOptions mem_only_strict() {
  CheckOptions o = mem_only();
  o.strict_reduce = true;
  return o;
}

TEST(AtomicReduce, UnorderedSdmaReducesOfOneClassAreNotAConflict) {
  std::string t = two_ranks(reduce_line(0, 0, "SUM", "FP32", "SDMA") + reduce_line(1, 0, "SUM", "FP32", "SDMA"));
  EXPECT_EQ(count(codes_of(t, mem_only()), 302), 0);
  EXPECT_EQ(warning_tags(t, mem_only()), std::vector<std::string>{"ATOMIC-REDUCE-ORDER"});
  // HCCL's checker's rule.
  EXPECT_EQ(count(codes_of(t, mem_only_strict()), 302), 1);
  EXPECT_TRUE(warning_tags(t, mem_only_strict()).empty());
  // RDMA reduces inline too (the NIC applies the reduction), and an SDMA
  // and an RDMA reduce meet in HCCL's two-server mesh executors.
  std::string mixed = two_ranks(reduce_line(0, 0, "SUM", "FP32", "SDMA") + reduce_line(1, 0, "SUM", "FP32", "RDMA"));
  EXPECT_EQ(count(codes_of(mixed, mem_only()), 302), 0);
  EXPECT_EQ(count(codes_of(mixed, mem_only_strict()), 302), 1);
  // An integer sum does not depend on the order: no warning.
  std::string ints =
      two_ranks(reduce_line(0, 0, "MAX", "INT32", "SDMA") + reduce_line(1, 0, "MAX", "INT32", "SDMA"));
  EXPECT_EQ(count(codes_of(ints, mem_only()), 302), 0);
  EXPECT_TRUE(warning_tags(ints, mem_only()).empty());
}

TEST(AtomicReduce, EveryOtherPairIsStillAConflict) {
  struct Case {
    std::string second;
    const char* why;
  };
  for (const Case& c : {
           Case{reduce_line(1, 0, "MAX", "FP32", "SDMA"), "another operator"},
           Case{reduce_line(1, 0, "SUM", "FP16", "SDMA"), "another data type"},
           Case{reduce_line(1, 0, "SUM", "FP32", "CCU"), "another link"},
           Case{reduce_line(1, 0, "SUM", "FP32", ""), "no link"},
           Case{reduce_line(1, 0, "SUM", "FP32", "LOCAL"), "a local reduce"},
           Case{R"({"rank":1,"stream":0,"type":"TRANS_MEM","src":{"rank":1,"type":"INPUT","offset":0,"len":64},"dst":{"rank":0,"type":"CCL","offset":0,"len":64},"link":"SDMA"})"
                "\n",
                "a copy into the bytes"},
           Case{R"({"rank":1,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"CCL","offset":0,"len":64},"dst":{"rank":1,"type":"OUTPUT","offset":0,"len":64},"link":"SDMA"})"
                "\n",
                "a read of the bytes"},
       }) {
    std::string t = two_ranks(reduce_line(0, 0, "SUM", "FP32", "SDMA") + c.second);
    EXPECT_EQ(count(codes_of(t, mem_only()), 302), 1) << c.why;
  }
}

// An SDMA reduce must not stand in for an earlier copy or read of its bytes:
// a later reduce of its class does not conflict with it, but does with them.
TEST(AtomicReduce, AReduceDoesNotHideTheCopyOrReadBeforeIt) {
  const char* copy0 =
      R"({"rank":0,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"INPUT","offset":0,"len":64},"dst":{"rank":0,"type":"CCL","offset":0,"len":64},"link":"LOCAL"})"
      "\n";
  const char* read0 =
      R"({"rank":0,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"CCL","offset":0,"len":64},"dst":{"rank":0,"type":"OUTPUT","offset":0,"len":64},"link":"LOCAL"})"
      "\n";
  for (const char* first : {copy0, read0}) {
    // Rank 1's reduce is unordered with everything on rank 0; rank 0's own
    // reduce comes after its copy (or read) on the same stream.
    std::string t = two_ranks(std::string(first) + reduce_line(0, 0, "SUM", "FP32", "SDMA") +
                              reduce_line(1, 0, "SUM", "FP32", "SDMA"));
    CheckResult r = run_checks(parse(t), {}, mem_only());
    ASSERT_EQ(count(codes_of(t, mem_only()), 302), 1) << first;
    for (const Finding& f : r.findings)
      if (f.code == 302) {
        EXPECT_EQ(f.refs.at(0).index, 0u) << "the partner is the first task of rank 0";
        EXPECT_EQ(f.refs.at(1).rank, 1u);
      }
  }
}

// k SDMA reduces of one class in parallel into one slot (a mesh reduce of
// k streams): no conflict, and O(k·cap) ordering queries, not k²/2.
TEST(AtomicReduce, ParallelReducesIntoOneSlotCostLinearQueries) {
  constexpr u32 k = 1500;
  std::string text = header(R"({"type":"AllGather","ranks":1,"dataType":"INT8","count":64})",
                            R"("buffers":{"CCL":64})");
  for (u32 s = 0; s < k; ++s)
    text += fmt::format(R"({{"rank":0,"stream":{},"type":"REDUCE","srcs":[{{"rank":0,"type":"INPUT","offset":0,"len":64}}],"dst":{{"rank":0,"type":"CCL","offset":0,"len":64}},"reduceOp":"SUM","dataType":"FP32","link":"SDMA"}})"
                        "\n",
                        s);
  Trace t = parse(text);
  TaskGraph g = build_graph(t);
  ASSERT_TRUE(g.complete);
  for (u32 cap : {64u, 1u}) {
    MemConflictStats stats;
    WarnedPair warned;
    EXPECT_TRUE(sweep(t, g, false, cap, &stats, false, &warned).empty()) << "cap " << cap;
    EXPECT_TRUE(warned.has_value());
    EXPECT_LE(stats.queries, u64{k} * (cap + 1)) << "cap " << cap;
  }
  // --strict-reduce: every reduce but the first is reported.
  std::set<u32> later;
  for (const ConflictPair& p : sweep(t, g, false, 64, nullptr, true)) later.insert(p.later);
  EXPECT_EQ(later.size(), k - 1);
}

// A 406/407 on bytes a race touched is linked to it; one elsewhere (other
// bytes, rank or buffer), a finding already in a cascade, and other codes
// are not.
TEST(RaceLinks, ResultFindingsOnRacyBytesBecomeConsequences) {
  Trace t;
  FindingSink sink(100);
  auto finding = [](u16 code, u32 rank, const char* buffer, u64 b, u64 e) {
    Finding f = make_finding(code, code == 302 ? StageTag::MemConflict : StageTag::SemanticCheck, "x");
    f.bytes = ByteRange{rank, buffer, b, e};
    return f;
  };
  sink.add(finding(302, 0, "CCL", 0, 64));
  sink.add(finding(407, 0, "CCL", 32, 40));    // inside the race's bytes: linked
  sink.add(finding(406, 0, "CCL", 64, 128));   // just after them
  sink.add(finding(406, 1, "CCL", 0, 64));     // another rank
  sink.add(finding(407, 0, "OUTPUT", 0, 64));  // another buffer
  sink.add(finding(409, 0, "CCL", 0, 64));     // not a missing or wrong piece
  Finding earlier = finding(406, 0, "CCL", 0, 8);
  earlier.consequence_of = 7;                  // already in a cascade
  sink.add(std::move(earlier));
  link_results_to_races(t, sink);
  const std::vector<Finding>& f = sink.findings();
  ASSERT_EQ(f.size(), 7u);
  EXPECT_NE(f[0].cause_id, 0u);
  EXPECT_EQ(f[1].consequence_of, f[0].cause_id);
  EXPECT_NE(f[1].details.back().find("consequence of the race (302) on rank 0 CCL [0x0,0x40)"), std::string::npos)
      << f[1].details.back();
  for (int i : {2, 3, 4, 5}) EXPECT_EQ(f[i].consequence_of, 0u) << i;
  EXPECT_EQ(f[6].consequence_of, 7u);
  EXPECT_GT(f[0].cause_id, 7u);  // not the id of a cause that was not kept
  EXPECT_EQ(sink.root_causes(), 1u);
  EXPECT_EQ(sink.consequences(), 2u);  // the one linked here and the one that came linked

  // Without a race nothing changes.
  FindingSink alone(100);
  alone.add(finding(407, 0, "CCL", 32, 40));
  link_results_to_races(t, alone);
  EXPECT_EQ(alone.findings()[0].consequence_of, 0u);
  EXPECT_EQ(alone.consequences(), 0u);
}

}  // namespace
}  // namespace cc::test
