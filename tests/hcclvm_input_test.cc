// What the HCCL VM importer makes of unusual and broken databases: storage
// rules (§2), missing tables, short BLOBs, headers, streams (§10), records
// collcheck cannot turn into tasks (§12.2), windows and groups (§4).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "hcclvm_fixture.h"
#include "io/read.h"
#include "mutant_check.h"
#include "test_util.h"

namespace cc::test::vm::hcclvm_input_test {
namespace {

struct Outcome {
  std::string error;
  std::vector<LoadedCase> cases;
  std::vector<CheckResult> results;
  std::string path;
  const Trace& trace(std::size_t i = 0) const { return cases.at(i).read.trace; }
  const CheckResult& result(std::size_t i = 0) const { return results.at(i); }
};

Outcome run(const Fixture& f, const std::string& name, const InputOptions& opt = {}) {
  Outcome o;
  auto r = import_fixture(f, name, opt, &o.path);
  if (!r.ok()) {
    o.error = r.error().message;
    return o;
  }
  o.cases = std::move(r.value());
  for (LoadedCase& c : o.cases) o.results.push_back(check_case(c));
  return o;
}

// The importer must refuse the database with this message (exit 2).
void expect_error(const Fixture& f, const std::string& name, const std::string& text) {
  Outcome o = run(f, name);
  EXPECT_NE(o.error, "") << name << ": accepted";
  EXPECT_NE(o.error.find(text), std::string::npos) << o.error;
  EXPECT_EQ(o.error.rfind(o.path + ": table ", 0), 0u) << o.error;
}

TEST(HcclvmInput, NullIntegerNamesTableRowAndColumn) {
  Fixture f = allgather2();
  f.extra_sql = {"UPDATE opDetails SET rankId = NULL WHERE id = 2"};
  expect_error(f, "null", "table opDetails row 2 column rankId: NULL where an integer is required");
  f.extra_sql = {"UPDATE opMemInfo SET cclSize = NULL WHERE id = 1"};
  expect_error(f, "null_mem", "table opMemInfo row 1 column cclSize: NULL");
  f.extra_sql = {"UPDATE opTask_P_5101 SET taskSeq = NULL WHERE id = 3"};
  expect_error(f, "null_task", "table opTask_P_5101 row 3 column taskSeq: NULL");
  f.extra_sql = {"UPDATE syncRecords SET syncIter = NULL WHERE id = 2"};
  expect_error(f, "null_sync", "table syncRecords row 2 column syncIter: NULL");
}

TEST(HcclvmInput, TextIntegersAreAcceptedOtherTextIsNot) {
  Fixture f = allgather2();
  f.extra_sql = {"UPDATE opDetails SET rankId = '1', rankSize = '2', syncIter = '0', pid = '5101' WHERE id = 2",
                 "UPDATE opMemInfo SET outputAddr = '536936448', outputSize = '+512' WHERE id = 2"};
  Outcome o = run(f, "text");
  ASSERT_EQ(o.error, "");
  EXPECT_TRUE(o.result().pass);
  EXPECT_EQ(o.trace().tasks.size(), 8u);
  f.extra_sql = {"UPDATE opDetails SET rankSize = 'two' WHERE id = 2"};
  expect_error(f, "text_bad", "table opDetails row 2 column rankSize: text \"two\" is not a decimal integer");
  f.extra_sql = {"UPDATE opDetails SET rankSize = 2.5 WHERE id = 2"};
  expect_error(f, "float", "column rankSize: a floating-point value");
  f.extra_sql = {"UPDATE opDetails SET rankId = -1 WHERE id = 2"};
  expect_error(f, "negative", "column rankId: -1 is outside 0 … 2^32−1");
  f.extra_sql = {"UPDATE opDetails SET rankId = 4294967296 WHERE id = 2"};
  expect_error(f, "wide", "column rankId: 4294967296 is outside");
  f.extra_sql = {"UPDATE opDetails SET opDetail = 7 WHERE id = 1"};
  expect_error(f, "number_blob", "table opDetails row 1 column opDetail: a number where a blob is required");
}

TEST(HcclvmInput, AddressesAtOrAbove2To63AreStoredNegative) {
  Fixture f = allgather2();
  u64 hi = 0xffff000000000000ull;
  for (OpFx& o : f.ops) {
    u64 base = hi + (u64{o.rank} << 32);
    o.in_addr = base;
    o.out_addr = base + 0x10000;
    o.ccl_addr = base + 0x20000;
  }
  auto a = [&](u32 r, u64 off) { return hi + (u64{r} << 32) + off; };
  f.ops[0].tasks[0].meta = memcpy_meta(0, 0, 0, a(0, 0), 0, a(0, 0x10000), 256);
  f.ops[0].tasks[1].meta = memcpy_meta(0, 0, 0, a(0, 0), 1, a(1, 0x10000), 256);
  f.ops[1].tasks[0].meta = memcpy_meta(1, 0, 1, a(1, 0), 1, a(1, 0x10100), 256);
  f.ops[1].tasks[1].meta = memcpy_meta(1, 0, 1, a(1, 0), 0, a(0, 0x10100), 256);
  f.ops[0].ccl_size = ~u64{0};  // bound as -1, read back as 2^64-1
  Outcome o = run(f, "high");
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(codes(o.result()), std::set<int>{});
  EXPECT_EQ(o.trace().buffer_size(0, 2), ~u64{0});
}

TEST(HcclvmInput, MissingTablesAndColumns) {
  for (const char* t : {"opDetails", "opMemInfo", "syncRecords"}) {
    Fixture f = allgather2();
    f.omit_tables = {t};
    expect_error(f, std::string("no_") + t, fmt::format("table {}: no such table", t));
  }
  Fixture f = allgather2();
  f.extra_sql = {"ALTER TABLE opDetails DROP COLUMN devType"};
  expect_error(f, "no_column", "table opDetails column devType: no such column");
  f = allgather2();
  f.omit_tables = {"opTask_P_5101"};
  expect_error(f, "no_task_table",
               "table opTask_P_5101: no such table, but opDetails row 2 (rank 1) belongs to op group w0-op0 of 2 "
               "members");
  // The CCU tables are optional for AICPU records.
  f = allgather2();
  f.omit_tables = {"ccuInstrRes", "ccuChannels"};
  EXPECT_TRUE(run(f, "no_ccu_tables").result().pass);
}

TEST(HcclvmInput, LoneRankWithoutTasksIsASuccess) {
  Fixture f;
  OpFx o;
  o.pid = 77;
  o.rank_size = 1;
  o.detail = op_detail(2, 4, 0, 8);
  o.in_addr = 0x1000, o.in_size = 32, o.out_addr = 0x2000, o.out_size = 32;
  f.ops.push_back(o);
  f.syncs.push_back({77, 0, 1, 0});
  f.omit_tables = {"opTask_P_77"};  // §2: the rank then contributes no task
  Outcome r = run(f, "lone");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.trace().unchecked);
  EXPECT_TRUE(r.result().pass);
  EXPECT_EQ(codes(r.result()), std::set<int>{});
}

TEST(HcclvmInput, EmptyAndWrongFiles) {
  Fixture none;
  Outcome o = run(none, "empty");
  EXPECT_NE(o.error.find("table opDetails: no operator is recorded"), std::string::npos) << o.error;
  std::string junk = temp_path("junk.db");
  {
    std::ofstream j(junk, std::ios::binary);
    j << std::string("SQLite format 3\0", 16) << std::string(4000, 'x');
  }
  auto r = read_file(junk, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind(junk + ": ", 0), 0u) << r.error().message;
  std::string gz = temp_path("db.gz");
  std::string path;
  auto ok = import_fixture(allgather2(), "for_gzip", {}, &path);
  ASSERT_TRUE(ok.ok());
  ASSERT_EQ(run_shell(fmt::format("gzip -c '{}' > '{}'", path, gz)), 0);
  InputOptions db;
  db.format = InputFormat::HcclVmDb;
  auto z = read_file(gz, db);
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.error().message.find("a compressed database must be decompressed first"), std::string::npos);
}

