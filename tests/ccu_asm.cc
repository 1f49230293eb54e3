#include "ccu_asm.h"

namespace cc::test::a5 {

namespace {

// Little-endian stores at byte offsets.
void put16(Word& w, u32 off, u16 v) {
  w.b[off] = static_cast<u8>(v);
  w.b[off + 1] = static_cast<u8>(v >> 8);
}
void put64(Word& w, u32 off, u64 v) {
  for (u32 i = 0; i < 8; ++i) w.b[off + i] = static_cast<u8>(v >> (8 * i));
}

Word with_header(u16 h) {
  Word w;
  put16(w, 0, h);
  return w;
}

// Bytes 22-31 of TRANS/Sync/reduce words; `ctl` is the rest of byte 22-23.
void put_tail(Word& w, const Cke& c, u16 ctl) {
  put16(w, 22, static_cast<u16>(ctl | (c.clear ? 1 : 0)));
  put16(w, 24, c.set_id);
  put16(w, 26, c.set_mask);
  put16(w, 28, c.wait_id);
  put16(w, 30, c.wait_mask);
}

Word trans(u16 h, std::initializer_list<u16> fields, const Cke& c, u16 extra_ctl = 0) {
  Word w = with_header(h);
  u32 off = 2;
  for (u16 f : fields) {
    put16(w, off, f);
    off += 2;
  }
  put_tail(w, c, static_cast<u16>((c.length_en ? 2 : 0) | extra_ctl));
  return w;
}

Word ub(u16 h, std::initializer_list<u16> fields, const Cke& c, const UbReduce& r) {
  Word w = trans(h, fields, c, r.en ? 4 : 0);
  w.b[14] = r.udf_type;
  w.b[15] = static_cast<u8>((r.op_code << 4) | (r.type_code & 0xf));
  return w;
}

Word sync(u16 h, std::initializer_list<u16> fields, const Cke& c) {
  Word w = with_header(h);
  u32 off = 2;
  for (u16 f : fields) {
    put16(w, off, f);
    off += 2;
  }
  put_tail(w, c, 0);
  return w;
}

}  // namespace

Word raw(u16 header) { return with_header(header); }

Word load_sqe_gsa(u16 gsa, u16 slot) {
  Word w = with_header(0x0000);
  put16(w, 2, gsa);
  put16(w, 4, slot);
  return w;
}
Word load_sqe_xn(u16 xn, u16 slot) {
  Word w = with_header(0x0001);
  put16(w, 2, xn);
  put16(w, 4, slot);
  return w;
}
Word load_imm_gsa(u16 gsa, u64 imm) {
  Word w = with_header(0x0002);
  put16(w, 2, gsa);
  put64(w, 4, imm);
  return w;
}
Word load_imm_xn(u16 xn, u64 imm, u16 sec_flag) {
  Word w = with_header(0x0003);
  put16(w, 2, xn);
  put64(w, 4, imm);
  put16(w, 12, sec_flag);
  return w;
}
Word load_gsa_xn(u16 d, u16 m, u16 n) { return sync(0x0004, {d, m, n}, Cke{.clear = false}); }
Word load_gsa_gsa(u16 d, u16 m, u16 n) { return sync(0x0005, {d, m, n}, Cke{.clear = false}); }
Word load_xx(u16 d, u16 m, u16 n) { return sync(0x0006, {d, m, n}, Cke{.clear = false}); }

Word loop(u16 start, u16 end, u16 xn) { return sync(0x0800, {start, end, xn}, Cke{.clear = false}); }
Word loop_group(u16 start_loop, u16 xn, u16 xm, bool high_perf) {
  Word w = sync(0x0801, {start_loop, xn, xm}, Cke{.clear = false});
  w.b[8] = high_perf ? 1 : 0;
  return w;
}
Word set_cke(u16 set_id, u16 set_mask, u16 wait_id, u16 wait_mask, bool clear) {
  Word w = with_header(0x0802);
  w.b[2] = clear ? 1 : 0;
  put16(w, 4, set_id);
  put16(w, 6, set_mask);
  put16(w, 8, wait_id);
  put16(w, 10, wait_mask);
  return w;
}
Word clear_cke(u16 wait_id, u16 wait_mask, u16 clear_id, u16 clear_mask, bool clear) {
  Word w = with_header(0x0804);
  w.b[2] = clear ? 1 : 0;
  put16(w, 4, clear_id);
  put16(w, 6, clear_mask);
  put16(w, 8, wait_id);
  put16(w, 10, wait_mask);
  return w;
}
Word jmp(u16 dst_xn, u16 cond_xn, u64 expect) {
  Word w = with_header(0x0805);
  put16(w, 2, dst_xn);
  put16(w, 4, cond_xn);
  put64(w, 6, expect);
  return w;
}

Word loc_mem_to_loc_ms(u16 ms, u16 gsa, u16 len_xn, Cke c, u16 token) {
  return trans(0x1000, {ms, gsa, token, len_xn, 0}, c);
}
Word rmt_mem_to_loc_ms(u16 ms, u16 rmt_gsa, u16 len_xn, u16 ch, Cke c, u16 token) {
  return trans(0x1001, {ms, rmt_gsa, token, len_xn, ch}, c);
}
Word loc_ms_to_loc_mem(u16 gsa, u16 ms, u16 len_xn, Cke c, u16 token) {
  return trans(0x1002, {gsa, token, ms, len_xn, 0}, c);
}
Word loc_ms_to_rmt_mem(u16 rmt_gsa, u16 ms, u16 len_xn, u16 ch, Cke c, u16 token) {
  return trans(0x1003, {rmt_gsa, token, ms, len_xn, ch}, c);
}
Word rmt_ms_to_loc_mem(u16 gsa, u16 rmt_ms, u16 len_xn, u16 ch, Cke c, u16 token) {
  return trans(0x1004, {gsa, token, rmt_ms, len_xn, ch}, c);
}
Word loc_ms_to_loc_ms(u16 dst_ms, u16 src_ms, u16 len_xn, Cke c) {
  return trans(0x1005, {dst_ms, src_ms, len_xn, 0}, c);
}
Word rmt_ms_to_loc_ms(u16 loc_ms, u16 rmt_ms, u16 len_xn, u16 ch, Cke c) {
  return trans(0x1006, {loc_ms, rmt_ms, len_xn, ch}, c);
}
Word loc_ms_to_rmt_ms(u16 rmt_ms, u16 loc_ms, u16 len_xn, u16 ch, u16 rmt_set_id, u16 rmt_set_mask, Cke c) {
  return trans(0x1007, {rmt_ms, loc_ms, len_xn, ch, rmt_set_id, rmt_set_mask}, c);
}
Word rmt_mem_to_loc_mem(u16 loc_gsa, u16 rmt_gsa, u16 len_xn, u16 ch, Cke c, UbReduce r, u16 loc_token,
                        u16 rmt_token) {
  return ub(0x1008, {loc_gsa, loc_token, rmt_gsa, rmt_token, len_xn, ch}, c, r);
}
Word loc_mem_to_rmt_mem(u16 rmt_gsa, u16 loc_gsa, u16 len_xn, u16 ch, Cke c, UbReduce r, u16 rmt_token,
                        u16 loc_token) {
  return ub(0x1009, {rmt_gsa, rmt_token, loc_gsa, loc_token, len_xn, ch}, c, r);
}
Word loc_mem_to_loc_mem(u16 dst_gsa, u16 src_gsa, u16 len_xn, Cke c, u16 dst_token, u16 src_token) {
  return trans(0x100a, {dst_gsa, dst_token, src_gsa, src_token, len_xn, 0}, c);
}
Word sync_cke(u16 rmt_cke, u16 loc_cke, u16 loc_mask, u16 ch, Cke c) {
  return sync(0x100b, {rmt_cke, loc_cke, loc_mask, ch}, c);
}
Word sync_gsa(u16 rmt_gsa, u16 loc_gsa, u16 ch, u16 rmt_set_id, u16 rmt_set_mask, Cke c) {
  return sync(0x100c, {rmt_gsa, loc_gsa, 0, ch, rmt_set_id, rmt_set_mask}, c);
}
Word sync_xn(u16 rmt_xn, u16 loc_xn, u16 ch, u16 rmt_set_id, u16 rmt_set_mask, Cke c) {
  return sync(0x100d, {rmt_xn, loc_xn, 0, ch, rmt_set_id, rmt_set_mask}, c);
}

Word ms_reduce(u16 header, const std::vector<u16>& ms, u16 len_xn, u8 type_code, Cke c, u8 cast_en,
               int count_override) {
  Word w = with_header(header);
  for (std::size_t i = 0; i < ms.size() && i < 8; ++i) put16(w, static_cast<u32>(2 + 2 * i), ms[i]);
  put16(w, 18, len_xn);
  u16 count = count_override >= 0 ? static_cast<u16>(count_override) : static_cast<u16>(ms.size() - 2);
  u16 ctl = static_cast<u16>(((count & 7) << 1) | ((cast_en & 3) << 4) | ((type_code & 0x1f) << 11));
  put_tail(w, c, ctl);
  return w;
}

}  // namespace cc::test::a5

