// What HCCL's real ST dumps legitimately contain and collcheck must accept
// (stlog.md §5.2, §5.3, §6), and what it must keep finding: copies whose
// destination is recorded larger than the bytes moved, the ST framework's
// buffer sizes, notify keys the dump cannot tell apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "pipeline/stages.h"
#include "export/jsonl.h"
#include "io/stlog/reader.h"
#include "export/stlog.h"
#include "model/describe.h"
#include "stlog_test_util.h"
#include "test_util.h"

namespace cc::test::stlog_hccl_test {
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

// Details with their "(FILE:LINE)" references dropped: they name the file checked.
std::vector<std::string> without_lines(std::vector<std::string> details) {
  static const std::regex file_line(R"( \([^()]*:[0-9]+\))");
  for (std::string& d : details) d = std::regex_replace(d, file_line, "");
  return details;
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

// ---------------------------------------------------------------- §6

// HCCL's 2-rank NB Scatter (ScatterTest.scatter_A3_2Server1Rank_nb_test):
// rank 1 pulls its block from the root's INPUT into its own INPUT, then
// copies it into OUTPUT.
std::vector<Queues> scatter_nb(const std::string& rank1_input = "INPUT") {
  return {Queues{{wait(1, "READY", "SDMA", "RXACK"), post(1, "FIN", "SDMA", "TXASYNC"),
                  wait(1, "FIN", "SDMA", "RXDATASIGNAL"), copy(ds("INPUT", 0, 100), ds("OUTPUT", 0, 100))}},
          Queues{{post(0, "READY", "SDMA", "TXACK"), wait(0, "FIN", "SDMA", "RXASYNC"),
                  read(0, ds(rank1_input, 100, 100), ds("INPUT", 100, 100)), post(0, "FIN", "SDMA", "TXDATASIGNAL"),
                  copy(ds(rank1_input, 100, 100), ds("OUTPUT", 0, 100))}}};
}
const char* kScatter2 = R"({"type":"Scatter","ranks":2,"dataType":"INT8","count":100,"root":0})";

TEST(StLogFrameworkSizes, ScatterRelaysThroughNonRootInputWithAWarning) {
  auto cases = read_ok(gtest("S.t", dump(scatter_nb())), kScatter2);
  const Trace& t = cases[0].read.trace;
  // Every rank's INPUT is ranks·count bytes, OUTPUT count bytes.
  EXPECT_EQ(t.buffer_size(0, kInput), 200u);
  EXPECT_EQ(t.buffer_size(1, kInput), 200u);
  EXPECT_EQ(t.buffer_size(1, kOutput), 100u);
  CheckResult r = check(cases[0]);
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(names(r), std::vector<std::string>{"STLOG-W-SCATTER-RELAY"});
  const Finding* f = first(r, 0, "STLOG-W-SCATTER-RELAY");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::Warning);
  EXPECT_EQ(f->message,
            "Non-root rank 1 of this Scatter uses its own INPUT buffer as relay space (1 writing task). That is "
            "correct only if every rank's send buffer holds ranks x count elements (0xc8 bytes), which HCCL's "
            "algorithm test framework allocates on every rank; a real caller may give a non-root rank a smaller "
            "send buffer, or none.");
  ASSERT_EQ(f->details.size(), 2u);
  EXPECT_EQ(f->details[0].rfind("First write : 1/0/2 (t.log:", 0), 0u) << f->details[0];
  EXPECT_NE(f->details[1].find(R"("rankBuffers", e.g. {"1":{"INPUT":0}})"), std::string::npos) << f->details[1];
  EXPECT_EQ(f->tasks, std::vector<u32>{6});
}

TEST(StLogFrameworkSizes, DeclaredSizesWin) {
  // The caller gave rank 1 no send buffer: the relay is a 201, and no
  // warning (the size is the caller's, not the framework's).
  auto cases = read_ok(gtest("S.t", dump(scatter_nb())),
                       std::string(R"({"op":)") + kScatter2 + R"(,"rankBuffers":{"1":{"INPUT":0}}})");
  EXPECT_EQ(cases[0].read.trace.buffer_size(1, kInput), 0u);
  CheckOptions o;
  o.stages = kStageGraph | kStageSingle | kStageSync;
  std::vector<std::string> got = names(run_checks(cases[0].read.trace, cases[0].read.findings, o));
  EXPECT_EQ(got, (std::vector<std::string>{"201", "902"}));
  // "buffers" wins over the framework's size too.
  auto all = read_ok(gtest("S.t", dump(scatter_nb("SCRATCH"))),
                     std::string(R"({"op":)") + kScatter2 + R"(,"buffers":{"INPUT":300,"SCRATCH":200}})");
  EXPECT_EQ(all[0].read.trace.buffer_size(1, kInput), 300u);
  EXPECT_EQ(names(check(all[0])), std::vector<std::string>{}) << "SCRATCH relay: no warning";
}

TEST(StLogFrameworkSizes, OtherOperators) {
  auto sizes = [](const std::string& op, u32 ranks) {
    std::vector<Queues> q(ranks, Queues{{lpost(1), lwait(1)}});
    auto cases = read_ok(gtest("S.t", dump(q)), op);
    std::vector<std::pair<u64, u64>> out;
    for (u32 r = 0; r < ranks; ++r)
      out.emplace_back(cases[0].read.trace.buffer_size(r, kInput), cases[0].read.trace.buffer_size(r, kOutput));
    return out;
  };
  using V = std::vector<std::pair<u64, u64>>;
  // BatchSendRecv: ranks·count of the first item, on every rank.
  EXPECT_EQ(sizes(R"({"type":"BatchSendRecv","ranks":3,"dataType":"INT32","items":[{"src":0,"dst":1,"count":4},)"
                  R"({"src":1,"dst":2,"count":9}]})",
                  3),
            (V{{48, 48}, {48, 48}, {48, 48}}));
  // Reduce: OUTPUT count·u on every rank, as the operator has it already.
  EXPECT_EQ(sizes(R"({"type":"Reduce","ranks":2,"dataType":"INT16","count":8,"root":1})", 2),
            (V{{16, 16}, {16, 16}}));
  // SendRecv: the source's INPUT and the destination's OUTPUT.
  EXPECT_EQ(sizes(R"({"type":"SendRecv","ranks":3,"dataType":"INT8","items":[{"src":2,"dst":0,"count":5}]})", 3),
            (V{{0, 5}, {0, 0}, {5, 0}}));
  // Others as the operator gives them.
  EXPECT_EQ(sizes(R"({"type":"Gather","ranks":2,"dataType":"INT8","count":5,"root":0})", 2), (V{{5, 10}, {5, 0}}));
}

TEST(StLogFrameworkSizes, BytesBeyondTheOperatorsOwnStartEmpty) {
  // A BatchSendRecv of 2 ranks sending 16 bytes each way: INPUT has 32
  // bytes per rank, of which [16,32) is scratch. Rank 0 stages its block
  // there and rank 1 reads it from there: correct.
  const char* op = R"({"type":"BatchSendRecv","ranks":2,"dataType":"INT8","items":[{"src":0,"dst":1,"count":16},)"
                   R"({"src":1,"dst":0,"count":16}]})";
  auto run = [&](u64 rank0_from) {
    std::vector<Queues> q = {
        Queues{{copy(ds("INPUT", 0, 16), ds("INPUT", 16, 16)), post(1, "READY"), wait(1, "FIN"),
                read(1, ds("OUTPUT", 0, 16), ds("INPUT", 0, 16))}},
        Queues{{wait(0, "READY"), read(0, ds("OUTPUT", 0, 16), ds("INPUT", rank0_from, 16)), post(0, "FIN")}}};
    return names(check(read_ok(gtest("S.t", dump(q)), op)[0]));
  };
  EXPECT_EQ(run(16), std::vector<std::string>{});
  // Without the staging copy, INPUT [16,32) holds nothing: a read of it is
  // an empty copy (404) and rank 1's data missing (406), not rank 0's data
  // from the wrong offset.
  std::vector<Queues> q = {
      Queues{{post(1, "READY"), wait(1, "FIN"), read(1, ds("OUTPUT", 0, 16), ds("INPUT", 0, 16))}},
      Queues{{wait(0, "READY"), read(0, ds("OUTPUT", 0, 16), ds("INPUT", 16, 16)), post(0, "FIN")}}};
  EXPECT_EQ(names(check(read_ok(gtest("S.t", dump(q)), op)[0])), (std::vector<std::string>{"406", "404"})) << "errors first";
  // The same holds for a trace declaring INPUT larger than the operator's.
  std::string h = header(R"({"type":"AllGather","ranks":1,"dataType":"INT8","count":4})", R"("buffers":{"INPUT":8})");
  EXPECT_EQ(codes_of(h + R"({"rank":0,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"INPUT","offset":4,)"
                         R"("len":4},"dst":{"rank":0,"type":"OUTPUT","offset":0,"len":4}})" "\n"),
            (std::vector<u16>{404, 406}));
}

TEST(StLogFrameworkSizes, ConvertKeepsSizesAndTheWarning) {
  auto cases = read_ok(gtest("S.t", dump(scatter_nb())), kScatter2);
  const ReadTrace& in = cases[0].read;
  std::string text = to_jsonl(in.trace, in.findings);
  EXPECT_NE(text.find(R"("buffers":{"INPUT":200})"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("importFindings":[{"code":0,"name":"STLOG-W-SCATTER-RELAY")"), std::string::npos) << text;
  auto back = read_jsonl_string(text, "c.jsonl");
  ASSERT_TRUE(back.ok()) << back.error().message;
  CheckResult a = check(cases[0]), b = run_checks(back.value().trace, back.value().findings, CheckOptions{});
  EXPECT_EQ(names(a), names(b));
  ASSERT_EQ(a.findings.size(), b.findings.size());
  for (std::size_t i = 0; i < a.findings.size(); ++i) EXPECT_EQ(a.findings[i].message, b.findings[i].message);
}

TEST(StLogFrameworkSizes, TheStWriterDeclaresSizesTheFrameworkWouldNotGive) {
  // A trace of a Scatter and a BatchSendRecv with the operator's own sizes:
  // written as an ST dump, its sidecar declares them, so the bounds stay.
  for (const char* op : {R"({"type":"Scatter","ranks":3,"dataType":"INT8","count":4,"root":1})",
                         R"({"type":"BatchSendRecv","ranks":3,"dataType":"INT8","items":[{"src":0,"dst":1,"count":4},)"
                         R"({"src":2,"dst":1,"count":2}]})"}) {
    Trace t = parse(header(op) + R"({"rank":0,"stream":0,"type":"RECORD","waitRank":0,"notifyId":1})" "\n" +
                    R"({"rank":0,"stream":0,"type":"WAIT","recordRank":0,"notifyId":1})" "\n");
    auto st = write_stlog(t, "S.t");
    ASSERT_TRUE(st.ok()) << st.error().message;
    auto back = read_stlog_string(st.value().log, "w.log", StLogOptions{st.value().sidecar, ""});
    ASSERT_TRUE(back.ok()) << back.error().message;
    for (u32 r = 0; r < 3; ++r)
      for (BufId b : {kInput, kOutput})
        EXPECT_EQ(back.value()[0].read.trace.buffer_size(r, b), t.buffer_size(r, b))
            << op << " rank " << r << " buf " << b << "\n" << st.value().sidecar;
  }
}

// ---------------------------------------------------------------- §5.3

// Rank 0 posts K(READY,SDMA) to rank 1 from `n` slave queues that nothing
// orders; rank 1 waits for it n times.
std::vector<Queues> posts_from_queues(u32 n) {
  Queues r0(1);
  for (u32 q = 1; q <= n; ++q) r0[0].push_back(lpost(q));
  for (u32 q = 1; q <= n; ++q) r0[0].push_back(lwait(10 + q));
  for (u32 q = 1; q <= n; ++q) r0.push_back({lwait(q), post(1), lpost(10 + q)});
  return {r0, Queues{std::vector<std::string>(n, wait(0))}};
}

CheckResult check_dump(const std::vector<Queues>& ranks) { return check(read_ok(gtest("S.t", dump(ranks)))[0]); }

const std::string kAmbiguous = "STLOG-W-NOTIFY-AMBIGUOUS";

TEST(StLogNotifyKeys, PostsFromTwoStreamsAreAWarning) {
  CheckResult r = check_dump(posts_from_queues(2));
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(names(r), (std::vector<std::string>{kAmbiguous, "902"}));
  const Finding* f = first(r, 0, kAmbiguous);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::Warning);
  EXPECT_EQ(f->stage, StageTag::SyncCheck);
  EXPECT_EQ(f->message,
            "Notify 0\u21921 #5 K(READY,SDMA) is used on several streams (posted on rank0/s1 and s2, waited for on "
            "rank1/s0) and two of its uses have no order between them; the record does not say whether these "
            "streams share one notify, so whether the pairing depends on timing is unknown.");
  ASSERT_EQ(f->details.size(), 7u);
  EXPECT_EQ(f->details[4], "Missing order: 1/0/0 does not happen before 0/2/1.");
  EXPECT_NE(f->details[5].find("which transport or plane a stream's notifies belong to"), std::string::npos);
  EXPECT_NE(f->details[6].find("HCCL VM database (hccl_vm_data.db)"), std::string::npos);
  // One warning per key, however many pairs: the first, and how many more.
  CheckResult three = check_dump(posts_from_queues(3));
  EXPECT_EQ(three.totals.at({Severity::Warning, 0, kAmbiguous}), 1u);
  const Finding* g = first(three, 0, kAmbiguous);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->details[5], "And 1 more such pair of this notify.");
}

TEST(StLogNotifyKeys, AKeyUsedOnSeveralStreamsIsAWarningThroughout) {
  // Posted twice on one stream but waited for on two streams of rank 1: the
  // two waits may be two planes' notifies.
  std::vector<Queues> two_waiters = {Queues{{post(1, "FIN", "SDMA", "TXDATASIGNAL"), post(1, "FIN", "SDMA", "TXDATASIGNAL")}},
                                     Queues{{lpost(1), wait(0, "FIN", "SDMA", "RXDATASIGNAL"), lwait(2)},
                                            {lwait(1), wait(0, "FIN", "SDMA", "RXDATASIGNAL"), lpost(2)}}};
  CheckResult r = check_dump(two_waiters);
  EXPECT_EQ(names(r), (std::vector<std::string>{kAmbiguous, "902"}));
  const Finding* f = first(r, 0, kAmbiguous);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("(posted on rank0/s0, waited for on rank1/s0 and s1)"), std::string::npos) << f->message;
  // A pair on one stream each, in a key other streams use as well (HCCL's
  // mesh executors): the first-come first-served pairing across planes may
  // have missed the order that separates them. Rank 0 posts on queue 0
  // twice, queue 1 once in between; rank 1 waits on queue 0 for all three.
  std::vector<Queues> mesh = {Queues{{lpost(1), post(1), post(1), lwait(2)}, {lwait(1), post(1), lpost(2)}},
                              Queues{{wait(0), wait(0), wait(0)}}};
  EXPECT_EQ(names(check_dump(mesh)), (std::vector<std::string>{kAmbiguous, "902"}));
}

TEST(StLogNotifyKeys, GenericPostsOnOneStreamAreAWarning) {
  // Post(idx)/Wait(idx) (tags POST/WAIT): their index is not printed.
  auto generic = [](const std::string& second_tag) {
    return std::vector<Queues>{Queues{{post(1, "READY", "SDMA", "POST"), post(1, "READY", "SDMA", second_tag)}},
                               Queues{{wait(0, "READY", "SDMA", "WAIT"), wait(0, "READY", "SDMA", "WAIT")}}};
  };
  CheckResult r = check_dump(generic("POST"));
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(names(r), (std::vector<std::string>{kAmbiguous, "902"}));
  const Finding* f = first(r, 0, kAmbiguous);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("generic Post(idx)/Wait(idx) calls whose notify index the record drops"),
            std::string::npos)
      << f->message;
  EXPECT_NE(f->details[5].find("the notify index of generic Post(idx)/Wait(idx) (tags POST/WAIT)"),
            std::string::npos);
  // One generic post among them is enough: the two may be different notifies.
  EXPECT_EQ(names(check_dump(generic("TXACK"))), (std::vector<std::string>{kAmbiguous, "902"}));
  // The CCU form prints the topic: its keys are exact, POST or not.
  std::string pc = "Post[remoteRank=1, " + link("CCU") + ", topicId=4, originated tag=POST]";
  std::string wc = "Wait[remoteRank=0, " + link("CCU") + ", topicId=4, originated tag=WAIT]";
  EXPECT_EQ(names(check_dump({Queues{{pc, pc}}, Queues{{wc, wc}}})), (std::vector<std::string>{"602", "902"}));
  EXPECT_EQ(names(check_dump({Queues{{lpost(1), lpost(2), lwait(3), lwait(4)}, {lwait(1), pc, lpost(3)},
                                     {lwait(2), pc, lpost(4)}},
                              Queues{{wc, wc}}})),
            (std::vector<std::string>{"602", "902"}));
}

TEST(StLogNotifyKeys, ADataSignalPostedTwiceOnOneStreamIs602) {
  // AllReduceDeterPipelineExecutor's defect: TxDataSignal twice on one
  // stream and link, no acknowledgement between.
  CheckResult r = check_dump({Queues{{post(1, "FIN", "SDMA", "TXDATASIGNAL"), post(1, "FIN", "SDMA", "TXDATASIGNAL")}},
                              Queues{{wait(0, "FIN", "SDMA", "RXDATASIGNAL"), wait(0, "FIN", "SDMA", "RXDATASIGNAL")}}});
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(names(r), (std::vector<std::string>{"602", "902"}));
  const Finding* f = first(r, 602);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->message,
            "Notify 0\u21921 #1 K(FIN,SDMA) is posted twice on rank0/s0 with nothing ordering the wait for the first "
            "post before the second: the second post can be lost.");
  ASSERT_EQ(f->details.size(), 7u);
  EXPECT_EQ(f->details[0].rfind("First post  : 0/0/0 (t.log:", 0), 0u) << f->details[0];
  EXPECT_EQ(f->details[1].rfind("Its wait    : 1/0/0 (t.log:", 0), 0u) << f->details[1];
  EXPECT_EQ(f->details[2].rfind("Second post : 0/0/1 (t.log:", 0), 0u) << f->details[2];
  EXPECT_EQ(f->details[4], "Missing order: 1/0/0 does not happen before 0/0/1.");
  EXPECT_NE(f->details[5].find("a hardware notify is a flag, not a counter"), std::string::npos);
  EXPECT_NE(f->details[6].find("acknowledgement between the two posts"), std::string::npos);
  // With the acknowledgement, nothing.
  EXPECT_EQ(names(check_dump({Queues{{post(1, "FIN", "SDMA", "TXDATASIGNAL"), wait(1, "FIN_ACK"),
                                      post(1, "FIN", "SDMA", "TXDATASIGNAL")}},
                              Queues{{wait(0, "FIN", "SDMA", "RXDATASIGNAL"), post(0, "FIN_ACK"),
                                      wait(0, "FIN", "SDMA", "RXDATASIGNAL")}}})),
            std::vector<std::string>{"902"});
}