TEST(HcclvmInput, ShortBlobsAreInputErrors) {
  Fixture f = allgather2();
  f.ops[0].detail.resize(27);
  expect_error(f, "short_detail", "table opDetails row 1 column opDetail: blob is 27 bytes; a packed OpDetails needs 28");
  f = allgather2();
  f.extra_sql = {"UPDATE opDetails SET opDetail = NULL WHERE id = 2"};
  expect_error(f, "null_detail", "table opDetails row 2 column opDetail: blob is 0 bytes");
  f = allgather2();
  f.ops[1].tasks[2].meta.resize(100);
  expect_error(f, "short_meta", "table opTask_P_5101 row 3 column opTaskMeta: blob is 100 bytes; a packed "
                                "HcclTaskMetaData needs 155");
  // A longer blob: the first 155 bytes count (§3.4).
  f = allgather2();
  for (OpFx& o : f.ops)
    for (TaskFx& t : o.tasks) t.meta.resize(200, 0xee);
  EXPECT_TRUE(run(f, "long_meta").result().pass);
}

TEST(HcclvmInput, MissingMemoryRowIsAnInputError) {
  Fixture f = allgather2();
  f.ops[1].mem_row = false;
  expect_error(f, "no_mem", "table opMemInfo column opDetailId: no row for opDetails row 2 (rank 1)");
}

