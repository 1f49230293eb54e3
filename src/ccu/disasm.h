// Disassembly of CCU instruction words: one instruction per line, for
// `collcheck ccu-dis` and for the context lines of findings.
#pragma once

#include <string>

#include "model/ccu_word.h"

namespace cc::ccu {

// "TransLocMemToRmtMem rmt.mem(G2) <- mem(G1) len X1 ch 0 set 1/0x1" (no
// id, no newline). An undecodable word reads "<invalid: why> [header]".
std::string disasm(CcuIsa isa, const Word& w);

// One line per instruction id in [from, to) of `image`:
// "    6  1009  TransLocMemToRmtMem ...". `to` is clamped to the image size.
std::string disasm_image(CcuIsa isa, const CcuImage& image, u32 from, u32 to);

}  // namespace cc::ccu
