// The A6 ("CcuV2", Ascend 960) instruction set (ccu.md §15): no GSA file,
// register ids with a copy mode bit, register ALU words, an HBM scratch
// for register blocks, TransMem and SyncWtX through channels held in Xn.
#pragma once

#include <string>

#include "model/ccu_word.h"
#include "model/result.h"
#include "model/types.h"

namespace cc::ccu {

enum class A6Kind : u8 {
  LoadSqeArg,  // 0x0001
  LoadImm,     // 0x0002
  LoadX,       // 0x0006
  StoreX,      // 0x0007
  ClearX,      // 0x0008
  Nop,         // 0x0009
  Load,        // 0x000A: HBM -> registers
  Store,       // 0x000B: registers -> HBM
  Alu,         // 0x000D-0x0016
  Loop,        // 0x0800
  LoopGroup,   // 0x0801
  SetCkBit,    // 0x0802
  ClearCke,    // 0x0804
  Jmp,         // 0x0805
  Wait,        // 0x0807
  Trans,       // 0x1000, 0x1002, 0x1005, 0x1006: local transfers
  TransMem,    // 0x1010
  SyncWtX,     // 0x100D
  MsReduce,    // 0x1800-0x1802
};

enum class AluOp : u8 { Add, Sub, Mul, And, Or, Not, Xor, Shl, Shr, Popcnt };

// A register-id field: id (bits 14:0) and the copy mode bit (bit 15).
struct Reg {
  u16 id = 0;
  bool per_copy = false;
};

struct A6Word {
  u16 header = 0;
  A6Kind kind = A6Kind::Nop;
  // The word's own set (u16@28, u16@30) and, for SetCKBit/ClearCKE, a wait.
  bool clear_type = false;
  u16 set_id = 0, set_mask = 0, wait_id = 0, wait_mask = 0;
  u16 clear_id = 0, clear_mask = 0;  // ClearCKE
  u64 user_data = 0;                 // SetCKBit

  // Register fields, named as in ccu.md §15.2 (each word uses some).
  Reg xd, xdt, xs, xst, xl, xo, xc, xn, xnt, xm, xp, xh, xso, xdo;
  u16 raw_xs = 0, raw_xd = 0, raw_xm = 0, raw_xso = 0, raw_xdo = 0;  // the same fields as immediates / MS ids
  u16 slot = 0;       // LoadSqeArgsToX (its register id is the raw field: xd.id, never per copy)
  u64 imm = 0;        // LoadImdToX
  bool mode = false;  // LoadX/StoreX oMode; Add/Sub/Mul and SyncWtX parMode
  AluOp alu = AluOp::Add;
  bool arithmetic = false;  // Shl/Shr shiftType
  u8 store_flags = 0;

  // Loop: body [start, end]; xm iterCnt, xn stride, xp context; mode/wish.
  // LoopGroup: first Loop `start`; xn group, xm offsets, xp xnIdOffset.
  u16 start = 0, end = 0;
  u16 wish = 0;
  bool loop_mode = false;

  // Jmp (xm expected, xn condition, xp target) and Wait (xn condition, xm
  // expected): OP 0 ==, 1 !=, 2 >, 3 >=, 4 <, 5 <=, else always.
  u8 condition = 0;
  bool absolute = false;

  // Transfers.
  u16 ms = 0, ms2 = 0;  // 0x1000/0x1002: ms; 0x1005: ms = dst, ms2 = src; 0x1006: the staging MS (ignored)
  u32 value = 0;        // TransMem / SyncWtX
  u8 udf_type = 0;
  u8 reduce_type_code = 0, reduce_op_code = 0;
  bool reduce_en = false;  // TransMem udfEnable
  DataType reduce_type = DataType::INT8;
  ReduceOp reduce_op = ReduceOp::SUM;
  u8 dma = 0;
  bool src_mode = false, dst_mode = false, ms_id_mode = false;
  bool notify_valid = false;  // SyncWtX

  // MsReduce as A5 (length register xl).
  u16 msr[8] = {};
  u8 count = 0, cast_en = 0, type_code = 0;
  DataType ms_type = DataType::FP32;
  ReduceOp ms_op = ReduceOp::SUM;
  u32 operands() const { return count + 2u; }

  bool is_data() const { return kind == A6Kind::Trans || kind == A6Kind::TransMem || kind == A6Kind::MsReduce; }
  bool is_write() const { return dma == 3 || dma == 5; }  // TransMem: src local, dst remote
};

// Decodes one word into `out`; an unknown header or a field outside the
// tables is an Error saying which (code 111).
Status decode_a6(const Word& w, A6Word& out);

// "X3 <- X4 + 0x10" etc., without the mnemonic.
std::string a6_operands(const A6Word& w);

}  // namespace cc::ccu
