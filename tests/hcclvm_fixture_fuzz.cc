// The byte form of fixtures the fuzz target reads, and its seed corpus.
#include <fmt/format.h>

#include "hcclvm_fixture.h"

namespace cc::test::vm {

namespace {

// Caps that keep one fuzz input small and fast, whatever its bytes say.
constexpr u32 kMaxOps = 16, kMaxTasks = 256, kMaxSyncs = 8;
constexpr std::size_t kMaxBlob = 4096;

void put_int(std::string& s, u64 v, int width) {
  for (int i = 0; i < width; ++i) s += static_cast<char>(v >> (8 * i));
}

void put_blob(std::string& s, const Blob& b) {
  std::size_t n = std::min(b.size(), kMaxBlob);
  put_int(s, n, 2);
  s.append(reinterpret_cast<const char*>(b.data()), n);
}

class Bytes {
 public:
  Bytes(const u8* d, std::size_t n) : d_(d), n_(n) {}
  u64 take(int width) {
    u64 v = 0;
    for (int i = 0; i < width && at_ < n_; ++i) v |= u64{d_[at_++]} << (8 * i);
    return v;
  }
  Blob blob() {
    std::size_t n = std::min<std::size_t>(take(2), std::min(kMaxBlob, n_ - at_));
    Blob b(d_ + at_, d_ + at_ + n);
    at_ += n;
    return b;
  }
  bool done() const { return at_ >= n_; }

