// --threads: an HCCL VM database's task tables are read ahead in parallel,
// one connection per thread, and handed to the translator in its fixed
// order. Reports (JSON and text) must be the same bytes for every thread
// count, apart from the measured times, and an error must be the one of the
// first failing table, not of the first table a thread happened to finish.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gen/registry.h"
#include "hcclvm_fixture.h"
#include "io/hcclvm/blobs.h"
#include "io/hcclvm/task_feed.h"
#include "pipeline/batch.h"
#include "test_util.h"

namespace cc::test::vm {
namespace {

Trace generate(const std::string& algo, OpType op, u32 ranks, u64 count) {
  gen::GenParams p;
  p.op = op;
  p.ranks = ranks;
  p.count = count;
  p.dtype = DataType::FP32;
  p.fold_ccl = true;
  p.ccl_bytes = 4096;  // several chunks: tables of different sizes
  Result<Trace> t = gen::generate(algo, p, true);
  EXPECT_TRUE(t.ok()) << algo << ": " << (t.ok() ? "" : t.error().message);
  return t.ok() ? std::move(*t) : Trace{};
}

Fixture from(const Trace& t, u64 sync_iter = 0) {
  std::string err;
  Fixture f = from_trace(t, err, sync_iter);
  EXPECT_EQ(err, "");
  return f;
}

// Index of the n-th task row of `op` whose meta has `type`.
std::size_t row_of(const OpFx& op, u8 type, u32 n = 0) {
  for (std::size_t i = 0; i < op.tasks.size(); ++i) {
    auto m = hcclvm::decode_task_meta(hcclvm::Bytes(op.tasks[i].meta.data(), op.tasks[i].meta.size()));
    if (m && m->type == type && n-- == 0) return i;
  }
  ADD_FAILURE() << "no such row";
  return 0;
}

// Two windows: an 8-rank ring AllReduce (window 0, pids 5100-5107) and a
// 4-rank mesh AllGather (window 1, pids 5100-5103), so that half the task
// tables hold two operators and the tables differ in size; with faults in
// both (a missing RECORD, an address in no block) so that the reports carry
// findings of several members.
Fixture two_windows() {
  Fixture a = from(generate("ring", OpType::AllReduce, 8, 4096));
  Fixture b = from(generate("mesh", OpType::AllGather, 4, 1000), 1);
  auto& t5 = a.ops[5].tasks;
  t5.erase(t5.begin() + static_cast<std::ptrdiff_t>(row_of(a.ops[5], hcclvm::kMetaNotifyRecord, 2)));
  b.ops[2].tasks[row_of(b.ops[2], hcclvm::kMetaMemCpy)].meta[51 + 4] = 0xde;
  for (OpFx& o : b.ops) a.ops.push_back(std::move(o));
  for (SyncFx& s : b.syncs) a.syncs.push_back(s);
  return a;
}

struct Reports {
  int status = -1;
  std::string json, text, err;
};

Reports check_with(const std::string& db, unsigned threads) {
  Reports r;
  RunResult j = run_collcheck(fmt::format("check -j1 --threads {} --json - '{}'", threads, db));
  RunResult t = run_collcheck(fmt::format("check -j1 --threads {} '{}'", threads, db));
  EXPECT_EQ(j.status, t.status);
  r.status = t.status;
  r.json = without_times(j.out);
  r.text = without_times(t.out);
  r.err = t.err;
  return r;
}

void expect_same_for_every_thread_count(const Fixture& f, const std::string& name, int status) {
  std::string db = temp_path(name + ".db");
  ASSERT_EQ(write_fixture(f, db), "");
  Reports one = check_with(db, 1);
  EXPECT_EQ(one.status, status) << one.err;
  ASSERT_FALSE(one.json.empty());
  // Several runs of the parallel counts: a result that depended on which
  // reader finishes first would differ in one of them.
  for (unsigned threads : {2u, 8u, 8u, 3u, 8u}) {
    Reports many = check_with(db, threads);
    EXPECT_EQ(many.status, one.status) << name << " --threads " << threads;
    EXPECT_EQ(many.json, one.json) << name << " --threads " << threads;
    EXPECT_EQ(many.text, one.text) << name << " --threads " << threads;
    EXPECT_EQ(many.err, one.err) << name << " --threads " << threads;
  }
}

TEST(HcclvmThreads, ReportsDoNotDependOnTheThreadCount) {
  expect_same_for_every_thread_count(from(generate("ring", OpType::AllReduce, 16, 2048)), "thr_ring16", 0);
  expect_same_for_every_thread_count(two_windows(), "thr_two_windows", 1);
  Fixture p = from(generate("pairwise", OpType::AllToAll, 8, 512));
  auto& t3 = p.ops[3].tasks;
  t3.erase(t3.begin() + static_cast<std::ptrdiff_t>(row_of(p.ops[3], hcclvm::kMetaNotifyWait)));
  expect_same_for_every_thread_count(p, "thr_pairwise", 1);
  Fixture wal = from(generate("ring", OpType::AllGather, 8, 1024));
  wal.wal = true;  // read on one connection whatever --threads says
  expect_same_for_every_thread_count(wal, "thr_wal", 0);
}

TEST(HcclvmThreads, TheFirstFailingTableIsReportedWhateverTheThreadCount) {
  // Blobs too short in the tables of ranks 6 and 2 (and rank 2's later
  // than rank 6's in its table): the error is always pid 5102's.
  Fixture f = from(generate("ring", OpType::AllReduce, 8, 4096));
  f.ops[6].tasks[1].meta.resize(60);
  f.ops[2].tasks[f.ops[2].tasks.size() - 1].meta.resize(61);
  std::string db = temp_path("thr_corrupt.db");
  ASSERT_EQ(write_fixture(f, db), "");
  std::string want = fmt::format("collcheck: error: {}: table opTask_P_5102 row {} column opTaskMeta: blob is 61 bytes",
                                 db, f.ops[2].tasks.size());
  for (unsigned threads : {1u, 2u, 8u, 8u}) {
    RunResult r = run_collcheck(fmt::format("check -j1 --threads {} '{}'", threads, db));
    EXPECT_EQ(r.status, 2) << threads;
    EXPECT_EQ(r.err.rfind(want, 0), 0u) << "--threads " << threads << ": " << r.err;
  }
  // The op group fails (rank 0 has no opMemInfo row) before any table is
  // translated: still, a failing table comes first, as when every table
  // was read before the groups were built.
  Fixture g = from(generate("ring", OpType::AllReduce, 8, 4096));
  g.ops[0].mem_row = false;
  g.ops[6].tasks[3].meta.resize(62);
  db = temp_path("thr_corrupt_late.db");
  ASSERT_EQ(write_fixture(g, db), "");
  want = fmt::format("collcheck: error: {}: table opTask_P_5106 row 4 column opTaskMeta: blob is 62 bytes", db);
  for (unsigned threads : {1u, 2u, 8u}) {
    RunResult r = run_collcheck(fmt::format("check -j1 --threads {} '{}'", threads, db));
    EXPECT_EQ(r.status, 2) << threads;
    EXPECT_EQ(r.err.rfind(want, 0), 0u) << "--threads " << threads << ": " << r.err;
  }
  g.ops[6].tasks[3].meta.resize(155);
  ASSERT_EQ(write_fixture(g, db), "");
  RunResult r = run_collcheck(fmt::format("check -j1 --threads 8 '{}'", db));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("opMemInfo"), std::string::npos) << r.err;
}

TEST(HcclvmThreads, TablesAreReadOnSeveralConnectionsOfAFileOnly) {
  Fixture f = from(generate("ring", OpType::AllGather, 8, 1024));
  for (bool wal : {false, true}) {
    f.wal = wal;
    std::string db = temp_path(wal ? "thr_feed_wal.db" : "thr_feed.db");
    ASSERT_EQ(write_fixture(f, db), "");
    auto main = hcclvm::Db::open(db);
    ASSERT_TRUE(main.ok()) << main.error().message;
    ASSERT_TRUE(main->begin_read().ok());
    std::vector<hcclvm::TaskFeed::Need> needs;
    for (std::size_t i = 0; i < f.ops.size(); ++i)
      needs.push_back({f.ops[i].pid, {static_cast<hcclvm::i64>(i + 1)}});
    bool reopen = !main->wal_mode();
    EXPECT_EQ(reopen, !wal);
    hcclvm::TaskFeed feed(*main, needs, 4, reopen);
    EXPECT_EQ(feed.workers(), wal ? 0u : 4u);
    // Taken in any order, each operator gets its own rows, all of them.
    for (std::size_t i = f.ops.size(); i-- > 0;) {
      auto rows = feed.take(f.ops[i].pid, static_cast<hcclvm::i64>(i + 1));
      ASSERT_TRUE(rows.ok()) << rows.error().message;
      EXPECT_EQ(rows.value()->rows.size(), f.ops[i].tasks.size()) << i;
      feed.done(f.ops[i].pid, static_cast<hcclvm::i64>(i + 1));
    }
    EXPECT_TRUE(feed.first_error().ok());
  }
}

TEST(HcclvmThreads, OperatorsShareTheThreadsWithoutOversubscribing) {
  EXPECT_EQ(operator_threads(8, 1, 5), 8u);   // -j1: one operator at a time gets all
  EXPECT_EQ(operator_threads(8, 4, 1), 8u);   // one input: all threads for it
  EXPECT_EQ(operator_threads(8, 4, 10), 2u);  // four at once, two each
  EXPECT_EQ(operator_threads(2, 4, 10), 1u);  // never below one
  EXPECT_EQ(operator_threads(8, 3, 10), 2u);  // 3 × 2 <= 8
  EXPECT_GE(operator_threads(0, 1, 1), 1u);   // 0: every core
}

}  // namespace
}  // namespace cc::test::vm