TEST(HcclvmInput, RowsAreOrderedByTaskSeqThenId) {
  // Rank 0's rows written in reverse: the order is taskSeq's (§3.4).
  Fixture f = allgather2();
  std::reverse(f.ops[0].tasks.begin(), f.ops[0].tasks.end());
  Outcome o = run(f, "reversed");
  ASSERT_EQ(o.error, "");
  EXPECT_TRUE(o.result().pass);
  EXPECT_EQ(o.trace().tasks[2].type, TaskType::RECORD);
  // Equal taskSeq (host and device counters): ties in id order. Rank 1's
  // RECORD and WAIT share seq 2, the WAIT written first: it comes first.
  Fixture g = allgather2();
  auto& t1 = g.ops[1].tasks;
  t1[3].seq = 2;
  std::swap(t1[2], t1[3]);
  Outcome d = run(g, "tie");
  EXPECT_EQ(d.trace().tasks[6].type, TaskType::WAIT);
  EXPECT_EQ(d.trace().tasks[7].type, TaskType::RECORD);
  EXPECT_TRUE(d.result().pass);
}

TEST(HcclvmInput, UnplaceableRecordsAre101) {
  Fixture f = allgather2();
  f.ops[1].tasks[0].meta = memcpy_meta(1, 0xffffffffull, 1, 0x20000000, 1, 0x20010100, 256);
  Outcome o = run(f, "stream_max");
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(codes(o.result()), (std::set<int>{101, 902}));
  EXPECT_EQ(o.trace().tasks.size(), 7u);  // the record is left out
  const Finding* e = find(o.result(), 101);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("streamId 4294967295 is not a stream index"), std::string::npos);
  EXPECT_NE(e->details.at(0).find("opTask_P_5101 row 1 (taskSeq 0) of opDetails row 2 (rank 1)"), std::string::npos);
  f = allgather2();
  f.ops[1].tasks[3].meta = notify_meta(false, 0, 0, 7, 0, 0);
  Outcome h = run(f, "header_rank");
  EXPECT_TRUE(codes(h.result()).count(101));
  EXPECT_NE(find(h.result(), 101)->message.find("header rankId 0 differs from rankId 1"), std::string::npos);
}

TEST(HcclvmInput, RankWithoutStreamZeroIsRenumbered) {
  Fixture f = allgather2();
  // Rank 1's tasks on hardware queues 9 and 7 (first use: 9).
  auto& t1 = f.ops[1].tasks;
  t1[0].meta = memcpy_meta(1, 9, 1, 0x20000000, 1, 0x20010100, 256);
  t1[1].meta = memcpy_meta(1, 9, 1, 0x20000000, 0, 0x10010100, 256);
  t1[2].meta = notify_meta(true, 1, 9, 8, 1, 1);
  t1[3].meta = notify_meta(false, 1, 7, 7, 1, 1);
  Outcome o = run(f, "no_main");
  ASSERT_EQ(o.error, "");
  const Finding* w = find(o.result(), 0, "HCCLVM-W-NO-MAIN-STREAM");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("No main stream on rank 1"), std::string::npos);
  EXPECT_NE(w->message.find("9→0, 7→1"), std::string::npos) << w->message;
  std::set<u32> ids;
  for (const Stream& s : o.trace().streams)
    if (s.rank == 1) ids.insert(s.id);
  EXPECT_EQ(ids, (std::set<u32>{0, 1}));
  InputOptions keep;
  keep.keep_stream_ids = true;
  Outcome k = run(f, "no_main_keep", keep);
  ids.clear();
  for (const Stream& s : k.trace().streams)
    if (s.rank == 1) ids.insert(s.id);
  EXPECT_EQ(ids, (std::set<u32>{7, 9}));
  EXPECT_FALSE(has_tag(k.result(), "HCCLVM-W-NO-MAIN-STREAM"));
}

