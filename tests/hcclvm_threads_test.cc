// --threads: an HCCL VM database's task tables are read ahead in parallel,
// one connection per thread, and handed to the translator in its fixed
// order. Reports (JSON and text) must be the same bytes for every thread
// count, apart from the measured times, and an error must be the one of the
// first failing table, not of the first table a thread happened to finish.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string_view>

#include "gen/registry.h"
#include "hcclvm_fixture.h"
#include "export/jsonl.h"
#include "io/hcclvm/blobs.h"
#include "io/hcclvm/db.h"
#include "io/hcclvm/notify.h"
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

// A 16-rank ring AllReduce whose members each carry a different record the
// translator reports, leaves out or renumbers, so that the findings of an
// operator come from many members and must keep their order: an unknown
// type (101), EVENT_RECORD (111), a header of another rank (left out), an
// address in no block (110) or in another rank's (112), a zero-length one
// (warning), host-stub reduces in two members (one warning per group), a
// 64-bit notify id shared by two members, an unpaired and an ambiguous id,
// and a rank without stream 0.
Fixture faults_across_members() {
  Fixture f = from(generate("ring", OpType::AllReduce, 16, 2048));
  auto insert = [&](u32 m, std::size_t at, Blob meta) {
    auto& t = f.ops[m].tasks;
    at = std::min(at, t.size());
    hcclvm::i64 seq = at < t.size() ? t[at].seq : t.back().seq + 1;  // a tie: ordered by id
    t.insert(t.begin() + static_cast<std::ptrdiff_t>(at), TaskFx{seq, std::move(meta), {}});
  };
  auto at = [](u32 rank, BufId buf) { return fixture_address(rank, buf, 0); };
  u8 fp32 = static_cast<u8>(data_type_code(DataType::FP32));
  insert(3, 5, meta_header(9, 3, 0));
  insert(7, 2, meta_header(hcclvm::kMetaEventRecord, 7, 0));
  insert(5, 4, memcpy_meta(4, 0, 5, at(5, kInput), 5, at(5, kOutput), 16));
  insert(9, 6, memcpy_meta(9, 0, 9, 0x99000000, 9, at(9, kOutput), 16));
  insert(11, 1, memcpy_meta(11, 0, 11, 0x99000000, 11, at(11, kOutput), 0));
  insert(13, 3, memcpy_meta(13, 0, 13, at(13, kInput), 13, at(12, kOutput), 16));
  insert(2, 8, reduce_meta(2, 0, 2, at(2, kInput), 2, at(2, kOutput), 4, fp32, 10));
  insert(14, 8, reduce_meta(14, 0, 14, at(14, kInput), 14, at(14, kOutput), 4, fp32, 11));
  insert(4, 1000, notify_meta(true, 4, 0, 0x500000001ull, 4, 6));
  insert(6, 1000, notify_meta(false, 6, 0, 0x500000001ull, 4, 6));
  insert(10, 1000, notify_meta(true, 10, 0, 900001, 10, 10));
  for (u32 m : {1u, 8u, 15u}) insert(m, 1000, notify_meta(m != 8, m, 0, 900002, m, m == 1 ? 8 : m));
  for (TaskFx& t : f.ops[12].tasks) t.meta[7] += 5;  // streamId
  return f;
}

// Two windows: a ring AllReduce, then a mesh AllGather whose member 2
// disagrees on the count, so that its group is refused.
Fixture refused_beside_checked() {
  Fixture a = from(generate("ring", OpType::AllReduce, 8, 4096));
  Trace mesh = generate("mesh", OpType::AllGather, 4, 1000);
  Fixture b = from(mesh, 1);
  b.ops[2].detail = op_detail(cmd_code(OpType::AllGather), data_type_code(DataType::FP32), 0, 999);
  for (OpFx& o : b.ops) a.ops.push_back(std::move(o));
  for (SyncFx& s : b.syncs) a.syncs.push_back(s);
  return a;
}

