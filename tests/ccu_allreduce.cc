#include "ccu_allreduce.h"

#include <fmt/format.h>

namespace cc::test {

using namespace a5;

namespace {

constexpr u64 kChunk = 0x400, kPiece = 0x100;
u64 input_base(u32 r) { return 0x1000'0000 + u64{r} * 0x100'0000; }
u64 output_base(u32 r) { return 0x2000'0000 + u64{r} * 0x100'0000; }

}  // namespace

CcuProgram ccu_allreduce(u32 n, AllReduceMutant mut) {
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
    u16 peer_bits = 0;
    for (u32 q : peers) peer_bits |= static_cast<u16>(1u << q);
    // Arguments and the words loading them (slot = argument id mod 13).
    std::vector<u64> args = {input_base(r) + r * kChunk, output_base(r) + r * kChunk, kChunk};
    if (mut == AllReduceMutant::UnalignedLoad && r == n - 1) args[1] += 2;
    std::vector<Word> w = {load_sqe_gsa(1, 0), load_sqe_gsa(2, 1), load_sqe_xn(1, 2)};
    for (u32 q : peers) {
      for (auto [reg, addr] : {std::pair{10 + q, input_base(q) + r * kChunk}, {20 + q, output_base(q) + r * kChunk}}) {
        w.push_back(load_sqe_gsa(static_cast<u16>(reg), static_cast<u16>(args.size() % kCcuSqeArgs)));
        args.push_back(addr);
      }
    }
    bool extra = (mut == AllReduceMutant::LoopCountPlusOne && r == 0) ||
                 (mut == AllReduceMutant::LoopCountPlusOneLast && r == n - 1);
    u64 iters = extra ? 5 : 4;
    w.push_back(load_imm_xn(2, iters | (kPiece << 13)));        // Loop: iterCnt, stride
    w.push_back(load_imm_xn(3, (u64{1} << 41) | (u64{1} << 48)));  // one Loop, not replicated
    w.push_back(load_imm_xn(4, 0));
    w.push_back(load_imm_xn(5, kPiece));
    if (mut != AllReduceMutant::DropSetCke) w.push_back(set_cke(0, 0xffff));
    for (u32 q : peers) w.push_back(sync_cke(8, 0, static_cast<u16>(1u << r), static_cast<u16>(q)));
    u32 group = start + static_cast<u32>(w.size());
    w.push_back(loop_group(static_cast<u16>(group + 3), 3, 4));
    w.push_back(load_imm_xn(0, group + 4));
    w.push_back(jmp(0, 0, 1));
    w.push_back(loop(0, 2, 2));
    w.push_back(load_imm_xn(0, 0));
    w.push_back(clear_cke(8, peer_bits));
    for (u32 q : peers) {
      w.push_back(rmt_mem_to_loc_mem(2, static_cast<u16>(10 + q), 1, static_cast<u16>(q), {.set_id = 1, .set_mask = 1},
                                     {.en = true, .type_code = 7, .op_code = 10}));
      w.push_back(clear_cke(1, 1));
    }
    u16 write_bits = 0;
    for (std::size_t k = 0; k < peers.size(); ++k) {
      u16 bit = static_cast<u16>(1u << k);
      write_bits |= bit;
      w.push_back(loc_mem_to_rmt_mem(static_cast<u16>(20 + peers[k]), 2, 1, static_cast<u16>(peers[k]),
                                     {.set_id = 2, .set_mask = bit}));
    }
    w.push_back(clear_cke(2, write_bits));
    for (u32 q : peers) w.push_back(sync_cke(9, 0, static_cast<u16>(1u << r), static_cast<u16>(q)));
    w.push_back(clear_cke(9, peer_bits));

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
