// Test helper: an encoder for A5 CCU instruction words, written from the
// byte layouts of ccu.md §3.3 independently of src/ccu's decoder, so that
// decoder tests compare two readings of the spec.
#pragma once

#include <string>
#include <vector>

#include "model/ccu_word.h"

namespace cc::test::a5 {

using ccu::Word;

// The wait/set fields of a word. `clear` is clearType (the host encoder
// always emits 1); `length_en` is bit 1 of a TRANS word's control half-word.
struct Cke {
  u16 wait_id = 0, wait_mask = 0;
  u16 set_id = 0, set_mask = 0;
  bool clear = true;
  bool length_en = true;
};

// 0x1008/0x1009 reduce fields (§3.4 UB tables), written as given even when
// `en` is false: e.g. type 7 = FP32, op 10 = SUM.
struct UbReduce {
  bool en = false;
  u8 type_code = 0;
  u8 op_code = 0;
  u8 udf_type = 0;
};

Word load_sqe_gsa(u16 gsa, u16 slot);  // 0x0000
Word load_sqe_xn(u16 xn, u16 slot);    // 0x0001
Word load_imm_gsa(u16 gsa, u64 imm);   // 0x0002
Word load_imm_xn(u16 xn, u64 imm, u16 sec_flag = 0);  // 0x0003
Word load_gsa_xn(u16 d, u16 m, u16 n);   // 0x0004: G[d] <- G[m] + X[n]
Word load_gsa_gsa(u16 d, u16 m, u16 n);  // 0x0005: G[d] <- G[m] + G[n]
Word load_xx(u16 d, u16 m, u16 n);       // 0x0006: X[d] <- X[m] + X[n]
Word loop(u16 start, u16 end, u16 xn);   // 0x0800
Word loop_group(u16 start_loop, u16 xn, u16 xm, bool high_perf = false);  // 0x0801
Word set_cke(u16 set_id, u16 set_mask, u16 wait_id = 0, u16 wait_mask = 0, bool clear = true);  // 0x0802
Word clear_cke(u16 wait_id, u16 wait_mask, u16 clear_id = 0, u16 clear_mask = 0, bool clear = true);  // 0x0804
Word jmp(u16 dst_xn, u16 cond_xn, u64 expect);  // 0x0805

Word loc_mem_to_loc_ms(u16 ms, u16 gsa, u16 len_xn, Cke c = {}, u16 token = 0);               // 0x1000
Word rmt_mem_to_loc_ms(u16 ms, u16 rmt_gsa, u16 len_xn, u16 ch, Cke c = {}, u16 token = 0);   // 0x1001
Word loc_ms_to_loc_mem(u16 gsa, u16 ms, u16 len_xn, Cke c = {}, u16 token = 0);               // 0x1002
Word loc_ms_to_rmt_mem(u16 rmt_gsa, u16 ms, u16 len_xn, u16 ch, Cke c = {}, u16 token = 0);   // 0x1003
Word rmt_ms_to_loc_mem(u16 gsa, u16 rmt_ms, u16 len_xn, u16 ch, Cke c = {}, u16 token = 0);   // 0x1004
Word loc_ms_to_loc_ms(u16 dst_ms, u16 src_ms, u16 len_xn, Cke c = {});                        // 0x1005
Word rmt_ms_to_loc_ms(u16 loc_ms, u16 rmt_ms, u16 len_xn, u16 ch, Cke c = {});                // 0x1006
Word loc_ms_to_rmt_ms(u16 rmt_ms, u16 loc_ms, u16 len_xn, u16 ch, u16 rmt_set_id = 0, u16 rmt_set_mask = 0,
                      Cke c = {});                                                            // 0x1007
Word rmt_mem_to_loc_mem(u16 loc_gsa, u16 rmt_gsa, u16 len_xn, u16 ch, Cke c = {}, UbReduce r = {},
                        u16 loc_token = 0, u16 rmt_token = 0);                                // 0x1008
Word loc_mem_to_rmt_mem(u16 rmt_gsa, u16 loc_gsa, u16 len_xn, u16 ch, Cke c = {}, UbReduce r = {},
                        u16 rmt_token = 0, u16 loc_token = 0);                                // 0x1009
Word loc_mem_to_loc_mem(u16 dst_gsa, u16 src_gsa, u16 len_xn, Cke c = {}, u16 dst_token = 0,
                        u16 src_token = 0);                                                   // 0x100a
Word sync_cke(u16 rmt_cke, u16 loc_cke, u16 loc_mask, u16 ch, Cke c = {});                    // 0x100b
Word sync_gsa(u16 rmt_gsa, u16 loc_gsa, u16 ch, u16 rmt_set_id = 0, u16 rmt_set_mask = 0, Cke c = {});  // 0x100c
Word sync_xn(u16 rmt_xn, u16 loc_xn, u16 ch, u16 rmt_set_id = 0, u16 rmt_set_mask = 0, Cke c = {});     // 0x100d
// Add (0x1800), Max (0x1801), Min (0x1802): MS[ms[0]] op= MS[ms[1..]]
// (2..8 operands; `count_override` writes a raw count field instead).
Word ms_reduce(u16 header, const std::vector<u16>& ms, u16 len_xn, u8 type_code, Cke c = {}, u8 cast_en = 0,
               int count_override = -1);

// A word with only a header (unknown opcodes, reserved bits).
Word raw(u16 header);

}  // namespace cc::test::a5

