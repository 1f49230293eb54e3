// Differential tests of stage 4 and of the ordering oracle against the
// brute-force references (memconflict.md: no false report, every later member
// reported, verdict equal; --all-pairs enumerates exactly every pair).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "check/mem_conflict.h"
#include "graph/reach.h"
#include "random_trace.h"
#include "reference.h"
#include "test_util.h"

namespace cc::test {
namespace {

std::vector<ConflictPair> sweep(const Trace& t, const TaskGraph& g, bool all_pairs, u32 partner_cap = 64,
                                MemConflictStats* stats = nullptr) {
  Reachability reach(t, g, all_pairs);
  FindingSink sink(1000000);
  std::vector<ConflictPair> pairs;
  check_mem_conflict(t, g, reach, MemConflictOptions{all_pairs, partner_cap}, sink, &pairs, stats);
  return pairs;
}

struct Outcomes {
  int with_conflicts = 0, without = 0, incomplete = 0;
};

// The oracle on every ordered pair of tasks, and the sweep's pairs, against
// the brute-force references on `runs` random graphs of `shape`.
Outcomes differential(const RandomTraceShape& shape, u64 runs, u64 first_seed) {
  Outcomes o;
  for (u64 seed = first_seed; seed < first_seed + runs; ++seed) {
    std::mt19937_64 rng(seed);
    Trace t = random_trace(rng, shape);
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
        if (lazy.happens_before(a, b) != ref.reaches(a, b)) return o;
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
          return o;
        }
    }
    if (!g.complete) {
      ++o.incomplete;
      continue;
    }
    std::set<std::pair<u32, u32>> expected = reference_conflicts(t, g, ref);
    std::set<u32> later_expected;
    for (auto [e, l] : expected) later_expected.insert(l);
    // The default cap and a cap of one partner (every task with a partner
    // stops asking, frontiers keep untested members): both exact.
    for (u32 cap : {64u, 1u}) {
      std::set<u32> later_found;
      for (const ConflictPair& p : sweep(t, g, false, cap)) {
        EXPECT_TRUE(expected.count({p.earlier, p.later})) << "false report, cap " << cap << ", seed " << seed;
        later_found.insert(p.later);
      }
      EXPECT_EQ(later_found, later_expected) << "missed a later member, cap " << cap << ", seed " << seed;
    }
    std::vector<ConflictPair> all = sweep(t, g, true);
    std::set<std::pair<u32, u32>> all_set;
    for (const ConflictPair& p : all) all_set.insert({p.earlier, p.later});
    EXPECT_EQ(all_set, expected) << "--all-pairs, seed " << seed;
    if (::testing::Test::HasFailure()) return o;
    (expected.empty() ? o.without : o.with_conflicts)++;
  }
  return o;
}

TEST(MemConflictProperty, AgreesWithBruteForceOnRandomGraphs) {
  Outcomes o = differential({}, 3000, 0);
  // The generator must exercise both verdicts, or this test proves nothing.
  EXPECT_GT(o.with_conflicts, 300);
  EXPECT_GT(o.without, 300);
  EXPECT_LT(o.incomplete, 1500);
  std::printf("random graphs: %d with conflicts, %d without, %d deadlocked (oracle only)\n", o.with_conflicts,
              o.without, o.incomplete);
}

// The same on graphs shaped like CCU expansions: unchained nodes whose only
// edges are explicit, and host tasks that wait for them.
TEST(MemConflictProperty, AgreesWithBruteForceOnGraphsWithUnchainedNodes) {
  Outcomes o = differential(ccu_style_shape(), 2000, 100000);
  EXPECT_GT(o.with_conflicts, 200);
  EXPECT_GT(o.without, 150);
  EXPECT_LT(o.incomplete, 1200);
  std::printf("ccu-style graphs: %d with conflicts, %d without, %d incomplete (oracle only)\n", o.with_conflicts,
              o.without, o.incomplete);
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

}  // namespace
}  // namespace cc::test
