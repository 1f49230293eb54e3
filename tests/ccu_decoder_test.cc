// The A5 decoder and disassembler: every opcode against the test encoder,
// the raw words of ccu.md §14 against both, and every 111 trigger.
#include <gtest/gtest.h>

#include <random>

#include "ccu/a5_word.h"
#include "ccu/disasm.h"
#include "ccu_asm.h"
#include "model/ccu_names.h"

namespace cc {
namespace {

using ccu::A5Kind;
using ccu::A5Word;
using ccu::RegFile;
using ccu::Word;

A5Word decode_ok(const Word& w) {
  A5Word d;
  Status s = ccu::decode_a5(w, d);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.message()) << " " << ccu::word_hex(w);
  return d;
}

std::string decode_error(const Word& w) {
  A5Word d;
  Status s = ccu::decode_a5(w, d);
  if (s.ok()) return "";
  EXPECT_FALSE(s.message().empty());
  return s.message();
}

Word hex(const char* s) {
  Word w;
  EXPECT_TRUE(ccu::parse_word_hex(s, w)) << s;
  return w;
}

TEST(CcuDecoder, RegisterWords) {
  A5Word d = decode_ok(test::a5::load_sqe_gsa(7, 12));
  EXPECT_EQ(d.kind, A5Kind::LoadSqeArg);
  EXPECT_EQ(d.dst_file, RegFile::Gsa);
  EXPECT_EQ(d.dst, 7);
  EXPECT_EQ(d.slot, 12);
  d = decode_ok(test::a5::load_sqe_xn(0xfffe, 3));
  EXPECT_EQ(d.dst_file, RegFile::Xn);
  EXPECT_EQ(d.dst, 0xfffe);
  d = decode_ok(test::a5::load_imm_gsa(2, 0x0123456789abcdefull));
  EXPECT_EQ(d.kind, A5Kind::LoadImm);
  EXPECT_EQ(d.dst_file, RegFile::Gsa);
  EXPECT_EQ(d.imm, 0x0123456789abcdefull);
  d = decode_ok(test::a5::load_imm_xn(3, ~u64{0}, 9));
  EXPECT_EQ(d.dst_file, RegFile::Xn);
  EXPECT_EQ(d.imm, ~u64{0});
  EXPECT_EQ(d.sec_flag, 9);
  d = decode_ok(test::a5::load_gsa_xn(1, 2, 3));
  EXPECT_EQ(d.kind, A5Kind::LoadAdd);
  EXPECT_EQ(d.dst_file, RegFile::Gsa);
  EXPECT_EQ(d.a_file, RegFile::Gsa);
  EXPECT_EQ(d.b_file, RegFile::Xn);
  EXPECT_EQ(d.dst, 1);
  EXPECT_EQ(d.a, 2);
  EXPECT_EQ(d.b, 3);
  d = decode_ok(test::a5::load_gsa_gsa(4, 5, 6));
  EXPECT_EQ(d.b_file, RegFile::Gsa);
  EXPECT_EQ(d.b, 6);
  d = decode_ok(test::a5::load_xx(7, 8, 9));
  EXPECT_EQ(d.dst_file, RegFile::Xn);
  EXPECT_EQ(d.a_file, RegFile::Xn);
  EXPECT_EQ(d.b_file, RegFile::Xn);
}

TEST(CcuDecoder, ControlWords) {
  A5Word d = decode_ok(test::a5::loop(10, 20, 5));
  EXPECT_EQ(d.kind, A5Kind::Loop);
  EXPECT_EQ(d.start, 10);
  EXPECT_EQ(d.end, 20);
  EXPECT_EQ(d.xn, 5);
  d = decode_ok(test::a5::loop_group(30, 6, 7, true));
  EXPECT_EQ(d.kind, A5Kind::LoopGroup);
  EXPECT_EQ(d.start, 30);
  EXPECT_EQ(d.xn, 6);
  EXPECT_EQ(d.xm, 7);
  EXPECT_TRUE(d.high_perf);
  d = decode_ok(test::a5::set_cke(3, 0xf0, 4, 0x0f, false));
  EXPECT_EQ(d.kind, A5Kind::SetCke);
  EXPECT_EQ(d.cke.set_id, 3);
  EXPECT_EQ(d.cke.set_mask, 0xf0);
  EXPECT_EQ(d.cke.wait_id, 4);
  EXPECT_EQ(d.cke.wait_mask, 0x0f);
  EXPECT_FALSE(d.cke.clear_type);
  d = decode_ok(test::a5::clear_cke(8, 1, 9, 0x30));
  EXPECT_EQ(d.kind, A5Kind::ClearCke);
  EXPECT_EQ(d.cke.wait_id, 8);
  EXPECT_EQ(d.cke.wait_mask, 1);
  EXPECT_EQ(d.clear_id, 9);
  EXPECT_EQ(d.clear_mask, 0x30);
  EXPECT_TRUE(d.cke.clear_type);
  EXPECT_EQ(d.cke.set_mask, 0);
  d = decode_ok(test::a5::jmp(1, 2, 0xdeadbeef12345678ull));
  EXPECT_EQ(d.kind, A5Kind::Jmp);
  EXPECT_EQ(d.dst_xn, 1);
  EXPECT_EQ(d.cond_xn, 2);
  EXPECT_EQ(d.expect, 0xdeadbeef12345678ull);
}

struct TransCase {
  Word w;
  u16 header;
  bool src_ms, src_remote, dst_ms, dst_remote;
  u16 src_id, dst_id;
};

TEST(CcuDecoder, EveryTransferWordHasItsOperands) {
  namespace a = test::a5;
  a::Cke c{.wait_id = 11, .wait_mask = 0x3, .set_id = 12, .set_mask = 0x4};
  std::vector<TransCase> cases = {
      {a::loc_mem_to_loc_ms(0x8001, 5, 9, c), 0x1000, false, false, true, false, 5, 0x8001},
      {a::rmt_mem_to_loc_ms(0x8002, 6, 9, 3, c), 0x1001, false, true, true, false, 6, 0x8002},
      {a::loc_ms_to_loc_mem(7, 0x8003, 9, c), 0x1002, true, false, false, false, 0x8003, 7},
      {a::loc_ms_to_rmt_mem(8, 0x8004, 9, 3, c), 0x1003, true, false, false, true, 0x8004, 8},
      {a::rmt_ms_to_loc_mem(9, 0x8005, 9, 3, c), 0x1004, true, true, false, false, 0x8005, 9},
      {a::loc_ms_to_loc_ms(0x10, 0x11, 9, c), 0x1005, true, false, true, false, 0x11, 0x10},
      {a::rmt_ms_to_loc_ms(0x12, 0x13, 9, 3, c), 0x1006, true, true, true, false, 0x13, 0x12},
      {a::loc_ms_to_rmt_ms(0x14, 0x15, 9, 3, 40, 0x80, c), 0x1007, true, false, true, true, 0x15, 0x14},
      {a::rmt_mem_to_loc_mem(20, 21, 9, 3, c), 0x1008, false, true, false, false, 21, 20},
      {a::loc_mem_to_rmt_mem(22, 23, 9, 3, c), 0x1009, false, false, false, true, 23, 22},
      {a::loc_mem_to_loc_mem(24, 25, 9, c), 0x100a, false, false, false, false, 25, 24},
  };
  for (const TransCase& tc : cases) {
    SCOPED_TRACE(ccu::word_hex(tc.w));
    A5Word d = decode_ok(tc.w);
    EXPECT_EQ(d.header, tc.header);
    EXPECT_EQ(d.kind, A5Kind::Trans);
    EXPECT_EQ(d.src.ms, tc.src_ms);
    EXPECT_EQ(d.src.remote, tc.src_remote);
    EXPECT_EQ(d.dst_op.ms, tc.dst_ms);
    EXPECT_EQ(d.dst_op.remote, tc.dst_remote);
    EXPECT_EQ(d.src.id, tc.src_id);
    EXPECT_EQ(d.dst_op.id, tc.dst_id);
    EXPECT_EQ(d.len_xn, 9);
    EXPECT_EQ(d.uses_channel, tc.src_remote || tc.dst_remote);
    if (d.uses_channel) {
      EXPECT_EQ(d.channel, 3);
    }
    EXPECT_EQ(d.cke.wait_id, 11);
    EXPECT_EQ(d.cke.wait_mask, 3);
    EXPECT_EQ(d.cke.set_id, 12);
    EXPECT_EQ(d.cke.set_mask, 4);
    EXPECT_TRUE(d.cke.clear_type);
    EXPECT_TRUE(d.length_en);
    EXPECT_FALSE(d.reduce_en);
    EXPECT_EQ(d.rmt_set_mask, tc.header == 0x1007 ? 0x80 : 0);
    if (tc.header == 0x1007) {
      EXPECT_EQ(d.rmt_set_id, 40);
    }
  }
}

TEST(CcuDecoder, TokensAreDecodedButSeparate) {
  A5Word d = decode_ok(test::a5::loc_mem_to_rmt_mem(2, 1, 1, 0, {}, {}, 3, 4));
  EXPECT_EQ(d.dst_op.token, 3);
  EXPECT_EQ(d.src.token, 4);
  d = decode_ok(test::a5::loc_mem_to_loc_ms(0x8000, 1, 1, {}, 5));
  EXPECT_EQ(d.src.token, 5);
}

TEST(CcuDecoder, UbReduceTables) {
  namespace a = test::a5;
  struct Row {
    u8 code;
    DataType t;
  };
  for (Row r : {Row{0, DataType::INT8}, {1, DataType::INT16}, {2, DataType::INT32}, {3, DataType::UINT8},
                {4, DataType::UINT16}, {5, DataType::UINT32}, {6, DataType::FP16}, {7, DataType::FP32},
                {8, DataType::BFP16}}) {
    A5Word d = decode_ok(a::rmt_mem_to_loc_mem(1, 2, 3, 0, {}, {.en = true, .type_code = r.code, .op_code = 10}));
    EXPECT_TRUE(d.reduce_en);
    EXPECT_EQ(d.reduce_type, r.t) << int(r.code);
  }
  EXPECT_EQ(decode_ok(a::loc_mem_to_rmt_mem(1, 2, 3, 0, {}, {.en = true, .op_code = 8})).reduce_op, ReduceOp::MAX);
  EXPECT_EQ(decode_ok(a::loc_mem_to_rmt_mem(1, 2, 3, 0, {}, {.en = true, .op_code = 9})).reduce_op, ReduceOp::MIN);
  EXPECT_EQ(decode_ok(a::loc_mem_to_rmt_mem(1, 2, 3, 0, {}, {.en = true, .op_code = 10})).reduce_op, ReduceOp::SUM);
  // Outside the tables: 111 (only when the reduce is enabled).
  EXPECT_NE(decode_error(a::loc_mem_to_rmt_mem(1, 2, 3, 0, {}, {.en = true, .type_code = 9, .op_code = 10})), "");
  EXPECT_NE(decode_error(a::loc_mem_to_rmt_mem(1, 2, 3, 0, {}, {.en = true, .op_code = 7})), "");
  EXPECT_EQ(decode_error(a::loc_mem_to_rmt_mem(1, 2, 3, 0, {}, {.en = false, .type_code = 15, .op_code = 0})), "");
  EXPECT_NE(decode_error(a::loc_mem_to_rmt_mem(1, 2, 3, 0, {}, {.udf_type = 1})), "");
  EXPECT_NE(decode_error(a::rmt_mem_to_loc_mem(1, 2, 3, 0, {}, {.udf_type = 2})), "");
}

TEST(CcuDecoder, MsReduceWords) {
  namespace a = test::a5;
  A5Word d = decode_ok(a::ms_reduce(0x1800, {0x8000, 0x8001, 0x8002}, 4, 0, {.set_id = 2, .set_mask = 1}, 1));
  EXPECT_EQ(d.kind, A5Kind::MsReduce);
  EXPECT_EQ(d.operands(), 3u);
  EXPECT_EQ(d.ms[0], 0x8000);
  EXPECT_EQ(d.ms[2], 0x8002);
  EXPECT_EQ(d.len_xn, 4);
  EXPECT_EQ(d.ms_type, DataType::FP32);
  EXPECT_EQ(d.ms_op, ReduceOp::SUM);
  EXPECT_EQ(d.cast_en, 1);
  EXPECT_EQ(d.cke.set_mask, 1);
  d = decode_ok(a::ms_reduce(0x1801, {1, 2, 3, 4, 5, 6, 7, 8}, 4, 9));
  EXPECT_EQ(d.operands(), 8u);
  EXPECT_EQ(d.ms[7], 8);
  EXPECT_EQ(d.ms_type, DataType::INT32);
  EXPECT_EQ(d.ms_op, ReduceOp::MAX);
  EXPECT_EQ(decode_ok(a::ms_reduce(0x1802, {1, 2}, 4, 1)).ms_op, ReduceOp::MIN);
  struct Row {
    u8 code;
    DataType t;
  };
  for (Row r : {Row{0, DataType::FP32}, {1, DataType::FP16}, {2, DataType::BFP16}, {3, DataType::HIF8},
                {4, DataType::FP8E4M3}, {5, DataType::FP8E5M2}, {6, DataType::INT8}, {7, DataType::UINT8},
                {8, DataType::INT16}, {9, DataType::INT32}})
    EXPECT_EQ(decode_ok(a::ms_reduce(0x1800, {1, 2}, 4, r.code)).ms_type, r.t);
  // 111: count 7, unknown type, 8-bit floats on Max/Min, cast on Max, cast 3.
  EXPECT_NE(decode_error(a::ms_reduce(0x1800, {1, 2}, 4, 0, {}, 0, 7)), "");
  EXPECT_EQ(decode_error(a::ms_reduce(0x1800, {1, 2}, 4, 0, {}, 0, 6)), "");
  EXPECT_NE(decode_error(a::ms_reduce(0x1800, {1, 2}, 4, 10)), "");
  EXPECT_NE(decode_error(a::ms_reduce(0x1800, {1, 2}, 4, 31)), "");
  for (u8 code : {3, 4, 5}) {
    EXPECT_NE(decode_error(a::ms_reduce(0x1801, {1, 2}, 4, code)), "");
    EXPECT_NE(decode_error(a::ms_reduce(0x1802, {1, 2}, 4, code)), "");
  }
  EXPECT_NE(decode_error(a::ms_reduce(0x1801, {1, 2}, 4, 0, {}, 1)), "");
  EXPECT_NE(decode_error(a::ms_reduce(0x1800, {1, 2}, 4, 0, {}, 3)), "");
}

TEST(CcuDecoder, SyncWords) {
  namespace a = test::a5;
  A5Word d = decode_ok(a::sync_cke(8, 0, 1, 5, {.wait_id = 2, .wait_mask = 4}));
  EXPECT_EQ(d.kind, A5Kind::SyncCke);
  EXPECT_EQ(d.rmt_cke, 8);
  EXPECT_EQ(d.loc_cke, 0);
  EXPECT_EQ(d.loc_mask, 1);
  EXPECT_EQ(d.channel, 5);
  EXPECT_EQ(d.cke.wait_mask, 4);
  d = decode_ok(a::sync_gsa(3, 4, 6, 7, 0x10));
  EXPECT_EQ(d.kind, A5Kind::SyncGsa);
  EXPECT_EQ(d.rmt_reg, 3);
  EXPECT_EQ(d.loc_reg, 4);
  EXPECT_EQ(d.channel, 6);
  EXPECT_EQ(d.rmt_set_id, 7);
  EXPECT_EQ(d.rmt_set_mask, 0x10);
  d = decode_ok(a::sync_xn(9, 10, 2));
  EXPECT_EQ(d.kind, A5Kind::SyncXn);
  EXPECT_EQ(d.rmt_reg, 9);
  EXPECT_EQ(d.rmt_set_mask, 0);
}

TEST(CcuDecoder, UnknownHeadersAre111) {
  u32 known = 0;
  for (u32 h = 0; h < 0x10000; ++h) {
    std::string why = decode_error(test::a5::raw(static_cast<u16>(h)));
    bool named = !ccu_mnemonic(CcuIsa::A5, static_cast<u16>(h)).empty();
    // Every named header decodes (a zero body is valid for all of them,
    // except Add/Max/Min whose zero body is FP32 with two operands: valid).
    EXPECT_EQ(why.empty(), named) << std::hex << h << " " << why;
    known += named;
  }
  EXPECT_EQ(known, 29u);  // the 29 rows of ccu.md §3.2
  EXPECT_NE(decode_error(test::a5::raw(0x8000)).find("reserved bit 15"), std::string::npos);
  EXPECT_NE(decode_error(test::a5::raw(0x0803)).find("unknown"), std::string::npos);
}

// ccu.md §14: the raw words of both worked examples, as the spec prints
// them, equal what the test encoder writes and decode as described.
TEST(CcuDecoder, WorkedExampleWords) {
  namespace a = test::a5;
  struct Row {
    const char* raw;
    Word enc;
    const char* dis;
  };
  std::vector<Row> rows = {
      {"0000010000000000000000000000000000000000000000000000000000000000", a::load_sqe_gsa(1, 0),
       "LoadSqeArgsToGSA G1 <- arg[0]"},
      {"0000020001000000000000000000000000000000000000000000000000000000", a::load_sqe_gsa(2, 1),
       "LoadSqeArgsToGSA G2 <- arg[1]"},
      {"0100010002000000000000000000000000000000000000000000000000000000", a::load_sqe_xn(1, 2),
       "LoadSqeArgsToXn X1 <- arg[2]"},
      {"020801000000ffff000000000000000000000000000000000000000000000000", a::set_cke(0, 0xffff),
       "SetCKE set 0/0xffff"},
      {"0b10080000000100000000000000000000000000000001000000000000000000", a::sync_cke(8, 0, 1, 0),
       "SyncCKE rmt.cke 8 |= cke 0 & 0x1 ch 0"},
      {"0408010000000000080001000000000000000000000000000000000000000000", a::clear_cke(8, 1),
       "ClearCKE wait 8/0x1 clr"},
      {"0910020003000100040001000000000000000000000003000100010000000000",
       a::loc_mem_to_rmt_mem(2, 1, 1, 0, {.set_id = 1, .set_mask = 1}, {}, 3, 4),
       "TransLocMemToRmtMem rmt.mem(G2) <- mem(G1) len X1 ch 0 set 1/0x1"},
      {"0408010000000000010001000000000000000000000000000000000000000000", a::clear_cke(1, 1),
       "ClearCKE wait 1/0x1 clr"},
      {"0b10090000000100000000000000000000000000000001000000000000000000", a::sync_cke(9, 0, 1, 0),
       "SyncCKE rmt.cke 9 |= cke 0 & 0x1 ch 0"},
      {"0408010000000000090001000000000000000000000000000000000000000000", a::clear_cke(9, 1),
       "ClearCKE wait 9/0x1 clr"},
      // Example 2.
      {"0010008001000500010000000000000000000000000003000200010000000000",
       a::loc_mem_to_loc_ms(0x8000, 1, 1, {.set_id = 2, .set_mask = 1}, 5),
       "TransLocMemToLocMS MS(0x8000) <- mem(G1) len X1 set 2/0x1"},
      {"0210020006000080010000000000000000000000000003000400010002000100",
       a::loc_ms_to_loc_mem(2, 0x8000, 1, {.wait_id = 2, .wait_mask = 1, .set_id = 4, .set_mask = 1}, 6),
       "TransLocMSToLocMem mem(G2) <- MS(0x8000) len X1 wait 2/0x1 clr set 4/0x1"},
      {"0408010000000000040001000000000000000000000000000000000000000000", a::clear_cke(4, 1),
       "ClearCKE wait 4/0x1 clr"},
      {"0300020002002000000000000000000000000000000000000000000000000000", a::load_imm_xn(2, 0x200002),
       "LoadImdToXn X2 <- 0x200002"},
      {"0300030000000000000280000000000000000000000000000000000000000000", a::load_imm_xn(3, 0x0080020000000000ull),
       "LoadImdToXn X3 <- 0x80020000000000"},
      {"0300040001040040000000000000000000000000000000000000000000000000", a::load_imm_xn(4, 0x40000401),
       "LoadImdToXn X4 <- 0x40000401"},
      {"01080c0003000400000000000000000000000000000000000000000000000000", a::loop_group(12, 3, 4),
       "LoopGroup loops at 12 param X3 offsets X4"},
      {"030000000d000000000000000000000000000000000000000000000000000000", a::load_imm_xn(0, 13),
       "LoadImdToXn X0 <- 0xd"},
      {"0508000000000100000000000000000000000000000000000000000000000000", a::jmp(0, 0, 1),
       "Jmp to X0 if X0 != 0x1"},
      {"0008000002000200000000000000000000000000000000000000000000000000", a::loop(0, 2, 2),
       "Loop body [0,2] param X2"},
      {"0300000000000000000000000000000000000000000000000000000000000000", a::load_imm_xn(0, 0),
       "LoadImdToXn X0 <- 0x0"},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(ccu::word_hex(r.enc), r.raw);
    EXPECT_EQ(ccu::disasm(CcuIsa::A5, hex(r.raw)), r.dis);
  }
}

TEST(CcuDecoder, DisassemblesInvalidWordsWithTheReason) {
  EXPECT_EQ(ccu::disasm(CcuIsa::A5, test::a5::raw(0x0803)), "<invalid: unknown A5 instruction header 0x0803> [0x0803]");
  EXPECT_EQ(ccu::disasm(CcuIsa::A5, test::a5::ms_reduce(0x1801, {1, 2}, 4, 3)),
            "<invalid: dataType 3 (HIF8) is valid only for Add> [0x1801 Max]");
}

TEST(CcuDecoder, ImageListing) {
  CcuImage img;
  img.size = 4;
  CcuWordBlock blk;
  blk.start = 1;
  for (const Word& w : {test::a5::load_imm_xn(1, 5), test::a5::jmp(1, 2, 3)})
    blk.bytes.insert(blk.bytes.end(), w.b.begin(), w.b.end());
  img.blocks.push_back(blk);
  EXPECT_EQ(ccu::disasm_image(CcuIsa::A5, img, 0, 100),
            "    0  0000  LoadSqeArgsToGSA G0 <- arg[0]\n"
            "    1  0003  LoadImdToXn X1 <- 0x5\n"
            "    2  0805  Jmp to X1 if X2 != 0x3\n"
            "    3  0000  LoadSqeArgsToGSA G0 <- arg[0]\n");
}

// Random words never crash the decoder or the disassembler.
TEST(CcuDecoder, RandomWords) {
  std::mt19937_64 rng(7);
  const u16 headers[] = {0x0000, 0x0003, 0x0801, 0x0802, 0x0805, 0x1000, 0x1007, 0x1008, 0x1009, 0x100b, 0x1800, 0x1802};
  for (int i = 0; i < 20000; ++i) {
    Word w;
    for (auto& b : w.b) b = static_cast<u8>(rng());
    if (i % 2) {
      u16 h = headers[rng() % std::size(headers)];
      w.b[0] = static_cast<u8>(h);
      w.b[1] = static_cast<u8>(h >> 8);
    }
    A5Word d;
    Status s = ccu::decode_a5(w, d);
    EXPECT_TRUE(s.ok() || !s.message().empty());
    EXPECT_FALSE(ccu::disasm(CcuIsa::A5, w).empty());
  }
}

}  // namespace
}  // namespace cc
