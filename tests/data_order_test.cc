// The list of memory tasks in τ (graph/data_order.h) that stages 4 and 5
// visit: τ restricted to the executed data tasks and AIV flag operations,
// by its definition (a walk over `order` keeping those tasks), at 1, 2, 3
// and 8 threads; unexecuted tasks absent on graphs that deadlock; on random
// graphs (plain, CCU-style with blocked nodes, SDMA reduces), random AIV
// launches (flag operations), a graph large enough for the pass to start
// threads, and every golden case (CCU and AIV among them).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>

#include "aiv_random.h"
#include "aiv_test_util.h"
#include "gen_cases.h"
#include "golden_cases.h"
#include "graph/data_order.h"
#include "model/builder.h"
#include "model/describe.h"
#include "random_trace.h"

namespace cc::test::data_order_test {
namespace {

// A task the stages read memory through, by its definition: a copy or a
// reduce, or an AIV node that sets or waits for a flag.
bool memory_task(const Trace& t, u32 id) {
  if (is_data_task(t.tasks[id].type)) return true;
  u32 i = 0;
  const AivLaunch* l = aiv_launch_of(t, id, &i);
  return l && (l->nodes[i].kind == AivNodeKind::FlagSet || l->nodes[i].kind == AivNodeKind::FlagWait);
}

struct Seen {
  u32 graphs = 0, incomplete = 0, unexecuted_data = 0, flags = 0;
};

void expect_order_by_definition(const Trace& t, const std::string& what, Seen& seen) {
  TaskGraph g = build_graph(t);
  std::vector<u32> expected;
  for (u32 id : g.order)
    if (memory_task(t, id)) expected.push_back(id);
  for (u32 id = 0; id < t.tasks.size(); ++id) {
    bool data = memory_task(t, id);
    seen.unexecuted_data += data && !g.executed(id);
    seen.flags += data && !is_data_task(t.tasks[id].type) && g.executed(id);
    EXPECT_EQ(touches_memory(t, id), data) << what << ": task " << id;
  }
  ++seen.graphs;
  seen.incomplete += !g.complete;
  for (unsigned workers : {1u, 2u, 3u, 8u}) {
    DataOrder o = data_order(t, g, workers);
    ASSERT_EQ(o.tasks, expected) << what << ", " << workers << " threads";
    ASSERT_EQ(o.size(), expected.size()) << what;
  }
}

TEST(DataOrder, RandomGraphsIncludingDeadlocks) {
  struct Family {
    const char* name;
    RandomTraceShape shape;
    u64 first_seed;
  };
  RandomTraceShape blocking = ccu_style_shape();
  blocking.blocked_share = 0.2;
  Seen seen;
  for (const Family& f : {Family{"plain", {}, 600000}, Family{"ccu-style", ccu_style_shape(), 610000},
                          Family{"blocking", blocking, 620000}, Family{"sdma-reduce", sdma_reduce_shape(), 630000}}) {
    for (u64 seed = f.first_seed; seed < f.first_seed + scaled(300); ++seed) {
      std::mt19937_64 rng(seed);
      expect_order_by_definition(random_trace(rng, f.shape), fmt::format("{} seed {}", f.name, seed), seen);
      if (HasFailure()) return;
    }
  }
  // Deadlocks with data tasks that never ran were among them.
  EXPECT_GT(seen.incomplete, seen.graphs / 50);
  EXPECT_GT(seen.unexecuted_data, seen.graphs / 50);
}

// A data task behind a WAIT that nothing releases is not in the list; the
// data tasks before it and on other streams are, in τ.
TEST(DataOrder, UnexecutedTasksAreAbsent) {
  Op op;
  op.type = OpType::AllGather;
  op.ranks = 2;
  op.data_type = DataType::INT8;
  op.count = 64;
  TraceBuilder b(op);
  b.declare("INPUT", 64);
  b.declare("OUTPUT", 128);
  u32 first = b.copy(0, 0, b.slice(0, "INPUT", 0, 16), b.slice(0, "OUTPUT", 0, 16));
  b.wait(0, 0, 1, 7);  // rank 1 never records notify 7
  u32 stuck = b.copy(0, 0, b.slice(0, "INPUT", 16, 16), b.slice(0, "OUTPUT", 16, 16));
  u32 other = b.copy(1, 0, b.slice(1, "INPUT", 0, 16), b.slice(1, "OUTPUT", 0, 16));
  std::vector<u32> id;
  Trace t = b.finish(&id);
  first = id[first], stuck = id[stuck], other = id[other];
  TaskGraph g = build_graph(t);
  ASSERT_FALSE(g.complete);
  ASSERT_FALSE(g.executed(stuck));
  DataOrder o = data_order(t, g);
  std::vector<u32> expected = {first, other};
  if (g.tau[other] < g.tau[first]) std::swap(expected[0], expected[1]);
  EXPECT_EQ(o.tasks, expected);
}

TEST(DataOrder, AivFlagOperations) {
  Seen seen;
  for (u64 seed = 1; seed <= scaled(300); ++seed) {
    std::mt19937_64 rng(seed);
    AivChecked c = check_aiv_trace(random_aiv_trace(rng));
    ASSERT_EQ(c.error, "") << "seed " << seed;
    expect_order_by_definition(c.trace, fmt::format("aiv seed {}", seed), seen);
    if (HasFailure()) return;
  }
  EXPECT_GT(seen.flags, 0u);
}

// Large enough (over kParallelTasks) that the pass starts its threads.
TEST(DataOrder, LargeGraphRunsOnThreads) {
  Seen seen;
  expect_order_by_definition(ring_over_parallel_threshold(), "ring 64", seen);
}

TEST(DataOrder, GoldenCases) {
  Seen seen;
  u64 checked = for_each_golden_trace([&](const Trace& t, const std::string& name) {
    expect_order_by_definition(t, name, seen);
    return !HasFailure();
  });
  EXPECT_GT(checked, quick_tests() ? 50u : 200u);
  EXPECT_GT(seen.incomplete, 0u);
  EXPECT_GT(seen.flags, 0u);
}

}  // namespace
}  // namespace cc::test::data_order_test
