// One 32-byte CCU instruction word (ccu.md §3): little-endian fields at byte
// offsets, and the word at an instruction id of an image.
#pragma once

#include <array>
#include <string>

#include "model/ccu_data.h"

namespace cc::ccu {

// The register files (§4): Xn (general), GSA (addresses, A5 only).
enum class RegFile : u8 { Xn, Gsa };

struct Word {
  std::array<u8, kCcuWordBytes> b{};

  u8 byte(u32 off) const { return b[off]; }
  u16 h(u32 off) const { return static_cast<u16>(b[off] | (b[off + 1] << 8)); }
  u32 d(u32 off) const { return u32{h(off)} | (u32{h(off + 2)} << 16); }
  u64 q(u32 off) const { return u64{d(off)} | (u64{d(off + 4)} << 32); }
  u16 header() const { return h(0); }
};

// The word at instruction id `id` of `image`; ids outside every block read
// as all-zero words (ccu_data.h).
Word word_at(const CcuImage& image, u32 id);

// Parses 64 hexadecimal digits (byte 0 first); false if malformed.
bool parse_word_hex(std::string_view hex, Word& out);
std::string word_hex(const Word& w);

}  // namespace cc::ccu
