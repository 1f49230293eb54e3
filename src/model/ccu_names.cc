#include "model/ccu_names.h"

namespace cc {

std::string_view ccu_mnemonic(CcuIsa isa, u16 header) {
  if (isa == CcuIsa::A5) {
    switch (header) {
      case 0x0000: return "LoadSqeArgsToGSA";
      case 0x0001: return "LoadSqeArgsToXn";
      case 0x0002: return "LoadImdToGSA";
      case 0x0003: return "LoadImdToXn";
      case 0x0004: return "LoadGSAXn";
      case 0x0005: return "LoadGSAGSA";
      case 0x0006: return "LoadXX";
      case 0x0800: return "Loop";
      case 0x0801: return "LoopGroup";
      case 0x0802: return "SetCKE";
      case 0x0804: return "ClearCKE";
      case 0x0805: return "Jmp";
      case 0x1000: return "TransLocMemToLocMS";
      case 0x1001: return "TransRmtMemToLocMS";
      case 0x1002: return "TransLocMSToLocMem";
      case 0x1003: return "TransLocMSToRmtMem";
      case 0x1004: return "TransRmtMSToLocMem";
      case 0x1005: return "TransLocMSToLocMS";
      case 0x1006: return "TransRmtMSToLocMS";
      case 0x1007: return "TransLocMSToRmtMS";
      case 0x1008: return "TransRmtMemToLocMem";
      case 0x1009: return "TransLocMemToRmtMem";
      case 0x100a: return "TransLocMemToLocMem";
      case 0x100b: return "SyncCKE";
      case 0x100c: return "SyncGSA";
      case 0x100d: return "SyncXn";
      case 0x1800: return "Add";
      case 0x1801: return "Max";
      case 0x1802: return "Min";
      default: return "";
    }
  }
  switch (header) {
    case 0x0001: return "LoadSqeArgsToX";
    case 0x0002: return "LoadImdToX";
    case 0x0006: return "LoadX";
    case 0x0007: return "StoreX";
    case 0x0008: return "ClearX";
    case 0x0009: return "Nop";
    case 0x000a: return "Load";
    case 0x000b: return "Store";
    case 0x000d: return "Add";
    case 0x000e: return "Sub";
    case 0x000f: return "Mul";
    case 0x0010: return "And";
    case 0x0011: return "Or";
    case 0x0012: return "Not";
    case 0x0013: return "Xor";
    case 0x0014: return "Shl";
    case 0x0015: return "Shr";
    case 0x0016: return "Popcnt";
    case 0x0800: return "Loop";
    case 0x0801: return "LoopGroup";
    case 0x0802: return "SetCKBit";
    case 0x0804: return "ClearCKE";
    case 0x0805: return "Jmp";
    case 0x0807: return "Wait";
    case 0x0808: return "Fence";
    case 0x1000: return "TransLocMemToLocMS";
    case 0x1002: return "TransLocMSToLocMem";
    case 0x1005: return "TransLocMSToLocMS";
    case 0x1006: return "TransLocMemToLocMem";
    case 0x100d: return "SyncWtX";
    case 0x100e: return "SyncAtX";
    case 0x1010: return "TransMem";
    case 0x1800: return "ReduceAdd";
    case 0x1801: return "ReduceMax";
    case 0x1802: return "ReduceMin";
    default: return "";
  }
}

}  // namespace cc
