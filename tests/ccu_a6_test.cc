// A6 ("CcuV2", ccu.md §15): the decoder, and an A6 program expanded and
// checked (registers, ALU, HBM scratch, replicated loops with per-copy
// register ids, TransMem, SyncWtX to a peer's CKE), with its mutants.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "ccu/a6_word.h"
#include "ccu/disasm.h"
#include "ccu_program.h"
#include "model/ccu_names.h"

namespace cc {
namespace {

using namespace test::a6;
using ccu::A6Kind;
using ccu::A6Word;
using V = std::vector<u16>;

A6Word dec(const Word& w) {
  A6Word d;
  Status s = ccu::decode_a6(w, d);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.message());
  return d;
}

std::string err(const Word& w) {
  A6Word d;
  Status s = ccu::decode_a6(w, d);
  return s.ok() ? std::string() : s.message();
}

constexpr u16 kCopy = 0x8000;  // the per-copy mode bit of a register field

TEST(CcuA6Decoder, Fields) {
  A6Word d = dec(load_sqe(0x8005, 3, {7, 1}));
  EXPECT_EQ(d.kind, A6Kind::LoadSqeArg);
  EXPECT_EQ(d.xd.id, 0x8005);  // the raw field, never per copy
  EXPECT_FALSE(d.xd.per_copy);
  EXPECT_EQ(d.set_id, 7);
  EXPECT_EQ(d.set_mask, 1);
  d = dec(load_imm(kCopy | 9, 0x1122334455667788ull));
  EXPECT_EQ(d.xd.id, 9);
  EXPECT_TRUE(d.xd.per_copy);
  EXPECT_EQ(d.imm, 0x1122334455667788ull);
  d = dec(load_x(1, 2, 3, 4, true));
  EXPECT_EQ(d.kind, A6Kind::LoadX);
  EXPECT_TRUE(d.mode);
  EXPECT_EQ(d.raw_xso, 3);
  EXPECT_EQ(d.raw_xdo, 4);
  EXPECT_EQ(dec(store_x(1, 2, 3, 4, false)).kind, A6Kind::StoreX);
  d = dec(load(1, 2, 3, 4));
  EXPECT_EQ(d.kind, A6Kind::Load);
  EXPECT_EQ(d.xl.id, 4);
  d = dec(alu(0x0015, 1, 2, 3, false, true));
  EXPECT_EQ(d.alu, ccu::AluOp::Shr);
  EXPECT_TRUE(d.arithmetic);
  d = dec(loop(1, 5, 6, 7, 8, true, 1030));
  EXPECT_EQ(d.kind, A6Kind::Loop);
  EXPECT_EQ(d.start, 1);
  EXPECT_EQ(d.end, 5);
  EXPECT_EQ(d.xm.id, 6);
  EXPECT_TRUE(d.loop_mode);
  EXPECT_EQ(d.wish, 1030);
  d = dec(loop_group(9, kCopy | 1, 2, 3));
  EXPECT_EQ(d.xn.id, 1);  // LoopGroup fields are masked with 0x7fff
  EXPECT_FALSE(d.xn.per_copy);
  d = dec(set_ck_bit(3, 0xf, 4, 1, true, 77));
  EXPECT_EQ(d.kind, A6Kind::SetCkBit);
  EXPECT_EQ(d.user_data, 77u);
  EXPECT_EQ(d.wait_id, 4);
  d = dec(jmp(1, 2, 3, 5, true));
  EXPECT_EQ(d.condition, 5);
  EXPECT_TRUE(d.absolute);
  d = dec(trans_mem({.xd = 1, .xs = 2, .xl = 3, .xc = 4, .value = 9, .reduce = 0xa7, .dma = 5, .flags25 = 0x40, .flags26 = 0x38}));
  EXPECT_EQ(d.kind, A6Kind::TransMem);
  EXPECT_EQ(d.dma, 5);
  EXPECT_TRUE(d.reduce_en);
  EXPECT_EQ(d.reduce_type, DataType::FP32);
  EXPECT_TRUE(d.src_mode && d.dst_mode && d.ms_id_mode);
  EXPECT_EQ(d.value, 9u);
  d = dec(sync_wt_x(1, 2, 3, 4, 5, true, true, {6, 1}));
  EXPECT_EQ(d.kind, A6Kind::SyncWtX);
  EXPECT_TRUE(d.notify_valid);
  EXPECT_TRUE(d.mode);
  EXPECT_EQ(d.value, 5u);
  EXPECT_EQ(d.set_id, 6);
  d = dec(reduce(0x1801, {1, 2, 3}, kCopy | 4, 8, {2, 1}));
  EXPECT_EQ(d.kind, A6Kind::MsReduce);
  EXPECT_EQ(d.operands(), 3u);
  EXPECT_EQ(d.ms_op, ReduceOp::MAX);
  EXPECT_TRUE(d.xl.per_copy);
  EXPECT_EQ(d.set_mask, 1);
}

TEST(CcuA6Decoder, UnsupportedWordsAre111) {
  for (u32 h = 0; h < 0x10000; ++h) {
    bool named = !ccu_mnemonic(CcuIsa::A6, static_cast<u16>(h)).empty();
    bool unsupported = h == 0x0808 || h == 0x100e || h == 0x1010;  // Fence, SyncAtX, TransMem with dmaOpCode 0
    std::string why = err(test::a5::raw(static_cast<u16>(h)));
    EXPECT_EQ(why.empty(), named && !unsupported) << std::hex << h << " " << why;
  }
  EXPECT_NE(err(load(1, 2, 3, 4, 1)), "");
  EXPECT_NE(err(store(1, 2, 3, 4, 5, 2)), "");
  EXPECT_NE(err(trans_mem({.udf_type = 1})), "");
  EXPECT_NE(err(trans_mem({.dma = 4})), "");
  EXPECT_EQ(err(trans_mem({.dma = 6})), "");
  EXPECT_NE(err(trans_mem({.reduce = 0x79, .dma = 3, .flags25 = 0x40})), "");  // op 7
  EXPECT_EQ(ccu::disasm(CcuIsa::A6, trans_mem({.xd = 1, .xs = 2, .xl = 3, .xc = 4, .dma = 6})),
            "TransMem mem(X1) <- rmt.mem(X2) len X3 ch X4 dma 6");
  EXPECT_EQ(ccu::disasm(CcuIsa::A6, alu(0x000d, 1, 2, 0x10, false)), "Add X1 <- X2 + 0x10");
  EXPECT_EQ(ccu::disasm(CcuIsa::A6, mem_to_mem(kCopy | 12, 5, kCopy | 10, 5, 20, 0, {2, 1})),
            "TransLocMemToLocMem mem(X12') <- mem(X10') len X20 set 2/0x1");
}

// --- an A6 AllGather of two ranks -------------------------------------------

constexpr u64 kD = 0x100;
u64 in_base(u32 r) { return 0x1000'0000 + u64{r} * 0x100'0000; }
u64 out_base(u32 r) { return 0x2000'0000 + u64{r} * 0x100'0000; }
u64 die_base(u32 r) { return 0x10'0000'0000 + u64{r} * 0x1000'0000; }

enum class Mut { None, UnalignedLoad, NoDieBase, GroupOutOfRange, WrongWish, ShortStore, LoadXOutOfRange, JumpInBody, Merge };

test::CcuProgram a6_allgather(Mut mut = Mut::None) {
  test::CcuProgram p;
  p.isa = "A6";
  p.op = R"({"type":"AllGather","ranks":2,"dataType":"INT32","count":64})";
  // Body (ids 0-1): copy e moves half e of INPUT to OUTPUT chunk r in 2
  // pieces; its registers are per copy (X10/X11 source, X12/X13 target).
  std::vector<Word> body = {mem_to_mem(kCopy | 12, 5, kCopy | 10, 5, 20, 0, {2, 1}), clear_cke(2, 1)};
  if (mut == Mut::JumpInBody) body.insert(body.begin() + 1, jmp(0, 0, 0, 0, false));
  u16 g = static_cast<u16>(body.size());
  std::vector<Word> w = {
      load_sqe(1, 0), load_sqe(2, 1), load_sqe(3, 2), load_sqe(30, 3), load_sqe(31, 4), load_sqe(32, 5),
      load_imm(5, 0),
      // X40..X47 to the HBM scratch and back (X40 is the channel id, 0).
      clear_x(40, 47), load_imm(50, mut == Mut::UnalignedLoad ? 0x1004 : 0x1000),
      load_imm(51, mut == Mut::ShortStore ? 32 : 64), load_imm(52, 40),
      store(50, 0, 52, 51, 0), load_imm(40, 99), load(52, 50, 0, 51),
      // X60 <- X3 through StoreX, X61 <- X60 through LoadX.
      load_imm(53, mut == Mut::LoadXOutOfRange ? 0xffff : 60), store_x(53, 3, 0, 0, false),
      load_x(61, 53, 0, 0, false),
      alu(0x000d, 12, 30, 31, true), alu(0x000d, 13, 12, 0x80, false), alu(0x000d, 10, 1, 0, false),
      alu(0x000d, 11, 1, 0x80, false), load_imm(20, 0x40),
      load_imm(21, 1 | (u64{mut == Mut::GroupOutOfRange ? 2u : 0u} << 10) | (u64{1} << 19)), load_imm(22, 1),
      load_imm(23, 1), load_imm(24, 2), load_imm(25, 0x40), load_imm(26, 3), load_imm(0, 2),
  };
  u16 group = static_cast<u16>(g + w.size());
  w.push_back(loop_group(static_cast<u16>(group + 2), 21, 22, 23));
  w.push_back(jmp(0, 0, 0, 0, false));  // by X0 = 2 if X0 == X0: over the Loop word
  w.push_back(loop(0, static_cast<u16>(g - 1), 24, 25, 26, mut == Mut::WrongWish, 7));
  std::vector<Word> tail = {
      trans_mem({.xd = 2, .xs = 1, .xl = 60, .xc = 40, .dma = 3, .set = {1, 1}}),
      clear_cke(1, 1),
      sync_wt_x(32, 1, 40, 0, 0, false, false),  // the peer's cke 8 |= 1 (xs field as value)
      clear_cke(8, 1),
      wait(61, 3, 0),                           // X61 == X3: holds
      load_imm(54, 2), jmp(54, 54, 54, 0, false), test::a5::raw(0x0808),  // a Fence jumped over
      nop(),
  };
  w.insert(w.end(), tail.begin(), tail.end());
  std::vector<Word> image = body;
  image.insert(image.end(), w.begin(), w.end());
  for (u32 r = 0; r < 2; ++r) {
    u32 peer = 1 - r;
    p.address(r, "INPUT", in_base(r));
    p.address(r, "OUTPUT", out_base(r));
    p.channel(r, 0, 0, peer, 0);
    if (!(mut == Mut::NoDieBase && r == 1)) p.die_base(r, 0, die_base(r));
    p.image(r, 0, 0, image);
    p.sqe(r, 0, 0, 0, g, static_cast<u32>(w.size()),
          {in_base(r), out_base(peer) + r * kD, kD, out_base(r), r * kD, die_base(peer) + 0x140000 + 8 * 8});
  }
  return p;
}

TEST(CcuA6, AllGatherPasses) {
  test::Expanded e = test::expand_text(a6_allgather().text());
  EXPECT_EQ(test::expansion_codes(e, true), V{}) << e.findings.front().message;
  CheckResult r = test::check_text(a6_allgather().text());
  std::string msgs;
  for (const Finding& f : r.findings) msgs += fmt::format("{} {}\n", f.code, f.message);
  EXPECT_TRUE(r.pass) << msgs;
  EXPECT_EQ(r.warnings, 0u) << msgs;
  // Two copies of two iterations each, per rank; the copies use their own
  // registers (per-copy ids) and CKE (offset 1).
  std::string g = test::render_ccu(e.trace);
  EXPECT_NE(g.find("TRANS_MEM {0, INPUT, 0x0, 0x40} -> {0, OUTPUT, 0x0, 0x40}"), std::string::npos) << g;
  EXPECT_NE(g.find("TRANS_MEM {0, INPUT, 0xc0, 0x40} -> {0, OUTPUT, 0xc0, 0x40}"), std::string::npos) << g;
  EXPECT_NE(g.find("TRANS_MEM {1, INPUT, 0x80, 0x40} -> {1, OUTPUT, 0x180, 0x40}"), std::string::npos) << g;
  EXPECT_NE(g.find("WAIT die 0 cke 3 0x1"), std::string::npos);
  EXPECT_NE(g.find("TRANS_MEM {0, INPUT, 0x0, 0x100} -> {1, OUTPUT, 0x0, 0x100}"), std::string::npos) << g;
  EXPECT_NE(g.find("RECORD 0->1 die 0 cke 8 0x1"), std::string::npos) << g;
}

TEST(CcuA6, MutantsFail) {
  struct Case {
    Mut mut;
    u16 code;
  };
  for (Case c : {Case{Mut::UnalignedLoad, 110}, {Mut::NoDieBase, 109}, {Mut::GroupOutOfRange, 105},
                 {Mut::WrongWish, 111}, {Mut::ShortStore, 110}, {Mut::LoadXOutOfRange, 109},
                 {Mut::JumpInBody, 111}}) {
    test::Expanded e = test::expand_text(a6_allgather(c.mut).text());
    V codes = test::expansion_codes(e);
    EXPECT_TRUE(std::find(codes.begin(), codes.end(), c.code) != codes.end())
        << static_cast<int>(c.mut) << ": " << fmt::format("{}", fmt::join(codes, ","));
    EXPECT_FALSE(test::check_text(a6_allgather(c.mut).text()).pass);
  }
}

// TransMem reads into an MS slot (msIdMode), a reducing write, and the
// notify write (dmaOpCode 5) of a value into the peer's Xn.
TEST(CcuA6, TransMemForms) {
  test::CcuProgram p;
  p.isa = "A6";
  p.op = R"({"type":"AllReduce","ranks":2,"dataType":"FP32","count":64,"reduceOp":"SUM"})";
  std::vector<Word> w = {
      load_sqe(1, 0), load_sqe(2, 1), load_sqe(3, 2), load_sqe(4, 3), load_imm(5, 0x40), load_imm(6, 0),
      // rank r reads the peer's INPUT[0,0x40) into MS 0x8000 (msIdMode: xd is the MS id).
      trans_mem({.xd = 0x8000, .xs = 2, .xl = 5, .xc = 6, .dma = 6, .flags26 = 0x20, .set = {1, 1}}),
      clear_cke(1, 1),
      // ... reduces its INPUT[0,0x40) into the peer's OUTPUT[0x40,0x80), and notifies X9 of the peer.
      trans_mem({.xd = 3, .xs = 1, .xl = 5, .xc = 6, .xn = 4, .value = 77, .reduce = 0xa7, .dma = 5,
                 .flags25 = 0x40, .set = {2, 1}}),
      clear_cke(2, 1),
  };
  for (u32 r = 0; r < 2; ++r) {
    u32 peer = 1 - r;
    p.address(r, "INPUT", in_base(r));
    p.address(r, "OUTPUT", out_base(r));
    p.channel(r, 0, 0, peer, 0);
    p.die_base(r, 0, die_base(r));
    p.image(r, 0, 0, w);
    p.sqe(r, 0, 0, 0, 0, static_cast<u32>(w.size()),
          {in_base(r), in_base(peer), out_base(peer) + 0x40, die_base(peer) + 0x100000 + 8 * 9});
  }
  test::Expanded e = test::expand_text(p.text());
  EXPECT_EQ(test::expansion_codes(e), V{});
  std::string g = test::render_ccu(e.trace);
  EXPECT_NE(g.find("m0.1 TRANS_MEM {1, INPUT, 0x0, 0x40} -> {0, MS, 0x8000000, 0x40}"), std::string::npos) << g;
  EXPECT_NE(g.find("REDUCE {0, INPUT, 0x0, 0x40} -> {1, OUTPUT, 0x40, 0x40} SUM FP32"), std::string::npos) << g;
  // The reference would take the notify address from xs (X1), not xn (X4): warned per mission.
  EXPECT_EQ(test::warning_tags(e), (std::vector<std::string>{"CCU-W-A6-UNCERTAIN", "CCU-W-A6-UNCERTAIN"}));
}

TEST(CcuA6, UncertainBehaviourWarns) {
  // StoreX of a value the reference would truncate to 16 bits.
  test::CcuProgram p;
  p.isa = "A6";
  p.op = R"({"type":"AllReduce","ranks":1,"dataType":"FP32","count":64})";
  p.image(0, 0, 0, {load_imm(1, 0x12345), load_imm(2, 70), store_x(2, 1, 0, 0, false), load_x(3, 2, 0, 0, false)});
  p.sqe(0, 0, 0, 0, 0, 4, {});
  test::Expanded e = test::expand_text(p.text());
  EXPECT_EQ(test::warning_tags(e), std::vector<std::string>{"CCU-W-A6-UNCERTAIN"});
  // A Wait whose condition never holds: blocks (the reference falls through).
  test::CcuProgram q = p;
  q.lines.clear();
  q.image(0, 0, 0, {load_imm(1, 1), load_imm(2, 2), wait(1, 2, 0)});
  q.sqe(0, 0, 0, 0, 0, 3, {});
  test::Expanded f = test::expand_text(q.text());
  EXPECT_EQ(test::expansion_codes(f), V{102});
  EXPECT_NE(f.findings.back().message.find("waits for the condition X1 == X2"), std::string::npos)
      << f.findings.back().message;
}

// Load and Store compare their register range without adding start and
// count, which come from registers: a start near 2^64 plus a large count
// wraps to a small sum that passed, and Store then sized its entry by the
// count (2^60 + 8 registers: an exception out of the expansion).
TEST(CcuA6, LoadStoreRegisterRangeDoesNotWrap) {
  auto codes = [](const std::vector<Word>& w) {
    test::CcuProgram p;
    p.isa = "A6";
    p.op = R"({"type":"AllReduce","ranks":1,"dataType":"FP32","count":64})";
    p.image(0, 0, 0, w);
    p.sqe(0, 0, 0, 0, 0, static_cast<u32>(w.size()), {});
    return test::expansion_codes(test::expand_text(p.text()));
  };
  // Store of 2^63 + 64 bytes from register 2^64 - 2^60 (X50 address, X51 length, X52 first register).
  EXPECT_EQ(codes({load_imm(50, 0x1000), load_imm(51, (u64{1} << 63) + 64), load_imm(52, 0 - (u64{1} << 60)),
                   store(50, 0, 52, 51, 0)}),
            V{109});
  // 64 bytes stored from X40..X47, loaded back into registers 2^64 - 4, ..., 3.
  EXPECT_EQ(codes({clear_x(40, 47), load_imm(50, 0x1000), load_imm(51, 64), load_imm(52, 40), store(50, 0, 52, 51, 0),
                   load_imm(53, 0 - u64{4}), load(53, 50, 0, 51)}),
            V{109});
  // The same Load into X60..X67 is fine.
  EXPECT_EQ(codes({clear_x(40, 47), load_imm(50, 0x1000), load_imm(51, 64), load_imm(52, 40), store(50, 0, 52, 51, 0),
                   load_imm(53, 60), load(53, 50, 0, 51)}),
            V{});
}

}  // namespace
}  // namespace cc
