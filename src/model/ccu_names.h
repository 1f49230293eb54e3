// Mnemonics of CCU instruction headers (ccu.md §3.2, §15.2), for reports.
#pragma once

#include <string_view>

#include "model/ccu_data.h"

namespace cc {

// The instruction's name, or "" for a header the instruction set lacks.
std::string_view ccu_mnemonic(CcuIsa isa, u16 header);

}  // namespace cc
