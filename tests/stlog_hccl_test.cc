// What HCCL's real ST dumps legitimately contain and collcheck must accept
// (stlog.md §5.2, §5.3, §6), and what it must keep finding: copies whose
// destination is recorded larger than the bytes moved, the ST framework's
// buffer sizes, notify keys the dump cannot tell apart.
#include <gtest/gtest.h>

#include "check/run_checks.h"
#include "io/jsonl_writer.h"
#include "io/stlog_reader.h"
#include "io/stlog_writer.h"
#include "model/describe.h"
#include "stlog_test_util.h"
#include "test_util.h"

namespace cc::test {
namespace {

using namespace st;

std::vector<StLogCase> read_ok(const std::string& text, const std::string& op = "") {
  auto r = read_stlog_string(text, "t.log", StLogOptions{op, ""});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r.value()) : std::vector<StLogCase>{};
}

CheckResult check(const StLogCase& c) { return run_checks(c.read.trace, c.read.findings, CheckOptions{}); }

// Codes found (code 0: the tag), sorted, once each.
std::vector<std::string> names(const CheckResult& r) {
  std::vector<std::string> out;
  for (const auto& [key, n] : r.totals) {
    const auto& [sev, code, tag] = key;
    out.push_back(code == 0 ? tag : std::to_string(code));
  }
  return out;
}

const Finding* first(const CheckResult& r, u16 code, const std::string& tag = "") {
  for (const Finding& f : r.findings)
    if (f.code == code && f.tag == tag) return &f;
  return nullptr;
}

// One rank, one queue of `tasks`, with a buffer declaration in the op entry.
std::string one_rank(const std::vector<std::string>& tasks) { return gtest("S.t", dump({Queues{tasks}})); }

const char* kAllGather1 = R"({"op":{"type":"AllGather","ranks":1,"dataType":"INT8","count":16},)"
                          R"("buffers":{"INPUT_CCL":64}})";

// ---------------------------------------------------------------- §5.2

TEST(StLogRecordedSize, LargerCopyDestinationsTakeTheSourceSize) {
  // Rank 0 stages its block through INPUT_CCL, recorded with the whole
  // buffer (64 bytes) as HCCL's AllToAll does; rank 1 reads and writes with
  // destinations recorded larger too.
  auto cases = read_ok(gtest("S.t", dump({Queues{{copy(ds("INPUT", 0, 16), ds("INPUT_CCL", 0, 64)),
                                                  copy(ds("INPUT_CCL", 0, 16), ds("OUTPUT", 0, 16))}},
                                          Queues{{read(0, ds("OUTPUT_CCL", 0, 48), ds("INPUT", 0, 16)),
                                                  write(0, ds("INPUT", 0, 16), ds("SCRATCH", 8, 24))}}})),
                       R"({"op":{"type":"AllGather","ranks":2,"dataType":"INT8","count":16},)"
                       R"("buffers":{"INPUT_CCL":64,"OUTPUT_CCL":48,"SCRATCH":32}})");
  ASSERT_EQ(cases.size(), 1u);
  const Trace& t = cases[0].read.trace;
  EXPECT_EQ(describe_task(t, 0),
            "TRANS_MEM src=rank 0 INPUT [0x0,0x10) dst=rank 0 INPUT_CCL [0x0,0x10) (recorded 0x40) link=LOCAL");
  EXPECT_EQ(describe_task(t, 1), "TRANS_MEM src=rank 0 INPUT_CCL [0x0,0x10) dst=rank 0 OUTPUT [0x0,0x10) link=LOCAL");
  EXPECT_EQ(describe_task(t, 2),
            "TRANS_MEM src=rank 0 INPUT [0x0,0x10) dst=rank 1 OUTPUT_CCL [0x0,0x10) (recorded 0x30) link=SDMA");
  EXPECT_EQ(describe_task(t, 3),
            "TRANS_MEM src=rank 1 INPUT [0x0,0x10) dst=rank 0 SCRATCH [0x8,0x18) (recorded 0x18) link=SDMA");
  ASSERT_EQ(t.recorded_lens.size(), 3u);
  EXPECT_EQ(t.recorded_len(t.group(t.tasks[0], 0).dst), 64u);
  EXPECT_FALSE(t.recorded_len(t.group(t.tasks[0], 0).first_src));
  // No finding at all: not 201, no warning. (The OUTPUT of this AllGather is
  // incomplete, which stage 5 would say: stop before it.)
  CheckOptions o;
  o.stages = kStageGraph | kStageSingle | kStageSync | kStageMem;
  CheckResult r = run_checks(t, cases[0].read.findings, o);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(names(r), std::vector<std::string>{"902"}) << "only the --stages skip";
}

TEST(StLogRecordedSize, TheRecordedExtentMustLieInItsBuffer) {
  // INPUT_CCL has 64 bytes: a destination recorded with 80 from offset 0 is
  // 201, though the 16 bytes moved fit.
  auto cases = read_ok(one_rank({copy(ds("INPUT", 0, 16), ds("INPUT_CCL", 0, 80)),
                                 copy(ds("INPUT_CCL", 0, 16), ds("OUTPUT", 0, 16))}),
                       kAllGather1);
  CheckResult r = check(cases[0]);
  EXPECT_EQ(names(r), std::vector<std::string>{"201"});
  const Finding* f = first(r, 201);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->message,
            "Invalid slice in 0/0/0: dst rank 0 INPUT_CCL [0x0,0x10) recorded with length 0x50: as recorded it ends "
            "at 0x50, past the end of the buffer (size 0x40).");
  // Recorded within the buffer: nothing.
  EXPECT_EQ(names(check(read_ok(one_rank({copy(ds("INPUT", 0, 16), ds("INPUT_CCL", 0, 64)),
                                          copy(ds("INPUT_CCL", 0, 16), ds("OUTPUT", 0, 16))}),
                                kAllGather1)[0])),
            std::vector<std::string>{});
}