 private:
  const u8* d_;
  std::size_t n_, at_ = 0;
};

}  // namespace

// Layout: u8 ops; per op: u8 rank, rankSize, syncIter, root, srcRank,
// dstRank, flags (1: no opMemInfo row, 2: devType 8), blob opDetail, blob
// opExtInfo, 6 × u64 memory, u16 tasks, per task: u16 taskSeq, blob meta;
// then u8 syncs, per sync: u8 syncIter. Blobs: u16 length, bytes.
std::string serialize_fixture(const Fixture& f) {
  std::string s;
  std::size_t ops = std::min<std::size_t>(f.ops.size(), kMaxOps);
  put_int(s, ops, 1);
  for (std::size_t i = 0; i < ops; ++i) {
    const OpFx& o = f.ops[i];
    for (u64 v : {u64{o.rank}, u64{o.rank_size}, o.sync_iter, u64{o.root}, u64{o.src_rank}, u64{o.dst_rank}})
      put_int(s, v, 1);
    put_int(s, (o.mem_row ? 0 : 1) | (o.dev_type == 8 ? 2 : 0), 1);
    put_blob(s, o.detail);
    put_blob(s, o.ext);
    for (u64 v : {o.in_addr, o.in_size, o.out_addr, o.out_size, o.ccl_addr, o.ccl_size}) put_int(s, v, 8);
    std::size_t tasks = std::min<std::size_t>(o.tasks.size(), kMaxTasks);
    put_int(s, tasks, 2);
    for (std::size_t k = 0; k < tasks; ++k) {
      put_int(s, static_cast<u64>(o.tasks[k].seq), 2);
      put_blob(s, o.tasks[k].meta);
    }
  }
  std::size_t syncs = std::min<std::size_t>(f.syncs.size(), kMaxSyncs);
  put_int(s, syncs, 1);
  for (std::size_t i = 0; i < syncs; ++i) put_int(s, f.syncs[i].sync_iter, 1);
  return s;
}

Fixture parse_fixture(const u8* data, std::size_t size) {
  Bytes in(data, size);
  Fixture f;
  u32 ops = static_cast<u32>(in.take(1)) % (kMaxOps + 1);
  for (u32 i = 0; i < ops && !in.done(); ++i) {
    OpFx o;
    o.rank = static_cast<u32>(in.take(1));
    o.rank_size = static_cast<u32>(in.take(1));
    o.sync_iter = in.take(1);
    o.root = static_cast<u32>(in.take(1));
    o.src_rank = static_cast<u32>(in.take(1));
    o.dst_rank = static_cast<u32>(in.take(1));
    u64 flags = in.take(1);
    o.mem_row = !(flags & 1);
    o.dev_type = flags & 2 ? 8 : 6;
    o.pid = 5100 + o.rank;
    o.detail = in.blob();
    o.ext = in.blob();
    for (u64* v : {&o.in_addr, &o.in_size, &o.out_addr, &o.out_size, &o.ccl_addr, &o.ccl_size}) *v = in.take(8);
    u32 tasks = static_cast<u32>(in.take(2)) % (kMaxTasks + 1);
    for (u32 k = 0; k < tasks && !in.done(); ++k) {
      TaskFx t;
      t.seq = static_cast<i64>(in.take(2));
      t.meta = in.blob();
      o.tasks.push_back(std::move(t));
    }
    f.ops.push_back(std::move(o));
  }
  u32 syncs = static_cast<u32>(in.take(1)) % (kMaxSyncs + 1);
  for (u32 i = 0; i < syncs; ++i) f.syncs.push_back({5100, 0, 1, in.take(1)});
  return f;
}

std::vector<std::pair<std::string, std::string>> fuzz_seeds() {
  std::vector<std::pair<std::string, std::string>> seeds;
  Fixture ag = allgather2();
  seeds.emplace_back("allgather2", serialize_fixture(ag));
  // A reduce, a host-stub reduce and a shared notify id.
  Fixture red = ag;
  for (OpFx& o : red.ops) o.detail = op_detail(2, 2, 0, 64);
  red.ops[0].tasks[0].meta = reduce_meta(0, 0, 0, 0x10000000, 0, 0x10010000, 256, 2, 0);
  red.ops[1].tasks[0].meta = reduce_meta(1, 0, 1, 0x20000000, 1, 0x20010100, 64, 2, 10);
  seeds.emplace_back("reduce", serialize_fixture(red));
  // AllGatherV and AllToAllV extensions.
  Fixture agv = ag;
  for (OpFx& o : agv.ops) {
    o.detail = op_detail(16, 2, 0, 64);
    o.ext = v_ext(64, {64, 64}, {0, 64});
  }
  seeds.emplace_back("allgatherv", serialize_fixture(agv));
  Fixture a2a = ag;
  for (OpFx& o : a2a.ops) {
    o.detail = op_detail_a2a(8, 2, 64, 2, 64);
    o.ext = matrix_ext({32, 32, 32, 32});
  }
  seeds.emplace_back("alltoallv", serialize_fixture(a2a));
  // Send/receive and a batch ring.
  Fixture sr = ag;
  sr.ops[0].detail = op_detail(4, 2, 0, 64);
  sr.ops[1].detail = op_detail(5, 2, 0, 64);
  sr.ops[0].dst_rank = 1;
  sr.ops[1].src_rank = 0;
  seeds.emplace_back("sendrecv", serialize_fixture(sr));
  Fixture bsr = ag;
  for (OpFx& o : bsr.ops) {
    o.detail = op_detail(13, 2, 0, 64);
    o.ext = batch_ext(2);
    o.src_rank = o.dst_rank = 1 - o.rank;
  }
  seeds.emplace_back("batchsendrecv", serialize_fixture(bsr));
  // A CCU record, an AIV record, a short blob, several windows.
  Fixture ccu = ag;
  CcuSqe q;
  q.inst_count = 4;
  q.arg_size = 2;
  ccu.ops[0].tasks.push_back({4, ccu_meta(0, 1, q), {}});
  ccu.ops[1].tasks.push_back({4, meta_header(5, 1, 0), {}});
  ccu.ops[1].dev_type = 8;
  seeds.emplace_back("ccu_aiv", serialize_fixture(ccu));
  Fixture bad = ag;
  bad.ops[1].tasks[2].meta.resize(100);
  seeds.emplace_back("short_meta", serialize_fixture(bad));
  Fixture win = ag;
  for (OpFx o : ag.ops) {
    o.sync_iter = 1;
    win.ops.push_back(o);
  }
  seeds.emplace_back("two_windows", serialize_fixture(win));
  return seeds;
}

}  // namespace cc::test::vm
