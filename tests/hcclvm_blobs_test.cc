// The BLOB decoders against the byte tables of hcclvm-db.md §5–§8, hostile
// lengths and counts, and random bytes.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "hcclvm_fixture.h"
#include "io/hcclvm/blobs.h"
#include "io/hcclvm/db.h"
#include "test_util.h"

namespace cc::hcclvm {
namespace {

Bytes bytes(const std::vector<u8>& v) { return Bytes(v.data(), v.size()); }

TEST(HcclvmBlobs, OpDetailOfSection13) {
  // OD of §13.2, byte by byte.
  std::vector<u8> od = {0x06, 0x00, 0x02, 0x00, 0x00, 0x00, 0x40, 0, 0, 0, 0, 0, 0, 0,
                        0x02, 0x00, 0,    0,    0,    0,    0,    0, 0, 0, 0, 0, 0, 0};
  ASSERT_EQ(od.size(), 28u);
  EXPECT_EQ(test::vm::op_detail(6, 2, 0, 64), od);
  auto d = decode_op_detail(bytes(od));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->op_type, 6);
  EXPECT_EQ(d->data_type, 2);
  EXPECT_EQ(d->count, 64u);
  od.pop_back();
  EXPECT_EQ(decode_op_detail(bytes(od)).error().message, "blob is 27 bytes; a packed OpDetails needs 28");
}

TEST(HcclvmBlobs, OpDetailV2View) {
  std::vector<u8> b(28, 0);
  b[0] = 8;                 // ALLTOALLV
  b[2] = 4;                 // send type FP32
  b[6] = 0x34, b[7] = 0x12;  // sendCount 0x1234
  b[14] = 4;
  b[16] = 0x78, b[17] = 0x56;  // recvCount 0x5678
  b[24] = 3;                   // recv type FP16
  auto d = decode_op_detail(bytes(b));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->count, 0x1234u);
  EXPECT_EQ(d->recv_count, 0x5678u);
  EXPECT_EQ(d->recv_data_type, 3);
  EXPECT_EQ(test::vm::op_detail_a2a(8, 4, 0x1234, 3, 0x5678), b);
}

TEST(HcclvmBlobs, TaskMetaOffsets) {
  std::vector<u8> m(155, 0);
  m[0] = 3;                                 // MEM_CPY
  m[3] = 5;                                 // rankId 5
  m[7] = 0x02, m[11] = 0x01;                // streamId 0x0100000002
  m[35] = 1;                                // srcRankId
  for (int i = 0; i < 8; ++i) m[39 + i] = static_cast<u8>(0x11 * (i + 1));  // srcOffset
  m[47] = 2;                                // dstRankId
  m[51 + 7] = 0x80;                         // dstOffset 2^63
  m[59] = 0x00, m[60] = 0x01;               // len 256
  m[67] = 2;                                // protocol RoCE
  auto t = decode_task_meta(bytes(m));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->type, 3);
  EXPECT_EQ(t->rank, 5u);
  EXPECT_EQ(t->stream, 0x0100000002ull);
  EXPECT_EQ(t->src_rank, 1u);
  EXPECT_EQ(t->src_addr, 0x8877665544332211ull);
  EXPECT_EQ(t->dst_rank, 2u);
  EXPECT_EQ(t->dst_addr, u64{1} << 63);
  EXPECT_EQ(t->len, 256u);
  EXPECT_EQ(t->protocol, 2);
  // REDUCE: dataType @67, reduceOp @68, protocol @69.
  m[0] = 2, m[67] = 4, m[68] = 3, m[69] = 2;
  t = decode_task_meta(bytes(m));
  EXPECT_EQ(t->data_type, 4);
  EXPECT_EQ(t->reduce_op, 3);
  EXPECT_EQ(t->protocol, 2);
  // NOTIFY: notifyId @39, dstRankId @47.
  m[0] = 1;
  t = decode_task_meta(bytes(m));
  EXPECT_EQ(t->notify_id, 0x8877665544332211ull);
  EXPECT_EQ(t->src_rank, 1u);
  EXPECT_EQ(t->dst_rank, 2u);
  // CCU: dieId @35, missionId @36, instStartId @39, instCnt @41, key @43,
  // argSize @47, args[k] @51+8k.
  std::vector<u8> c(155, 0);
  c[0] = 4, c[35] = 1, c[36] = 2, c[37] = 7, c[39] = 0x10, c[41] = 13, c[43] = 0xaa, c[47] = 3;
  c[51 + 8 * 12] = 0x5a;
  t = decode_task_meta(bytes(c));
  EXPECT_EQ(t->sqe.die, 1);
  EXPECT_EQ(t->sqe.mission, 2);
  EXPECT_EQ(t->sqe.timeout, 7);
  EXPECT_EQ(t->sqe.inst_start, 0x10);
  EXPECT_EQ(t->sqe.inst_count, 13);
  EXPECT_EQ(t->sqe.key, 0xaau);
  EXPECT_EQ(t->sqe.arg_size, 3u);
  EXPECT_EQ(t->sqe.args[12], 0x5au);
  EXPECT_EQ(test::vm::ccu_meta(0, 0, t->sqe).at(51 + 8 * 12), 0x5a);
  c.resize(154);
  EXPECT_EQ(decode_task_meta(bytes(c)).error().message, "blob is 154 bytes; a packed HcclTaskMetaData needs 155");
}