namespace cc::test::a6 {

namespace {

Word fields(u16 header, std::initializer_list<std::pair<u32, u64>> f, Set s = {}, std::initializer_list<std::pair<u32, u8>> bytes = {}) {
  Word w;
  auto put = [&](u32 off, u32 n, u64 v) {
    for (u32 i = 0; i < n; ++i) w.b[off + i] = static_cast<u8>(v >> (8 * i));
  };
  put(0, 2, header);
  for (auto [off, v] : f) put(off, 2, v);
  for (auto [off, v] : bytes) w.b[off] = v;
  put(28, 2, s.id);
  put(30, 2, s.mask);
  return w;
}

Word with_u64(Word w, u32 off, u64 v) {
  for (u32 i = 0; i < 8; ++i) w.b[off + i] = static_cast<u8>(v >> (8 * i));
  return w;
}

Word with_u32(Word w, u32 off, u32 v) {
  for (u32 i = 0; i < 4; ++i) w.b[off + i] = static_cast<u8>(v >> (8 * i));
  return w;
}

}  // namespace

Word load_sqe(u16 xn, u16 slot, Set s) { return fields(0x0001, {{2, xn}, {4, slot}}, s); }
Word load_imm(u16 xn, u64 imm, Set s) { return with_u64(fields(0x0002, {{2, xn}}, s), 4, imm); }
Word load_x(u16 xd, u16 xs, u16 xso, u16 xdo, bool m, Set s) {
  return fields(0x0006, {{2, xd}, {4, xs}, {6, xso}, {8, xdo}}, s, {{10, m ? 1 : 0}});
}
Word store_x(u16 xd, u16 xs, u16 xso, u16 xdo, bool m, Set s) {
  return fields(0x0007, {{2, xd}, {4, xs}, {6, xso}, {8, xdo}}, s, {{10, m ? 1 : 0}});
}
Word clear_x(u16 xn, u16 xm, Set s) { return fields(0x0008, {{2, xn}, {4, xm}}, s); }
Word nop(Set s) { return fields(0x0009, {}, s); }
Word load(u16 xd, u16 xs, u16 xst, u16 xl, u8 dst_type, Set s) {
  return fields(0x000a, {{2, xd}, {4, xs}, {6, xst}, {8, xl}}, s, {{22, dst_type}});
}
Word store(u16 xd, u16 xdt, u16 xs, u16 xl, u16 xh, u8 src_type, Set s) {
  return fields(0x000b, {{2, xd}, {4, xdt}, {6, xs}, {8, xl}, {10, xh}}, s, {{22, src_type}});
}
Word alu(u16 header, u16 xd, u16 xn, u16 xm, bool m, bool arithmetic, Set s) {
  return fields(header, {{2, xd}, {4, xn}, {6, xm}}, s, {{8, m ? 1 : 0}, {22, arithmetic ? 1 : 0}});
}
Word loop(u16 start, u16 end, u16 xm, u16 xn, u16 xp, bool mode, u16 wish) {
  return fields(0x0800, {{2, start}, {4, end}, {6, xm}, {8, xn}, {10, xp}, {12, wish}}, {}, {{14, mode ? 1 : 0}});
}
Word loop_group(u16 start, u16 xn, u16 xm, u16 xp) { return fields(0x0801, {{2, start}, {4, xn}, {6, xm}, {8, xp}}); }
Word set_ck_bit(u16 set_id, u16 set_mask, u16 wait_id, u16 wait_mask, bool clear, u64 user) {
  Word w = fields(0x0802, {{4, set_id}, {6, set_mask}, {8, wait_id}, {10, wait_mask}}, {}, {{2, clear ? 1 : 0}});
  return with_u64(w, 12, user);
}
Word clear_cke(u16 wait_id, u16 wait_mask, u16 clear_id, u16 clear_mask, bool clear) {
  return fields(0x0804, {{4, clear_id}, {6, clear_mask}, {8, wait_id}, {10, wait_mask}}, {}, {{2, clear ? 1 : 0}});
}
Word jmp(u16 expected, u16 cond, u16 target, u8 op, bool absolute) {
  return fields(0x0805, {{2, expected}, {4, cond}, {6, target}}, {},
                {{8, static_cast<u8>((op & 0xf) | (absolute ? 0x10 : 0))}});
}
Word wait(u16 cond, u16 expected, u8 op) { return fields(0x0807, {{2, cond}, {4, expected}}, {}, {{6, op}}); }
Word mem_to_ms(u16 ms, u16 xs, u16 xst, u16 xl, u16 xo, Set s) {
  return fields(0x1000, {{2, ms}, {4, xs}, {6, xst}, {8, xl}, {10, xo}}, s);
}
Word ms_to_mem(u16 xd, u16 xdt, u16 ms, u16 xl, u16 xo, Set s) {
  return fields(0x1002, {{2, xd}, {4, xdt}, {6, ms}, {8, xl}, {10, xo}}, s);
}
Word ms_to_ms(u16 msd, u16 mss, u16 xl, u16 xo, Set s) { return fields(0x1005, {{2, msd}, {4, mss}, {6, xl}, {8, xo}}, s); }
Word mem_to_mem(u16 xd, u16 xdt, u16 xs, u16 xst, u16 xl, u16 ms, Set s) {
  return fields(0x1006, {{2, xd}, {4, xdt}, {6, xs}, {8, xst}, {10, xl}, {12, ms}}, s);
}
Word trans_mem(const TransMem& f) {
  Word w = fields(0x1010, {{2, f.xd}, {4, f.xdt}, {6, f.xs}, {8, f.xst}, {10, f.xl}, {12, f.xc}, {14, f.xn}, {16, f.xnt}},
                  f.set, {{22, f.udf_type}, {23, f.reduce}, {24, f.dma}, {25, f.flags25}, {26, f.flags26}});
  return with_u32(w, 18, f.value);
}
Word sync_wt_x(u16 xd, u16 xs, u16 xc, u16 xn, u32 value, bool notify, bool m, Set s) {
  Word w = fields(0x100d, {{2, xd}, {6, xs}, {8, xc}, {10, xn}}, s,
                  {{18, static_cast<u8>((notify ? 1 : 0) | (m ? 2 : 0))}});
  return with_u32(w, 14, value);
}
Word reduce(u16 header, const std::vector<u16>& ms, u16 xl, u8 type_code, Set s) {
  std::initializer_list<std::pair<u32, u64>> none = {};
  Word w = fields(header, none, s);
  for (std::size_t i = 0; i < ms.size() && i < 8; ++i) {
    w.b[2 + 2 * i] = static_cast<u8>(ms[i]);
    w.b[3 + 2 * i] = static_cast<u8>(ms[i] >> 8);
  }
  w.b[18] = static_cast<u8>(xl);
  w.b[19] = static_cast<u8>(xl >> 8);
  u16 ctl = static_cast<u16>((((ms.size() - 2) & 7) << 1) | ((type_code & 0x1f) << 11));
  w.b[22] = static_cast<u8>(ctl);
  w.b[23] = static_cast<u8>(ctl >> 8);
  return w;
}

}  // namespace cc::test::a6
