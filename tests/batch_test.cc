// Batches: parallel runs, shards and merge-reports give what one sequential
// run gives; --max-memory stops cleanly; the progress line.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>

#include "pipeline/batch.h"
#include "export/jsonl.h"
#include "gen_cases.h"
#include "model/builder.h"
#include "test_util.h"

namespace cc::test {
namespace {

// (file, verdict, codes and messages of the findings) of every input, in order.
std::vector<std::string> entries(const std::string& json_path) {
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  EXPECT_EQ(p.load(json_path).get(doc), simdjson::SUCCESS) << json_path;
  std::vector<std::string> out;
  for (simdjson::dom::element in : doc["inputs"].get_array()) {
    std::string e = std::string(std::string_view(in["file"])) + " " + std::string(std::string_view(in["verdict"]));
    for (simdjson::dom::element f : in["findings"].get_array())
      e += " " + std::to_string(int64_t(f["code"])) + ":" + std::string(std::string_view(f["message"]));
    out.push_back(e);
  }
  for (simdjson::dom::element in : doc["errors"].get_array())
    out.push_back("error " + std::string(std::string_view(in["file"])));
  return out;
}

TEST(Stages, Parse) {
  Result<u32> all = parse_stages("graph,single,sync,mem,semantic");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, u32{kAllStages});
  Result<u32> two = parse_stages("sync,mem");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, u32{kStageSync | kStageMem});
  Result<u32> bad = parse_stages("sync,memory");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "unknown stage \"memory\" (graph, single, sync, mem, semantic)");
}

TEST(Shard, ParseAndAssign) {
  Result<Shard> shard = parse_shard("2/5");
  ASSERT_TRUE(shard.ok());
  EXPECT_EQ(shard->index, 1u);
  EXPECT_EQ(shard->count, 5u);
  for (const char* bad : {"0/3", "4/3", "1/0", "x", "1/2/3", "1/2x"}) {
    Result<Shard> r = parse_shard(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message, fmt::format("--shard {}: write K/N with 1 <= K <= N", bad));
  }
  // Every name is in exactly one shard, the same one on every call.
  for (int i = 0; i < 200; ++i) {
    std::string name = "dir/f" + std::to_string(i) + ".jsonl#case";
    int owners = 0;
    for (u32 s = 0; s < 7; ++s) owners += in_shard(name, s, 7);
    EXPECT_EQ(owners, 1) << name;
  }
}

TEST(Batch, ShardsAndParallelRunsEqualOneSequentialRun) {
  // Every golden case; under the sanitizers (COLLCHECK_QUICK_TESTS) the
  // small ones of three folders (150 operators, errors and exit 2 among
  // them): the batch's machinery is the same, and the six runs of every
  // case were the slowest test there (41 s).
  std::string cases = source_dir() + "/tests/cases";
  if (quick_tests())
    cases = fmt::format("{0}/sem {0}/single {0}/malformed", cases);
  std::string all = temp_path("seq.json"), par = temp_path("par.json"), merged = temp_path("merged.json");
  RunResult seq = run_collcheck("check -q -j1 --json " + all + " " + cases);
  RunResult p = run_collcheck("check -q -j2 --json " + par + " " + cases);
  EXPECT_EQ(seq.status, p.status);
  std::vector<std::string> want = entries(all);
  ASSERT_GT(want.size(), 50u);
  EXPECT_EQ(entries(par), want);
  std::string shards;
  for (int k = 1; k <= 4; ++k) {
    std::string s = temp_path("shard" + std::to_string(k) + ".json");
    RunResult r = run_collcheck("check -q -j2 --shard " + std::to_string(k) + "/4 --json " + s + " " + cases);
    EXPECT_NE(r.status, 0);
    EXPECT_LT(entries(s).size(), want.size());
    shards += " " + s;
  }
  RunResult m = run_collcheck("merge-reports" + shards + " -o " + merged);
  EXPECT_EQ(m.status, seq.status) << m.err;
  EXPECT_EQ(entries(merged), want);
  // The same shard twice is two copies of its operators: refused.
  RunResult dup = run_collcheck("merge-reports" + shards + " " + temp_path("shard1.json") + " -o " + merged);
  EXPECT_EQ(dup.status, 2);
  EXPECT_NE(dup.err.find("appears in two reports"), std::string::npos) << dup.err;
  RunResult bad = run_collcheck("merge-reports " + source_dir() + "/README.md -o " + merged);
  EXPECT_EQ(bad.status, 2);
}

TEST(Batch, MergeOfPassingReportsExitsZero) {
  std::string a = temp_path("pa.json"), b = temp_path("pb.json"), m = temp_path("pm.json");
  EXPECT_EQ(run_collcheck("check -q --json " + a + " " + source_dir() + "/examples/allgather2.jsonl").status, 0);
  EXPECT_EQ(run_collcheck("check -q --json " + b + " " + source_dir() + "/tests/cases/ops/direct_allreduce.jsonl").status, 0);
  EXPECT_EQ(run_collcheck("merge-reports " + a + " " + b + " -o " + m).status, 0);
}

// A trace of `n` ranks exchanging along a ring, big enough to need memory.
std::string big_trace(u32 n, u32 steps) {
  Op op;
  op.type = OpType::AllGather;
  op.ranks = n;
  op.data_type = DataType::INT8;
  op.count = 64;
  TraceBuilder b(op);
  for (u32 r = 0; r < n; ++r)
    for (u32 s = 0; s < steps; ++s) {
      b.record(r, 0, (r + 1) % n, s);
      b.wait(r, 0, (r + n - 1) % n, s);
      b.copy(r, 0, b.slice((r + n - 1) % n, "INPUT", 0, 64), b.slice(r, "OUTPUT", ((r + n - 1) % n) * 64, 64));
    }
  std::string path = temp_path("big.jsonl");
  EXPECT_EQ(message_of(write_jsonl_file(b.finish(), path)), "");
  return path;
}

TEST(Batch, MaxMemoryStopsCleanly) {
  std::string path = big_trace(64, 3000);  // ~576k tasks, ~100 MB resident
  RunResult small = run_collcheck("check -q --max-memory 40M " + path);
  EXPECT_EQ(small.status, 2);
  EXPECT_NE(small.err.find("collcheck: error: memory use"), std::string::npos) << small.err;
  EXPECT_NE(small.err.find("passed --max-memory 40M"), std::string::npos) << small.err;
  RunResult enough = run_collcheck("check -q --max-memory 8G " + path);
  EXPECT_NE(enough.status, 2) << enough.err;
  EXPECT_EQ(run_collcheck("check -q --max-memory 12X " + path).status, 2);
}

TEST(Batch, ProgressOnlyWhenAsked) {
  std::string dir = source_dir() + "/tests/cases/graph";
  RunResult quiet = run_collcheck("check -q " + dir);
  EXPECT_EQ(quiet.err.find("inputs,"), std::string::npos) << "not a terminal: no progress line";
  RunResult shown = run_collcheck("check -q --progress " + dir);
  EXPECT_NE(shown.err.find(" inputs, "), std::string::npos) << shown.err;
}

}  // namespace
}  // namespace cc::test