TEST(HcclvmInput, UnsupportedAndUnknownTaskKinds) {
  // AIV_GRAPH (5) is expanded from its snapshot file: tests/aiv_db_test.cc.
  for (auto [type, code, text] : {std::tuple{6, 111, "EVENT_WAIT record"}, {7, 111, "EVENT_RECORD record"},
                                  {9, 101, "Task type code 9"}}) {
    Fixture f = allgather2();
    f.ops[0].tasks.push_back({4, meta_header(static_cast<u8>(type), 0, 0), {}});
    Outcome o = run(f, fmt::format("kind{}", type));
    ASSERT_EQ(o.error, "");
    EXPECT_EQ(codes(o.result()), (std::set<int>{code, 902})) << type;
    const Finding* e = find(o.result(), code);
    ASSERT_NE(e, nullptr);
    EXPECT_NE(e->message.find(text), std::string::npos) << e->message;
    ASSERT_EQ(e->refs.size(), 1u);
    EXPECT_EQ(e->refs[0].index, 4u);  // at its place, as a no-op
    EXPECT_EQ(o.trace().tasks[e->tasks[0]].type, TaskType::UNKNOWN);
  }
}

TEST(HcclvmInput, ReduceRecords) {
  Fixture f = allgather2();
  for (OpFx& o : f.ops) o.detail = op_detail(2, 2, 0, 64), o.out_size = 0x100;
  // A 2-rank AllReduce: local copy, then the peer's INPUT reduced in.
  auto& t0 = f.ops[0].tasks;
  auto& t1 = f.ops[1].tasks;
  t0 = {{0, memcpy_meta(0, 0, 0, 0x10000000, 0, 0x10010000, 256), {}},
        {1, reduce_meta(0, 0, 1, 0x20000000, 0, 0x10010000, 256, 2, 0), {}}};
  // Rank 1: a host-stub record (ACL kind 10 = SUM, dataCount in elements).
  t1 = {{0, memcpy_meta(1, 0, 1, 0x20000000, 1, 0x20010000, 256), {}},
        {1, reduce_meta(1, 0, 0, 0x10000000, 1, 0x20010000, 64, 2, 10), {}}};
  Outcome o = run(f, "reduce");
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(codes(o.result()), std::set<int>{0});
  EXPECT_TRUE(has_tag(o.result(), "HCCLVM-W-HOST-STUB-REDUCE"));
  const Trace& t = o.trace();
  EXPECT_EQ(t.tasks[3].type, TaskType::REDUCE);
  EXPECT_EQ(t.slice(t.group(t.tasks[3], 0).dst).len, 256u);
  EXPECT_EQ(t.tasks[3].data_type, DataType::INT32);
  EXPECT_EQ(t.tasks[3].reduce_op, ReduceOp::SUM);
  // Kind 11 is MAX; 13 (EQUAL) and 255 are not reduce ops; nor is data type 13.
  t1[1].meta = reduce_meta(1, 0, 0, 0x10000000, 1, 0x20010000, 64, 2, 11);
  EXPECT_EQ(run(f, "reduce_max").trace().tasks[3].reduce_op, ReduceOp::MAX);
  t1[1].meta = reduce_meta(1, 0, 0, 0x10000000, 1, 0x20010000, 64, 2, 13);
  EXPECT_NE(find(run(f, "reduce13").result(), 101)->message.find("reduce op code 13"), std::string::npos);
  t1[1].meta = reduce_meta(1, 0, 0, 0x10000000, 1, 0x20010000, 256, 13, 0);
  EXPECT_NE(find(run(f, "dtype13").result(), 101)->message.find("data type code 13"), std::string::npos);
}

