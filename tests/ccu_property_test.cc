// Properties of the expansion on random CCU programs: loop merge changes no
// finding, the expansion is deterministic, and the final graph agrees with
// the co-simulation that made it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdlib>
#include <algorithm>
#include <map>
#include <set>

#include "ccu_random.h"
#include "gen_cases.h"
#include "graph/graph.h"
#include "io/jsonl/reader.h"

namespace cc::ccu_property_test {
namespace {

struct Outcome {
  std::set<CountKey> kinds;  // (severity, code, tag) found
  bool pass = false;
  CcuExpansionStats stats;
};

Outcome outcome(const std::string& text, const CcuOptions& opt) {
  Outcome o;
  Result<ReadTrace> r = read_jsonl_string(text, "t.jsonl");
  EXPECT_TRUE(r.ok());
  if (!r.ok()) return o;
  std::vector<Finding> pre = expand_ccu(r.value().trace, opt, nullptr, &o.stats);
  CheckResult res = run_checks(r.value().trace, std::move(pre), {});
  for (const auto& [key, n] : res.totals) o.kinds.insert(key);
  o.pass = res.pass;
  return o;
}

u32 rounds() { return test::long_tests() ? 5000 : test::scaled(1000); }

TEST(CcuProperty, LoopMergeChangesNoFinding) {
  u32 merged = 0, failing = 0, programs = 0;
  for (u64 seed = 0; seed < rounds(); ++seed) {
    std::mt19937_64 rng(seed);
    std::string text = test::random_ccu_program(rng).text();
    Outcome unrolled = outcome(text, {});
    Outcome merged_o = outcome(text, {.loop_merge = true});
    // Stage 5 simulates one order of the tasks; with a race (302) that
    // order decides what it sees, and merging changes the order. So the
    // semantic findings must agree when there is no race; every other
    // finding always.
    auto without_semantics = [](std::set<CountKey> k) {
      std::erase_if(k, [](const CountKey& c) { return std::get<1>(c) >= 401 && std::get<1>(c) <= 409; });
      return k;
    };
    bool race = unrolled.kinds.count({Severity::Error, 302, ""}) > 0;
    if (race) {
      ASSERT_EQ(without_semantics(unrolled.kinds), without_semantics(merged_o.kinds)) << "seed " << seed << "\n"
                                                                                       << text;
    } else {
      ASSERT_EQ(unrolled.kinds, merged_o.kinds) << "seed " << seed << "\n" << text;
    }
    ASSERT_EQ(unrolled.pass, merged_o.pass);
    ASSERT_EQ(unrolled.stats.steps, merged_o.stats.steps) << "seed " << seed;
    merged += merged_o.stats.merged_loops > 0;
    // Random programs compute no collective: count failures of stages 1-4.
    failing += std::any_of(unrolled.kinds.begin(), unrolled.kinds.end(), [](const CountKey& k) {
      return std::get<0>(k) == Severity::Error && (std::get<1>(k) < 400 || std::get<1>(k) > 499);
    });
    ++programs;
  }
  if (std::getenv("CCU_PROPERTY_STATS")) {
    std::map<u16, u32> hist;
    for (u64 seed = 0; seed < rounds(); ++seed) {
      std::mt19937_64 rng(seed);
      for (auto k : outcome(test::random_ccu_program(rng).text(), {}).kinds) hist[std::get<1>(k)]++;
    }
    for (auto [c, n] : hist) std::printf("code %u: %u programs\n", c, n);
    std::printf("merged %u failing %u of %u\n", merged, failing, programs);
  }
  // The generator must exercise both sides: merged loops, and failures.
  EXPECT_GT(merged, programs / 10);
  EXPECT_GT(failing, programs / 10);
  EXPECT_LT(failing, programs * 9 / 10);
}

TEST(CcuProperty, ExpansionIsDeterministic) {
  for (u64 seed = 0; seed < rounds() / 4; ++seed) {
    std::mt19937_64 rng(seed);
    std::string text = test::random_ccu_program(rng).text();
    for (bool merge : {false, true}) {
      test::Expanded a = test::expand_text(text, {.loop_merge = merge});
      test::Expanded b = test::expand_text(text, {.loop_merge = merge});
      ASSERT_EQ(test::render_ccu(a.trace), test::render_ccu(b.trace)) << "seed " << seed;
      ASSERT_EQ(a.findings.size(), b.findings.size());
      for (std::size_t i = 0; i < a.findings.size(); ++i) {
        ASSERT_EQ(a.findings[i].message, b.findings[i].message);
        ASSERT_EQ(a.findings[i].tasks, b.findings[i].tasks);
      }
    }
  }
}

// Every node the co-simulation made runs in the final graph (or the mission
// was reported blocked), and every edge goes forward in its order.
TEST(CcuProperty, FinalGraphRunsWhatTheCoSimulationRan) {
  for (u64 seed = 0; seed < rounds() / 4; ++seed) {
    std::mt19937_64 rng(seed);
    std::string text = test::random_ccu_program(rng).text();
    test::Expanded e = test::expand_text(text);
    bool blocked = false;
    for (const Finding& f : e.findings) blocked |= f.code == 102;
    TaskGraph g = build_graph(e.trace);
    EXPECT_EQ(g.complete, !blocked) << "seed " << seed;
    for (auto [a, b] : e.trace.extra_edges) {
      if (g.executed(b)) {
        ASSERT_LT(g.tau[a], g.tau[b]) << "seed " << seed;
      }
    }
  }
}

}  // namespace
}  // namespace cc::ccu_property_test
