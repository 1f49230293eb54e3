// The operator of an op group (hcclvm-db.md §5, §6, §12.1): V counts,
// all-to-all matrices, batch and pairwise send/receive, members that
// disagree, codes collcheck does not model, in-place buffers.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gen/registry.h"
#include "hcclvm_fixture.h"
#include "model/builder.h"
#include "mutant_check.h"
#include "test_util.h"

namespace cc::test::vm::hcclvm_ops_test {
namespace {

Op make_op(OpType type, u32 ranks, DataType dt = DataType::INT32) {
  Op op;
  op.type = type;
  op.ranks = ranks;
  op.data_type = dt;
  op.has_reduce_op = op_reduces(type);
  return op;
}

Fixture fixture_of(const Op& op) {
  std::string err;
  Fixture f = from_trace(pull_schedule(op), err);
  EXPECT_EQ(err, "");
  return f;
}

struct Outcome {
  std::string error;  // the importer's exit-2 message
  std::vector<LoadedCase> cases;
  CheckResult result;  // of the first case
  const Trace& trace() const { return cases.front().read.trace; }
};

Outcome run(const Fixture& f, const std::string& name) {
  Outcome o;
  auto r = import_fixture(f, name);
  if (!r.ok()) {
    o.error = r.error().message;
    return o;
  }
  o.cases = std::move(r.value());
  if (!o.cases.empty()) o.result = check_case(o.cases.front());
  return o;
}

// The codes of a refused group: its findings only, no stage ran.
void expect_refused(const Outcome& o, int code, const std::string& text) {
  ASSERT_EQ(o.error, "");
  ASSERT_EQ(o.cases.size(), 1u);
  EXPECT_TRUE(o.trace().unchecked);
  EXPECT_EQ(codes(o.result), std::set<int>{code});
  const Finding* f = find(o.result, code);
  ASSERT_NE(f, nullptr);
  std::string all = f->message;
  for (const std::string& d : f->details) all += "\n" + d;
  EXPECT_NE(all.find(text), std::string::npos) << all;
}

void expect_pass(const Outcome& o, std::set<int> want = {}) {
  ASSERT_EQ(o.error, "");
  ASSERT_EQ(o.cases.size(), 1u);
  EXPECT_FALSE(o.trace().unchecked);
  EXPECT_EQ(codes(o.result), want);
  EXPECT_TRUE(o.result.pass);
}

Op agv(std::vector<u64> counts, std::vector<u64> displs = {}) {
  Op op = make_op(OpType::AllGatherV, static_cast<u32>(counts.size()));
  op.counts = counts;
  op.displs = displs;
  op.displs_given = !displs.empty();
  if (displs.empty()) {
    op.displs.assign(counts.size(), 0);
    for (std::size_t q = 1; q < counts.size(); ++q) op.displs[q] = op.displs[q - 1] + counts[q - 1];
  }
  return op;
}

TEST(HcclvmOps, AllGatherVPasses) {
  Op op = agv({3, 0, 5});
  Outcome o = run(fixture_of(op), "agv");
  expect_pass(o);
  EXPECT_EQ(o.trace().op.type, OpType::AllGatherV);
  EXPECT_EQ(o.trace().op.counts, op.counts);
  EXPECT_EQ(o.trace().op.displs, op.displs);
}

TEST(HcclvmOps, DisplacementsOtherThanPrefixSumsAreHonouredWithAWarning) {
  Op op = agv({3, 2, 5}, {0, 8, 16});
  Outcome o = run(fixture_of(op), "agv_displs");
  expect_pass(o, {0});
  EXPECT_TRUE(has_tag(o.result, "HCCLVM-W-V-DISPLS"));
  EXPECT_EQ(o.trace().op.displs, op.displs);
}

TEST(HcclvmOps, LocalCountMustEqualTheCount) {
  Fixture f = fixture_of(agv({3, 2, 5}));
  f.ops[1].detail = op_detail(16, 2, 0, 3);
  expect_refused(run(f, "agv_local"), 405, "localCount 2 in opExtInfo differs from the count 3");
}

TEST(HcclvmOps, VCountsMustAgreeBetweenMembers) {
  Fixture f = fixture_of(agv({3, 2, 5}));
  f.ops[2].ext = v_ext(5, {3, 4, 5}, {0, 3, 5});
  expect_refused(run(f, "agv_counts"), 405, "reports 4 elements for rank 1, whose localCount is 2");
  Fixture g = fixture_of(agv({3, 2, 5}));
  g.ops[1].ext = v_ext(2, {3, 2, 5}, {0, 3, 6});
  expect_refused(run(g, "agv_displs_disagree"), 405, "disagree on the displacements");
}

TEST(HcclvmOps, VExtensionOfTheWrongLengthIsAnInputError) {
  Fixture f = fixture_of(agv({3, 2, 5}));
  f.ops[1].ext.pop_back();
  Outcome o = run(f, "agv_len");
  EXPECT_NE(o.error.find("table opDetails row 2 column opExtInfo: blob is 55 bytes; with rankSize 3"),
            std::string::npos)
      << o.error;
}

TEST(HcclvmOps, ReduceScatterVPasses) {
  Op op = make_op(OpType::ReduceScatterV, 3);
  op.counts = {4, 1, 2};
  op.displs = {0, 4, 5};
  Outcome o = run(fixture_of(op), "rsv");
  expect_pass(o);
  EXPECT_EQ(o.trace().op.counts, op.counts);
  EXPECT_TRUE(o.trace().op.has_reduce_op);
}

TEST(HcclvmOps, AllToAllPasses) {
  Op op = make_op(OpType::AllToAll, 3);
  op.count = 4;
  expect_pass(run(fixture_of(op), "a2a"));
}

Op a2av() {
  Op op = make_op(OpType::AllToAllV, 3);
  op.send_counts = {1, 2, 3, 0, 5, 6, 7, 0, 9};
  return op;
}

TEST(HcclvmOps, AllToAllVMatrixIsMergedFromRowsAndColumns) {
  Outcome o = run(fixture_of(a2av()), "a2av");
  expect_pass(o);
  EXPECT_EQ(o.trace().op.send_counts, a2av().send_counts);
}

TEST(HcclvmOps, AllToAllVDisagreementNamesTheFirstCell) {
  Fixture f = fixture_of(a2av());
  // Three disagreements, found in the order [1][0] (rank 0's column),
  // [0][1] (rank 1's column), [0][2]: the report names the first in
  // row-major order, [0][1].
  auto cells = [](u32 r) {
    std::vector<u64> m = {1, 2, 3, 0, 5, 6, 7, 0, 9}, c(9, 0);
    for (u32 k = 0; k < 3; ++k) c[r * 3 + k] = m[r * 3 + k], c[k * 3 + r] = m[k * 3 + r];
    return c;
  };
  std::vector<u64> c0 = cells(0), c1 = cells(1), c2 = cells(2);
  c0[1 * 3 + 0] = 1;
  c1[0 * 3 + 1] = 3;
  c2[0 * 3 + 2] = 4;
  f.ops[0].ext = matrix_ext(c0);
  f.ops[1].ext = matrix_ext(c1);
  f.ops[2].ext = matrix_ext(c2);
  expect_refused(run(f, "a2av_bad"), 405,
                 "rank 0 reports sending 2 elements to rank 1, rank 1 reports receiving 3 from rank 0 (first "
                 "disagreeing cell [0][1])");
}

TEST(HcclvmOps, AllToAllVCNeedsOneMatrix) {
  Fixture f = fixture_of(a2av());
  for (OpFx& o : f.ops) {
    o.detail[0] = 9;
    o.ext = matrix_ext({1, 2, 3, 0, 5, 6, 7, 0, 9});
  }
  Outcome ok = run(f, "a2avc");
  expect_pass(ok);
  EXPECT_EQ(ok.trace().op.send_counts, a2av().send_counts);
  f.ops[2].ext = matrix_ext({1, 2, 3, 0, 5, 6, 7, 1, 9});
  expect_refused(run(f, "a2avc_bad"), 405, "has [2][1] = 0, opDetails row 3 (rank 2) has 1");
}

TEST(HcclvmOps, MatrixCountLargerThanTheBlobIsAnInputError) {
  Fixture f = fixture_of(a2av());
  Blob b = matrix_ext({1, 2, 3});
  b[0] = 0xff, b[1] = 0xff, b[2] = 0xff, b[3] = 0xff;  // 2^32-1 cells claimed, 3 present
  f.ops[0].ext = b;
  Outcome o = run(f, "a2av_count");
  EXPECT_NE(o.error.find("table opDetails row 1 column opExtInfo: cell count 4294967295 needs 34359738364 bytes; "
                         "the blob has 28"),
            std::string::npos)
      << o.error;
}

TEST(HcclvmOps, AllToAllWithTwoDataTypesIsRefused) {
  Op op = make_op(OpType::AllToAll, 2);
  op.count = 4;
  Fixture f = fixture_of(op);
  for (OpFx& o : f.ops) o.detail = op_detail_a2a(10, 2, 4, 4, 4);
  expect_refused(run(f, "a2a_types"), 405, "sends INT32 and receives FP32");
}

Op batch(u32 n, std::vector<std::pair<u32, u32>> pairs, u64 count = 6) {
  Op op = make_op(OpType::BatchSendRecv, n);
  for (auto [s, d] : pairs) op.items.push_back({s, d, count});
  return op;
}

TEST(HcclvmOps, BatchSendRecvRingPasses) {
  Outcome o = run(fixture_of(batch(3, {{0, 1}, {1, 2}, {2, 0}})), "bsr_ring");
  expect_pass(o);
  ASSERT_EQ(o.trace().op.items.size(), 3u);
  EXPECT_EQ(o.trace().op.items[2].src, 2u);
  EXPECT_EQ(o.trace().op.items[2].dst, 0u);
}

TEST(HcclvmOps, BatchSendRecvOtherThanARingIsCheckedWithAWarning) {
  Outcome o = run(fixture_of(batch(4, {{0, 1}, {1, 0}, {2, 3}, {3, 2}})), "bsr_pairs");
  expect_pass(o, {0});
  EXPECT_TRUE(has_tag(o.result, "HCCLVM-W-BSR-NOT-RING"));
}

TEST(HcclvmOps, BatchSendRecvMustPairUp) {
  Fixture f = fixture_of(batch(3, {{0, 1}, {1, 2}, {2, 0}}));
  f.ops[1].src_rank = 2;  // rank 1 claims to receive from rank 2
  expect_refused(run(f, "bsr_bad"), 405, "rank 0 sends to rank 1, but rank 1 receives from rank 2");
  Fixture g = fixture_of(batch(3, {{0, 1}, {1, 2}, {2, 0}}));
  g.ops[0].ext = batch_ext(3);
  expect_refused(run(g, "bsr_items"), 405, "itemNum 3");
  g.ops[0].ext = Blob(5, 0);
  EXPECT_NE(run(g, "bsr_len").error.find("table opDetails row 1 column opExtInfo: blob is 5 bytes"),
            std::string::npos);
}

TEST(HcclvmOps, SendRecvPairs) {
  Op one = make_op(OpType::SendRecv, 4);
  one.items = {{2, 1, 5}};
  Outcome o = run(fixture_of(one), "sendrecv");
  expect_pass(o);
  EXPECT_EQ(o.trace().op.type, OpType::SendRecv);
  ASSERT_EQ(o.trace().op.items.size(), 1u);
  EXPECT_EQ(o.trace().op.items[0].src, 2u);
  EXPECT_EQ(o.trace().op.items[0].count, 5u);
  Op two = make_op(OpType::BatchSendRecv, 4);
  two.items = {{0, 1, 3}, {3, 2, 4}};
  Outcome p = run(fixture_of(two), "sendrecv_pairs");
  expect_pass(p);
  EXPECT_EQ(p.trace().op.type, OpType::BatchSendRecv);
  EXPECT_EQ(p.trace().op.items.size(), 2u);
}

TEST(HcclvmOps, SendRecvPairsMustBeComplete) {
  Op two = make_op(OpType::BatchSendRecv, 4);
  two.items = {{0, 1, 3}, {3, 2, 4}};
  Fixture f = fixture_of(two);
  f.ops.erase(f.ops.begin() + 2);  // rank 2's RECEIVE
  expect_refused(run(f, "sendrecv_half"), 405, "SEND from rank 3 to rank 2 (opDetails row 3 (rank 3)) has no "
                                                "matching RECEIVE");
  Fixture g = fixture_of(two);
  g.ops[1].detail = op_detail(5, 2, 0, 4);
  expect_refused(run(g, "sendrecv_count"), 405, "sends 3 elements, the RECEIVE expects 4");
  Fixture h = fixture_of(two);
  h.ops[0].src_rank = 2;
  expect_refused(run(h, "sendrecv_self"), 405, "the srcRank must be the row's own rank");
}

TEST(HcclvmOps, MembersMustAgree) {
  Fixture f = allgather2();
  f.ops[1].detail = op_detail(2, 2, 0, 64);
  expect_refused(run(f, "disagree_op"), 405, "disagree on the operator");
  f = allgather2();
  f.ops[1].detail = op_detail(6, 3, 0, 64);
  expect_refused(run(f, "disagree_dtype"), 405, "opDetails row 2 (rank 1): 3");
  f = allgather2();
  f.ops[1].rank_size = 4;
  expect_refused(run(f, "disagree_size"), 405, "disagree on the rankSize");
  f = allgather2();
  f.ops[1].detail = op_detail(6, 2, 0, 32);
  expect_refused(run(f, "disagree_count"), 405, "disagree on the count");
  f = allgather2();
  for (OpFx& o : f.ops) o.detail = op_detail(1, 2, 0, 64);
  f.ops[1].root = 1;
  expect_refused(run(f, "disagree_root"), 405, "disagree on the root");
}

TEST(HcclvmOps, CollectiveNeedsEveryRank) {
  Fixture f = allgather2();
  for (OpFx& o : f.ops) o.rank_size = 3;
  expect_refused(run(f, "missing_member"), 405, "has 2 members: rank 2 recorded no operator");
  f = allgather2();
  f.ops[1].rank = 2;
  f.ops[1].rank_size = 2;
  expect_refused(run(f, "rank_outside"), 405, "rankId 2 is outside rankSize 2");
}

TEST(HcclvmOps, HostileRankSizes) {
  // A million-rank AllToAllV claimed by two rows: refused before any
  // matrix (8·N² bytes) is read or allocated.
  Fixture f = fixture_of(a2av());
  f.ops.pop_back();
  for (OpFx& o : f.ops) o.rank_size = kMaxRanks;
  expect_refused(run(f, "a2av_huge"), 405, "has 2 members");
  for (OpFx& o : f.ops) o.rank_size = kMaxRanks + 1;
  expect_refused(run(f, "a2av_huger"), 405, "rankSize 1048577 is not a communicator size");
  // A send/receive pair of a million-rank communicator needs nothing per rank.
  Op one = make_op(OpType::SendRecv, 2);
  one.items = {{0, 1, 5}};
  Fixture g = fixture_of(one);
  for (OpFx& o : g.ops) o.rank_size = kMaxRanks;
  Outcome p = run(g, "sendrecv_huge");
  expect_pass(p);
  EXPECT_EQ(p.trace().op.ranks, kMaxRanks);
}

TEST(HcclvmOps, CodesCollcheckDoesNotModel) {
  Fixture f = allgather2();
  for (OpFx& o : f.ops) o.detail = op_detail(55, 2, 0, 64);
  expect_refused(run(f, "op55"), 101, "Operator code 55 is not an HCCL operator");
  for (OpFx& o : f.ops) o.detail = op_detail(14, 2, 0, 64);
  expect_refused(run(f, "op14"), 111, "Operator BATCH_PUT (14) is not supported");
  for (OpFx& o : f.ops) o.detail = op_detail(6, 13, 0, 64);
  expect_refused(run(f, "dtype13"), 101, "data type code 13");
  for (OpFx& o : f.ops) o.detail = op_detail(2, 2, 7, 64);
  expect_refused(run(f, "reduce7"), 101, "reduce op code 7");
}

TEST(HcclvmOps, InPlaceAllReduceAndBroadcast) {
  // Two ranks, one buffer each: copy the peer's INPUT into CCL, then
  // reduce CCL into INPUT once the peer has read ours.
  Op op = make_op(OpType::AllReduce, 2);
  op.count = 16;
  op.in_place = true;
  TraceBuilder b(op);
  b.declare("CCL", 64);
  for (u32 r = 0; r < 2; ++r) {
    u32 p = 1 - r;
    b.record(r, 0, p, 1);
    b.wait(r, 0, p, 1);
    b.copy(r, 0, b.slice(p, "INPUT", 0, 64), b.slice(r, "CCL", 0, 64));
    b.record(r, 0, p, 2);
    b.wait(r, 0, p, 2);
    b.reduce(r, 0, {b.slice(r, "CCL", 0, 64)}, b.slice(r, "INPUT", 0, 64));
  }
  std::string err;
  Fixture f = from_trace(b.finish(), err);
  ASSERT_EQ(err, "");
  EXPECT_EQ(f.ops[0].in_addr, f.ops[0].out_addr);
  Outcome o = run(f, "inplace_allreduce");
  expect_pass(o);
  EXPECT_TRUE(o.trace().op.in_place);
  // The same buffers under AllGather: not in place, the overlap is reported.
  for (OpFx& x : f.ops) x.detail = op_detail(6, 2, 0, 16), x.out_size = 128;
  Outcome g = run(f, "inplace_allgather");
  EXPECT_FALSE(g.trace().op.in_place);
  EXPECT_TRUE(has_tag(g.result, "HCCLVM-W-AMBIGUOUS-BUFFER"));
}

TEST(HcclvmOps, BroadcastWithoutOutputBlockIsInPlace) {
  gen::GenParams p;
  p.op = OpType::Broadcast;
  p.ranks = 3;
  p.count = 40;
  p.root = 1;
  p.fold_ccl = true;
  Result<Trace> t = gen::generate("ring", p, true);
  ASSERT_TRUE(t.ok());
  std::string err;
  Fixture f = from_trace(*t, err);
  ASSERT_EQ(err, "");
  for (OpFx& o : f.ops) o.out_addr = o.out_size = 0;
  Outcome o = run(f, "bcast_no_output");
  expect_pass(o);
  EXPECT_TRUE(o.trace().op.in_place);
  EXPECT_EQ(o.trace().op.root, 1u);
}

}  // namespace
}  // namespace cc::test::vm::hcclvm_ops_test