TEST(StLogRecordedSize, SmallerDestinationsAndReducesStay201) {
  auto codes201 = [](const std::string& task) {
    auto cases = read_ok(one_rank({task}), kAllGather1);
    CheckOptions o;
    o.stages = kStageGraph | kStageSingle;
    CheckResult r = run_checks(cases[0].read.trace, cases[0].read.findings, o);
    EXPECT_TRUE(cases[0].read.trace.recorded_lens.empty()) << task;
    return r.totals.count({Severity::Error, 201, ""}) ? 201 : 0;
  };
  // A copy whose destination is smaller than its source: 201.
  EXPECT_EQ(codes201(copy(ds("INPUT", 0, 16), ds("INPUT_CCL", 0, 8))), 201);
  EXPECT_EQ(codes201(read(0, ds("INPUT_CCL", 0, 8), ds("INPUT", 0, 16))), 201);
  // Any difference in a reduce kind, larger destination included.
  EXPECT_EQ(codes201("LocalReduce[dataType=0, reduceOp=0, srcSlice=" + ds("INPUT", 0, 8) +
                     ", dstSlice=" + ds("INPUT_CCL", 0, 16) + "]"),
            201);
  EXPECT_EQ(codes201("ReadReduce[remoteRank=0, " + link() + ", dataType=0, reduceOp=0, localSlice=" +
                     ds("INPUT_CCL", 0, 16) + ", remoteSlice=" + ds("INPUT", 0, 8) + "]"),
            201);
  EXPECT_EQ(codes201("WriteReduce[remoteRank=0, " + link() + ", dataType=0, reduceOp=0, localSlice=" +
                     ds("INPUT", 0, 8) + ", remoteSlice=" + ds("INPUT_CCL", 0, 16) + "]"),
            201);
  EXPECT_EQ(codes201("LocalBatchReduce[dataType=0, reduceOp=0, srcSlice=[" + ds("INPUT", 0, 8) + "," +
                     ds("INPUT", 8, 8) + "], dstSlice=" + ds("INPUT_CCL", 0, 16) + "]"),
            201);
}

