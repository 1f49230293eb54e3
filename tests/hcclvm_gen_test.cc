// Realistic databases: reference schedules of `collcheck gen` written as the
// rows HCCL VM records (tests/hcclvm_fixture_trace.cc), imported back. The
// import must give the schedule's own tasks, and every mutant of `collcheck
// mutate` must get the same codes from its database as from its trace.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "mutate/mutants.h"
#include "gen/registry.h"
#include "gen_cases.h"
#include "hcclvm_fixture.h"
#include "io/hcclvm/blobs.h"
#include "mutant_check.h"
#include "test_util.h"

namespace cc::test::vm::hcclvm_gen_test {
namespace {

Trace generate(const std::string& algo, OpType op, u32 ranks, u64 count = 77, u32 root = 0) {
  gen::GenParams p;
  p.op = op;
  p.ranks = ranks;
  p.count = count;
  p.root = root;
  p.dtype = DataType::FP32;
  p.fold_ccl = true;
  p.ccl_bytes = 4096;  // several chunks
  Result<Trace> t = gen::generate(algo, p, true);
  EXPECT_TRUE(t.ok()) << algo << ": " << (t.ok() ? "" : t.error().message);
  return t.ok() ? std::move(*t) : Trace{};
}

std::string slice_text(const Trace& t, const Slice& s) {
  return fmt::format("{}.{}[{:#x},+{:#x})", s.rank, t.buffers.name(s.buf), s.offset, s.len);
}

// Every task as text, notify ids left out (the database gives every sync
// key an id of its own).
std::vector<std::string> task_texts(const Trace& t) {
  std::vector<std::string> out;
  for (const Task& k : t.tasks) {
    std::string s = fmt::format("{}/{}/{} {}", k.rank, k.stream, t.task_index(k), name(k.type));
    if (is_sync_task(k.type)) s += fmt::format(" peer {}", k.peer());
    for (u32 g = 0; is_data_task(k.type) && g < k.group_count(); ++g) {
      const Group& gr = t.group(k, g);
      for (u32 i = 0; i < gr.src_count; ++i) s += " " + slice_text(t, t.slice(gr.first_src + i));
      s += " -> " + slice_text(t, t.slice(gr.dst));
      if (is_reduce_task(k.type)) s += fmt::format(" {} {}", name(k.data_type), name(k.reduce_op));
    }
    out.push_back(s);
  }
  return out;
}

// Imports the database of `t` (one op group).
Result<std::vector<LoadedCase>> round_trip(const Trace& t, const std::string& name) {
  std::string err;
  Fixture f = from_trace(t, err);
  if (!err.empty()) return Error{err};
  return import_fixture(f, name);
}

std::set<int> codes_of_trace(const Trace& t) {
  CheckResult r = run_checks(t, {}, CheckOptions{});
  return codes(r);
}

struct Schedule {
  std::string algo;
  OpType op;
  u32 ranks;
  u32 root = 0;
};

std::string label(const Schedule& s) { return fmt::format("{}_{}_{}_root{}", s.algo, name(s.op), s.ranks, s.root); }

// The operators of the issue (AllGather, ReduceScatter, AllReduce,
// Broadcast) on 2 and 4 ranks, over single-stream and multi-stream
// algorithms, and every other operator gen has.
std::vector<Schedule> schedules() {
  std::vector<Schedule> s;
  for (u32 n : {2u, 4u}) {
    for (OpType op : {OpType::AllGather, OpType::ReduceScatter, OpType::AllReduce}) {
      s.push_back({"ring", op, n});
      s.push_back({"mesh", op, n});
      s.push_back({"nhr", op, n});
    }
    s.push_back({"hd", OpType::AllReduce, n});
    s.push_back({"mesh1d", OpType::AllReduce, n});
    s.push_back({"ring", OpType::Broadcast, n, 1});
    s.push_back({"nhr", OpType::Broadcast, n, 0});
    s.push_back({"star", OpType::Broadcast, n, n - 1});
    s.push_back({"ring", OpType::Reduce, n, 1});
    s.push_back({"mesh", OpType::Scatter, n, 1});
    s.push_back({"star", OpType::Gather, n, 0});
    s.push_back({"pairwise", OpType::AllToAll, n});
    s.push_back({"pairwise", OpType::AllToAllV, n});
    s.push_back({"send-recv", OpType::SendRecv, n, 1});
  }
  s.push_back({"hierarchical", OpType::AllReduce, 4});
  return s;
}

class HcclvmGen : public ::testing::TestWithParam<Schedule> {};

TEST_P(HcclvmGen, ImportGivesTheScheduleAndItsVerdict) {
  const Schedule& s = GetParam();
  Trace t = generate(s.algo, s.op, s.ranks, 77, s.root);
  ASSERT_FALSE(t.tasks.empty());
  auto cases = round_trip(t, "gen_" + label(s));
  ASSERT_TRUE(cases.ok()) << cases.error().message;
  ASSERT_EQ(cases->size(), 1u);
  LoadedCase& c = cases->front();
  const Trace& got = c.read.trace;
  EXPECT_EQ(got.op.type, t.op.type);
  EXPECT_EQ(got.op.ranks, t.op.ranks);
  EXPECT_EQ(got.op.data_type, t.op.data_type);
  EXPECT_EQ(got.op.count, t.op.count);
  EXPECT_EQ(got.op.root, t.op.root);
  EXPECT_EQ(got.op.in_place, t.op.in_place);
  EXPECT_EQ(got.op.send_counts, t.op.send_counts);
  ASSERT_EQ(got.op.items.size(), t.op.items.size());
  std::vector<std::string> want = task_texts(t), have = task_texts(got);
  ASSERT_EQ(have.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(have[i], want[i]) << "task " << i;
  CheckResult r = check_case(c);
  EXPECT_EQ(codes(r), codes_of_trace(t));
  EXPECT_TRUE(r.pass) << codes_text(codes(r));
}

INSTANTIATE_TEST_SUITE_P(Schedules, HcclvmGen, ::testing::ValuesIn(schedules()),
                         [](const ::testing::TestParamInfo<Schedule>& i) {
                           std::string n = label(i.param);
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// Every mutant kind: the database of a mutant gets the codes its trace gets,
// except that a slice moved past the end of its block has an address in no
// block (110 where the trace has 201: there is no address to resolve).
TEST(HcclvmGenMutants, DatabaseAndTraceAgree) {
  std::vector<Schedule> bases = {{"ring", OpType::AllGather, 4},
                                 {"mesh", OpType::AllReduce, 4},
                                 {"ring", OpType::ReduceScatter, 2},
                                 {"nhr", OpType::Broadcast, 4, 1}};
  if (long_tests()) bases = schedules();
  if (quick_tests()) bases.resize(2);  // the sanitizer run
  u32 compared = 0, mapped = 0;
  for (const Schedule& s : bases) {
    Trace t = generate(s.algo, s.op, s.ranks, 77, s.root);
    for (const mutate::FaultInfo& k : mutate::fault_kinds()) {
      auto mutants = mutate::make_mutants(t, k.kind, 7, long_tests() ? 4 : 2);
      ASSERT_TRUE(mutants.ok()) << mutants.error().message;
      for (mutate::Mutant& m : *mutants) {
        std::string what = fmt::format("{} {} site {}: {}", label(s), k.name, m.site_index, m.what);
        auto cases = round_trip(m.trace, "mutant");
        ASSERT_TRUE(cases.ok()) << what << ": " << cases.error().message;
        ASSERT_EQ(cases->size(), 1u) << what;
        std::set<int> db = codes(check_case(cases->front())), tr = codes_of_trace(m.trace);
        db.erase(0);  // the importer's named warnings have no trace form
        if (db.count(110)) {
          EXPECT_TRUE(tr.count(201)) << what << ": database " << codes_text(db) << ", trace " << codes_text(tr);
          ++mapped;
          continue;
        }
        EXPECT_EQ(db, tr) << what;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 3 * mapped) << "too few mutants compared exactly";
  RecordProperty("compared", static_cast<int>(compared));
  RecordProperty("mapped_110", static_cast<int>(mapped));
}

// The faults of the issue, made in the rows of a 4-rank ring AllGather's
// database (not in its trace): each gets its code.
class HcclvmGenFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string err;
    base_ = from_trace(generate("ring", OpType::AllGather, 4), err);
    ASSERT_EQ(err, "");
  }

  // Index of the n-th task row of `rank` whose decoded meta satisfies `pred`.
  std::size_t row(u32 rank, const std::function<bool(const hcclvm::TaskMeta&)>& pred, u32 n = 0) {
    auto& tasks = base_.ops.at(rank).tasks;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      auto m = hcclvm::decode_task_meta(hcclvm::Bytes(tasks[i].meta.data(), tasks[i].meta.size()));
      if (m && pred(*m) && n-- == 0) return i;
    }
    ADD_FAILURE() << "no such row on rank " << rank;
    return 0;
  }

  std::set<int> codes_of(const Fixture& f, const std::string& name) {
    auto cases = import_fixture(f, name);
    EXPECT_TRUE(cases.ok()) << cases.error().message;
    if (!cases.ok() || cases->size() != 1) return {};
    return codes(check_case(cases->front()));
  }

  Fixture base_;
};

bool is_copy(const hcclvm::TaskMeta& m) { return m.type == hcclvm::kMetaMemCpy; }

TEST_F(HcclvmGenFaults, CorrectDatabasePasses) { EXPECT_EQ(codes_of(base_, "fault_none"), std::set<int>{}); }

TEST_F(HcclvmGenFaults, MissingRecordDeadlocks) {
  Fixture f = base_;
  auto& t = f.ops[1].tasks;
  t.erase(t.begin() + row(1, [](const hcclvm::TaskMeta& m) { return m.type == hcclvm::kMetaNotifyRecord; }));
  std::set<int> c = codes_of(f, "fault_record");
  EXPECT_TRUE(c.count(102)) << codes_text(c);
}

TEST_F(HcclvmGenFaults, MissingWaitRaces) {
  Fixture f = base_;
  auto& t = f.ops[1].tasks;
  // The second WAIT of rank 1: rank 0's "data is in my CCL" before rank 1
  // reads it.
  t.erase(t.begin() + row(1, [](const hcclvm::TaskMeta& m) { return m.type == hcclvm::kMetaNotifyWait; }, 1));
  std::set<int> c = codes_of(f, "fault_wait");
  EXPECT_TRUE(c.count(302)) << codes_text(c);
}

TEST_F(HcclvmGenFaults, WrongSourceOffset) {
  Fixture f = base_;
  std::size_t i = row(2, [](const hcclvm::TaskMeta& m) { return is_copy(m) && m.src_rank != 2; });
  Blob& b = f.ops[2].tasks[i].meta;
  b[39] += 4;  // the source address one FP32 element further
  std::set<int> c = codes_of(f, "fault_src");
  if (semantic_stage_runs()) {
    EXPECT_TRUE(c.count(406) || c.count(407) || c.count(408)) << codes_text(c);
  }
  EXPECT_FALSE(c.count(110) || c.count(112)) << codes_text(c);
}

TEST_F(HcclvmGenFaults, MissingFinalCopy) {
  Fixture f = base_;
  u64 out = f.ops[3].out_addr, end = out + f.ops[3].out_size;
  u32 copies = 0;
  auto into_output = [&](const hcclvm::TaskMeta& m) { return is_copy(m) && m.dst_addr >= out && m.dst_addr < end; };
  for (const TaskFx& t : f.ops[3].tasks) {
    auto m = hcclvm::decode_task_meta(hcclvm::Bytes(t.meta.data(), t.meta.size()));
    copies += into_output(*m);
  }
  ASSERT_GT(copies, 0u);
  auto& t = f.ops[3].tasks;
  t.erase(t.begin() + row(3, into_output, copies - 1));
  std::set<int> want = semantic_stage_runs() ? std::set<int>{406} : std::set<int>{};
  EXPECT_EQ(codes_of(f, "fault_final"), want);
}

TEST_F(HcclvmGenFaults, AddressesOutsideOrOnAnotherRank) {
  Fixture f = base_;
  std::size_t i = row(0, is_copy);
  Blob saved = f.ops[0].tasks[i].meta;
  f.ops[0].tasks[i].meta[51 + 4] = 0xde;  // destination address in no block
  EXPECT_EQ(codes_of(f, "fault_110"), (std::set<int>{110, 902}));
  f.ops[0].tasks[i].meta = saved;
  u32 dst_rank = f.ops[0].tasks[i].meta[47];
  f.ops[0].tasks[i].meta[47] = static_cast<u8>((dst_rank + 1) % 4);  // names a rank the address is not on
  EXPECT_EQ(codes_of(f, "fault_112"), std::set<int>{112});
}

TEST_F(HcclvmGenFaults, CorruptBlobIsExit2) {
  Fixture f = base_;
  f.ops[2].tasks[5].meta.resize(60);
  auto cases = import_fixture(f, "fault_blob");
  ASSERT_FALSE(cases.ok());
  EXPECT_NE(cases.error().message.find(
                "table opTask_P_5102 row 6 column opTaskMeta: blob is 60 bytes; a packed HcclTaskMetaData needs 155"),
            std::string::npos)
      << cases.error().message;
}

}  // namespace
}  // namespace cc::test::vm::hcclvm_gen_test
