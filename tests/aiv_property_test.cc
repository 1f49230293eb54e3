// Properties of the AIV expansion on random launches (aiv_random.h):
//  * the matching does not depend on the simulation order when stage 3
//    holds: with no 602 and no 102, every shuffled lane order of the
//    co-simulation matches the same pipe events and flags;
//  * the graph is acyclic (and complete) when no 102 is reported;
//  * stage 4 agrees with the brute-force reference (every ordered pair of
//    tasks, reachability by bitsets) on graphs with AIV lanes, flag cells
//    and host copies.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "aiv_random.h"
#include "aiv_test_util.h"
#include "gen_cases.h"
#include "check/mem_conflict.h"
#include "graph/reach.h"
#include "reference.h"

namespace cc::test {
namespace {

bool has_code(const CheckResult& r, u16 code) {
  return std::any_of(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return f.code == code; });
}

TEST(AivProperty, RandomLaunches) {
  u32 seeds = long_tests() ? 30000 : scaled(3000);
  u32 clean = 0, with_602 = 0, deadlocked = 0, with_conflicts = 0, complete = 0;
  for (u32 seed = 1; seed <= seeds; ++seed) {
    std::mt19937_64 rng(seed);
    Trace t = random_aiv_trace(rng);
    AivChecked base = check_aiv_trace(t);
    ASSERT_EQ(base.error, "") << "seed " << seed;
    const CheckResult& r = base.result;
    for (u16 c : {104, 105, 106, 107, 111}) ASSERT_FALSE(has_code(r, c)) << "seed " << seed << ": code " << c;
    bool dead = has_code(r, 102), order = has_code(r, 602);
    deadlocked += dead;
    with_602 += order;
    TaskGraph g = build_graph(base.trace);
    ReferenceReach ref(base.trace, g);
    if (!dead) {
      EXPECT_TRUE(g.complete) << "seed " << seed;
      EXPECT_TRUE(ref.acyclic()) << "seed " << seed;
    }
    if (!dead && !order) {
      ++clean;
      std::set<std::string> edges = aiv_sync_edges(base.trace);
      for (u64 order_seed : {1u, 2u, 3u}) {
        AivOptions o;
        o.order_seed = order_seed * 1000003 + seed;
        AivChecked other = check_aiv_trace(t, o);
        EXPECT_FALSE(has_code(other.result, 102)) << "seed " << seed << " order " << order_seed;
        EXPECT_EQ(aiv_sync_edges(other.trace), edges) << "seed " << seed << " order " << order_seed;
      }
    }
    if (!g.complete) continue;
    ++complete;
    // Stage 4 against the brute force, every pair and the default sweep.
    std::set<std::pair<u32, u32>> expected = reference_conflicts(base.trace, g, ref);
    with_conflicts += !expected.empty();
    for (bool all_pairs : {true, false}) {
      Reachability reach(base.trace, g, all_pairs);
      FindingSink sink(1000000);
      std::vector<ConflictPair> pairs;
      check_mem_conflict(base.trace, g, reach, MemConflictOptions{all_pairs, 64, false}, sink, &pairs);
      std::set<std::pair<u32, u32>> found;
      std::set<u32> later_found, later_expected;
      for (const ConflictPair& p : pairs) found.insert({p.earlier, p.later}), later_found.insert(p.later);
      for (auto [e, l] : expected) later_expected.insert(l);
      if (all_pairs) {
        EXPECT_EQ(found, expected) << "seed " << seed;
      } else {
        for (auto p : found) EXPECT_TRUE(expected.count(p)) << "false report, seed " << seed;
        EXPECT_EQ(later_found, later_expected) << "missed a later member, seed " << seed;
      }
    }
    if (::testing::Test::HasFailure()) return;
  }
  std::printf("%u random AIV traces: %u without 602/102 (order-independent), %u with 602, %u deadlocked, "
              "%u complete (%u with conflicts)\n",
              seeds, clean, with_602, deadlocked, complete, with_conflicts);
  // The generator must reach every interesting case often enough.
  EXPECT_GT(clean, seeds / 10);
  EXPECT_GT(with_602, seeds / 20);
  EXPECT_GT(deadlocked, seeds / 20);
  EXPECT_GT(with_conflicts, seeds / 10);
}

}  // namespace
}  // namespace cc::test
