// The HCCL VM importer on the database of hcclvm-db.md §13 and each of its
// negative variants (§13.4), plus windows, op groups and notify inference.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "hcclvm_fixture.h"
#include "model/describe.h"
#include "mutant_check.h"
#include "test_util.h"

namespace cc::test::vm::hcclvm_db_test {
namespace {

// The single case of a fixture, checked.
struct One {
  std::vector<LoadedCase> cases;
  CheckResult result;
  std::string path;
  const Trace& trace() const { return cases.front().read.trace; }
};

One one(const Fixture& f, const std::string& name, const InputOptions& opt = {}) {
  One o;
  auto r = import_fixture(f, name, opt, &o.path);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r.ok()) return o;
  o.cases = std::move(r.value());
  EXPECT_EQ(o.cases.size(), 1u);
  if (o.cases.size() == 1) o.result = check_case(o.cases.front());
  return o;
}

std::string slice_text(const Trace& t, const Slice& s) {
  return fmt::format("{} {} {:#x} {:#x}", s.rank, t.buffers.name(s.buf), s.offset, s.len);
}

TEST(HcclvmDb, Spec13AllGatherPasses) {
  One o = one(allgather2(), "spec13");
  ASSERT_EQ(o.cases.size(), 1u);
  EXPECT_EQ(o.cases[0].name, o.path + "#w0-op0");
  const Trace& t = o.trace();
  EXPECT_EQ(t.op.type, OpType::AllGather);
  EXPECT_EQ(t.op.ranks, 2u);
  EXPECT_EQ(t.op.data_type, DataType::INT32);
  EXPECT_EQ(t.op.count, 64u);
  EXPECT_FALSE(t.op.in_place);
  ASSERT_EQ(t.tasks.size(), 8u);
  // §13.3: slices and inferred peers.
  std::vector<std::string> want = {"0 INPUT 0x0 0x100 -> 0 OUTPUT 0x0 0x100", "0 INPUT 0x0 0x100 -> 1 OUTPUT 0x0 0x100",
                                   "RECORD 1 #7", "WAIT 1 #8",
                                   "1 INPUT 0x0 0x100 -> 1 OUTPUT 0x100 0x100",
                                   "1 INPUT 0x0 0x100 -> 0 OUTPUT 0x100 0x100", "RECORD 0 #8", "WAIT 0 #7"};
  for (u32 i = 0; i < t.tasks.size(); ++i) {
    const Task& k = t.tasks[i];
    std::string got = is_sync_task(k.type)
                          ? fmt::format("{} {} #{}", name(k.type), k.peer(), k.notify())
                          : slice_text(t, t.slice(t.group(k, 0).first_src)) + " -> " +
                                slice_text(t, t.slice(t.group(k, 0).dst));
    EXPECT_EQ(got, want[i]) << "task " << i;
    EXPECT_EQ(k.rank, i / 4);
    EXPECT_EQ(k.stream, 0u);
    EXPECT_EQ(t.task_index(k), i % 4);
  }
  EXPECT_TRUE(o.result.pass);
  EXPECT_EQ(codes(o.result), std::set<int>{});
  // Each rank's blocks are its buffer sizes.
  EXPECT_EQ(t.buffer_size(1, kOutput), 0x200u);
  EXPECT_EQ(t.buffer_size(0, 2), 0x200u);
  EXPECT_EQ(t.buffers.name(2), "CCL");
}

TEST(HcclvmDb, Spec13RaceIs302) {
  Fixture f = allgather2();
  f.ops[1].tasks[1].meta = memcpy_meta(1, 0, 1, 0x20000000, 0, 0x10010000, 256);
  One o = one(f, "race");
  std::set<int> c = codes(o.result);
  // Rank 1's push also overwrites rank 0's own block: its OUTPUT misses
  // rank 1's data and may hold the wrong rank's.
  std::set<int> want = {302};
  if (semantic_stage_runs()) want = {302, 406, 407};
  EXPECT_EQ(c, want);
}

TEST(HcclvmDb, Spec13LostRecordIsLocalDeadlock) {
  Fixture f = allgather2();
  f.ops[1].tasks.erase(f.ops[1].tasks.begin() + 2);
  One o = one(f, "lost");
  EXPECT_EQ(codes(o.result), (std::set<int>{0, 102, 902}));
  const Finding* d = find(o.result, 102);
  ASSERT_NE(d, nullptr);
  // The WAIT of id 8 became local (§11): rank 0 waits on itself, and the
  // 102 says why its counterpart is probably missing.
  EXPECT_EQ(o.trace().tasks[d->tasks[0]].peer(), 0u);
  std::string all;
  for (const std::string& s : d->details) all += s + "\n";
  EXPECT_NE(all.find("id 8 is used only by rank 0 (0 RECORDs, 1 WAIT)"), std::string::npos) << all;
  EXPECT_TRUE(has_tag(o.result, "HCCLVM-W-NOTIFY-UNPAIRED"));
}

TEST(HcclvmDb, Spec13MissingDataIs406) {
  Fixture f = allgather2();
  f.ops[0].tasks.erase(f.ops[0].tasks.begin());
  One o = one(f, "missing");
  std::set<int> want;
  if (semantic_stage_runs()) want = {406};
  EXPECT_EQ(codes(o.result), want);
}

TEST(HcclvmDb, Spec13OverflowIs201) {
  Fixture f = allgather2();
  f.ops[1].tasks[0].meta = memcpy_meta(1, 0, 1, 0x20000000, 1, 0x20010180, 256);
  One o = one(f, "overflow");
  std::set<int> c = codes(o.result);
  // The copy lands past the block and leaves [0x100,0x180) of OUTPUT 1 empty.
  std::set<int> want = {201};
  if (semantic_stage_runs()) want = {201, 406};
  EXPECT_EQ(c, want);
}

TEST(HcclvmDb, Spec13BadAddressIs110) {
  Fixture f = allgather2();
  f.ops[0].tasks[1].meta = memcpy_meta(0, 0, 0, 0x10000000, 1, 0x30000000, 256);
  One o = one(f, "badaddr");
  EXPECT_EQ(codes(o.result), (std::set<int>{110, 902}));
  const Finding* e = find(o.result, 110);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("0x30000000"), std::string::npos) << e->message;
  ASSERT_EQ(e->refs.size(), 1u);
  EXPECT_EQ(e->refs[0].rank, 0u);
  EXPECT_EQ(e->refs[0].index, 1u);  // the record keeps its place as a no-op
  std::string details;
  for (const std::string& s : e->details) details += s + "\n";
  EXPECT_NE(details.find("opTask_P_5100 row 2 (taskSeq 1)"), std::string::npos) << details;
}

TEST(HcclvmDb, Spec13NeverSyncedIsSaidAndNotChecked) {
  Fixture f = allgather2();
  for (OpFx& o : f.ops) o.sync_iter = 1;
  One o = one(f, "never");
  ASSERT_EQ(o.cases.size(), 1u);
  EXPECT_EQ(o.cases[0].name, o.path + "#w1-op0");
  EXPECT_TRUE(o.trace().unchecked);
  EXPECT_TRUE(o.result.pass);
  EXPECT_EQ(codes(o.result), std::set<int>{0});
  const Finding* w = find(o.result, 0, "HCCLVM-W-NEVER-SYNCED");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("not checked"), std::string::npos);
  EXPECT_NE(w->details.at(0).find("opDetails row 1 (rank 0), opDetails row 2 (rank 1)"), std::string::npos);
  EXPECT_TRUE(o.result.times.empty());  // no stage ran
}

}  // namespace
}  // namespace cc::test::vm::hcclvm_db_test