// Everything the import produces, as bytes: every case's trace (with the
// importer's findings it carries), its notes, and every finding whole.
std::string imported(const std::string& db, unsigned threads, InputOptions opt = {}) {
  opt.threads = threads;
  auto r = read_hcclvm_db(db, opt);
  if (!r) return "error: " + r.error().message;
  std::string s;
  for (const LoadedCase& c : *r) {
    s += c.name + "\n" + to_jsonl(c.read.trace, c.read.findings);
    for (const auto& [task, note] : c.read.trace.task_notes) s += fmt::format("note {}: {}\n", task, note);
    for (const Finding& f : c.read.findings)
      s += fmt::format("finding {} {} {}: {} | {} | tasks {}\n", f.code, f.tag, static_cast<int>(f.severity),
                       f.message, fmt::join(f.details, " / "), fmt::join(f.tasks, ","));
  }
  return s;
}

void expect_same_import(const std::string& db, const InputOptions& opt = {}) {
  std::string one = imported(db, 1, opt);
  for (unsigned threads : {2u, 3u, 8u, 8u}) EXPECT_EQ(imported(db, threads, opt), one) << db << " --threads " << threads;
}

TEST(HcclvmThreads, ImportsAreTheSameForEveryThreadCount) {
  std::string db = temp_path("thr_faults.db");
  ASSERT_EQ(write_fixture(faults_across_members(), db), "");
  std::string one = imported(db, 1);
  // The findings the shape is made of, each once, in member order.
  std::vector<std::string> findings, notes;
  for (std::string_view rest = one; !rest.empty();) {
    std::string_view line = rest.substr(0, rest.find('\n'));
    rest.remove_prefix(std::min(rest.size(), line.size() + 1));
    if (line.starts_with("finding ")) findings.emplace_back(line);
    if (line.starts_with("note ")) notes.emplace_back(line);
  }
  std::vector<std::size_t> order;
  for (const char* what : {"Task type code 9", "header rankId 4 differs from rankId 5", "EVENT_RECORD record",
                           "lies in no INPUT, OUTPUT or CCL block", "zero-length record", "No main stream on rank 12",
                           "names rank 13, but lies", "HCCLVM-W-NOTIFY-ID-64", "HCCLVM-W-NOTIFY-UNPAIRED",
                           "HCCLVM-W-NOTIFY-AMBIGUOUS"}) {
    auto has = [&](const std::string& l) { return l.find(what) != std::string::npos; };
    EXPECT_EQ(std::count_if(findings.begin(), findings.end(), has), 1) << what;
    order.push_back(static_cast<std::size_t>(std::find_if(findings.begin(), findings.end(), has) - findings.begin()));
  }
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end())) << fmt::format("{}", fmt::join(findings, "\n"));
  EXPECT_EQ(std::count_if(findings.begin(), findings.end(),
                          [](const std::string& l) { return l.find("HCCLVM-W-HOST-STUB-REDUCE") != std::string::npos; }),
            1);
  EXPECT_EQ(notes.size(), 1u);
  expect_same_import(db);
  InputOptions other;
  other.recorded_peers = true;
  other.keep_stream_ids = true;
  EXPECT_NE(imported(db, 1, other), one);
  expect_same_import(db, other);
  // The same through the whole check, reports included.
  expect_same_for_every_thread_count(faults_across_members(), "thr_faults_check", 1);

  db = temp_path("thr_import_two_windows.db");
  ASSERT_EQ(write_fixture(two_windows(), db), "");
  expect_same_import(db);
  db = temp_path("thr_refused.db");
  ASSERT_EQ(write_fixture(refused_beside_checked(), db), "");
  EXPECT_NE(imported(db, 1).find("#w1-op0"), std::string::npos);
  expect_same_import(db);
  expect_same_for_every_thread_count(refused_beside_checked(), "thr_refused_check", 1);
  db = temp_path("thr_import_pairwise.db");
  ASSERT_EQ(write_fixture(from(generate("pairwise", OpType::AllToAll, 8, 512)), db), "");
  expect_same_import(db);
}