TEST(StLogNotifyKeys, TracesKeep602UnlessTheyCarryTheInexactness) {
  // Converted, an ST dump's trace carries which ids are inexact and which
  // tasks lost their index, and gives the same findings.
  for (const std::vector<Queues>& ranks :
       {posts_from_queues(2),
        std::vector<Queues>{Queues{{post(1, "READY", "SDMA", "POST"), post(1, "READY", "SDMA", "POST")}},
                            Queues{{wait(0, "READY", "SDMA", "WAIT"), wait(0, "READY", "SDMA", "WAIT")}}}}) {
    auto cases = read_ok(gtest("S.t", dump(ranks)));
    const ReadTrace& in = cases[0].read;
    std::string text = to_jsonl(in.trace, in.findings);
    EXPECT_NE(text.find(R"("inexactNotifies":[)"), std::string::npos) << text;
    auto back = read_jsonl_string(text, "c.jsonl");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back.value().trace.inexact_notifies, in.trace.inexact_notifies);
    CheckResult a = check(cases[0]), b = run_checks(back.value().trace, back.value().findings, CheckOptions{});
    EXPECT_EQ(names(a), names(b));
    ASSERT_EQ(a.findings.size(), b.findings.size());
    for (std::size_t i = 0; i < a.findings.size(); ++i) {
      EXPECT_EQ(a.findings[i].message, b.findings[i].message);
      EXPECT_EQ(without_lines(a.findings[i].details), without_lines(b.findings[i].details));
    }
    // The same trace without them: every notify is exact, 602.
    std::string exact = text;
    exact.erase(exact.find(R"(,"inexactNotifies":[)"), exact.find(']', exact.find(R"("inexactNotifies")")) + 1 -
                                                           exact.find(R"(,"inexactNotifies":[)"));
    for (std::size_t at; (at = exact.find(R"(,"notifyIndexLost":true)")) != std::string::npos;)
      exact.erase(at, std::string(R"(,"notifyIndexLost":true)").size());
    EXPECT_EQ(names(run_checks(parse(exact), {}, CheckOptions{})), (std::vector<std::string>{"602", "902"})) << exact;
  }
  std::string unknown = R"({"type":"Unknown","ranks":2})";
  EXPECT_NE(reader_error(header(unknown, R"("inexactNotifies":[-1])")).find("inexactNotifies"), std::string::npos);
  EXPECT_NE(reader_error(header(unknown, R"("inexactNotifies":3)")).find("inexactNotifies"), std::string::npos);
  EXPECT_NE(reader_error(header(unknown) + R"({"rank":0,"stream":0,"type":"RECORD","notifyId":1,"notifyIndexLost":1})")
                .find("\"notifyIndexLost\" must be true or false"),
            std::string::npos);
}

