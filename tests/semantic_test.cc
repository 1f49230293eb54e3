// Stage 5 in small pieces: the contribution sets, the message shape of
// checks.md, tasks the stage cannot follow, and large rank counts.
#include <gtest/gtest.h>

#include "check/semantic/provenance.h"
#include "pipeline/stages.h"
#include "check/semantic/semantic.h"
#include "model/builder.h"
#include "test_util.h"

namespace cc::test {
namespace {

TEST(ContribSets, CanonicalAndHashConsed) {
  ContribSets s;
  u64 adj = 0;
  std::vector<ContribTerm> a{{2, 4, 8, 1}, {0, 2, 8, 1}};
  SetId x = s.intern(a, adj);
  EXPECT_EQ(adj, 8u);  // smallest delta moved into the shift
  EXPECT_EQ(x, s.ranks(0, 4));
  ASSERT_EQ(s.terms(x).size(), 1u);
  EXPECT_EQ(s.total(x), 4u);
  // Overlapping terms become multiplicities.
  std::vector<ContribTerm> b{{0, 3, 0, 1}, {1, 2, 0, 1}};
  SetId y = s.intern(b, adj);
  EXPECT_EQ(s.total(y), 4u);
  EXPECT_EQ(s.terms(y).size(), 3u);
  EXPECT_EQ(s.terms(y)[1].mult, 2u);
}

TEST(ContribSets, UnionsDetectOverlapAndShift) {
  ContribSets s;
  SetId r0 = s.single(0), r1 = s.single(1);
  ContribSets::Union u = s.unite(r0, r1, 0);
  EXPECT_EQ(u.set, s.ranks(0, 2));
  EXPECT_FALSE(u.overlap);
  EXPECT_EQ(s.unite(u.set, r1, 0).overlap, true);
  // Same rank, another offset: no double contribution, two terms.
  ContribSets::Union v = s.unite(r1, r1, 64);
  EXPECT_FALSE(v.overlap);
  EXPECT_EQ(s.total(v.set), 2u);
  EXPECT_EQ(v.adjust, 0u);
  // Commuted operands give the same set with the shift moved.
  ContribSets::Union w = s.unite(r1, r1, 0 - u64{64});
  EXPECT_EQ(w.set, v.set);
  EXPECT_EQ(w.adjust, 0 - u64{64});
  u64 before = s.unions();
  s.unite(r0, r1, 0);
  EXPECT_EQ(s.unions(), before);  // from the memo
  EXPECT_EQ(s.memo_hits(), 1u);
}

TEST(ContribSets, RingPartialSumsStayOneOrTwoTerms) {
  ContribSets s;
  u32 n = 1024;
  for (u32 chunk = 0; chunk < n; chunk += 97) {
    SetId acc = s.single(chunk);
    for (u32 step = 1; step < n; ++step) {
      acc = s.unite(acc, s.single((chunk + step) % n), 0).set;
      ASSERT_LE(s.terms(acc).size(), 2u);
    }
    EXPECT_EQ(acc, s.ranks(0, n));
  }
}

TEST(ContribSets, Describes) {
  ContribSets s;
  Prov p;
  p.set = s.ranks(0, 4);
  p.op = static_cast<u8>(ReduceOp::SUM);
  EXPECT_EQ(describe_prov(s, p, 0x10), "4 contributions (SUM): ranks 0-3 INPUT offset 0x10");
  EXPECT_EQ(describe_data(s, p, 0x10, 0x20), "the SUM of ranks 0-3 INPUT [0x10,0x20)");
  p = Prov{};
  p.set = s.single(1);
  p.shift = 0x100;
  EXPECT_EQ(describe_prov(s, p, 0x200), "1 contribution: rank 1 INPUT offset 0x300");
  EXPECT_EQ(describe_prov(s, Prov{}, 0), "no data");
}

// The 407 example of checks.md: rank 2 of a 4-rank AllGather copies rank 1's
// block from the wrong offset (through rank 1's CCL).
TEST(SemanticMessages, ShapeOfChecksMd) {
  Op op;
  op.type = OpType::AllGather;
  op.ranks = 4;
  op.data_type = DataType::INT8;
  op.count = 0x200;
  TraceBuilder b(op);
  b.declare("CCL", 0x400);
  b.copy(1, 0, b.slice(1, "INPUT", 0, 0x200), b.slice(1, "CCL", 0, 0x200));
  b.record(1, 0, 2, 1);
  b.wait(2, 0, 1, 1);
  b.copy(2, 0, b.slice(1, "CCL", 0x100, 0x100), b.slice(2, "OUTPUT", 0x200, 0x100), Link::SDMA);
  Trace t = b.finish();
  FindingSink sink(20);
  check_semantic(t, build_graph(t), sink);
  const Finding* f = nullptr;
  for (const Finding& x : sink.findings())
    if (x.code == 407) f = &x;
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->message,
            "Rank 2 OUTPUT [0x200,0x300): AllGather needs rank 1 INPUT [0x0,0x100) here, found rank 1 INPUT "
            "[0x100,0x200).");
  ASSERT_EQ(f->details.size(), 3u);
  EXPECT_EQ(f->details[0], "Provenance:");
  EXPECT_EQ(f->details[1], "  [0x200,0x300)  1 contribution: rank 1 INPUT offset 0x100");
  EXPECT_EQ(f->details[2].rfind("Last writer: 2/0/1 ", 0), 0u) << f->details[2];
  EXPECT_NE(f->details[2].find("TRANS_MEM src=rank 1 CCL [0x100,0x200) dst=rank 2 OUTPUT [0x200,0x300) link=SDMA"),
            std::string::npos);
}

Trace unchecked_allreduce(bool flag) {
  Op op;
  op.type = OpType::AllReduce;
  op.ranks = 2;
  op.data_type = DataType::FP32;
  op.count = 4;
  TraceBuilder b(op);
  b.copy(0, 0, b.slice(0, "INPUT", 0, 16), b.slice(0, "OUTPUT", 0, 16));
  u32 red = b.reduce(0, 0, {b.slice(1, "INPUT", 0, 16)}, b.slice(0, "OUTPUT", 0, 16));
  if (flag) b.trace().tasks[red].flags |= kTaskSemanticUnchecked;
  b.copy(1, 0, b.slice(1, "INPUT", 0, 16), b.slice(1, "OUTPUT", 0, 16));
  return b.finish();
}

// A task the stage cannot follow (a CCU cast) writes "unknown": never
// reported as wrong, never counted as right; one 902 says what went unchecked.
TEST(SemanticUnchecked, UnknownBytesAreNeitherWrongNorRight) {
  std::vector<u16> codes = codes_of(unchecked_allreduce(true));
  // Rank 1 never reduces: 409 there; rank 0's result is unknown: 902 only.
  EXPECT_EQ(codes, (std::vector<u16>{409, 902}));
  FindingSink sink(20);
  SemanticDetail det;
  Trace t = unchecked_allreduce(true);
  check_semantic(t, build_graph(t), sink, nullptr, &det);
  EXPECT_EQ(det.unknown_bytes, 16u);
  ASSERT_EQ(det.wrong.size(), 1u);
  EXPECT_EQ(det.wrong[0].rank, 1u);
  // Without the flag the same reduce is followed: rank 0 is right.
  EXPECT_EQ(codes_of(unchecked_allreduce(false)), (std::vector<u16>{409}));
}

// A batch of no pairs has no group: its first_group is the end of `groups`.
// The stage's look-ahead (prefetching a data task's first group 8 and 16
// tasks ahead in τ) must not read that group; with `groups` exactly full
// the read is past the allocation (found by the sanitizer build).
TEST(SemanticEdge, EmptyBatchAtTheEndOfTheGroups) {
  Op op;
  op.type = OpType::AllReduce;
  op.ranks = 1;
  op.data_type = DataType::FP32;
  op.count = 4;
  TraceBuilder b(op);
  for (int i = 0; i < 8; ++i) b.copy(0, 0, b.slice(0, "INPUT", 0, 16), b.slice(0, "OUTPUT", 0, 16));
  b.batch_copy(0, 0, {});
  Trace t = b.finish();
  t.groups.shrink_to_fit();
  ASSERT_EQ(t.groups.size(), 8u);
  FindingSink sink(20);
  check_semantic(t, build_graph(t), sink);
  EXPECT_EQ(sink.errors(), 0u);
}

// A million ranks and one task: the result comparison costs O(1) per rank
// that holds nothing (one 406 stretch each), no per-block work.
TEST(SemanticScale, HugeRankCountsAreCheap) {
  Op op;
  op.type = OpType::AllGather;
  op.ranks = 1u << 20;
  op.data_type = DataType::INT8;
  op.count = 1;
  TraceBuilder b(op);
  b.copy(5, 0, b.slice(5, "INPUT", 0, 1), b.slice(5, "OUTPUT", 5, 1));
  Trace t = b.finish();
  FindingSink sink(3);
  SemanticDetail det;
  check_semantic(t, build_graph(t), sink, nullptr, &det);
  // Rank 5 misses [0,5) and [6,n); every other rank misses all of its OUTPUT.
  EXPECT_EQ(det.wrong.size(), (1u << 20) + 1);
  EXPECT_EQ(sink.findings().size(), 3u);
}

}  // namespace
}  // namespace cc::test
