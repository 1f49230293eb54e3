// Test helper: an encoder for A5 CCU instruction words, written from the
// byte layouts of ccu.md §3.3 independently of src/ccu's decoder, so that
// decoder tests compare two readings of the spec.
#pragma once

#include <string>
#include <vector>

#include "ccu/word.h"

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
