// One minimal failing microcode program per error code of ccu.md §12 (and
// each further trigger of the code), plus the named warnings.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>

#include "ccu/machine.h"
#include "check/single_task.h"
#include "model/builder.h"
#include "ccu_program.h"
#include "io/jsonl/reader.h"

namespace cc {
namespace {

using namespace test::a5;
using test::CcuProgram;
using test::expand_text;
using test::expansion_codes;
using V = std::vector<u16>;

constexpr u64 kIn = 0x1000'0000, kOut = 0x2000'0000;

// G1 <- INPUT, G2 <- OUTPUT, X1 <- 0x100 (the SQE's arguments).
std::vector<Word> prologue() { return {load_sqe_gsa(1, 0), load_sqe_gsa(2, 1), load_sqe_xn(1, 2)}; }

std::vector<Word> operator+(std::vector<Word> a, const std::vector<Word>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// One rank, a 0x400-byte AllReduce; the words at id 0, one SQE launching all.
CcuProgram one_rank(const std::vector<Word>& words, std::vector<u64> args = {kIn, kOut, 0x100}, int arg_size = -1) {
  CcuProgram p;
  p.op = R"({"type":"AllReduce","ranks":1,"dataType":"FP32","count":256,"reduceOp":"SUM"})";
  p.address(0, "INPUT", kIn);
  p.address(0, "OUTPUT", kOut);
  p.image(0, 0, 0, words);
  p.sqe(0, 0, 0, 0, 0, static_cast<u32>(words.size()), args, arg_size);
  return p;
}

// A copy INPUT -> OUTPUT that is waited for: a correct program.
std::vector<Word> copy_and_wait() {
  return {loc_mem_to_loc_mem(2, 1, 1, {.set_id = 1, .set_mask = 1}), clear_cke(1, 1)};
}

V codes(const CcuProgram& p, const CcuOptions& o = {}) { return expansion_codes(expand_text(p.text(), o)); }

// The finding of code `code`, for its message.
std::string message(const CcuProgram& p, u16 code, const CcuOptions& o = {}) {
  for (const Finding& f : expand_text(p.text(), o).findings)
    if (f.code == code) return f.message;
  return "";
}

TEST(CcuErrors, CorrectProgramPasses) {
  // The whole INPUT to OUTPUT: a complete one-rank AllReduce.
  CcuProgram p = one_rank(prologue() + copy_and_wait(), {kIn, kOut, 0x400});
  EXPECT_EQ(codes(p), V{});
  CheckResult r = test::check_text(p.text());
  EXPECT_TRUE(r.pass) << fmt::format("{}", fmt::join(test::error_codes(r), ","));
}

TEST(CcuErrors, E101ArgSizeAbove13) {
  CcuProgram p = one_rank(prologue() + copy_and_wait(), {kIn, kOut, 0x100}, 14);
  EXPECT_EQ(codes(p), V{101});
  CheckResult r = test::check_text(p.text());
  EXPECT_FALSE(r.pass);
}

TEST(CcuErrors, E102WaitNobodySatisfies) {
  CcuProgram p = one_rank(prologue() + std::vector<Word>{clear_cke(5, 1)});
  EXPECT_EQ(codes(p), V{102});
  EXPECT_NE(message(p, 102).find("waits for cke 5 bits 0x1, which hold 0x0"), std::string::npos);
  // The host stream after the mission never runs: a deadlock, not a PASS.
  p.line(R"({"rank":0,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"INPUT","offset":0,"len":4},"dst":{"rank":0,"type":"OUTPUT","offset":0,"len":4}})");
  CheckResult r = test::check_text(p.text());
  EXPECT_EQ(test::error_codes(r), V{102});
}

TEST(CcuErrors, E103CompletionNeverConsumed) {
  // The copy's completion bits are never waited for: 103 (error).
  CcuProgram p = one_rank(prologue() + std::vector<Word>{loc_mem_to_loc_mem(2, 1, 1, {.set_id = 1, .set_mask = 1})});
  EXPECT_EQ(codes(p), V{103});
  // A SetCKE nobody waits on: 103 as a warning only.
  test::Expanded e = expand_text(one_rank(prologue() + copy_and_wait() + std::vector<Word>{set_cke(3, 1)}).text());
  EXPECT_EQ(expansion_codes(e), V{});
  EXPECT_EQ(expansion_codes(e, true), V{103});
  // ... unless a SyncCKE only reads it (a constant source, §7.2).
}

TEST(CcuErrors, E105Structure) {
  // Length 0.
  EXPECT_EQ(codes(one_rank(prologue() + std::vector<Word>{load_imm_xn(1, 0)} + copy_and_wait())), V{105});
  // Add/Max/Min of length 0 too ([CC]).
  EXPECT_EQ(codes(one_rank(prologue() + std::vector<Word>{load_imm_xn(1, 0),
                                                          ms_reduce(0x1800, {0x8000, 0x8001}, 1, 0,
                                                                    {.set_id = 1, .set_mask = 1}),
                                                          clear_cke(1, 1)})),
            V{105});
  // 0x100a longer than 256 MiB.
  EXPECT_EQ(codes(one_rank(prologue() + std::vector<Word>{load_imm_xn(1, (u64{256} << 20) + 1)} + copy_and_wait())),
            V{105});
  // The instruction budget: an endless loop (X0 = 1 != 0 jumps back to pc 1).
  CcuProgram spin = one_rank({load_imm_xn(0, 1), jmp(0, 0, 0)});
  EXPECT_EQ(codes(spin, {.max_steps = 1000}), V{105});
  EXPECT_NE(message(spin, 105, {.max_steps = 1000}).find("executed 1000 words"), std::string::npos);
  // A jump out of the image.
  EXPECT_EQ(codes(one_rank({load_imm_xn(0, 500), jmp(0, 0, 0)})), V{105});
}

// The budget also counts loop instances: a LoopGroup of 128 instances of no
// iteration, jumped to again and again, executes two words per round but
// makes 256 nodes; counting words alone let 1000 steps make ~127 000 nodes.
TEST(CcuErrors, E105BudgetCountsLoopInstances) {
  std::vector<Word> w = {
      load_imm_xn(2, (u64{1} << 41) | (u64{127} << 55)),  // one Loop word, 127 extra copies
      load_imm_xn(3, 0),                                  // no offsets
      load_imm_xn(4, 0),                                  // 0 iterations
      load_imm_xn(0, 1), load_imm_xn(6, 5),
      loop_group(7, 2, 3),  // pc 5
      jmp(6, 0, 0),         // pc 6: X0 = 1 != 0, back to pc 5
      loop(8, 8, 4),        // pc 7, outside the mission's range
      clear_cke(0, 0),      // pc 8: the body, never run
  };
  CcuProgram p;
  p.op = R"({"type":"AllReduce","ranks":1,"dataType":"FP32","count":256,"reduceOp":"SUM"})";
  p.address(0, "INPUT", kIn);
  p.address(0, "OUTPUT", kOut);
  p.image(0, 0, 0, w);
  p.sqe(0, 0, 0, 0, 0, 7, {});
  test::Expanded e = expand_text(p.text(), {.max_steps = 1000});
  EXPECT_EQ(expansion_codes(e), V{105});
  EXPECT_LE(e.trace.tasks.size(), 3u * 1000) << "nodes made within a budget of 1000";
}

TEST(CcuErrors, E107ResourceNotFound) {
  // No image for the SQE's die.
  CcuProgram p = one_rank(prologue() + copy_and_wait());
  p.sqe(0, 0, 1, 0, 0, 5, {kIn, kOut, 0x100});
  EXPECT_EQ(codes(p), V{107});
  EXPECT_NE(message(p, 107).find("no instruction image for rank 0 die 1"), std::string::npos);
  // A channel not in the table.
  EXPECT_EQ(codes(one_rank(prologue() + std::vector<Word>{loc_mem_to_rmt_mem(2, 1, 1, 7, {.set_id = 1, .set_mask = 1}),
                                                          clear_cke(1, 1)})),
            V{107});
  // An argument slot beyond argSize, slot 13, and a load no SQE launched.
  EXPECT_EQ(codes(one_rank(prologue(), {kIn, kOut})), V{107});
  EXPECT_EQ(codes(one_rank({load_sqe_xn(1, 13)})), V{107});
  // (A jump to id 4, outside the SQE's range [0,3) but inside the image.)
  CcuProgram outside =
      one_rank({load_imm_xn(0, 4), jmp(0, 0, 0), load_imm_xn(5, 0), load_imm_xn(5, 0), load_sqe_xn(1, 0)});
  outside.lines.back() = R"({"rank":0,"stream":0,"type":"CCU_GRAPH","dieId":0,"missionId":0,"instStartId":0,"instCnt":3,"args":[1]})";
  EXPECT_EQ(codes(outside), V{107});
}

TEST(CcuErrors, E108RegisterUninitialized) {
  // The length register, a GSA, a loop parameter, a jump condition.
  EXPECT_EQ(codes(one_rank(std::vector<Word>{load_sqe_gsa(1, 0), load_sqe_gsa(2, 1)} + copy_and_wait())), V{108});
  EXPECT_EQ(codes(one_rank(std::vector<Word>{load_sqe_gsa(1, 0), load_sqe_xn(1, 2)} + copy_and_wait())), V{108});
  EXPECT_EQ(codes(one_rank({loop_group(2, 3, 4), load_imm_xn(0, 0)})), V{108});
  EXPECT_EQ(codes(one_rank({jmp(0, 9, 0)})), V{108});
  EXPECT_NE(message(one_rank({jmp(0, 9, 0)}), 108).find("reads X9, which was never written on rank 0 die 0"),
            std::string::npos);
}

TEST(CcuErrors, E110AddressInNoBuffer) {
  CcuProgram p = one_rank(prologue() + copy_and_wait(), {0x5000'0000, kOut, 0x100});
  EXPECT_EQ(codes(p), V{110});
  EXPECT_NE(message(p, 110).find("address 0x50000000 lies in no buffer of any rank"), std::string::npos);
}

TEST(CcuErrors, E111Unsupported) {
  EXPECT_EQ(codes(one_rank({raw(0x0803)})), V{111});
  EXPECT_EQ(codes(one_rank({raw(0x9000)})), V{111});
  // A Loop executed directly.
  EXPECT_EQ(codes(one_rank({load_imm_xn(2, 1), loop(0, 0, 2)})), V{111});
  // Add with count 7 (a ninth operand); a reduce type outside the tables; udfType.
  EXPECT_EQ(codes(one_rank(prologue() + std::vector<Word>{ms_reduce(0x1800, {1, 2}, 1, 0, {}, 0, 7)})), V{111});
  EXPECT_EQ(codes(one_rank(prologue() + std::vector<Word>{ms_reduce(0x1801, {1, 2}, 1, 4)})), V{111});
  // Strict reference mode: SetCKE clearType 0, ClearCKE with a clear mask.
  CcuProgram setk = one_rank(prologue() + std::vector<Word>{set_cke(3, 1, 0, 0, false), clear_cke(3, 1)});
  EXPECT_EQ(codes(setk), V{});
  EXPECT_EQ(codes(setk, {.strict_ref = true}), V{111});
  CcuProgram clr = one_rank(prologue() + std::vector<Word>{clear_cke(0, 0, 3, 1)});
  EXPECT_EQ(codes(clr), V{});
  EXPECT_EQ(codes(clr, {.strict_ref = true}), V{111});
}

// Loop-related 111s: a register word in a body, a non-Loop group slot.
TEST(CcuErrors, E111Loops) {
  // Body at 0 (a register load), the Loop word at 1; group at 4.
  std::vector<Word> w = {load_imm_xn(9, 1), loop(0, 0, 2),  load_imm_xn(2, 1), load_imm_xn(3, u64{1} << 41),
                         load_imm_xn(4, 0), loop_group(1, 3, 4)};
  CcuProgram p = one_rank(w);
  p.lines.back() = R"({"rank":0,"stream":0,"type":"CCU_GRAPH","dieId":0,"missionId":0,"instStartId":2,"instCnt":4,"args":[]})";
  EXPECT_EQ(codes(p), V{111});
  EXPECT_NE(message(p, 111).find("LoadImdToXn is not allowed inside a loop body"), std::string::npos);
  // The group's slot holds a copy word instead of a Loop.
  std::vector<Word> w2 = w;
  w2[1] = clear_cke(0, 0);
  CcuProgram q = one_rank(w2);
  q.lines.back() = p.lines.back();
  EXPECT_EQ(codes(q), V{111});
  EXPECT_NE(message(q, 111).find("LoopGroup slot 0 (id 1) holds no Loop word"), std::string::npos);
}

TEST(CcuErrors, E112AddressOfAnotherRank) {
  CcuProgram p;
  p.op = R"({"type":"AllReduce","ranks":2,"dataType":"FP32","count":256,"reduceOp":"SUM"})";
  for (u32 r = 0; r < 2; ++r) {
    p.address(r, "INPUT", kIn + r * 0x100'0000);
    p.address(r, "OUTPUT", kOut + r * 0x100'0000);
  }
  p.image(0, 0, 0, prologue() + copy_and_wait());
  // Rank 0's local copy writes to rank 1's OUTPUT address.
  p.sqe(0, 0, 0, 0, 0, 5, {kIn, kOut + 0x100'0000, 0x100});
  EXPECT_EQ(codes(p), V{112});
  EXPECT_NE(message(p, 112).find("lies in rank 1 OUTPUT (offset 0x0), not in a buffer of rank 0"), std::string::npos);
}

TEST(CcuErrors, E201SliceInvalid) {
  // An MS operand longer than one slot: the single-task stage's 201.
  CcuProgram ms = one_rank(prologue() + std::vector<Word>{load_imm_xn(1, 0x2000),
                                                          loc_mem_to_loc_ms(0x8000, 1, 1, {.set_id = 1, .set_mask = 1}),
                                                          clear_cke(1, 1)});
  ms.op = R"({"type":"AllReduce","ranks":1,"dataType":"FP32","count":4096,"reduceOp":"SUM"})";
  EXPECT_EQ(codes(ms), V{});
  CheckResult r = test::check_text(ms.text(), {}, {.stages = kStageGraph | kStageSingle});
  EXPECT_EQ(test::error_codes(r), V{201});
  // A copy running past the end of OUTPUT.
  CcuProgram past = one_rank(prologue() + copy_and_wait(), {kIn, kOut + 0x380, 0x100});
  EXPECT_EQ(test::error_codes(test::check_text(past.text(), {}, {.stages = kStageGraph | kStageSingle})), V{201});
}

TEST(CcuErrors, SameSliceReadAndWrittenIsAllowed) {
  // 0x100a from OUTPUT to the same OUTPUT bytes: no 202 (ccu.md §12).
  CcuProgram p = one_rank(prologue() + std::vector<Word>{loc_mem_to_loc_mem(2, 2, 1, {.set_id = 1, .set_mask = 1}),
                                                         clear_cke(1, 1)});
  EXPECT_EQ(test::error_codes(test::check_text(p.text(), {}, {.stages = kStageGraph | kStageSingle})), V{});
  // Overlapping but not identical: 202.
  CcuProgram q = one_rank(prologue() + std::vector<Word>{load_imm_gsa(3, kOut + 0x80),
                                                         loc_mem_to_loc_mem(2, 3, 1, {.set_id = 1, .set_mask = 1}),
                                                         clear_cke(1, 1)});
  EXPECT_EQ(test::error_codes(test::check_text(q.text(), {}, {.stages = kStageGraph | kStageSingle})), V{202});
}

TEST(CcuErrors, NamedWarnings) {
  auto tags = [](const CcuProgram& p, const CcuOptions& o = {}) { return test::warning_tags(expand_text(p.text(), o)); };
  using S = std::vector<std::string>;
  // A transfer that sets nothing.
  EXPECT_EQ(tags(one_rank(prologue() + std::vector<Word>{loc_mem_to_loc_mem(2, 1, 1)})), S{"CCU-W-UNOBSERVED"});
  // clearType 0 on a word that waits.
  EXPECT_EQ(tags(one_rank(prologue() + std::vector<Word>{loc_mem_to_loc_mem(2, 1, 1, {.set_id = 1, .set_mask = 1}),
                                                         clear_cke(1, 1, 0, 0, false)})),
            S{"CCU-W-CLEARTYPE0"});
  // ClearCKE clearing a post nobody waited for (the post's 103 warning is gone).
  EXPECT_EQ(tags(one_rank(prologue() + std::vector<Word>{set_cke(3, 1), clear_cke(0, 0, 3, 1)})),
            S{"CCU-W-CLEARED-POST"});
  // SyncCKE sending nothing.
  CcuProgram sync = one_rank({sync_cke(8, 0, 1, 0)});
  sync.channel(0, 0, 0, 0, 0);
  EXPECT_EQ(tags(sync), S{"CCU-W-SYNC-EMPTY"});
}

}  // namespace
}  // namespace cc

namespace cc {
namespace {

// --ccu-carry-cke: the CKE state of one operator reaches the next (§4).
TEST(CcuOptions, CarryCke) {
  using namespace test::a5;
  test::CcuProgram first = one_rank({set_cke(5, 1)});
  test::CcuProgram second = one_rank(prologue() + std::vector<Word>{clear_cke(5, 1)} + copy_and_wait());
  for (bool carry_on : {false, true}) {
    ccu::CcuCarry carry;
    CcuOptions o{.carry_cke = carry_on};
    Result<ReadTrace> r = read_jsonl_string(first.text(), "a.jsonl");
    ASSERT_TRUE(r.ok());
    expand_ccu(r.value().trace, o, &carry);
    EXPECT_EQ(carry.cke.size(), carry_on ? 1u : 0u);
    Result<ReadTrace> r2 = read_jsonl_string(second.text(), "b.jsonl");
    ASSERT_TRUE(r2.ok());
    std::vector<Finding> f = expand_ccu(r2.value().trace, o, &carry);
    std::vector<u16> codes;
    std::vector<std::string> tags;
    for (const Finding& x : f) {
      if (x.code) codes.push_back(x.code);
      if (!x.tag.empty()) tags.push_back(x.tag);
    }
    // Carried: the bit satisfies the wait, with no post to draw an edge from.
    EXPECT_EQ(codes, carry_on ? V{} : V{102});
    EXPECT_EQ(tags, carry_on ? std::vector<std::string>{"CCU-W-ORPHAN-BITS"} : std::vector<std::string>{});
  }
}

// --ccu-drain-at-end: an unobserved transfer gets an edge to its END.
TEST(CcuOptions, DrainAtEnd) {
  using namespace test::a5;
  test::CcuProgram p = one_rank(prologue() + std::vector<Word>{loc_mem_to_loc_mem(2, 1, 1)});
  for (bool drain : {false, true}) {
    test::Expanded e = expand_text(p.text(), {.drain_at_end = drain});
    std::string r = test::render_ccu(e.trace);
    EXPECT_EQ(r.find("m0.2 END <- m0.0 m0.1") != std::string::npos, drain) << r;
    EXPECT_EQ(r.find("m0.2 END <- m0.0\n") != std::string::npos, !drain) << r;
  }
}

}  // namespace
}  // namespace cc

namespace cc {
namespace {

// 202 on batches of many groups (merged CCU loops take the sorted path):
// against a brute-force reading of the rules, on random batches, CCU and not.
TEST(CcuSingleTask, BatchOverlapRulesAgainstBruteForce) {
  std::mt19937_64 rng(11);
  u32 found = 0;
  for (int round = 0; round < 600; ++round) {
    Op op;
    op.type = OpType::AllGather;
    op.ranks = 1;
    op.data_type = DataType::INT8;
    op.count = 1 << 20;
    TraceBuilder b(op);
    b.declare("CCL", 1 << 20);
    b.declare("MS", u64{0x10000} * kCcuMsSlotBytes);
    bool ccu = round % 2;
    u32 groups = 20 + static_cast<u32>(rng() % 40), spread = 1000 + static_cast<u32>(rng() % 100000);
    std::vector<std::pair<Slice, Slice>> pairs;
    for (u32 g = 0; g < groups; ++g) {
      auto pick = [&](bool dst) {
        u32 kind = static_cast<u32>(rng() % 3);
        const char* buf = kind == 0 ? "MS" : kind == 1 ? "CCL" : (dst ? "OUTPUT" : "INPUT");
        u64 len = 1 + rng() % 16;
        u64 off = (kind == 0 ? 4096 * (rng() % 3) : 0) + rng() % spread;
        return b.slice(0, buf, off, len);
      };
      Slice src = pick(false), dst = pick(true);
      dst.len = src.len;
      if (rng() % 8 == 0) dst = src;  // a slice read and written
      pairs.emplace_back(src, dst);
    }
    u32 id = b.batch_copy(0, 0, pairs);
    if (ccu) b.trace().tasks[id].flags |= kTaskCcu;
    Trace t = b.finish();
    // Brute force: any src/dst overlap (any groups), any dst/dst overlap of
    // different groups; CCU: MS of different groups and identical slices pass.
    auto ov = [](const Slice& x, const Slice& y) {
      return x.buf == y.buf && x.offset < y.offset + y.len && y.offset < x.offset + x.len;
    };
    BufId ms = t.buffers.ids.at("MS");
    bool expect = false;
    for (u32 i = 0; i < groups && !expect; ++i)
      for (u32 j = 0; j < groups && !expect; ++j) {
        const Slice& s = t.slices[t.group(t.tasks[0], j).first_src];
        const Slice& d = t.slices[t.group(t.tasks[0], i).dst];
        const Slice& d2 = t.slices[t.group(t.tasks[0], j).dst];
        bool reuse = ccu && i != j && d.buf == ms;
        if (ov(s, d) && !(reuse && s.buf == ms) && !(ccu && s.offset == d.offset && s.len == d.len)) expect = true;
        if (i < j && ov(d, d2) && !(reuse && d2.buf == ms)) expect = true;
      }
    FindingSink sink(20);
    check_single_tasks(t, sink);
    EXPECT_EQ(sink.has(202), expect) << "round " << round;
    found += expect;
  }
  EXPECT_GT(found, 100u);
  EXPECT_LT(found, 500u);
}

// A merged loop of thousands of copies through one MS slot (each
// iteration's slot reuses the last one's): no 202, and one group that reads
// and writes overlapping, different slices of its slot is still found.
// The slot's slices used to stay active together in the sorted sweep and be
// compared with each other, k²/2 comparisons.
TEST(CcuSingleTask, ManyGroupsThroughOneSlot) {
  for (bool broken : {false, true}) {
    Op op;
    op.type = OpType::AllGather;
    op.ranks = 1;
    op.data_type = DataType::INT8;
    op.count = 1 << 21;
    TraceBuilder b(op);
    b.declare("MS", u64{16} * kCcuMsSlotBytes);
    const u32 groups = 20000;
    std::vector<std::pair<Slice, Slice>> pairs;
    for (u32 g = 0; g < groups; ++g) {
      pairs.emplace_back(b.slice(0, "INPUT", g * 64, 64), b.slice(0, "MS", 0, 64));
      pairs.emplace_back(b.slice(0, "MS", 0, 64), b.slice(0, "OUTPUT", g * 64, 64));
    }
    // One batch of groups of one copy each; the broken group reads its slot
    // at an offset while writing the slot: its own slices overlap.
    if (broken) pairs[2 * 777].first = b.slice(0, "MS", 32, 64);
    u32 id = b.batch_copy(0, 0, pairs);
    b.trace().tasks[id].flags |= kTaskCcu;
    Trace t = b.finish();
    FindingSink sink(20);
    check_single_tasks(t, sink);
    EXPECT_EQ(sink.has(202), broken);
  }
}

}  // namespace
}  // namespace cc
