// The generators against the worked examples and tables of algorithms.md,
// the slicing functions, notify ids, option errors and determinism.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gen/emitter.h"
#include "gen/registry.h"
#include "gen/slicing.h"
#include "export/jsonl.h"
#include "test_util.h"

namespace cc::test {
namespace {

using gen::GenParams;

Trace make(const std::string& algo, GenParams p) {
  Result<Trace> t = gen::generate(algo, p, true);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? std::move(*t) : Trace{};
}

GenParams params(OpType op, u32 n, u64 count, DataType dt = DataType::FP32) {
  GenParams p;
  p.op = op;
  p.ranks = n;
  p.count = count;
  p.dtype = dt;
  return p;
}

// A slice as algorithms.md writes it: `B[a,+L)`, `p.B[a,+L)` on another rank.
std::string slice_text(const Trace& t, const Slice& s, u32 me) {
  return fmt::format("{}{}[{},+{})", s.rank == me ? "" : fmt::format("{}.", s.rank), t.buffers.name(s.buf),
                     s.offset, s.len);
}

// One stream of a rank as lines like "COPY INPUT[0,+256) → INPUT_CCL[0,+256)",
// "REC(0) 0x1000", "WT(2) 0x1", "RED 0.INPUT_CCL[0,+4) → INPUT_CCL[0,+4)".
std::vector<std::string> stream_text(const Trace& t, u32 rank, u32 stream) {
  std::vector<std::string> out;
  for (const Task& k : t.tasks) {
    if (k.rank != rank || k.stream != stream) continue;
    if (k.type == TaskType::RECORD) out.push_back(fmt::format("REC({}) {:#x}", k.peer(), k.notify()));
    else if (k.type == TaskType::WAIT) out.push_back(fmt::format("WT({}) {:#x}", k.peer(), k.notify()));
    else {
      const Group& g = t.group(k, 0);
      out.push_back(fmt::format("{} {} → {}", k.type == TaskType::REDUCE ? "RED" : "COPY",
                                slice_text(t, t.slices[g.first_src], rank), slice_text(t, t.slices[g.dst], rank)));
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += x + "\n";
  return s;
}

TEST(Slicing, EvenSplitExamples) {
  auto p = gen::even_split(1000, 4);  // §1.7
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].off, 0u);
  EXPECT_EQ(p[0].len, 256u);
  EXPECT_EQ(p[3].off, 768u);
  EXPECT_EQ(p[3].len, 232u);
  auto q = gen::even_split(200, 4);  // §4: [0,+128) [128,+72) [200,+0) [200,+0)
  EXPECT_EQ(q[1].off, 128u);
  EXPECT_EQ(q[1].len, 72u);
  EXPECT_EQ(q[2].off, 200u);
  EXPECT_EQ(q[2].len, 0u);
  EXPECT_EQ(q[3].off, 200u);
  auto s = gen::stream_split({512, 488}, 3);  // RU(⌈488/3⌉,128) = 256
  EXPECT_EQ(s[0].off, 512u);
  EXPECT_EQ(s[0].len, 256u);
  EXPECT_EQ(s[1].off, 768u);
  EXPECT_EQ(s[1].len, 232u);
  EXPECT_EQ(s[2].len, 0u);
}

TEST(Slicing, NhrSigmaTable) {  // §8
  using V = std::vector<u32>;
  EXPECT_EQ(gen::nhr_sigma(4), (V{0, 2, 1, 3}));
  EXPECT_EQ(gen::nhr_sigma(5), (V{0, 3, 1, 4, 2}));
  EXPECT_EQ(gen::nhr_sigma(6), (V{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(gen::nhr_sigma(8), (V{0, 4, 2, 6, 1, 5, 3, 7}));
  EXPECT_EQ(gen::nhr_steps(4), 2u);
  EXPECT_EQ(gen::nhr_steps(5), 3u);
  EXPECT_EQ(gen::nhr_steps(2), 1u);
  for (u32 n = 2; n < 70; ++n) {  // always a permutation
    V s = gen::nhr_sigma(n);
    std::sort(s.begin(), s.end());
    for (u32 i = 0; i < n; ++i) ASSERT_EQ(s[i], i) << n;
  }
}

// §2 worked example: op-base, n = 4, cur = D = 256 bytes, unique ids; rank 1's s0.
TEST(GenRing, AllGatherWorkedExample) {
  Trace t = make("ring", params(OpType::AllGather, 4, 64));
  std::vector<std::string> want = {
      "COPY INPUT[0,+256) → INPUT_CCL[0,+256)",
      "COPY INPUT_CCL[0,+256) → OUTPUT_CCL[256,+256)",
      "REC(0) 0x0", "WT(2) 0x0", "REC(2) 0x1", "WT(0) 0x1",
      "COPY 0.OUTPUT_CCL[0,+256) → OUTPUT_CCL[0,+256)",
      "REC(0) 0x1000", "WT(2) 0x1000", "REC(2) 0x1001", "WT(0) 0x1001",
      "COPY 0.OUTPUT_CCL[768,+256) → OUTPUT_CCL[768,+256)",
      "REC(0) 0x2000", "WT(2) 0x2000", "REC(2) 0x2001", "WT(0) 0x2001",
      "COPY 0.OUTPUT_CCL[512,+256) → OUTPUT_CCL[512,+256)",
      "REC(0) 0x3000", "WT(2) 0x3000", "REC(2) 0x3001", "WT(0) 0x3001",
      "COPY OUTPUT_CCL[0,+256) → OUTPUT[0,+256)",
      "COPY OUTPUT_CCL[256,+256) → OUTPUT[256,+256)",
      "COPY OUTPUT_CCL[512,+256) → OUTPUT[512,+256)",
      "COPY OUTPUT_CCL[768,+256) → OUTPUT[768,+256)",
  };
  EXPECT_EQ(joined(stream_text(t, 1, 0)), joined(want));
  EXPECT_EQ(t.buffer_size(1, t.buffers.ids.at("INPUT_CCL")), gen::kDefaultCclBytes);
}

// §4 example: n = 4, FP32, count 250: rank 1 reduces slices 3, 2, 1 from
// rank 0's IN, copies its own slice, then receives slices 0, 3, 2.
TEST(GenRing, AllReduceSliceOrder) {
  Trace t = make("ring", params(OpType::AllReduce, 4, 250));
  std::vector<std::string> data;
  for (const std::string& s : stream_text(t, 1, 0))
    if (s.rfind("REC", 0) && s.rfind("WT", 0)) data.push_back(s);
  std::vector<std::string> want = {
      "COPY INPUT[0,+1000) → INPUT_CCL[0,+1000)",
      "RED 0.INPUT_CCL[768,+232) → INPUT_CCL[768,+232)",
      "RED 0.INPUT_CCL[512,+256) → INPUT_CCL[512,+256)",
      "RED 0.INPUT_CCL[256,+256) → INPUT_CCL[256,+256)",
      "COPY INPUT_CCL[256,+256) → OUTPUT_CCL[256,+256)",
      "COPY 0.OUTPUT_CCL[0,+256) → OUTPUT_CCL[0,+256)",
      "COPY 0.OUTPUT_CCL[768,+232) → OUTPUT_CCL[768,+232)",
      "COPY 0.OUTPUT_CCL[512,+256) → OUTPUT_CCL[512,+256)",
      "COPY OUTPUT_CCL[0,+1000) → OUTPUT[0,+1000)",
  };
  EXPECT_EQ(joined(data), joined(want));
}

// §5.1 worked example: rank 0, n = 4, cur = 256, unique ids, local ch = k.
TEST(GenMesh, AllGatherWorkedExample) {
  Trace t = make("mesh", params(OpType::AllGather, 4, 64));
  std::vector<std::string> s0 = {
      "COPY INPUT[0,+256) → INPUT_CCL[0,+256)", "COPY INPUT_CCL[0,+256) → OUTPUT_CCL[0,+256)",
      "REC(0) 0x15", "REC(0) 0x25", "REC(1) 0x0", "WT(1) 0x0", "REC(1) 0x1", "WT(1) 0x1",
      "COPY 1.OUTPUT_CCL[256,+256) → OUTPUT_CCL[256,+256)",
      "REC(1) 0x1000", "WT(1) 0x1000", "REC(1) 0x1001", "WT(1) 0x1001", "WT(0) 0x16", "WT(0) 0x26",
      "COPY OUTPUT_CCL[0,+256) → OUTPUT[0,+256)", "COPY OUTPUT_CCL[256,+256) → OUTPUT[256,+256)",
      "COPY OUTPUT_CCL[512,+256) → OUTPUT[512,+256)", "COPY OUTPUT_CCL[768,+256) → OUTPUT[768,+256)"};
  std::vector<std::string> s1 = {
      "WT(0) 0x15", "REC(3) 0x0", "WT(3) 0x0", "REC(3) 0x1", "WT(3) 0x1",
      "COPY 3.OUTPUT_CCL[768,+256) → OUTPUT_CCL[768,+256)",
      "REC(3) 0x1000", "WT(3) 0x1000", "REC(3) 0x1001", "WT(3) 0x1001", "REC(0) 0x16"};
  std::vector<std::string> s2 = {
      "WT(0) 0x25", "REC(2) 0x0", "WT(2) 0x0", "REC(2) 0x1", "WT(2) 0x1",
      "COPY 2.OUTPUT_CCL[512,+256) → OUTPUT_CCL[512,+256)",
      "REC(2) 0x1000", "WT(2) 0x1000", "REC(2) 0x1001", "WT(2) 0x1001", "REC(0) 0x26"};
  EXPECT_EQ(joined(stream_text(t, 0, 0)), joined(s0));
  EXPECT_EQ(joined(stream_text(t, 0, 1)), joined(s1));
  EXPECT_EQ(joined(stream_text(t, 0, 2)), joined(s2));
}

// §5.2 table: rank 0, n = 4, (src, dst) per round of each stream.
TEST(GenMesh, ReduceScatterPeerRotation) {
  Trace t = make("mesh", params(OpType::ReduceScatter, 4, 256));
  auto pairs = [&](u32 stream) {
    std::vector<std::string> v;
    auto s = stream_text(t, 0, stream);
    for (std::size_t i = 0; i + 2 < s.size(); ++i)
      if (s[i].rfind("REC(", 0) == 0 && s[i + 1].rfind("WT(", 0) == 0 && s[i + 2].rfind("REC(", 0) == 0 &&
          i + 3 < s.size() && s[i + 3].rfind("WT(", 0) == 0 && i + 4 < s.size() && s[i + 4].rfind("RED", 0) == 0)
        v.push_back(s[i].substr(4, 1) + s[i + 1].substr(3, 1));
    return v;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(pairs(1), (V{"13", "22", "31"}));
  EXPECT_EQ(pairs(2), (V{"22", "31", "13"}));
  EXPECT_EQ(pairs(0), (V{"31", "13", "22"}));
}

TEST(GenSendRecv, ChunkExample) {  // §14: D = 1000, C = 384: chunks 384, 384, 232
  GenParams p = params(OpType::SendRecv, 2, 1000, DataType::INT8);
  p.ccl_bytes = 384;
  Trace t = make("send-recv", p);
  std::vector<std::string> recv;
  for (const std::string& s : stream_text(t, 1, 0))
    if (s.rfind("COPY 0.", 0) == 0) recv.push_back(s);
  EXPECT_EQ(joined(recv), joined({"COPY 0.INPUT_CCL[0,+384) → OUTPUT_CCL[0,+384)",
                                  "COPY 0.INPUT_CCL[0,+384) → OUTPUT_CCL[0,+384)",
                                  "COPY 0.INPUT_CCL[0,+232) → OUTPUT_CCL[0,+232)"}));
}

TEST(GenPairwise, AllToAllVChunkExample) {  // §9: M[0][1] = 70 FP32, C = 128
  GenParams p = params(OpType::AllToAllV, 2, 0);
  p.send_counts = {0, 70, 0, 0};
  p.ccl_bytes = 128;
  Trace t = make("pairwise", p);
  std::vector<std::string> r1 = stream_text(t, 1, 0);
  std::vector<std::string> copies;
  for (const std::string& s : r1)
    if (s.rfind("COPY", 0) == 0) copies.push_back(s);
  EXPECT_EQ(joined(copies), joined({"COPY 0.INPUT_CCL[0,+128) → OUTPUT_CCL[0,+128)",
                                    "COPY OUTPUT_CCL[0,+128) → OUTPUT[0,+128)",
                                    "COPY 0.INPUT_CCL[0,+128) → OUTPUT_CCL[0,+128)",
                                    "COPY OUTPUT_CCL[0,+128) → OUTPUT[128,+128)",
                                    "COPY 0.INPUT_CCL[0,+24) → OUTPUT_CCL[0,+24)",
                                    "COPY OUTPUT_CCL[0,+24) → OUTPUT[256,+24)"}));
  // Rank 1 sends nothing: a zero entry removes that direction entirely.
  for (const std::string& s : r1) EXPECT_NE(s.rfind("COPY INPUT", 0), 0u) << s;
}

// §7, n = 6: r1 and r3 fold into r0 and r2; the block runs on r0 r2 r4 r5.
TEST(GenHd, FoldingPeers) {
  Trace t = make("hd", params(OpType::AllReduce, 6, 1024));
  auto reads = [&](u32 r) {
    std::string s;
    for (const std::string& x : stream_text(t, r, 0))
      if ((x.rfind("RED ", 0) == 0 || x.rfind("COPY ", 0) == 0) && x[x.find(' ') + 1] != 'I' &&
          x[x.find(' ') + 1] != 'O')
        s += x.substr(x.find(' ') + 1, 1);
    return s;
  };
  EXPECT_EQ(reads(0), "14224");  // part one from 1, RS with 4 then 2, AG with 2 then 4
  EXPECT_EQ(reads(1), "0");     // gathers the result from 0
  EXPECT_EQ(reads(5), "2442");
}

TEST(GenNhr, AllReduceReadsMergedSlices) {  // §8.3 table, n = 4: every set of two is one transfer
  Trace t = make("nhr", params(OpType::AllReduce, 4, 256));
  std::vector<std::string> got;
  for (const std::string& x : stream_text(t, 0, 0))
    if (x.rfind("RED ", 0) == 0 || x.rfind("COPY 2", 0) == 0 || x.rfind("COPY 3", 0) == 0) got.push_back(x);
  EXPECT_EQ(joined(got), joined({"RED 1.INPUT_CCL[0,+512) → INPUT_CCL[0,+512)",
                                 "RED 2.INPUT_CCL[0,+256) → INPUT_CCL[0,+256)",
                                 "COPY 2.OUTPUT_CCL[256,+256) → OUTPUT_CCL[256,+256)",
                                 "COPY 3.OUTPUT_CCL[512,+512) → OUTPUT_CCL[512,+512)"}));
}

TEST(GenBatchSendRecv, OrderAllPairs) {  // §15: rank 1 sends to 1, 0, 3, 2; receives 1, 2, 3, 0
  GenParams p = params(OpType::BatchSendRecv, 4, 0);
  p.send_counts.assign(16, 8);
  Trace t = make("batch-send-recv", p);
  std::string sends, recvs;
  for (const std::string& x : stream_text(t, 1, 0))
    if (x.rfind("REC(", 0) == 0 && x[4] != '1') sends += x[4];
  for (const std::string& x : stream_text(t, 1, 1))
    if (x.rfind("COPY ", 0) == 0 && x[5] != 'O') recvs += x[5];
  EXPECT_EQ(sends, "032");
  EXPECT_EQ(recvs, "230");
  EXPECT_EQ(stream_text(t, 1, 0).front(), "COPY INPUT[32,+32) → OUTPUT[32,+32)");
}

TEST(GenNotify, PhysicalIdsAreChannelAndType) {
  GenParams p = params(OpType::AllGather, 4, 64);
  p.physical_notify = true;
  Trace t = make("mesh", p);
  for (const Task& k : t.tasks)
    if (is_sync_task(k.type)) {
      EXPECT_LT(k.notify(), 0x1000u);
    }
  EXPECT_EQ(stream_text(t, 0, 1).front(), "WT(0) 0x15");
}

TEST(GenNotify, G1IsAsserted) {
  Op op;
  op.type = OpType::AllReduce;
  op.ranks = 2;
  gen::Emitter e(op, "x", {});
  e.record(0, 0, 1, gen::Notify::FIN, 0);
  e.record(0, 1, 1, gen::Notify::FIN, 0);  // same class on another stream
  e.wait(1, 0, 0, gen::Notify::FIN, 0);
  e.wait(1, 0, 0, gen::Notify::FIN, 0);
  Result<Trace> t = e.finish();
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("G1"), std::string::npos) << t.error().message;
  gen::Emitter f(op, "x", {});
  f.record(0, 0, 1, gen::Notify::FIN, 0);
  Result<Trace> u = f.finish();
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.error().message.find("1 RECORDs but 0 WAITs"), std::string::npos) << u.error().message;
}

TEST(GenOptions, Errors) {
  GenParams p = params(OpType::Gather, 4, 8);
  EXPECT_FALSE(gen::generate("ring", p, true).ok());   // ring does not serve Gather
  EXPECT_FALSE(gen::generate("nosuch", p, true).ok());
  p = params(OpType::AllGather, 1, 8);
  EXPECT_FALSE(gen::generate("ring", p, true).ok());   // one rank
  p = params(OpType::AllGather, 4, 8);
  p.ccl_bytes = 100;                                     // below 128·n
  EXPECT_FALSE(gen::generate("ring", p, true).ok());
  p = params(OpType::Broadcast, 4, 8);
  p.root = 4;
  EXPECT_FALSE(gen::generate("star", p, true).ok());
  p = params(OpType::AllReduce, 6, 8);
  p.servers = 4;
  EXPECT_FALSE(gen::generate("hierarchical", p, true).ok());
  p.servers = 0;
  EXPECT_TRUE(gen::generate("hierarchical", p, true).ok());  // default: 2 servers
  EXPECT_FALSE(gen::generate("ring", [] { GenParams q = params(OpType::AllReduce, 4, 8); q.servers = 2; return q; }(), true).ok());
  p = params(OpType::AllToAllV, 3, 8);
  p.send_counts = {1, 2, 3};
  EXPECT_FALSE(gen::generate("pairwise", p, true).ok());
  p = params(OpType::AllReduce, 3, ~u64{0} / 2);
  EXPECT_FALSE(gen::generate("ring", p, true).ok());
  p = params(OpType::AllReduce, 300, 8);
  EXPECT_FALSE(gen::generate("mesh", p, true).ok());   // notify channels 0…255
}

TEST(GenOptions, NamesAsUsersWriteThem) {
  auto op_of = [](const char* name) {
    Result<Trace> t = gen::generate(name, params(OpType::AllReduce, 4, 8), false);
    EXPECT_TRUE(t.ok()) << name << ": " << (t.ok() ? "" : t.error().message);
    return t.ok() ? std::string(cc::name(t->op.type)) : std::string();
  };
  EXPECT_EQ(op_of("ring-allgather"), "AllGather");
  EXPECT_EQ(op_of("Ring_AllGather"), "AllGather");
  EXPECT_EQ(op_of("mesh-reducescatter"), "ReduceScatter");
  EXPECT_EQ(op_of("pairwise_AllToAllV"), "AllToAllV");
  EXPECT_EQ(op_of("rhd"), "AllReduce");
  EXPECT_EQ(op_of("recursive-hd-allreduce"), "AllReduce");
  EXPECT_EQ(op_of("hierarchical-nhr-allreduce"), "AllReduce");
  EXPECT_EQ(op_of("batch-send-recv"), "BatchSendRecv");
  EXPECT_FALSE(gen::generate("ring-gather", params(OpType::AllReduce, 4, 8), false).ok());
  EXPECT_FALSE(gen::generate("ring-allgather", params(OpType::AllReduce, 4, 8), true).ok());  // conflicting --op-type
  EXPECT_TRUE(gen::generate("ring-allgather", params(OpType::AllGather, 4, 8), true).ok());
}

TEST(GenOptions, DefaultOperatorIsTheFirstListed) {
  Result<Trace> t = gen::generate("ring", params(OpType::Gather, 4, 8), false);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->op.type, OpType::AllReduce);
}

// FNV-1a of the written trace: generated traces are deterministic.
u64 fnv(const std::string& s) {
  u64 h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

TEST(GenDeterminism, GoldenHashes) {
  GenParams a = params(OpType::AllToAllV, 5, 40);
  a.seed = 7;
  a.ccl_bytes = 64;
  GenParams b = params(OpType::AllReduce, 8, 1000);
  b.servers = 2;
  b.ccl_bytes = 1024;
  b.physical_notify = true;
  GenParams c = params(OpType::AllReduce, 4, 250);
  GenParams d = params(OpType::BatchSendRecv, 4, 10);
  d.seed = 3;
  struct G {
    const char* algo;
    GenParams p;
    u64 hash;
  } golden[] = {
      {"pairwise", a, 0x993ee2beac36dba4},
      {"hierarchical", b, 0x62a9f8cc02da98d1},
      {"ring", c, 0xa7c931bb941a2f3},
      {"batch-send-recv", d, 0x89cc1ebed3db4aa1},
  };
  for (const G& g : golden) {
    std::string text = to_jsonl(make(g.algo, g.p));
    EXPECT_EQ(text, to_jsonl(make(g.algo, g.p)));
    EXPECT_EQ(fnv(text), g.hash) << g.algo << " " << fmt::format("{:#x}", fnv(text));
  }
}

TEST(GenCli, ListAndErrors) {
  RunResult l = run_collcheck("gen --list");
  EXPECT_EQ(l.status, 0);
  EXPECT_NE(l.out.find("pairwise           AllToAllV,AllToAll"), std::string::npos) << l.out;
  EXPECT_NE(l.out.find("hierarchical"), std::string::npos);
  EXPECT_EQ(run_collcheck("gen").status, 2);
  EXPECT_EQ(run_collcheck("gen ring --dtype FP99").status, 2);
  EXPECT_EQ(run_collcheck("gen ring --op-type Gather").status, 2);
  EXPECT_EQ(run_collcheck("gen pairwise --op-type AllToAllV --ranks 2 --send-counts [[1,2],[3]]").status, 2);
  std::string out = temp_path("gen_cli.jsonl");
  RunResult g = run_collcheck("gen pairwise --op-type AllToAllV --ranks 2 --send-counts [[1,2],[3,4]] -o " + out);
  EXPECT_EQ(g.status, 0) << g.err;
  RunResult c = run_collcheck("check -q " + out);
  EXPECT_EQ(c.status, 0) << c.out;
  RunResult s = run_collcheck("gen ring --ranks 3 --count 5");
  EXPECT_EQ(s.status, 0);
  EXPECT_EQ(s.out.rfind("{\"format\":\"collcheck-trace\"", 0), 0u);
}

}  // namespace
}  // namespace cc::test
