#include "model/ccu_word.h"

#include <algorithm>
#include <cstring>

namespace cc::ccu {

Word word_at(const CcuImage& image, u32 id) {
  Word w;
  // The last block starting at or before id.
  auto it = std::upper_bound(image.blocks.begin(), image.blocks.end(), id,
                             [](u32 v, const CcuWordBlock& b) { return v < b.start; });
  if (it == image.blocks.begin()) return w;
  const CcuWordBlock& blk = *(it - 1);
  u64 at = u64{id - blk.start} * kCcuWordBytes;
  if (at + kCcuWordBytes > blk.bytes.size()) return w;
  std::memcpy(w.b.data(), blk.bytes.data() + at, kCcuWordBytes);
  return w;
}

namespace {
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

bool parse_word_hex(std::string_view hex, Word& out) {
  if (hex.size() != 2 * kCcuWordBytes) return false;
  for (u32 i = 0; i < kCcuWordBytes; ++i) {
    int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.b[i] = static_cast<u8>(hi << 4 | lo);
  }
  return true;
}

std::string word_hex(const Word& w) {
  static const char* digits = "0123456789abcdef";
  std::string s(2 * kCcuWordBytes, '0');
  for (u32 i = 0; i < kCcuWordBytes; ++i) {
    s[2 * i] = digits[w.b[i] >> 4];
    s[2 * i + 1] = digits[w.b[i] & 15];
  }
  return s;
}

}  // namespace cc::ccu
