#include "gen/send_recv.h"

#include <algorithm>

#include "gen/frame.h"
#include "gen/links.h"

namespace cc::gen {

Result<Trace> gen_send_recv(const GenParams& p) {
  Emitter e = make_emitter("send-recv", p);
  const SendRecvItem item = e.op().items.at(0);
  u32 src = item.src, dst = item.dst;
  u64 u = size_of(p.dtype), d = item.count * u;
  Comm world{0, 1, p.ranks, 0};
  At s{e, world, src, 0}, r{e, world, dst, 0};
  auto sender_syncs = [&] { barrier(s, dst, dst); };
  if (p.graph) {  // [VAR]: the receiver reads src.INPUT straight into OUTPUT
    if (d == 0) return e.finish();
    sender_syncs();
    r.rec(src, Notify::READY);
    r.wt(src, Notify::READY);
    r.wt(src, Notify::FIN);
    r.copy(r.on(src, e.input(), {0, d}), r.mine(e.output(), {0, d}));
    r.rec(src, Notify::FIN);
    return e.finish();
  }
  auto its = iterations(d, max_bytes_flat(p.ccl_bytes, u), "Send/Recv");
  if (!its) return its.error();
  Buf in = e.input_ccl(), out = e.output_ccl();
  for (const Iter& it : *its) {
    copy_in(e, src, e.input(), in, it);
    sender_syncs();
    r.rec(src, Notify::READY);
    r.wt(src, Notify::READY);
    r.wt(src, Notify::FIN);
    r.copy(r.on(src, in, {0, it.cur}), r.mine(out, {0, it.cur}));
    r.rec(src, Notify::FIN);
    copy_out(e, dst, out, e.output(), it);
  }
  return e.finish();
}

namespace {

// One item as one rank sees it: the peer, bytes, and where the data sit in
// the sender's INPUT and the receiver's OUTPUT (items laid out
// consecutively in operator order, §15 [MODEL]).
struct Transfer {
  u32 peer = 0;
  u64 bytes = 0, src_off = 0, dst_off = 0;
  u64 key = 0;
};

// Channel of data moving from a to b: HCCL's two sub-communicators.
u32 direction_channel(u32 a, u32 b) { return a < b ? 1 : 0; }

void send_chunk(Emitter& e, u32 r, const Transfer& t, u64 off, u64 len, Buf in_ccl, bool graph) {
  u32 ch = direction_channel(r, t.peer);
  if (!graph)
    e.copy(r, 0, e.at(r, e.input(), t.src_off + off, len), e.at(r, in_ccl, 0, len));
  e.record(r, 0, t.peer, Notify::READY, ch);
  e.wait(r, 0, t.peer, Notify::FIN, ch);
}

void receive_chunk(Emitter& e, u32 r, const Transfer& t, u64 off, u64 len, Buf in_ccl, Buf out_ccl,
                   bool graph) {
  u32 ch = direction_channel(t.peer, r);
  e.wait(r, 1, t.peer, Notify::READY, ch);
  if (graph) {
    e.copy(r, 1, e.at(t.peer, e.input(), t.src_off + off, len), e.at(r, e.output(), t.dst_off + off, len));
    e.record(r, 1, t.peer, Notify::FIN, ch);
    return;
  }
  e.copy(r, 1, e.at(t.peer, in_ccl, 0, len), e.at(r, out_ccl, 0, len));
  e.record(r, 1, t.peer, Notify::FIN, ch);
  e.copy(r, 1, e.at(r, out_ccl, 0, len), e.at(r, e.output(), t.dst_off + off, len));
}

// Chunks of at most C bytes of every transfer in order: (transfer, offset, length).
struct Chunk {
  const Transfer* t;
  u64 off, len;
};
std::vector<Chunk> chunks_of(const std::vector<Transfer>& ts, u64 c, bool graph) {
  std::vector<Chunk> out;
  for (const Transfer& t : ts) {
    u64 step = graph ? std::max<u64>(t.bytes, 1) : c;
    for (u64 off = 0; off < t.bytes; off += step) out.push_back({&t, off, std::min(step, t.bytes - off)});
  }
  return out;
}

}  // namespace

Result<Trace> gen_batch_send_recv(const GenParams& p) {
  Emitter e = make_emitter("batch-send-recv", p);
  u32 n = p.ranks;
  u64 u = size_of(p.dtype);
  if (!p.graph && p.ccl_bytes == 0) return Error{"--ccl-bytes must be positive"};
  std::vector<std::vector<Transfer>> sends(n), recvs(n);
  std::vector<u64> in_used(n), out_used(n);
  for (const SendRecvItem& it : e.op().items) {
    Transfer t{0, it.count * u, in_used[it.src], out_used[it.dst], 0};
    in_used[it.src] += t.bytes;
    out_used[it.dst] += t.bytes;
    t.peer = it.dst;
    sends[it.src].push_back(t);
    t.peer = it.src;
    recvs[it.dst].push_back(t);
  }
  Buf in_ccl = p.graph ? Buf{} : e.input_ccl(), out_ccl = p.graph ? Buf{} : e.output_ccl();
  for (u32 r = 0; r < n; ++r) {
    std::vector<Transfer>& s = sends[r];
    std::vector<Transfer>& q = recvs[r];
    for (Transfer& t : s) t.key = t.peer <= r ? t.peer + n : t.peer;
    for (Transfer& t : q) t.key = t.peer < r ? t.peer + n : t.peer;
    std::stable_sort(s.begin(), s.end(), [](const Transfer& a, const Transfer& b) { return a.key > b.key; });
    std::stable_sort(q.begin(), q.end(), [](const Transfer& a, const Transfer& b) { return a.key < b.key; });
    std::size_t si = 0, qi = 0;
    while (si < s.size() && qi < q.size() && s[si].peer == r && q[qi].peer == r) {
      e.copy(r, 0, e.at(r, e.input(), s[si].src_off, s[si].bytes), e.at(r, e.output(), q[qi].dst_off, q[qi].bytes));
      ++si, ++qi;
    }
    std::vector<Transfer> rs(s.begin() + si, s.end()), rq(q.begin() + qi, q.end());
    std::vector<Chunk> sc = chunks_of(rs, p.ccl_bytes, p.graph), qc = chunks_of(rq, p.ccl_bytes, p.graph);
    if (sc.empty() && qc.empty()) continue;
    local_record(e, r, 0, Notify::M2S, 1);
    local_wait(e, r, 1, Notify::M2S, 1);
    for (const Chunk& c : sc) send_chunk(e, r, *c.t, c.off, c.len, in_ccl, p.graph);
    for (const Chunk& c : qc) receive_chunk(e, r, *c.t, c.off, c.len, in_ccl, out_ccl, p.graph);
    local_record(e, r, 1, Notify::S2M, 1);
    local_wait(e, r, 0, Notify::S2M, 1);
  }
  return e.finish();
}

}  // namespace cc::gen