TEST(StLogRecordedSize, InferredBoundsCoverTheRecordedExtent) {
  // No size for INPUT_CCL: it is declared as its furthest use as recorded.
  auto cases = read_ok(one_rank({copy(ds("INPUT", 0, 16), ds("INPUT_CCL", 0, 200)),
                                 copy(ds("INPUT_CCL", 0, 16), ds("OUTPUT", 0, 16))}),
                       R"({"type":"AllGather","ranks":1,"dataType":"INT8","count":16})");
  const Trace& t = cases[0].read.trace;
  EXPECT_EQ(t.buffer_size(0, t.buffers.ids.at("INPUT_CCL")), 200u);
  EXPECT_EQ(names(check(cases[0])), std::vector<std::string>{"902"});
}

TEST(StLogRecordedSize, ConvertKeepsTheRecordedSize) {
  std::string log = one_rank({copy(ds("INPUT", 0, 16), ds("INPUT_CCL", 0, 80)),
                              copy(ds("INPUT_CCL", 0, 16), ds("OUTPUT", 0, 16))});
  auto cases = read_ok(log, kAllGather1);
  const ReadTrace& in = cases[0].read;
  // The trace format carries it as the destination's "recordedLen" ...
  std::string text = to_jsonl(in.trace, in.findings);
  EXPECT_NE(text.find(R"("dst":{"rank":0,"type":"INPUT_CCL","offset":0,"len":16,"recordedLen":80})"),
            std::string::npos)
      << text;
  auto back = read_jsonl_string(text, "c.jsonl");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back.value().trace.recorded_lens, in.trace.recorded_lens);
  CheckResult a = check(cases[0]), b = run_checks(back.value().trace, back.value().findings, CheckOptions{});
  ASSERT_EQ(a.findings.size(), b.findings.size());
  for (std::size_t i = 0; i < a.findings.size(); ++i) EXPECT_EQ(a.findings[i].message, b.findings[i].message);
  // ... and the ST writer writes the size as recorded.
  auto st = write_stlog(back.value().trace, "S.t");
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_NE(st.value().log.find("[rankId:0, queueId:0, index:0] " + copy(ds("INPUT", 0, 16), ds("INPUT_CCL", 0, 80))),
            std::string::npos)
      << st.value().log;
}

TEST(StLogRecordedSize, TraceReaderRefusesMeaninglessRecordedLengths) {
  std::string h = header(R"({"type":"AllGather","ranks":1,"dataType":"INT8","count":4})", R"("buffers":{"CCL":64})");
  auto copy_line = [](const std::string& src, const std::string& dst) {
    return R"({"rank":0,"stream":0,"type":"TRANS_MEM","src":)" + src + R"(,"dst":)" + dst + "}\n";
  };
  std::string in = R"({"rank":0,"type":"INPUT","offset":0,"len":4})";
  EXPECT_EQ(reader_error(h + copy_line(in, R"({"rank":0,"type":"CCL","offset":0,"len":4,"recordedLen":64})")), "");
  EXPECT_NE(reader_error(h + copy_line(in, R"({"rank":0,"type":"CCL","offset":0,"len":4,"recordedLen":4})"))
                .find("\"recordedLen\" 4 must be larger than \"len\" 4"),
            std::string::npos);
  EXPECT_NE(reader_error(h + copy_line(R"({"rank":0,"type":"INPUT","offset":0,"len":4,"recordedLen":8})",
                                       R"({"rank":0,"type":"CCL","offset":0,"len":4})"))
                .find("only a copy's \"dst\""),
            std::string::npos);
  EXPECT_NE(reader_error(h + R"({"rank":0,"stream":0,"type":"REDUCE","src":)" + in +
                         R"(,"dst":{"rank":0,"type":"CCL","offset":0,"len":4,"recordedLen":8}})" "\n")
                .find("only a copy's \"dst\""),
            std::string::npos);
}

}  // namespace
}  // namespace cc::test
