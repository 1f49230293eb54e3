// The A5 ("CcuV1", Ascend 950) instruction set: every opcode of ccu.md §3.2
// decoded from its field layout (§3.3) into one flat, named form that the
// expansion and the disassembler read.
#pragma once

#include <string>

#include "model/ccu_word.h"
#include "model/result.h"
#include "model/types.h"

namespace cc::ccu {

enum class A5Kind : u8 {
  LoadSqeArg,  // 0x0000, 0x0001: reg <- SQE argument slot
  LoadImm,     // 0x0002, 0x0003: reg <- immediate
  LoadAdd,     // 0x0004-0x0006: reg <- reg + reg
  Loop,        // 0x0800
  LoopGroup,   // 0x0801
  SetCke,      // 0x0802
  ClearCke,    // 0x0804
  Jmp,         // 0x0805
  Trans,       // 0x1000-0x100a: a data transfer (TRANS_MEM or REDUCE)
  SyncCke,     // 0x100b
  SyncGsa,     // 0x100c
  SyncXn,      // 0x100d
  MsReduce,    // 0x1800-0x1802: Add/Max/Min over MS slots
};

// One side of a transfer: memory at the value of a GSA register, or an MS
// slot; local or on the channel's peer.
struct A5Operand {
  bool ms = false;
  bool remote = false;
  u16 id = 0;     // GSA register id (memory) or MS id
  u16 token = 0;  // token Xn of a memory operand (never read, §3.3)
  bool has_token = false;
};

// The wait/set/clear fields a word carries (§5.2); masks 0 = none.
struct CkeFields {
  bool clear_type = false;
  u16 set_id = 0, set_mask = 0;
  u16 wait_id = 0, wait_mask = 0;
};

struct A5Word {
  u16 header = 0;
  A5Kind kind = A5Kind::LoadImm;
  CkeFields cke;

  // Register words: dst <- slot | imm | a + b.
  RegFile dst_file = RegFile::Xn, a_file = RegFile::Xn, b_file = RegFile::Xn;
  u16 dst = 0, a = 0, b = 0;
  u16 slot = 0;
  u64 imm = 0;
  u16 sec_flag = 0;  // LoadImdToXn: log masking only

  // Loop: body [start, end], parameter register xn. LoopGroup: first Loop
  // word `start`, group parameter xn, offset parameter xm.
  u16 start = 0, end = 0, xn = 0, xm = 0;
  bool high_perf = false;

  // Jmp: if X[cond_xn] != expect then pc <- X[dst_xn].
  u16 dst_xn = 0, cond_xn = 0;
  u64 expect = 0;

  // ClearCKE: bits cleared without a wait.
  u16 clear_id = 0, clear_mask = 0;

  // Trans and Sync words.
  A5Operand src, dst_op;
  u16 len_xn = 0;
  u16 channel = 0;
  bool uses_channel = false;  // the channel id is meaningful (remote words)
  bool length_en = false;
  bool reduce_en = false;     // 0x1008/0x1009 only
  u8 udf_type = 0;
  u8 reduce_type_code = 0, reduce_op_code = 0;
  DataType reduce_type = DataType::INT8;  // valid when reduce_en
  ReduceOp reduce_op = ReduceOp::SUM;
  u16 rmt_set_id = 0, rmt_set_mask = 0;   // 0x1007, SyncGSA, SyncXn
  u16 rmt_cke = 0, loc_cke = 0, loc_mask = 0;  // SyncCKE
  u16 rmt_reg = 0, loc_reg = 0;                // SyncGSA / SyncXn

  // MsReduce: MS[ms[0]] op= MS[ms[1]] ... MS[ms[count + 1]].
  u16 ms[8] = {};
  u8 count = 0;  // operands - 2
  u8 cast_en = 0;
  u8 type_code = 0;
  DataType ms_type = DataType::FP32;
  ReduceOp ms_op = ReduceOp::SUM;

  u32 operands() const { return count + 2u; }
  bool is_data() const { return kind == A5Kind::Trans || kind == A5Kind::MsReduce; }
  bool remote() const { return src.remote || dst_op.remote; }
};

// Decodes one word into `out`. An unknown header, a reserved bit, or a
// reduce type or op outside the tables is an Error saying which (code 111).
Status decode_a5(const Word& w, A5Word& out);

// §3.4 tables: the collcheck data type of a code, false if none.
bool a5_ms_data_type(u8 code, DataType& out);  // Add/Max/Min dataType (5 bit)
bool a5_ub_data_type(u8 code, DataType& out);  // 0x1008/0x1009 reduceDataType
bool a5_ub_reduce_op(u8 code, ReduceOp& out);  // 0x1008/0x1009 reduceOpCode
// Both of a reducing transfer (A5 0x1008/0x1009, A6 TransMem); an Error
// when either is outside its table.
Status ub_reduce_fields(u8 type_code, u8 op_code, DataType& type, ReduceOp& op);

}  // namespace cc::ccu
