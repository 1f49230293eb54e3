// MSCCL steps as reports print them: "cpy i[0] -> o[1]", "s o[1] -> rank 2",
// "rrc rank 0 + i[2] -> o[2]", and positions "gpu/tb/s (file:line)".
#pragma once

#include <string>

#include "msccl/analyze.h"

namespace cc::msccl {

// "o[1]" for one chunk, "o[1..3]" for chunks 1 to 3.
std::string chunk_text(Buf b, i32 off, i32 cnt);
// What a transmission does, in MSCCL terms.
std::string tx_text(const Analysis& a, const TxRef& r);
// "3/1/1" and "3/1/1 (f.xml:40)" of a transmission's first step.
std::string tx_position(const Analysis& a, const TxRef& r);
std::string tx_ref(const Analysis& a, const TxRef& r);
// "rank3/tb1"
std::string tb_name(const Program& p, u32 gpu, u32 tb);

}  // namespace cc::msccl