TEST(HcclvmInput, AddressInAnotherRanksBlockIs112) {
  Fixture f = allgather2();
  // Rank 1 pushes into rank 0's OUTPUT but names rank 1 as the destination.
  f.ops[1].tasks[1].meta = memcpy_meta(1, 0, 1, 0x20000000, 1, 0x10010100, 256);
  Outcome o = run(f, "other_rank");
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(codes(o.result()), std::set<int>{112});
  const Finding* e = find(o.result(), 112);
  EXPECT_NE(e->message.find("names rank 1, but lies in rank 0's OUTPUT [0x10010000,+0x200)"), std::string::npos)
      << e->message;
  // The task keeps the block the address is in.
  const Trace& t = o.trace();
  EXPECT_EQ(t.slice(t.group(t.tasks[e->tasks[0]], 0).dst).rank, 0u);
}

TEST(HcclvmInput, ZeroLengthRecordWithoutBlockIsAWarning) {
  Fixture f = allgather2();
  f.ops[0].tasks.push_back({4, memcpy_meta(0, 0, 0, 0x99000000, 0, 0x99000000, 0), {}});
  Outcome o = run(f, "zero_len");
  EXPECT_EQ(codes(o.result()), std::set<int>{0});
  EXPECT_TRUE(has_tag(o.result(), "HCCLVM-W-ZERO-LEN-ADDRESS"));
}

TEST(HcclvmInput, NotifyIdsAbove32BitsStayDistinct) {
  Fixture f = allgather2();
  u64 a = 0x100000007ull, b = 0x200000007ull;  // both truncate to 7
  f.ops[0].tasks[2].meta = notify_meta(true, 0, 0, a, 0, 0);
  f.ops[1].tasks[3].meta = notify_meta(false, 1, 0, a, 1, 1);
  f.ops[1].tasks[2].meta = notify_meta(true, 1, 0, b, 1, 1);
  f.ops[0].tasks[3].meta = notify_meta(false, 0, 0, b, 0, 0);
  Outcome o = run(f, "wide_ids");
  EXPECT_EQ(codes(o.result()), std::set<int>{0});
  const Finding* w = find(o.result(), 0, "HCCLVM-W-NOTIFY-ID-64");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("0x100000007 as #4294967295, 0x200000007 as #4294967294"), std::string::npos)
      << w->message;
}

// Three ranks on one notify id: ranks 0 and 1 both signal rank 2.
Fixture shared_id() {
  Fixture f;
  for (u32 r = 0; r < 3; ++r) {
    OpFx o;
    o.pid = 6000 + r;
    o.rank = r;
    o.rank_size = 3;
    o.src_rank = o.dst_rank = r;
    o.detail = op_detail(2, 2, 0, 4);
    u64 base = u64{r + 1} << 28;
    o.in_addr = base, o.in_size = 16, o.out_addr = base + 0x1000, o.out_size = 16;
    f.ops.push_back(o);
    f.syncs.push_back({6000 + u64{r}, r, 3, 0});
  }
  f.ops[0].tasks = {{0, notify_meta(true, 0, 0, 5, 0, 2), {}}};
  f.ops[1].tasks = {{0, notify_meta(true, 1, 0, 5, 1, 2), {}}};
  f.ops[2].tasks = {{0, notify_meta(false, 2, 0, 5, 0, 2), {}}, {1, notify_meta(false, 2, 0, 5, 1, 2), {}}};
  return f;
}

TEST(HcclvmInput, NotifyIdOfThreeRanksIsAmbiguous) {
  Outcome o = run(shared_id(), "shared_id");
  ASSERT_EQ(o.error, "");
  const Finding* w = find(o.result(), 0, "HCCLVM-W-NOTIFY-AMBIGUOUS");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("Notify id 5 is used by 3 ranks (0, 1, 2)"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("0→1, 1→0, 2→0"), std::string::npos) << w->message;
  EXPECT_EQ(w->tasks.size(), 4u);
  // Compat inference pairs 0↔1: both RECORDs unconsumed, rank 2 deadlocks.
  EXPECT_TRUE(codes(o.result()).count(102));
  EXPECT_TRUE(codes(o.result()).count(103));
  // Trusting the recorded peers pairs them as written.
  InputOptions rec;
  rec.recorded_peers = true;
  Outcome r = run(shared_id(), "shared_id_recorded", rec);
  std::set<int> c = codes(r.result());
  EXPECT_FALSE(c.count(102) || c.count(103)) << codes_text(c);
}