TEST(HcclvmThreads, ABadRowIsReportedAsOneThreadReportsIt) {
  struct Bad {
    const char* name;
    Fixture f;
    std::string want;  // the start of the error, after the path
  };
  std::vector<Bad> bad;
  auto ring = [] { return from(generate("ring", OpType::AllReduce, 16, 2048)); };
  bad.push_back({"thr_bad_blob", ring(), ": table opTask_P_5109 row 7 column opTaskMeta: blob is 60 bytes"});
  bad.back().f.ops[9].tasks[6].meta.resize(60);
  bad.push_back({"thr_bad_seq", ring(), ": table opTask_P_5105 row 3 column taskSeq: NULL where an integer"});
  bad.back().f.extra_sql = {"UPDATE opTask_P_5105 SET taskSeq = NULL WHERE id = 3"};
  bad.push_back({"thr_bad_op", ring(), ": table opTask_P_5111 row 2 column opDetailId: text \"x\""});
  bad.back().f.extra_sql = {"UPDATE opTask_P_5111 SET opDetailId = 'x' WHERE id = 2"};
  bad.push_back({"thr_no_table", ring(), ": table opTask_P_5106: no such table, but opDetails row 7 (rank 6)"});
  bad.back().f.omit_tables = {"opTask_P_5106"};
  // A missing table in member 3 and a bad blob in member 12's: the failing
  // table is reported, whichever member comes first.
  bad.push_back({"thr_no_table_bad_blob", ring(), ": table opTask_P_5112 row 2 column opTaskMeta: blob is 9 bytes"});
  bad.back().f.omit_tables = {"opTask_P_5103"};
  bad.back().f.ops[12].tasks[1].meta.resize(9);
  for (const Bad& b : bad) {
    std::string db = temp_path(std::string(b.name) + ".db");
    ASSERT_EQ(write_fixture(b.f, db), "");
    std::string one = imported(db, 1);
    EXPECT_EQ(one.rfind("error: " + db + b.want, 0), 0u) << one.substr(0, 300);
    for (unsigned threads : {2u, 3u, 8u, 8u}) EXPECT_EQ(imported(db, threads), one) << b.name << " " << threads;
  }
}

// The notify inference sorts and settles ranges of ids side by side: on
// 60 000 uses (paired, unpaired, shared by three ranks, above 2^32, stored
// peers) it sets and says the same at every thread count.
TEST(HcclvmThreads, NotifyInferenceDoesNotDependOnTheThreadCount) {
  Trace base;
  std::vector<hcclvm::SyncUse> uses;
  auto use = [&](u64 id, u32 rank, bool record, u32 stored) {
    Task k;
    k.type = record ? TaskType::RECORD : TaskType::WAIT;
    k.rank = rank;
    k.set_peer(stored);
    uses.push_back({id, static_cast<u32>(base.tasks.size()), rank});
    base.tasks.push_back(k);
  };
  std::mt19937_64 rng(7);
  for (u32 i = 0; i < 20000; ++i) {
    u64 id = rng() % 3 == 0 ? (u64{1} << 32) + rng() % 50000 : 1 + rng() % 50000;
    u32 a = static_cast<u32>(rng() % 64), b = static_cast<u32>(rng() % 64);
    switch (rng() % 8) {
      case 0: use(id, a, true, a); break;  // unpaired
      case 1: use(id, a, true, b), use(id, b, false, a), use(id, (a + 1) % 64, false, a); break;  // three ranks
      default: use(id, a, true, b), use(id, b, false, a); break;
    }
  }
  std::sort(uses.begin(), uses.end(), [](const auto& x, const auto& y) { return x.task < y.task; });
  auto infer = [&](unsigned threads, bool recorded) {
    Trace t = base;
    std::vector<Finding> findings;
    hcclvm::infer_peers(t, uses, recorded, threads, findings);
    std::string s;
    for (const Task& k : t.tasks) s += fmt::format("{}:{} ", k.notify(), k.peer());
    for (const Finding& f : findings) s += fmt::format("\n{} {} [{}]", f.tag, f.message, fmt::join(f.tasks, ","));
    for (const auto& [task, note] : t.task_notes) s += fmt::format("\nnote {} {}", task, note);
    return s;
  };
  for (bool recorded : {false, true}) {
    std::string one = infer(1, recorded);
    for (const char* tag : {"NOTIFY-ID-64", "NOTIFY-AMBIGUOUS", "NOTIFY-UNPAIRED", "\nnote "})
      EXPECT_NE(one.find(tag), std::string::npos) << tag;
    for (unsigned threads : {2u, 3u, 8u}) EXPECT_EQ(infer(threads, recorded), one) << threads;
  }
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