// ---------------------------------------------------------------- HCCL's own dumps

// The 32 task dumps of HCCL's algorithm system tests (tests/cases/hccl-st,
// gzip'd, unmodified) with what collcheck must answer: the verdict, and the
// codes (named warnings by their tag) it reports. Converted to a trace and
// to an ST dump, each must give the same again.
TEST(HcclDumps, VerdictsAndFindingsAndTheirConversions) {
  struct Want {
    std::string test;
    bool pass;
    std::vector<std::string> names;
  };
  const std::vector<Want> wants = {
      {"AllGatherTest.allgather_910_93_offload_AllGatherSemiRingExecutor_singleServer", true, {"STLOG-W-NOTIFY-AMBIGUOUS"}},
      {"AllGatherTest.allgather_910_93_opbase_AlignedAllGatherDoubleRingFor91093Executor", true, {"902"}},
      {"AllGatherTest.allgather_910_93_opbase_AllGatherRingFor91093Executor", true, {"902"}},
      {"AllGatherTest.allgather_A3_2Die_HccsSio_offload_test", true, {"STLOG-W-NOTIFY-AMBIGUOUS"}},
      {"AllGatherTest.allgather_AllGatherComm_test", true, {"902"}},
      {"AllReduceTest.all_reduce_executor_deter_big_count_normal", false, {"602", "902"}},
      {"AllReduceTest.allreduce_310P3_opbase_AllReduceDoubling", true, {"902"}},
      {"AllReduceTest.allreduce_310P3_opbase_AllReduceRing", true, {"902"}},
      {"AllReduceTest.allreduce_910A_offload_AllReduceMeshExecutor", true, {"STLOG-W-NOTIFY-AMBIGUOUS"}},
      {"AllReduceTest.allreduce_910_93_offload_AllReduceDoubleRingConcurrentExecutor", true, {"902"}},
      {"AllReduceTest.allreduce_910_93_opbase_AlignedAllReduceDoubleRingFor91093Executor", true, {"902"}},
      {"AllReduceTest.allreduce_A2_2Server_offload_AllReduceMeshGraphPipelineExecutor", true, {}},
      {"AllToAllTest.alltoall_AlltoAllVDirectFullmesh", true, {"902"}},
      {"AllToAllTest.alltoall_superpod_asym_gcd", true, {"902"}},
      {"AllToAllTest.alltoall_test_910B_opbase", true, {"902"}},
      {"AllToAllVTest.alltoallv_test_910B_offload_RunAlltoAllVTwoLevelPipeline", true, {"902"}},
      {"AllToAllVTest.alltoallv_test_910B_opbase", true, {"902"}},
      {"AllToAllVTest.alltoallv_test_910B_opbase_RunAlltoAllVStaged", true, {"902"}},
      {"BatchSendRecvTest.batch_send_recv_allsendrecv_intrapod_2ranks", true, {"902"}},
      {"BatchSendRecvTest.batch_send_recv_allsendrecv_intrapod_8ranks", true, {"902"}},
      {"BroadcastTest.broadcast_A3_2Server1Rank_nb_test", true, {}},
      {"BroadcastTest.broadcast_BroadCastComm_test", true, {"902"}},
      {"BroadcastTest.broadcast_BroadCastRingExecutor_test", true, {"404", "902"}},
      {"BroadcastTest.broadcast_offload_test", true, {}},
      {"ReduceScatterTest.reduce_scatter_910_93_opbase_AlignedReduceScatterDoubleRingFor91093Executor", true, {"902"}},
      {"ReduceScatterTest.reduce_scatter_910_93_opbase_ReduceScatterFastDoubleRingFor91093Executor", true, {"902"}},
      {"ReduceScatterTest.reduce_scatter_ReduceScatterComm_test", true, {"902"}},
      {"ReduceTest.reduce_test_offload_910A", true, {}},
      {"ReduceTest.reduce_test_opbase_ReduceMeshExecutor", true, {}},
      {"ScatterTest.scatter_A3_2Server1Rank_nb_test", true, {"STLOG-W-SCATTER-RELAY"}},
      {"ScatterTest.scatter_ScatterRingFor91093Executor_NHR_NSLB", true, {"902"}},
      {"ScatterTest.scatter_opbase_ScatterCommExecutor_test", true, {"902"}}};
  std::string dir = source_dir() + "/tests/cases/hccl-st/";
  for (const Want& w : wants) {
    auto r = read_stlog_file(dir + w.test + ".log.gz", StLogOptions{});
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r.value().size(), 1u) << w.test;
    const StLogCase& c = r.value()[0];
    EXPECT_TRUE(c.read.trace.op.known) << w.test << ": its sidecar was not found";
    CheckResult got = check(c);
    EXPECT_EQ(got.pass, w.pass) << w.test;
    EXPECT_EQ(names(got), w.names) << w.test;
    // As a trace: the same findings, word for word.
    auto j = read_jsonl_string(to_jsonl(c.read.trace, c.read.findings), "c.jsonl");
    ASSERT_TRUE(j.ok()) << w.test << ": " << j.error().message;
    CheckResult again = run_checks(j.value().trace, j.value().findings, CheckOptions{});
    EXPECT_EQ(names(again), w.names) << w.test << " as a trace";
    ASSERT_EQ(again.findings.size(), got.findings.size()) << w.test;
    for (std::size_t i = 0; i < got.findings.size(); ++i) {
      EXPECT_EQ(again.findings[i].message, got.findings[i].message) << w.test;
      EXPECT_EQ(without_lines(again.findings[i].details), without_lines(got.findings[i].details)) << w.test;
    }
    // Written back as an ST dump: the same verdict and codes, but for the
    // 902 of inferred bounds (the sidecar declares those sizes).
    auto st = write_stlog(j.value().trace, "");
    ASSERT_TRUE(st.ok()) << w.test << ": " << st.error().message;
    auto back = read_stlog_string(st.value().log, "w.log", StLogOptions{st.value().sidecar, ""});
    ASSERT_TRUE(back.ok()) << w.test << ": " << back.error().message;
    auto but_902 = [](std::vector<std::string> v) {
      v.erase(std::remove(v.begin(), v.end(), "902"), v.end());
      return v;
    };
    EXPECT_EQ(but_902(names(check(back.value()[0]))), but_902(w.names)) << w.test << " as an ST dump again";
    if (w.test == "AllReduceTest.all_reduce_executor_deter_big_count_normal") {
      EXPECT_EQ(got.totals.at({Severity::Error, 602, ""}), 36u) << "every re-posted data signal";
    }
  }
}

}  // namespace
}  // namespace cc::test::stlog_hccl_test