Fixture windows() {
  Fixture f;
  Fixture ag = allgather2();
  // Window 0: two AllGathers (INT32 and UINT32), window 1: one more.
  for (u32 k = 0; k < 3; ++k)
    for (OpFx o : ag.ops) {
      o.sync_iter = k == 2 ? 1 : 0;
      if (k == 1) o.detail = op_detail(6, 9, 0, 64);
      f.ops.push_back(o);
    }
  for (u32 r = 0; r < 2; ++r)
    for (u64 s : {0, 1}) f.syncs.push_back({5100 + u64{r}, r, 2, s});
  return f;
}

TEST(HcclvmInput, WindowsAndOpGroups) {
  Outcome o = run(windows(), "windows");
  ASSERT_EQ(o.error, "");
  ASSERT_EQ(o.cases.size(), 3u);
  EXPECT_EQ(o.cases[0].name, o.path + "#w0-op0");
  EXPECT_EQ(o.cases[1].name, o.path + "#w0-op1");
  EXPECT_EQ(o.cases[2].name, o.path + "#w1-op0");
  EXPECT_EQ(o.trace(0).op.data_type, DataType::INT32);
  EXPECT_EQ(o.trace(1).op.data_type, DataType::UINT32);
  for (const CheckResult& r : o.results) EXPECT_TRUE(r.pass);
  // --case selects by the case name (or FILE#CASE).
  InputOptions sel;
  sel.case_glob = "w0-*";
  EXPECT_EQ(run(windows(), "windows_sel", sel).cases.size(), 2u);
  sel.case_glob = "*#w1-op0";
  EXPECT_EQ(run(windows(), "windows_sel2", sel).cases.size(), 1u);
}

TEST(HcclvmInput, GroupsFollowIdOrder) {
  // Renumber rank 0's first row (id 1 -> 10): its second AllGather (id 3)
  // is now its first, so group 0 pairs UINT32 with INT32.
  Fixture f = windows();
  f.extra_sql = {"UPDATE opDetails SET id = 10 WHERE id = 1", "UPDATE opMemInfo SET opDetailId = 10 WHERE opDetailId = 1",
                 "UPDATE opTask_P_5100 SET opDetailId = 10 WHERE opDetailId = 1"};
  Outcome o = run(f, "id_order");
  ASSERT_EQ(o.error, "");
  ASSERT_EQ(o.cases.size(), 3u);
  const Finding* e = find(o.result(0), 405);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("disagree on the data type"), std::string::npos);
  EXPECT_EQ(e->details.at(0), "opDetails row 3 (rank 0): 9");
}

TEST(HcclvmInput, UnevenWindowLeavesAGroupIncomplete) {
  Fixture f = windows();
  f.ops.erase(f.ops.begin() + 3);  // rank 1's second AllGather of window 0
  Outcome o = run(f, "uneven");
  ASSERT_EQ(o.cases.size(), 3u);
  EXPECT_EQ(codes(o.result(1)), std::set<int>{405});
}

TEST(HcclvmInput, NoSyncRecordsMeansNothingIsChecked) {
  Fixture f = allgather2();
  f.syncs.clear();
  Outcome o = run(f, "no_sync");
  ASSERT_EQ(o.cases.size(), 1u);
  const Finding* w = find(o.result(), 0, "HCCLVM-W-NEVER-SYNCED");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("syncRecords is empty"), std::string::npos);
}

