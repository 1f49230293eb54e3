// CcuProgram: the text of a CCU trace (no GoogleTest, so that benchmarks
// can write the same programs).
#include <fmt/format.h>

#include "ccu_program.h"

namespace cc::test {

void CcuProgram::image(u32 rank, u32 die, u32 start, const std::vector<ccu::Word>& words, int size) {
  std::string s = fmt::format(R"({{"ccu":"image","rank":{},"die":{},"start":{})", rank, die, start);
  if (size >= 0) s += fmt::format(R"(,"size":{})", size);
  s += R"(,"words":[)";
  for (std::size_t i = 0; i < words.size(); ++i) s += fmt::format("{}\"{}\"", i ? "," : "", ccu::word_hex(words[i]));
  lines.push_back(s + "]}");
}

void CcuProgram::channel(u32 rank, u32 die, u32 ch, u32 dst_rank, u32 dst_die) {
  lines.push_back(fmt::format(R"({{"ccu":"channel","rank":{},"die":{},"channelId":{},"dstRank":{},"dstDie":{}}})",
                              rank, die, ch, dst_rank, dst_die));
}

void CcuProgram::address(u32 rank, const std::string& buf, u64 addr) {
  lines.push_back(fmt::format(R"({{"ccu":"address","rank":{},"type":"{}","addr":{}}})", rank, buf, addr));
}

void CcuProgram::die_base(u32 rank, u32 die, u64 base) {
  lines.push_back(fmt::format(R"({{"ccu":"dieBase","rank":{},"die":{},"base":{}}})", rank, die, base));
}

void CcuProgram::sqe(u32 rank, u32 stream, u32 die, u32 mission, u32 start, u32 count, const std::vector<u64>& args,
                     int arg_size) {
  std::string a;
  for (std::size_t i = 0; i < args.size(); ++i) a += fmt::format("{}{}", i ? "," : "", args[i]);
  std::string s = fmt::format(
      R"({{"rank":{},"stream":{},"type":"CCU_GRAPH","dieId":{},"missionId":{},"instStartId":{},"instCnt":{},"args":[{}])",
      rank, stream, die, mission, start, count, a);
  if (arg_size >= 0) s += fmt::format(R"(,"argSize":{})", arg_size);
  lines.push_back(s + "}");
}

std::string CcuProgram::text() const {
  std::string s = fmt::format(R"({{"format":"collcheck-trace","version":2,"op":{}{},"ccu":{{"isa":"{}"}}}})", op,
                              buffers.empty() ? "" : "," + buffers, isa);
  s += "\n";
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

}  // namespace cc::test
