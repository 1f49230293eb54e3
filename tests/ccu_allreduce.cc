#include "ccu_allreduce.h"

#include <fmt/format.h>

namespace cc::test {

using namespace a5;

namespace {

// Every rank's buffers 64 GiB apart, so no two ranks' addresses meet.
u64 input_base(u32 r) { return (u64{r} + 1) << 36; }
u64 output_base(u32 r) { return input_base(r) + (u64{1} << 35); }

// (cke, mask) per group of 16 ranks: the bits `ranks` post into base + q/16.
std::vector<std::pair<u16, u16>> groups(u16 base, const std::vector<u32>& ranks) {
  std::vector<std::pair<u16, u16>> out;
  for (u32 q : ranks) {
    u16 cke = static_cast<u16>(base + q / 16), bit = static_cast<u16>(1u << (q % 16));
    if (out.empty() || out.back().first != cke) out.emplace_back(cke, 0);
    out.back().second |= bit;
  }
  return out;
}

}  // namespace

CcuProgram ccu_allreduce(u32 n, AllReduceMutant mut, u64 kChunk, u64 kPiece) {
  CcuProgram p;
  p.op = fmt::format(R"({{"type":"AllReduce","ranks":{},"dataType":"FP32","count":{},"reduceOp":"SUM"}})", n,
                     n * kChunk / 4);
  // The loop body (ids 0-2): one piece INPUT -> MS -> OUTPUT.
  const std::vector<Word> body = {
      loc_mem_to_loc_ms(0x8000, 1, 5, {.set_id = 3, .set_mask = 1}),
      loc_ms_to_loc_mem(2, 0x8000, 5, {.wait_id = 3, .wait_mask = 1, .set_id = 4, .set_mask = 1}),
      clear_cke(4, 1),
  };
  const u32 start = static_cast<u32>(body.size());
  for (u32 r = 0; r < n; ++r) {
    p.address(r, "INPUT", input_base(r));
    p.address(r, "OUTPUT", output_base(r));
    std::vector<u32> peers;
    for (u32 q = 0; q < n; ++q)
      if (q != r) peers.push_back(q);
    // Arguments and the words loading them (slot = argument id mod 13).
    std::vector<u64> args = {input_base(r) + r * kChunk, output_base(r) + r * kChunk, kChunk};
    if (mut == AllReduceMutant::UnalignedLoad && r == n - 1) args[1] += 2;
    std::vector<Word> w = {load_sqe_gsa(1, 0), load_sqe_gsa(2, 1), load_sqe_xn(1, 2)};
    for (u32 q : peers) {
      for (auto [reg, addr] : {std::pair{100 + q, input_base(q) + r * kChunk}, {1000 + q, output_base(q) + r * kChunk}}) {
        w.push_back(load_sqe_gsa(static_cast<u16>(reg), static_cast<u16>(args.size() % kCcuSqeArgs)));
        args.push_back(addr);
      }
    }
    bool extra = (mut == AllReduceMutant::LoopCountPlusOne && r == 0) ||
                 (mut == AllReduceMutant::LoopCountPlusOneLast && r == n - 1);
    u64 iters = kChunk / kPiece + (extra ? 1 : 0);
    w.push_back(load_imm_xn(2, iters | (kPiece << 13)));        // Loop: iterCnt, stride
    w.push_back(load_imm_xn(3, (u64{1} << 41) | (u64{1} << 48)));  // one Loop, not replicated
    w.push_back(load_imm_xn(4, 0));
    w.push_back(load_imm_xn(5, kPiece));
    if (mut != AllReduceMutant::DropSetCke) w.push_back(set_cke(0, 0xffff));
    u16 my_cke = static_cast<u16>(r / 16), my_bit = static_cast<u16>(1u << (r % 16));
    for (u32 q : peers) w.push_back(sync_cke(static_cast<u16>(100 + my_cke), 0, my_bit, static_cast<u16>(q)));
    u32 group = start + static_cast<u32>(w.size());
    w.push_back(loop_group(static_cast<u16>(group + 3), 3, 4));
    w.push_back(load_imm_xn(0, group + 4));
    w.push_back(jmp(0, 0, 1));
    w.push_back(loop(0, 2, 2));
    w.push_back(load_imm_xn(0, 0));
    for (auto [cke, mask] : groups(100, peers)) w.push_back(clear_cke(cke, mask));
    for (u32 q : peers) {
      w.push_back(rmt_mem_to_loc_mem(2, static_cast<u16>(100 + q), 1, static_cast<u16>(q), {.set_id = 1, .set_mask = 1},
                                     {.en = true, .type_code = 7, .op_code = 10}));
      w.push_back(clear_cke(1, 1));
    }
    std::vector<u32> writes;
    for (u32 k = 0; k < peers.size(); ++k) {
      writes.push_back(k);
      w.push_back(loc_mem_to_rmt_mem(static_cast<u16>(1000 + peers[k]), 2, 1, static_cast<u16>(peers[k]),
                                     {.set_id = static_cast<u16>(300 + k / 16), .set_mask = static_cast<u16>(1u << (k % 16))}));
    }
    for (auto [cke, mask] : groups(300, writes)) w.push_back(clear_cke(cke, mask));
    for (u32 q : peers) w.push_back(sync_cke(static_cast<u16>(200 + my_cke), 0, my_bit, static_cast<u16>(q)));
    for (auto [cke, mask] : groups(200, peers)) w.push_back(clear_cke(cke, mask));

    std::vector<Word> image = body;
    image.insert(image.end(), w.begin(), w.end());
    p.image(r, 0, 0, image);
    for (u32 q : peers) {
      u32 dst = q;
      if (mut == AllReduceMutant::WrongChannel && r == 0 && q == 1) dst = n == 2 ? 0 : 2;
      p.channel(r, 0, q, dst, 0);
    }
    // SQEs of 13 arguments each (§2): all but the last launch 13 load words.
    u32 words = static_cast<u32>(w.size());
    for (u32 k = 0, first = start; k * kCcuSqeArgs < args.size() || k == 0; ++k) {
      u32 lo = k * kCcuSqeArgs, hi = std::min<u32>(lo + kCcuSqeArgs, static_cast<u32>(args.size()));
      bool last = hi == args.size();
      u32 count = last ? start + words - first : kCcuSqeArgs;
      p.sqe(r, 0, 0, 0, first, count, std::vector<u64>(args.begin() + lo, args.begin() + hi));
      first += count;
      if (last) break;
    }
  }
  return p;
}

}  // namespace cc::test
