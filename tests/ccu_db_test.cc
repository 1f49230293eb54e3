// CCU records in HCCL VM databases are expanded and checked (ccu.md,
// hcclvm-db.md §3.5, §7.2): fixtures written by test code with the rows and
// BLOBs HCCL VM writes, holding the CCU AllReduce programs of the trace
// tests, their mutants, and CKE state carried from one window to the next.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "ccu_allreduce.h"
#include "hcclvm_fixture.h"
#include "io/jsonl/reader.h"
#include "test_util.h"

namespace cc::test::vm {
namespace {

// The rows HCCL VM would write for a CCU trace (format version 2): one
// opDetails row per rank, its CCU_GRAPH tasks as opTask rows in stream
// order, ccuInstrRes per (rank, die), ccuChannels, buffer addresses in
// opMemInfo.
void add_ccu_trace(Fixture& f, const Trace& t, u64 sync_iter, u64 first_pid) {
  const Op& op = t.op;
  for (u32 r = 0; r < op.ranks; ++r) {
    OpFx o;
    o.pid = first_pid + r;
    o.rank = r;
    o.sync_iter = o.op_iter = sync_iter;
    o.rank_size = op.ranks;
    o.src_rank = o.dst_rank = r;
    o.dev_type = t.ccu.isa == CcuIsa::A6 ? 8 : 6;
    o.detail = op_detail(cmd_code(op.type), data_type_code(op.data_type), static_cast<u16>(op.reduce_op), op.count);
    for (const CcuAddress& a : t.ccu.addresses) {
      if (a.rank != r) continue;
      u64 size = t.buffer_size(r, a.buf);
      if (a.buf == kInput) o.in_addr = a.addr, o.in_size = size;
      if (a.buf == kOutput) o.out_addr = a.addr, o.out_size = size;
    }
    i64 seq = 0;
    for (const Stream& s : t.streams) {
      if (s.rank != r) continue;
      for (u32 i = 0; i < s.task_count; ++i) {
        const Task& k = t.tasks[s.first_task + i];
        if (k.type == TaskType::CCU_GRAPH) o.tasks.push_back({seq++, ccu_meta(r, s.id, t.ccu.sqes[k.notify()]), {}});
      }
    }
    f.ops.push_back(std::move(o));
    f.syncs.push_back({first_pid + r, r, op.ranks, sync_iter});
  }
  if (sync_iter > 0) return;  // the CCU tables are per database
  for (const CcuImage& img : t.ccu.images) {
    CcuImageFx fx;
    fx.rank = img.rank;
    fx.die = img.die;
    fx.count = img.size;
    fx.space.assign(u64{img.size} * kCcuWordBytes, 0);
    for (const CcuWordBlock& b : img.blocks)
      std::copy(b.bytes.begin(), b.bytes.end(), fx.space.begin() + static_cast<std::ptrdiff_t>(b.start * kCcuWordBytes));
    f.images.push_back(std::move(fx));
  }
  for (const CcuChannel& c : t.ccu.channels) f.channels.push_back({c.channel, c.die, c.peer_die, c.rank, c.peer_rank});
}

Trace read(const CcuProgram& p) {
  Result<ReadTrace> r = read_jsonl_string(p.text(), "p.jsonl");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r.value().trace) : Trace{};
}

std::vector<CheckResult> check_db(const Fixture& f, const std::string& name, const ExpandOptions& opt = {}) {
  auto cases = import_fixture(f, name, {}, nullptr, opt);
  EXPECT_TRUE(cases.ok()) << (cases.ok() ? "" : cases.error().message);
  std::vector<CheckResult> out;
  if (cases.ok())
    for (LoadedCase& c : cases.value()) out.push_back(check_case(c));
  return out;
}

std::string text(const CheckResult& r) {
  std::string s;
  for (const Finding& f : r.findings) s += fmt::format("{} {} {}\n", f.code, f.tag, f.message);
  return s;
}

TEST(CcuDb, AllReduceProgramsAreExpandedAndPass) {
  for (u32 n : {2u, 4u}) {
    Fixture f;
    add_ccu_trace(f, read(ccu_allreduce(n)), 0, 5100);
    std::vector<CheckResult> r = check_db(f, fmt::format("ccu_allreduce_{}", n));
    ASSERT_EQ(r.size(), 1u);
    EXPECT_TRUE(r[0].pass) << text(r[0]);
    EXPECT_EQ(r[0].warnings, 0u) << text(r[0]);
    EXPECT_GT(r[0].tasks, u64{n} * 20);  // the missions' nodes, not just the CCU_GRAPH rows
  }
}

TEST(CcuDb, MutantsFailWithTheirCodes) {
  struct Case {
    AllReduceMutant mutant;
    u16 code;
  };
  for (Case c : {Case{AllReduceMutant::DropSetCke, 102}, {AllReduceMutant::WrongChannel, 112},
                 {AllReduceMutant::LoopCountPlusOne, 302}, {AllReduceMutant::UnalignedLoad, 201}}) {
    Fixture f;
    add_ccu_trace(f, read(ccu_allreduce(4, c.mutant)), 0, 5100);
    std::vector<CheckResult> r = check_db(f, fmt::format("ccu_mutant_{}", static_cast<int>(c.mutant)));
    ASSERT_EQ(r.size(), 1u);
    EXPECT_FALSE(r[0].pass);
    std::set<int> got = codes(r[0]);
    EXPECT_TRUE(got.count(c.code)) << codes_text(got) << "\n" << text(r[0]);
    EXPECT_FALSE(got.count(111)) << "CCU records must not be reported as unsupported";
  }
}

// Two windows of one database: the first leaves cke 5 set, the second waits
// on it. Only with --ccu-carry-cke is the bit still there (§4).
TEST(CcuDb, CarryCkeBetweenOperators) {
  using namespace a5;
  auto program = [](std::vector<Word> words) {
    CcuProgram p;
    p.op = R"({"type":"AllReduce","ranks":1,"dataType":"FP32","count":256,"reduceOp":"SUM"})";
    p.address(0, "INPUT", 0x1000'0000);
    p.address(0, "OUTPUT", 0x2000'0000);
    p.image(0, 0, 0, words);
    p.sqe(0, 0, 0, 0, 0, static_cast<u32>(words.size()), {0x1000'0000, 0x2000'0000, 0x400});
    return p;
  };
  std::vector<Word> copy = {load_sqe_gsa(1, 0), load_sqe_gsa(2, 1), load_sqe_xn(1, 2),
                            loc_mem_to_loc_mem(2, 1, 1, {.set_id = 1, .set_mask = 1}), clear_cke(1, 1)};
  std::vector<Word> first = copy, second = copy;
  first.push_back(set_cke(5, 1));      // never waited for in this operator
  second.push_back(clear_cke(5, 1));   // waits for it in the next
  // Both images share rank 0 die 0: place the second program behind the first.
  std::vector<Word> image = first;
  image.insert(image.end(), second.begin(), second.end());
  CcuProgram a = program(image), b = program(image);
  a.lines.back() = R"({"rank":0,"stream":0,"type":"CCU_GRAPH","dieId":0,"missionId":0,"instStartId":0,"instCnt":6,"args":[268435456,536870912,1024]})";
  b.lines.back() = R"({"rank":0,"stream":0,"type":"CCU_GRAPH","dieId":0,"missionId":0,"instStartId":6,"instCnt":6,"args":[268435456,536870912,1024]})";
  Fixture f;
  add_ccu_trace(f, read(a), 0, 5100);
  add_ccu_trace(f, read(b), 1, 5200);
  for (bool carry : {false, true}) {
    ExpandOptions opt;
    opt.ccu.carry_cke = carry;
    std::vector<CheckResult> r = check_db(f, fmt::format("ccu_carry_{}", carry), opt);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_TRUE(r[0].pass) << text(r[0]);  // a 103 warning for the SetCKE nobody waits on
    EXPECT_EQ(r[1].pass, carry) << text(r[1]);
    EXPECT_EQ(codes(r[1]).count(102), carry ? 0u : 1u) << text(r[1]);
    EXPECT_EQ(has_tag(r[1], "CCU-W-ORPHAN-BITS"), carry) << text(r[1]);
  }
  // Through the binary.
  std::string path;
  ASSERT_TRUE(import_fixture(f, "ccu_carry_cli", {}, &path).ok());
  RunResult plain = run_collcheck(fmt::format("check -q -j1 '{}'", path));
  EXPECT_EQ(plain.status, 1) << plain.out;
  // (Without -q: with several operators, -q prints only those that fail.)
  RunResult carried = run_collcheck(fmt::format("check -j1 --ccu-carry-cke '{}'", path));
  EXPECT_EQ(carried.status, 0) << carried.out << carried.err;
  EXPECT_NE(carried.out.find("#w1-op0: PASS"), std::string::npos) << carried.out;
}

// `collcheck convert` of a database with CCU records writes trace format
// version 2; checking it gives the same findings as checking the database.
TEST(CcuDb, ConvertKeepsTheMissions) {
  Fixture f;
  add_ccu_trace(f, read(ccu_allreduce(2, AllReduceMutant::LoopCountPlusOne)), 0, 5100);
  std::string db;
  ASSERT_TRUE(import_fixture(f, "ccu_convert", {}, &db).ok());
  std::string out = temp_path("ccu_convert_out.jsonl");
  RunResult c = run_collcheck(fmt::format("convert '{}' -o '{}'", db, out));
  ASSERT_EQ(c.status, 0) << c.err;
  // One operator: the file is written under the case's name.
  std::string written;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(out).parent_path()))
    if (e.path().filename().string().rfind("ccu_convert_out", 0) == 0) written = e.path().string();
  ASSERT_NE(written, "");
  RunResult a = run_collcheck(fmt::format("check -j1 --json - '{}'", db));
  RunResult b = run_collcheck(fmt::format("check -j1 --json - '{}'", written));
  EXPECT_EQ(a.status, 1);
  EXPECT_EQ(b.status, 1);
  // The same codes and messages (the reports differ only in file names and times).
  auto codes_in = [](const std::string& json) {
    std::multiset<std::string> s;
    for (std::size_t at = json.find("\"code\":"); at != std::string::npos; at = json.find("\"code\":", at + 1))
      s.insert(json.substr(at, json.find(',', at) - at));
    return s;
  };
  EXPECT_EQ(codes_in(a.out), codes_in(b.out)) << a.out << "\n" << b.out;
  EXPECT_NE(a.out.find("\"code\":302"), std::string::npos);
}

}  // namespace
}  // namespace cc::test::vm
