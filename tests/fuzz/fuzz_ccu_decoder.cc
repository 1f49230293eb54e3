// libFuzzer target: the CCU decoders and disassembler on every 32-byte word
// of the input, then the expansion and every stage on the input taken as a
// CCU program. Any crash, hang, sanitizer report or leak is a bug.
//
// Input: byte 0 flags (bit 0 A6, bit 1 loop merge, bit 2 two ranks, bit 3
// strict reference mode, bit 4 drain at end), bytes 1-2 instStartId, 3-4
// instCnt, 5-28 three SQE arguments, then the image (at most 256 words).
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "ccu/a5_word.h"
#include "ccu/a6_word.h"
#include "ccu/disasm.h"
#include "ccu/expand.h"
#include "pipeline/stages.h"
#include "io/jsonl/reader.h"

namespace {

constexpr std::size_t kHead = 29;
constexpr std::size_t kMaxWords = 256;

cc::u64 u64_at(const uint8_t* p) {
  cc::u64 v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cc;
  // Every word through both decoders and the disassembler.
  for (std::size_t at = 0; at + kCcuWordBytes <= size; at += kCcuWordBytes) {
    ccu::Word w;
    std::memcpy(w.b.data(), data + at, kCcuWordBytes);
    ccu::A5Word a5;
    ccu::A6Word a6;
    (void)ccu::decode_a5(w, a5);  // any outcome; it must only not crash
    (void)ccu::decode_a6(w, a6);
    ccu::disasm(CcuIsa::A5, w);
    ccu::disasm(CcuIsa::A6, w);
  }
  if (size < kHead) return 0;
  u8 flags = data[0];
  u16 start = static_cast<u16>(data[1] | (data[2] << 8)), count = static_cast<u16>(data[3] | (data[4] << 8));
  std::size_t words = std::min(kMaxWords, (size - kHead) / kCcuWordBytes);
  u32 ranks = (flags & 4) ? 2 : 1;
  std::string text = fmt::format(
      R"({{"format":"collcheck-trace","version":2,"op":{{"type":"AllReduce","ranks":{},"dataType":"FP32","count":256,"reduceOp":"SUM"}},"buffers":{{"CCL":4096}},"ccu":{{"isa":"{}"}}}})"
      "\n",
      ranks, (flags & 1) ? "A6" : "A5");
  std::string image;
  for (std::size_t i = 0; i < words; ++i) {
    ccu::Word w;
    std::memcpy(w.b.data(), data + kHead + i * kCcuWordBytes, kCcuWordBytes);
    image += fmt::format("{}\"{}\"", i ? "," : "", ccu::word_hex(w));
  }
  for (u32 r = 0; r < ranks; ++r) {
    u64 base = u64{r} * 0x100'0000;
    text += fmt::format(R"({{"ccu":"image","rank":{},"die":0,"start":0,"words":[{}]}})" "\n", r, image);
    for (auto [buf, addr] : {std::pair{"INPUT", 0x1000'0000}, {"OUTPUT", 0x2000'0000}, {"CCL", 0x3000'0000}})
      text += fmt::format(R"({{"ccu":"address","rank":{},"type":"{}","addr":{}}})" "\n", r, buf, addr + base);
    for (u32 ch = 0; ch < 2; ++ch)
      text += fmt::format(R"({{"ccu":"channel","rank":{},"die":0,"channelId":{},"dstRank":{},"dstDie":0}})" "\n", r,
                          ch, ch == 0 ? (r + 1) % ranks : r);
    text += fmt::format(R"({{"ccu":"dieBase","rank":{},"die":0,"base":{}}})" "\n", r, 0x10'0000'0000 + base);
    text += fmt::format(
        R"({{"rank":{},"stream":0,"type":"CCU_GRAPH","dieId":0,"missionId":0,"instStartId":{},"instCnt":{},"args":[{},{},{}]}})"
        "\n",
        r, start % (words + 1), count % (words + 2), u64_at(data + 5), u64_at(data + 13), u64_at(data + 21));
  }
  Result<ReadTrace> rt = read_jsonl_string(text, "fuzz.jsonl");
  if (!rt.ok()) return 0;  // cannot happen: the text is well formed
  CcuOptions opt;
  opt.max_steps = 20000;
  opt.loop_merge = flags & 2;
  opt.strict_ref = flags & 8;
  opt.drain_at_end = flags & 16;
  std::vector<Finding> found = expand_ccu(rt.value().trace, opt);
  if (rt.value().trace.tasks.size() > 200000) return 0;
  run_checks(rt.value().trace, std::move(found), CheckOptions{});
  return 0;
}