namespace cc::test::a6 {

using ccu::Word;

// The word's own set (u16@28, u16@30).
struct Set {
  u16 id = 0, mask = 0;
};

Word load_sqe(u16 xn, u16 slot, Set s = {});                                         // 0x0001
Word load_imm(u16 xn, u64 imm, Set s = {});                                          // 0x0002
Word load_x(u16 xd, u16 xs, u16 xso, u16 xdo, bool reg_mode, Set s = {});            // 0x0006
Word store_x(u16 xd, u16 xs, u16 xso, u16 xdo, bool reg_mode, Set s = {});           // 0x0007
Word clear_x(u16 xn, u16 xm, Set s = {});                                            // 0x0008
Word nop(Set s = {});                                                                // 0x0009
Word load(u16 xd, u16 xs, u16 xst, u16 xl, u8 dst_type = 0, Set s = {});             // 0x000A
Word store(u16 xd, u16 xdt, u16 xs, u16 xl, u16 xh, u8 src_type = 0, Set s = {});    // 0x000B
// 0x000D Add .. 0x0016 Popcnt: xd <- xn OP (xm register, or imm16 when !reg_mode for Add/Sub/Mul).
Word alu(u16 header, u16 xd, u16 xn, u16 xm_or_imm, bool reg_mode, bool arithmetic = false, Set s = {});
Word loop(u16 start, u16 end, u16 xm_iters, u16 xn_stride, u16 xp_ctx, bool mode = false, u16 wish = 0);  // 0x0800
Word loop_group(u16 start, u16 xn, u16 xm, u16 xp);                                  // 0x0801
Word set_ck_bit(u16 set_id, u16 set_mask, u16 wait_id = 0, u16 wait_mask = 0, bool clear = true, u64 user = 0);
Word clear_cke(u16 wait_id, u16 wait_mask, u16 clear_id = 0, u16 clear_mask = 0, bool clear = true);
// 0x0805: jump (absolute or relative) by X[target] if X[cond] OP X[expected].
Word jmp(u16 expected, u16 cond, u16 target, u8 op, bool absolute);
Word wait(u16 cond, u16 expected, u8 op);                                            // 0x0807
Word mem_to_ms(u16 ms, u16 xs, u16 xst, u16 xl, u16 xo, Set s = {});                // 0x1000
Word ms_to_mem(u16 xd, u16 xdt, u16 ms, u16 xl, u16 xo, Set s = {});                // 0x1002
Word ms_to_ms(u16 msd, u16 mss, u16 xl, u16 xo, Set s = {});                        // 0x1005
Word mem_to_mem(u16 xd, u16 xdt, u16 xs, u16 xst, u16 xl, u16 ms = 0, Set s = {});   // 0x1006
struct TransMem {
  u16 xd = 0, xdt = 0, xs = 0, xst = 0, xl = 0, xc = 0, xn = 0, xnt = 0;
  u32 value = 0;
  u8 udf_type = 0, reduce = 0, dma = 3, flags25 = 0, flags26 = 0;
  Set set = {};
};
Word trans_mem(const TransMem& f);                                                   // 0x1010
Word sync_wt_x(u16 xd, u16 xs, u16 xc, u16 xn, u32 value, bool notify, bool reg_mode, Set s = {});  // 0x100D
Word reduce(u16 header, const std::vector<u16>& ms, u16 xl, u8 type_code, Set s = {});

}  // namespace cc::test::a6