TEST(HcclvmInput, CcuRecordsAreKeptForTheExpansion) {
  Fixture f = allgather2();
  for (OpFx& o : f.ops) o.dev_type = 8;
  CcuSqe q;
  q.die = 1;
  q.mission = 3;
  q.timeout = 9;
  q.inst_start = 100;
  q.inst_count = 13;
  q.key = 0xabcd;
  q.arg_size = 2;
  q.args[0] = 0x10000000;
  q.args[12] = 0xfeedull << 40;
  f.ops[0].tasks.push_back({4, ccu_meta(0, 0, q), {}});
  Blob words(3 * 32);
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = static_cast<u8>(i);
  words.resize(5 * 32);  // more space than instrCount words
  f.images = {{0, 0, 1, 3, words}, {0, 1, 0, 0, Blob(32)}, {0, 7, 0, 2, Blob(64)}};
  f.channels = {{4, 1, 0, 0, 1}, {5, 0, 0, 1, 0}};
  Outcome o = run(f, "ccu");
  ASSERT_EQ(o.error, "");
  // Expanded (ccu.md): the mission starts at id 100 of a 3-word image (105).
  EXPECT_EQ(codes(o.result()), (std::set<int>{0, 105, 902}));
  EXPECT_TRUE(has_tag(o.result(), "HCCLVM-W-CCU-IMAGE-SKIPPED"));
  const Trace& t = o.trace();
  const CcuData& c = t.ccu;
  EXPECT_EQ(c.isa, CcuIsa::A6);
  ASSERT_EQ(c.sqes.size(), 1u);
  EXPECT_EQ(c.sqes[0].die, 1);
  EXPECT_EQ(c.sqes[0].mission, 3);
  EXPECT_EQ(c.sqes[0].timeout, 9);
  EXPECT_EQ(c.sqes[0].inst_start, 100);
  EXPECT_EQ(c.sqes[0].inst_count, 13);
  EXPECT_EQ(c.sqes[0].key, 0xabcdu);
  EXPECT_EQ(c.sqes[0].arg_size, 2u);
  EXPECT_EQ(c.sqes[0].args[0], 0x10000000u);
  EXPECT_EQ(c.sqes[0].args[12], 0xfeedull << 40);
  const Task& k = t.tasks[4];
  EXPECT_EQ(k.type, TaskType::CCU_GRAPH);
  EXPECT_EQ(k.notify(), 0u);
  ASSERT_EQ(c.images.size(), 1u);  // rank 7 is no member; rank 1's count 0 is skipped
  EXPECT_EQ(c.images[0].rank, 0u);
  EXPECT_EQ(c.images[0].die, 1u);
  EXPECT_EQ(c.images[0].size, 3u);
  ASSERT_EQ(c.images[0].blocks.size(), 1u);
  EXPECT_EQ(c.images[0].blocks[0].start, 0u);
  EXPECT_EQ(c.images[0].blocks[0].bytes, Blob(words.begin(), words.begin() + 96));
  ASSERT_EQ(c.channels.size(), 2u);
  EXPECT_EQ(c.channels[0].rank, 0u);
  EXPECT_EQ(c.channels[0].die, 1u);
  EXPECT_EQ(c.channels[0].channel, 4u);
  EXPECT_EQ(c.channels[0].peer_rank, 1u);
  EXPECT_EQ(c.channels[0].peer_die, 0u);
  EXPECT_EQ(c.addresses.size(), 6u);
  EXPECT_EQ(c.addresses[4].rank, 1u);
  EXPECT_EQ(c.addresses[4].buf, kOutput);
  EXPECT_EQ(c.addresses[4].addr, 0x20010000u);
  ASSERT_EQ(c.die_bases.size(), 4u);
  EXPECT_EQ(c.die_bases[1].base, 0x456456456u);
  // instrSpace shorter than instrCount words: an input error.
  f.images[0].count = 6;
  EXPECT_NE(run(f, "ccu_short").error.find("table ccuInstrRes row 1 column instrSpace: blob is 160 bytes; "
                                           "instrCount 6 needs 192"),
            std::string::npos);
}

TEST(HcclvmInput, LiveDatabaseIsReadInPlaceWithItsWal) {
  std::string path = temp_path("live.db");
  for (const char* side : {"", "-wal", "-shm"}) std::filesystem::remove(path + side);
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &w, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr), SQLITE_OK);
  Fixture f = allgather2();
  f.wal = true;
  ASSERT_EQ(write_fixture(f, w), "");
  // The writer is still open: the rows are in the -wal file only.
  ASSERT_GT(std::filesystem::file_size(path + "-wal"), 0u);
  RunResult r = run_collcheck(fmt::format("check -q '{}'", path));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(path + "#w0-op0: PASS"), std::string::npos) << r.out;
  // A copy of the main file alone lacks them.
  std::string copy = temp_path("live_copy.db");
  std::filesystem::copy_file(path, copy, std::filesystem::copy_options::overwrite_existing);
  RunResult c = run_collcheck(fmt::format("check -q '{}'", copy));
  EXPECT_EQ(c.status, 2) << c.out << c.err;
  sqlite3_close(w);
}

}  // namespace
}  // namespace cc::test::vm::hcclvm_input_test