TEST(HcclvmBlobs, DataTypesAndReduceOps) {
  // §8.3: code -> bytes; 13 and 18+ are refused.
  std::vector<int> size = {1, 2, 4, 2, 4, 8, 8, 1, 2, 4, 8, 2, 16, -1, 1, 1, 1, 1};
  for (u64 c = 0; c < 300; ++c) {
    auto d = hccl_data_type(c);
    if (c < size.size() && size[c] > 0) {
      ASSERT_TRUE(d) << c;
      EXPECT_EQ(static_cast<int>(size_of(*d)), size[c]) << c;
      EXPECT_EQ(test::vm::data_type_code(*d), c);
    } else {
      EXPECT_FALSE(d) << c;
    }
  }
  EXPECT_EQ(hccl_reduce_op(0), ReduceOp::SUM);
  EXPECT_EQ(hccl_reduce_op(1), ReduceOp::PROD);
  EXPECT_EQ(hccl_reduce_op(2), ReduceOp::MAX);
  EXPECT_EQ(hccl_reduce_op(3), ReduceOp::MIN);
  EXPECT_FALSE(hccl_reduce_op(255));
}

TEST(HcclvmBlobs, HostileLengthsAndCounts) {
  // rankSize 2^20 with a small blob: refused by length, nothing allocated.
  std::vector<u8> small(24, 0);
  EXPECT_FALSE(decode_v_counts(bytes(small), kMaxRanks));
  EXPECT_FALSE(decode_v_counts(bytes(small), 0xffffffffu));
  EXPECT_TRUE(decode_v_counts(bytes(small), 1));
  std::vector<u8> m = {0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(decode_matrix(bytes(m), 0xffff).error().message, "cell count 4294967295 needs 34359738364 bytes; the blob has 12");
  m[0] = 1, m[1] = m[2] = m[3] = 0;
  EXPECT_TRUE(decode_matrix(bytes(m), 1));
  EXPECT_EQ(decode_matrix(bytes(m), 2).error().message, "cell count 1 is not rankSize² = 4");
  m.push_back(0);
  EXPECT_FALSE(decode_matrix(bytes(m), 1));
  EXPECT_FALSE(decode_matrix(Bytes(), 1));
  EXPECT_FALSE(decode_batch_items(bytes(small)));
}

TEST(HcclvmBlobs, RandomBytesNeverBreakTheDecoders) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    std::vector<u8> b(rng() % 300);
    for (u8& x : b) x = static_cast<u8>(rng());
    if (b.size() >= 4 && rng() % 2) b[0] = static_cast<u8>(rng() % 10), b[1] = b[2] = b[3] = 0;
    u32 n = static_cast<u32>(rng() % 5);
    decode_op_detail(bytes(b));
    decode_task_meta(bytes(b));
    auto v = decode_v_counts(bytes(b), n);
    if (v) {
      EXPECT_EQ(b.size(), 8 + 16 * std::size_t{n});
    }
    auto mm = decode_matrix(bytes(b), n);
    if (mm) {
      EXPECT_EQ(b.size(), 4 + 8 * std::size_t{n} * n);
    }
    decode_batch_items(bytes(b));
  }
}

// The committed seed corpus of fuzz_hcclvm_blobs is what the fixture
// builder writes; COLLCHECK_WRITE_SEEDS=1 rewrites it.
TEST(HcclvmFuzzSeeds, UpToDate) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(test::source_dir()) / "tests" / "fuzz" / "seeds" / "fuzz_hcclvm_blobs";
  const char* w = std::getenv("COLLCHECK_WRITE_SEEDS");
  bool write = w && std::string(w) == "1";
  if (write) fs::create_directories(dir);
  auto seeds = test::vm::fuzz_seeds();
  for (const auto& [name, data] : seeds) {
    fs::path p = dir / name;
    if (write) {
      std::ofstream(p, std::ios::binary) << data;
      continue;
    }
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str(), data) << p << " is stale: rerun with COLLCHECK_WRITE_SEEDS=1";
  }
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, seeds.size()) << "seed files that the builder no longer writes";
}

// The byte form keeps what the fuzz target needs: a seed reads back as a
// database whose cases are those of the fixture it came from.
TEST(HcclvmFuzzSeeds, ByteFormReadsBack) {
  for (const auto& [name, data] : test::vm::fuzz_seeds()) {
    test::vm::Fixture f = test::vm::parse_fixture(reinterpret_cast<const u8*>(data.data()), data.size());
    EXPECT_EQ(test::vm::serialize_fixture(f), data) << name;
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
    ASSERT_EQ(test::vm::write_fixture(f, db), "") << name;
    auto cases = read_hcclvm_handle(db, "seed.db", InputOptions{});
    sqlite3_close(db);
    if (name == "short_meta") {
      EXPECT_FALSE(cases.ok());
      continue;
    }
    ASSERT_TRUE(cases.ok()) << name << ": " << cases.error().message;
    EXPECT_EQ(cases->size(), name == "two_windows" ? 2u : 1u) << name;
    EXPECT_EQ(cases->front().name, "seed.db#w0-op0");
  }
}

}  // namespace
}  // namespace cc::hcclvm
