// The ST-log importer: line classes, task-line grammar and attribute syntax
// (stlog.md §2-§4), dump structure (§3), mapping and notify matching (§5),
// operator parameters (§6), reference error lines (§7).
#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>

#include "pipeline/stages.h"
#include "graph/graph.h"
#include "io/detect.h"
#include "io/stlog/reader.h"
#include "io/stlog/syntax.h"
#include "model/describe.h"
#include "stlog_test_util.h"
#include "test_util.h"

namespace cc::test::stlog_reader_test {
namespace {

using namespace st;
namespace fs = std::filesystem;

std::vector<StLogCase> read_ok(const std::string& text, const std::string& op = "",
                               const std::string& glob = "") {
  auto r = read_stlog_string(text, "t.log", StLogOptions{op, glob});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r.value()) : std::vector<StLogCase>{};
}

std::string read_error(const std::string& text, const std::string& op = "") {
  auto r = read_stlog_string(text, "t.log", StLogOptions{op, ""});
  return r.ok() ? std::string() : r.error().message;
}

// Task id at rank/stream/index.
u32 at(const Trace& t, u32 r, u32 s, u32 i) {
  for (const Stream& st : t.streams)
    if (st.rank == r && st.id == s && i < st.task_count) return st.first_task + i;
  ADD_FAILURE() << "no task " << r << "/" << s << "/" << i;
  return 0;
}

std::vector<u16> codes(const StLogCase& c) {
  CheckResult r = run_checks(c.read.trace, c.read.findings, CheckOptions{});
  std::vector<u16> out;
  for (const auto& [key, n] : r.totals) out.push_back(std::get<1>(key));
  return out;
}

// ---------------------------------------------------------------- §2 lines

// A log is recognised by a gtest start or task line at the start of a line;
// a text that quotes them (a README in a folder of logs) is not a log.
TEST(StLogDetect, LinesMustStartWithTheMarkers) {
  EXPECT_EQ(detect_format_text("[ RUN      ] S.c\n", true), InputFormat::StLog);
  EXPECT_EQ(detect_format_text("noise\n[rankId:0, queueId:0, index:0] LocalCopy[]\n", true), InputFormat::StLog);
  EXPECT_EQ(detect_format_text("# Logs\ncut from its `[ RUN      ]` line, `[rankId:0` ...\n", true),
            InputFormat::Unknown);
}

TEST(StLogLines, Classes) {
  EXPECT_EQ(classify_st_line("[ RUN      ] Suite.Case").cls, StLineClass::GtestStart);
  EXPECT_EQ(classify_st_line("[ RUN      ] Prefix/Suite.Case/3").text, "Prefix/Suite.Case/3");
  EXPECT_EQ(classify_st_line("[ RUN     ] Suite.Case").cls, StLineClass::Other) << "five blanks";
  EXPECT_EQ(classify_st_line("[       OK ] Suite.Case (12 ms)").cls, StLineClass::GtestEnd);
  EXPECT_EQ(classify_st_line("[  FAILED  ] P/S.C/1, where GetParam() = 4-byte object <01 00> (3 ms)").cls,
            StLineClass::GtestEnd);
  EXPECT_EQ(classify_st_line("[  FAILED  ] Suite.Case").cls, StLineClass::Other) << "summary: no timing";
  EXPECT_EQ(classify_st_line("[  FAILED  ] 2 tests, listed below:").cls, StLineClass::Other);
  EXPECT_EQ(classify_st_line("[==========] 3 tests ran.").cls, StLineClass::Other);
  EXPECT_EQ(classify_st_line(std::string(55, '=')).cls, StLineClass::Other);
  StLine rank = classify_st_line("rank id is 17");
  EXPECT_EQ(rank.cls, StLineClass::RankHeader);
  EXPECT_EQ(rank.number, 17u);
  EXPECT_EQ(classify_st_line("stream/queue id is 3").cls, StLineClass::QueueHeader);
  EXPECT_EQ(classify_st_line("rank id is 99999999999").cls, StLineClass::Other);
  EXPECT_EQ(classify_st_line("[rankId:0, queueId:0, index:0] X[]").cls, StLineClass::TaskLine);
  // The minute is padded to one digit only, then a blank before ']'.
  StLine err = classify_st_line("[2026-04-07 10:3 :05.123456 ][pid:77][ERROR][checker.cc:9] [77]boom");
  EXPECT_EQ(err.cls, StLineClass::ErrorLog);
  EXPECT_EQ(err.text, "[checker.cc:9] [77]boom");
  EXPECT_EQ(classify_st_line("[2026-04-07 10:3 :05.1][pid:77][INFO][a.cc:1] [77]hi").cls, StLineClass::Other);
  EXPECT_EQ(classify_st_line("Cost time: 1 ms").cls, StLineClass::Other);
}

// ---------------------------------------------------------------- §4 grammar

// An StTask refers into its line: the lines parsed in a test stay alive.
StTask parse_ok(const std::string& text) {
  static std::deque<std::string> lines;
  const std::string& line = lines.emplace_back(text);
  StTask t;
  EXPECT_EQ(message_of(parse_st_task(line, t)), "") << line;
  return t;
}

std::string parse_err(const std::string& line) {
  StTask t;
  return message_of(parse_st_task(line, t));
}

const std::string kPre = "[rankId:3, queueId:2, index:7] ";

TEST(StLogGrammar, EveryKindAndAttributeForm) {
  StTask c = parse_ok(kPre + copy(ds("INPUT", 1, 2), ds("OUTPUT_CCL", 3, 4)));
  EXPECT_EQ(c.kind, StKind::LocalCopy);
  EXPECT_EQ(c.rank, 3u);
  EXPECT_EQ(c.queue, 2u);
  EXPECT_EQ(c.index, 7u);
  ASSERT_EQ(c.srcs.size(), 1u);
  EXPECT_EQ(c.srcs[0].buf, "INPUT");
  EXPECT_EQ(c.srcs[0].offset, 1u);
  EXPECT_EQ(c.dst.buf, "OUTPUT_CCL");
  EXPECT_EQ(c.dst.size, 4u);

  StTask r = parse_ok(kPre + "LocalReduce[dataType=3, reduceOp=2, srcSlice=" + ds("SCRATCH", 0, 8) +
                      ", dstSlice=" + ds("MS", 8, 8) + "]");
  EXPECT_EQ(r.kind, StKind::LocalReduce);
  EXPECT_EQ(r.data_type, DataType::FP16);
  EXPECT_EQ(r.reduce_op, ReduceOp::MAX);

  // The list has no blank after its commas.
  StTask b = parse_ok(kPre + "LocalBatchReduce[dataType=13, reduceOp=3, srcSlice=[" + ds("INPUT", 0, 4) + "," +
                      ds("INPUT_CCL", 4, 4) + "," + ds("INPUT_AIV", 8, 4) + "], dstSlice=" + ds("OUTPUT", 0, 4) +
                      "]");
  EXPECT_EQ(b.kind, StKind::LocalBatchReduce);
  ASSERT_EQ(b.srcs.size(), 3u);
  EXPECT_EQ(b.srcs[1].buf, "INPUT_CCL");
  EXPECT_EQ(b.srcs[2].offset, 8u);
  EXPECT_EQ(b.data_type, DataType::HIF8);
  EXPECT_EQ(b.reduce_op, ReduceOp::MIN);
  EXPECT_EQ(parse_ok(kPre + "LocalBatchReduce[dataType=0, reduceOp=0, srcSlice=[], dstSlice=" + ds("OUTPUT", 0, 4) +
                     "]").srcs.size(),
            0u);

  StTask lp = parse_ok(kPre + lpost(2147483647));
  EXPECT_EQ(lp.kind, StKind::LocalPostTo);
  EXPECT_EQ(lp.topic, 2147483647u);
  EXPECT_EQ(parse_ok(kPre + lwait(0)).kind, StKind::LocalWaitFrom);

  // `link=link prototyp=…` (a blank and '=' in the value), `originated tag` (a blank in the key).
  StTask p = parse_ok(kPre + post(5, "FIN_ACK", "RDMA", "POSTFINACK"));
  EXPECT_EQ(p.kind, StKind::Post);
  EXPECT_EQ(p.remote, 5u);
  EXPECT_EQ(p.link, StLink::RDMA);
  EXPECT_EQ(p.notify_type, StNotifyType::FIN_ACK);
  EXPECT_FALSE(p.ccu_form);
  EXPECT_EQ(p.tag, "POSTFINACK");
  StTask w = parse_ok(kPre + wait(0, "INVALID_A", "INVALID_A", "INVALID"));
  EXPECT_EQ(w.kind, StKind::Wait);
  EXPECT_EQ(w.link, StLink::INVALID_A);
  EXPECT_EQ(w.notify_type, StNotifyType::INVALID_A);
  // The CCU form prints topicId instead of notifyType.
  StTask pc = parse_ok(kPre + "Post[remoteRank=1, " + link("CCU") + ", topicId=12, originated tag=POST]");
  EXPECT_TRUE(pc.ccu_form);
  EXPECT_EQ(pc.notify_type, StNotifyType::CCU);
  EXPECT_EQ(pc.topic, 12u);
  EXPECT_TRUE(parse_ok(kPre + "Wait[remoteRank=1, " + link("CCU") + ", topicId=12, originated tag=WAIT]").ccu_form);

  StTask rd = parse_ok(kPre + read(1, ds("OUTPUT", 0, 8), ds("INPUT", 8, 8)));
  EXPECT_EQ(rd.kind, StKind::Read);
  EXPECT_EQ(rd.local.buf, "OUTPUT");
  EXPECT_EQ(rd.remote_slice.offset, 8u);
  EXPECT_EQ(parse_ok(kPre + write(1, ds("OUTPUT", 0, 8), ds("INPUT", 8, 8))).kind, StKind::Write);
  StTask rr = parse_ok(kPre + "ReadReduce[remoteRank=2, " + link() + ", dataType=12, reduceOp=1, localSlice=" +
                       ds("OUTPUT", 0, 16) + ", remoteSlice=" + ds("INPUT", 0, 16) + "]");
  EXPECT_EQ(rr.kind, StKind::ReadReduce);
  EXPECT_EQ(rr.data_type, DataType::INT128);
  EXPECT_EQ(rr.reduce_op, ReduceOp::PROD);
  EXPECT_EQ(parse_ok(kPre + "WriteReduce[remoteRank=2, " + link() + ", dataType=11, reduceOp=0, localSlice=" +
                     ds("OUTPUT", 0, 16) + ", remoteSlice=" + ds("INPUT", 0, 16) + "]")
                .data_type,
            DataType::BFP16);

  // `mainStreamPos = 3`: blanks around '=' (AIV placeholder).
  EXPECT_EQ(parse_ok(kPre + "AivTaskStub[rankId=3, aivStart=(nil), rankPos=0, mainStreamPos = 3]").kind,
            StKind::AivTaskStub);
  for (const char* k : {"BeingRead", "BeingWrittenReduce", "LocalPostToShadow", "LoopStart", "SetFlag", "PipeBarrier",
                        "VirtualRankStart"})
    EXPECT_EQ(parse_ok(kPre + k + "[x=1]").kind, StKind::Unsupported) << k;
  EXPECT_EQ(parse_ok(kPre + "Frobnicate[anything goes, really]").kind, StKind::Unknown);
  EXPECT_EQ(parse_ok(kPre + "[CCU GRAPH]: mission 3").kind, StKind::CcuGraph);
  // Unknown attributes of known kinds are ignored; values are trimmed.
  EXPECT_EQ(parse_ok(kPre + "LocalPostTo[topicId= 4 , futureKey=1]").topic, 4u);
}

TEST(StLogGrammar, CheckerDataTypesDivergeFromHccl) {
  // CheckerDataType is not HcclDataType (§4.3).
  const DataType want[] = {DataType::INT8,   DataType::INT16,  DataType::INT32, DataType::FP16,
                           DataType::FP32,   DataType::INT64,  DataType::UINT64, DataType::UINT8,
                           DataType::UINT16, DataType::UINT32, DataType::FP64,  DataType::BFP16,
                           DataType::INT128, DataType::HIF8,   DataType::FP8E4M3, DataType::FP8E5M2};
  for (int v = 0; v < 16; ++v) {
    EXPECT_EQ(st_data_type(v), want[v]) << v;
    EXPECT_EQ(st_data_type_value(want[v]), v);
  }
  EXPECT_FALSE(st_data_type(16)) << "RESERVED";
  EXPECT_EQ(st_data_type_value(DataType::FP8E8M0), 0) << "HCCL prints FP8E8M0 as 0";
}

TEST(StLogGrammar, Errors) {
  EXPECT_NE(parse_err("[rankId:-1, queueId:0, index:0] X[]").find("rankId is negative"), std::string::npos);
  EXPECT_NE(parse_err("[rankId:4294967296, queueId:0, index:0] X[]").find("does not fit in 32 bits"),
            std::string::npos);
  EXPECT_NE(parse_err("[rankId:0, queueId:0, index:0] X[").find("must read"), std::string::npos);
  EXPECT_NE(parse_err("[rankId:0, queueId:0, index:0]  X[]").find("must read"), std::string::npos);
  EXPECT_NE(parse_err("[rankId:0,queueId:0, index:0] X[]").find("must read"), std::string::npos);
  EXPECT_NE(parse_err(kPre + "LocalPostTo[topicId=-1]").find("topicId is negative"), std::string::npos);
  EXPECT_NE(parse_err(kPre + "LocalPostTo[topicId=x]").find("not a decimal"), std::string::npos);
  EXPECT_NE(parse_err(kPre + "LocalPostTo[topicId=1, topicId=2]").find("twice"), std::string::npos);
  EXPECT_NE(parse_err(kPre + "LocalPostTo[]").find("lacks topicId"), std::string::npos);
  EXPECT_NE(parse_err(kPre + "LocalCopy[srcSlice=DataSlice[BufferType::INPUT, offset=0, size=1], dstSlice=x]]")
                .find("unbalanced"),
            std::string::npos);
  EXPECT_NE(parse_err(kPre + copy(ds("RESERVED", 0, 1), ds("INPUT", 0, 1))).find("unknown buffer type"),
            std::string::npos);
  EXPECT_NE(parse_err(kPre + copy(ds("Invalid", 0, 1), ds("INPUT", 0, 1))).find("unknown buffer type"),
            std::string::npos);
  EXPECT_NE(parse_err(kPre + copy(ds("INPUT", 0, 1), "DataSlice[BufferType::INPUT, offset=0, size=18446744073709551616]"))
                .find("at most 64 bits"),
            std::string::npos);
  EXPECT_EQ(parse_ok(kPre + copy(ds("INPUT", 18446744073709551615ull, 1), ds("INPUT", 0, 1))).srcs[0].offset,
            18446744073709551615ull);
  EXPECT_NE(parse_err(kPre + "Post[remoteRank=1, " + link() + ", notifyType=NotifyTypeStub::READY, topicId=3]")
                .find("both"),
            std::string::npos);
  EXPECT_NE(parse_err(kPre + "Post[remoteRank=1, link=LinkProtoStub::SDMA, notifyType=NotifyTypeStub::READY]")
                .find("link prototyp"),
            std::string::npos);
  EXPECT_NE(parse_err(kPre + "Post[remoteRank=1, " + link("Invalid") + ", notifyType=NotifyTypeStub::READY]")
                .find("link"),
            std::string::npos);
  EXPECT_NE(parse_err(kPre + "LocalReduce[dataType=4, reduceOp=4, srcSlice=" + ds("INPUT", 0, 4) +
                      ", dstSlice=" + ds("OUTPUT", 0, 4) + "]")
                .find("CheckerReduceOp"),
            std::string::npos);
  EXPECT_NE(parse_err(kPre + "LocalReduce[dataType=-1, reduceOp=0, srcSlice=" + ds("INPUT", 0, 4) +
                      ", dstSlice=" + ds("OUTPUT", 0, 4) + "]")
                .find("negative"),
            std::string::npos);
}

// ---------------------------------------------------------------- §3 dumps

TEST(StLogDumps, CasesNamesAndBoundaries) {
  std::string ag = dump(allgather2());
  std::string text = "chatter before\n" + dump({Queues{{lpost(1), lwait(1)}}}) +  // before any gtest: "dump"
                     gtest("S.one", ag) + gtest("S.none", "no dump here\n") +
                     gtest("S.two", ag + "Cost time: 3 ms\n" + ag, false) + gtest("P/S.param/0", ag) +
                     "[  FAILED  ] S.two\n";
  auto cases = read_ok(text);
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_EQ(cases[0].name, "dump");
  EXPECT_EQ(cases[1].name, "S.one");
  EXPECT_EQ(cases[2].name, "S.two#0");
  EXPECT_EQ(cases[3].name, "S.two#1");
  EXPECT_EQ(cases[3].dump, 1u);
  EXPECT_EQ(cases[4].name, "P/S.param/0");
  EXPECT_EQ(cases[1].read.trace.op.ranks, 2u) << "ranks = number of rank blocks";
  EXPECT_EQ(cases[1].read.trace.tasks.size(), 12u);
  EXPECT_EQ(cases[1].read.trace.name, "S.one");
  EXPECT_EQ(cases[1].read.trace.file, "t.log");
  // Task lines keep their log line numbers.
  EXPECT_EQ(cases[0].read.trace.tasks[0].line, 6u);

  auto some = read_ok(text, "", "S.two*");
  ASSERT_EQ(some.size(), 2u);
  EXPECT_EQ(some[1].name, "S.two#1");
  EXPECT_EQ(read_ok(text, "", "P/*").size(), 1u) << "* matches '/' in case names";
}

TEST(StLogDumps, RankZeroStartsANewDumpAndEmptyQueuesPrintHeaders) {
  // Two Check() calls of one test, no gtest line between them; rank 1 has
  // an empty queue 0 and tasks on queue 1.
  std::string text = gtest("S.t", dump({Queues{{lpost(1), lwait(1)}}}) +
                                      dump({Queues{{}}, Queues{{}, {lwait(2), lpost(2)}}}));
  auto cases = read_ok(text);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[1].read.trace.op.ranks, 2u);
  ASSERT_EQ(cases[1].read.trace.streams.size(), 1u);
  EXPECT_EQ(cases[1].read.trace.streams[0].id, 1u);
}

TEST(StLogDumps, TheSummaryFailedLineDoesNotEndADump) {
  // A dump interrupted by a summary-style line goes on.
  std::string d = dump({Queues{{lpost(1), lwait(1)}}});
  std::size_t cut = d.rfind("[rankId");
  std::string text = "[ RUN      ] S.t\n" + d.substr(0, cut) + "[  FAILED  ] S.t\n" + d.substr(cut);
  auto cases = read_ok(text);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].read.trace.tasks.size(), 2u);
}

TEST(StLogDumps, CarriageReturnsAndNoiseInsideTheLog) {
  std::string text = gtest("S.t", dump(allgather2()));
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(read_ok(crlf)[0].read.trace.tasks.size(), 12u);
}

TEST(StLogDumps, StructureErrors) {
  auto q = [](const std::vector<std::string>& tasks) { return Queues{tasks}; };
  EXPECT_NE(read_error("[ RUN      ] S.t\nrank id is 1\n").find("t.log:2: \"rank id is 1\" outside a dump"),
            std::string::npos);
  EXPECT_NE(read_error("[ RUN      ] S.t\nstream/queue id is 0\n").find("t.log:2:"), std::string::npos);
  std::string two_ranks = dump({q({lpost(1), lwait(1)}), q({lpost(1), lwait(1)})});
  std::string skip = two_ranks;
  skip.replace(skip.find("rank id is 1"), 12, "rank id is 2");
  EXPECT_NE(read_error(skip).find("t.log:8: \"rank id is 2\" where rank id 1 was expected"), std::string::npos);
  std::string gap = two_ranks;
  gap.replace(gap.find("index:1]"), 8, "index:2]");
  EXPECT_NE(read_error(gap).find("t.log:6: index 2 where index 1 was expected"), std::string::npos);
  // A task of another queue in a queue block: it would silently move.
  std::string moved = two_ranks;
  moved.replace(moved.find("queueId:0, index:1"), 9, "queueId:1");
  EXPECT_NE(read_error(moved).find("task of rank 0 queue 1 inside the block of rank 0 queue 0"), std::string::npos);
  // After the dump ended (gtest end), task lines are not noise.
  EXPECT_NE(read_error(gtest("S.t", two_ranks) + "[rankId:1, queueId:0, index:2] LocalPostTo[topicId=3]\n")
                .find("outside a dump"),
            std::string::npos);
  EXPECT_NE(read_error("[ RUN      ] S.t\n[       OK ] S.t (0 ms)\n").find("t.log:1: no task dump"), std::string::npos);
}

// ---------------------------------------------------------------- §5 mapping

TEST(StLogMapping, WorkedExampleOfSection8) {
  auto cases = read_ok(gtest("CollcheckDemo.allgather_2rank_fp32", dump(allgather2())));
  ASSERT_EQ(cases.size(), 1u);
  const Trace& t = cases[0].read.trace;
  auto data = [&](u32 r, u32 s, u32 i) -> std::string { return describe_task(t, at(t, r, s, i)); };
  EXPECT_EQ(data(0, 0, 0), "TRANS_MEM src=rank 0 INPUT [0x0,0x100) dst=rank 0 OUTPUT [0x0,0x100) link=LOCAL");
  EXPECT_EQ(data(1, 0, 2), "TRANS_MEM src=rank 1 INPUT [0x0,0x100) dst=rank 0 OUTPUT [0x100,0x200) link=SDMA");
  EXPECT_EQ(data(1, 0, 3), "TRANS_MEM src=rank 0 INPUT [0x0,0x100) dst=rank 1 OUTPUT [0x0,0x100) link=SDMA");
  EXPECT_EQ(data(1, 1, 1), "TRANS_MEM src=rank 1 INPUT [0x0,0x100) dst=rank 1 OUTPUT [0x100,0x200) link=LOCAL");
  // Keys interned in order of first appearance: K(READY,SDMA)=1,
  // K(FIN,SDMA)=2, Lk(5)=3, Lk(6)=4.
  EXPECT_EQ(data(0, 0, 1), "RECORD(0\u21921 #1 K(READY,SDMA)) link=SDMA tag=TXACK");
  EXPECT_EQ(data(0, 0, 2), "WAIT(1\u21920 #2 K(FIN,SDMA)) link=SDMA tag=RXDATASIGNAL");
  EXPECT_EQ(data(1, 0, 0), "RECORD(1\u21921 #3 Lk(5))");
  EXPECT_EQ(data(1, 0, 1), "WAIT(0\u21921 #1 K(READY,SDMA)) link=SDMA tag=RXACK");
  EXPECT_EQ(data(1, 0, 4), "RECORD(1\u21920 #2 K(FIN,SDMA)) link=SDMA tag=TXDATASIGNAL");
  EXPECT_EQ(data(1, 0, 5), "WAIT(1\u21921 #4 Lk(6))");
  EXPECT_EQ(data(1, 1, 0), "WAIT(1\u21921 #3 Lk(5))");
  EXPECT_EQ(data(1, 1, 2), "RECORD(1\u21921 #4 Lk(6))");
  // Edges besides the stream chains.
  TaskGraph g = build_graph(t);
  EXPECT_TRUE(g.complete);
  EXPECT_EQ(g.partner[at(t, 0, 0, 1)], at(t, 1, 0, 1));
  EXPECT_EQ(g.partner[at(t, 1, 0, 4)], at(t, 0, 0, 2));
  EXPECT_EQ(g.partner[at(t, 1, 0, 0)], at(t, 1, 1, 0));
  EXPECT_EQ(g.partner[at(t, 1, 1, 2)], at(t, 1, 0, 5));
  // Without parameters: pass, with the semantic stage and the bounds skipped.
  EXPECT_EQ(codes(cases[0]), std::vector<u16>{902});
  EXPECT_FALSE(t.op.known);
}

TEST(StLogMapping, ReduceKindsAndRemoteOwnership) {
  std::string rr = "ReadReduce[remoteRank=1, " + link("RDMA") + ", dataType=2, reduceOp=2, localSlice=" +
                   ds("OUTPUT", 0, 8) + ", remoteSlice=" + ds("INPUT", 8, 8) + "]";
  std::string wr = "WriteReduce[remoteRank=1, " + link("INVALID_A") + ", dataType=5, reduceOp=3, localSlice=" +
                   ds("INPUT", 0, 8) + ", remoteSlice=" + ds("OUTPUT_CCL", 16, 8) + "]";
  std::string lb = "LocalBatchReduce[dataType=4, reduceOp=1, srcSlice=[" + ds("INPUT", 0, 8) + "," +
                   ds("SCRATCH", 8, 8) + "], dstSlice=" + ds("OUTPUT", 0, 8) + "]";
  std::string lr = "LocalReduce[dataType=10, reduceOp=0, srcSlice=" + ds("MS", 0, 8) + ", dstSlice=" +
                   ds("OUTPUT", 0, 8) + "]";
  auto cases = read_ok(gtest("S.t", dump({Queues{{rr, wr, lb, lr}}, Queues{}})));
  const Trace& t = cases[0].read.trace;
  EXPECT_EQ(describe_task(t, 0), "REDUCE srcs=[rank 1 INPUT [0x8,0x10)] dst=rank 0 OUTPUT [0x0,0x8) op=MAX "
                                 "dataType=INT32 link=RDMA");
  EXPECT_EQ(describe_task(t, 1), "REDUCE srcs=[rank 0 INPUT [0x0,0x8)] dst=rank 1 OUTPUT_CCL [0x10,0x18) op=MIN "
                                 "dataType=INT64")
      << "INVALID_A leaves the link unset";
  EXPECT_EQ(describe_task(t, 2), "REDUCE srcs=[rank 0 INPUT [0x0,0x8), rank 0 SCRATCH [0x8,0x10)] dst=rank 0 "
                                 "OUTPUT [0x0,0x8) op=PROD dataType=FP32 link=LOCAL");
  EXPECT_EQ(describe_task(t, 3), "REDUCE srcs=[rank 0 MS [0x0,0x8)] dst=rank 0 OUTPUT [0x0,0x8) op=SUM "
                                 "dataType=FP64 link=LOCAL");
}

TEST(StLogMapping, RanksOutsideTheDumpBecomeFindingsLikeInATrace) {
  // A Read from rank 5 of a 2-rank dump: 201 (slice on an unknown rank); a
  // Post to rank 7: 101 (sync peer outside the operator).
  auto cases = read_ok(gtest("S.t", dump({Queues{{read(5, ds("OUTPUT", 0, 8), ds("INPUT", 0, 8)), post(7)}},
                                          Queues{}})));
  std::vector<u16> c = codes(cases[0]);
  EXPECT_NE(std::find(c.begin(), c.end(), 201), c.end());
  EXPECT_NE(std::find(c.begin(), c.end(), 101), c.end());
}

// §5.3: equal link, equal notifyType, equal topic; tags are ignored; the
// post and the wait may share a queue; a local and a remote key never meet.
TEST(StLogMatching, PostWaitKeys) {
  auto check = [](const std::vector<Queues>& ranks) { return codes(read_ok(gtest("S.t", dump(ranks)))[0]); };
  // Different tags on both sides (TXACK / RXACK): they pair.
  EXPECT_EQ(check({Queues{{post(1, "READY", "SDMA", "TXACK")}}, Queues{{wait(0, "READY", "SDMA", "WAIT")}}}),
            std::vector<u16>{902});
  // Different notify type, link or CCU topic: no pair (102 + 103).
  std::vector<u16> broken = {102, 103, 902};
  EXPECT_EQ(check({Queues{{post(1, "READY")}}, Queues{{wait(0, "FIN")}}}), broken);
  EXPECT_EQ(check({Queues{{post(1, "READY", "SDMA")}}, Queues{{wait(0, "READY", "RDMA")}}}), broken);
  std::string pc = "Post[remoteRank=1, " + link("CCU") + ", topicId=4, originated tag=POST]";
  std::string wc = "Wait[remoteRank=0, " + link("CCU") + ", topicId=4, originated tag=WAIT]";
  std::string wc5 = "Wait[remoteRank=0, " + link("CCU") + ", topicId=5, originated tag=WAIT]";
  EXPECT_EQ(check({Queues{{pc}}, Queues{{wc}}}), std::vector<u16>{902});
  EXPECT_EQ(check({Queues{{pc}}, Queues{{wc5}}}), broken);
  // The CCU form with topic 0 is a different notify type than READY.
  std::string pc0 = "Post[remoteRank=1, " + link("SDMA") + ", topicId=0, originated tag=POST]";
  EXPECT_EQ(check({Queues{{pc0}}, Queues{{wait(0, "READY")}}}), broken);
  // The remote rank is part of the key: a wait for rank 2 does not take rank 0's post.
  EXPECT_EQ(check({Queues{{post(1)}}, Queues{{wait(2)}}, Queues{}}), broken);
  // Local: by topic, same queue allowed, and local never pairs with remote.
  EXPECT_EQ(check({Queues{{lpost(3), lwait(3)}}}), std::vector<u16>{902});
  EXPECT_EQ(check({Queues{{lpost(3), lwait(4)}}}), broken);
  EXPECT_EQ(check({Queues{{lpost(0), post(0, "READY"), wait(0, "READY"), lwait(0)}}}), std::vector<u16>{902});
}

TEST(StLogMatching, AmbiguousPostsAre602) {
  auto check = [](const std::vector<Queues>& ranks) { return codes(read_ok(gtest("S.t", dump(ranks)))[0]); };
  // Two slave queues post the same local topic; the main queue waits twice.
  EXPECT_EQ(check({Queues{{lpost(1), lpost(2), lwait(7), lwait(7)}, {lwait(1), lpost(7)}, {lwait(2), lpost(7)}}}),
            (std::vector<u16>{602, 902}));
  // Serialised (the second post waits for the first wait): no 602.
  EXPECT_EQ(check({Queues{{lpost(1), lwait(7), lpost(2), lwait(7)}, {lwait(1), lpost(7)}, {lwait(2), lpost(7)}}}),
            std::vector<u16>{902});
  // Cross-rank: rank 0 posts K(READY,SDMA) to rank 1 from two queues. The
  // dump cannot tell whether the queues use one notify: a warning (code 0,
  // STLOG-W-NOTIFY-AMBIGUOUS), not 602 (tests/stlog_hccl_test.cc).
  EXPECT_EQ(check({Queues{{lpost(1), lpost(2), lwait(3), lwait(4)}, {lwait(1), post(1), lpost(3)},
                          {lwait(2), post(1), lpost(4)}},
                   Queues{{wait(0), wait(0)}}}),
            (std::vector<u16>{0, 902}));
  // The same key posted twice on one queue, nothing ordering the first wait
  // before the second post: 602.
  EXPECT_EQ(check({Queues{{post(1, "FIN", "SDMA", "TXDATASIGNAL"), post(1, "FIN", "SDMA", "TXDATASIGNAL")}},
                   Queues{{wait(0, "FIN", "SDMA", "RXDATASIGNAL"), wait(0, "FIN", "SDMA", "RXDATASIGNAL")}}}),
            (std::vector<u16>{602, 902}));
}

TEST(StLogMapping, UnknownAndUnsupportedKinds) {
  auto cases = read_ok(gtest("S.t", dump({Queues{{lpost(1), "Frobnicate[a=1]", "BeingRead[x=[1,2]]", lwait(1)},
                                                 {"[CCU GRAPH]: mission 2 on die 0"}}})));
  const ReadTrace& r = cases[0].read;
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_EQ(r.findings[0].code, 101);
  EXPECT_NE(r.findings[0].message.find("\"Frobnicate\""), std::string::npos);
  EXPECT_EQ(r.findings[0].tasks, std::vector<u32>{1});
  EXPECT_EQ(r.findings[0].details[0], "Task : 0/0/1 (t.log:7) Frobnicate[a=1]");
  EXPECT_EQ(r.findings[1].code, 111);
  EXPECT_EQ(r.findings[1].tasks, std::vector<u32>{2});
  EXPECT_EQ(r.findings[2].code, 111);
  EXPECT_EQ(r.findings[2].tasks, std::vector<u32>{4});
  EXPECT_EQ(r.trace.tasks[1].type, TaskType::UNKNOWN);
  // A dump with a CCU graph or an AIV launch is refused as a whole.
  EXPECT_TRUE(r.trace.unchecked);
  EXPECT_EQ(codes(cases[0]), (std::vector<u16>{101, 111}));
  // Otherwise the graph is incomplete: stages 4 and 5 are skipped, 1-3 run.
  auto rest = read_ok(gtest("S.t", dump({Queues{{lpost(1), "Frobnicate[a=1]", "BeingRead[x=[1,2]]", lwait(1)},
                                              {copy(ds("INPUT", 0, 1), ds("OUTPUT", 0, 1))}}})));
  EXPECT_FALSE(rest[0].read.trace.unchecked);
  EXPECT_EQ(codes(rest[0]), (std::vector<u16>{101, 111, 203, 902}));
  auto aiv = read_ok(gtest("S.t", dump({Queues{{"AivTaskStub[rankId=0, aivStart=(nil), rankPos=0, mainStreamPos = 0]",
                                               lpost(1)}}})));
  EXPECT_TRUE(aiv[0].read.trace.unchecked);
  EXPECT_EQ(codes(aiv[0]), std::vector<u16>{111});
}

// ---------------------------------------------------------------- §6 parameters

TEST(StLogParams, OpObjectJsonLinesAndSpecificity) {
  std::string ag = dump(allgather2());
  std::string text = gtest("S.a", ag) + gtest("S.b", ag + ag) + gtest("S.c", ag);
  // One op object applies to every dump.
  for (const StLogCase& c : read_ok(text, kAllGather2Op)) {
    EXPECT_TRUE(c.read.trace.op.known) << c.name;
    EXPECT_EQ(c.read.trace.op.type, OpType::AllGather);
    EXPECT_EQ(c.read.trace.buffer_size(0, kOutput), 512u);
    EXPECT_TRUE(c.read.findings.empty()) << c.name;
  }
  // JSON Lines: the most specific entry wins; S.c has none.
  std::string lines =
      R"({"op":{"type":"AllGather","ranks":2,"dataType":"INT8","count":256}})" "\n"
      R"({"test":"S.b","op":{"type":"AllGather","ranks":2,"dataType":"FP16","count":128}})" "\n"
      R"({"test":"S.b","dump":1,"op":{"type":"AllGather","ranks":2,"dataType":"FP32","count":64},"buffers":{"SCRATCH":4096},"rankBuffers":{"1":{"SCRATCH":8}}})" "\n"
      R"({"test":"S.a","dump":0,"op":{"type":"AllReduce","ranks":2,"dataType":"INT32","count":64}})" "\n";
  std::string file = temp_path("stlog_params.jsonl");
  std::ofstream(file) << lines;
  auto cases = read_ok(text, file);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].read.trace.op.type, OpType::AllReduce);
  EXPECT_EQ(cases[1].read.trace.op.data_type, DataType::FP16);
  EXPECT_EQ(cases[2].read.trace.op.data_type, DataType::FP32);
  BufId scratch = cases[2].read.trace.buffers.ids.at("SCRATCH");
  EXPECT_EQ(cases[2].read.trace.buffer_size(0, scratch), 4096u);
  EXPECT_EQ(cases[2].read.trace.buffer_size(1, scratch), 8u);
  EXPECT_EQ(cases[3].read.trace.op.data_type, DataType::INT8);
  // A multi-line op object is one document, not JSON Lines.
  auto pretty = read_ok(gtest("S.a", ag), "{\n  \"type\": \"AllGather\",\n  \"ranks\": 2,\n  \"dataType\": \"FP32\",\n"
                                          "  \"count\": 64\n}\n");
  EXPECT_TRUE(pretty[0].read.trace.op.known);
}

TEST(StLogParams, Errors) {
  std::string text = gtest("S.a", dump(allgather2()));
  EXPECT_NE(read_error(text, R"({"type":"AllGather","ranks":3,"dataType":"FP32","count":64})")
                .find("t.log:3: S.a: the dump has 2 ranks, its operator parameters (--op:1) say 3"),
            std::string::npos);
  EXPECT_NE(read_error(text, R"({"type":"AllGather","ranks":2,"dataType":"FP32"})").find("--op:1: \"op\" lacks \"count\""),
            std::string::npos);
  EXPECT_NE(read_error(text, "{\"test\":\"S.a\",\"op\":{\"type\":\"AllGather\",\"ranks\":2,\"dataType\":\"FP32\","
                             "\"count\":64}}\n{\"test\":\"S.a\",\"op\":{\"type\":\"AllGather\",\"ranks\":2,"
                             "\"dataType\":\"FP32\",\"count\":64}}\n")
                .find("--op:2: a second entry for the same dumps as --op:1"),
            std::string::npos);
  EXPECT_NE(read_error(text, "{\"test\":\"S.a\"}\n{\"nope\":1}\n").find("--op:1: expected an operator object"),
            std::string::npos);
  EXPECT_NE(read_error(text, "/no/such/op.json").find("no such file"), std::string::npos);
}

TEST(StLogParams, InPlaceMapsOutputOntoInput) {
  std::string text = gtest("S.a", dump({Queues{{copy(ds("INPUT", 0, 8), ds("OUTPUT", 8, 8))}}}));
  auto cases = read_ok(text, R"({"type":"AllReduce","ranks":1,"dataType":"INT8","count":16,"inPlace":true})");
  const Trace& t = cases[0].read.trace;
  EXPECT_EQ(t.slices[t.groups[0].dst].buf, kInput);
}

TEST(StLogParams, UndeclaredBuffersGetTheirFurthestUseAnd902) {
  std::string text = gtest("S.a", dump({Queues{{copy(ds("INPUT", 0, 64), ds("SCRATCH", 100, 64)),
                                                copy(ds("SCRATCH", 100, 64), ds("OUTPUT", 0, 64))}}}));
  auto cases = read_ok(text, R"({"type":"AllReduce","ranks":1,"dataType":"INT8","count":64})");
  const ReadTrace& r = cases[0].read;
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, 902);
  EXPECT_NE(r.findings[0].message.find("Bounds of SCRATCH not checked"), std::string::npos);
  EXPECT_EQ(r.trace.buffer_size(0, r.trace.buffers.ids.at("SCRATCH")), 164u);
  // INPUT and OUTPUT come from the operator: a slice past them is 201.
  std::string past = gtest("S.a", dump({Queues{{copy(ds("INPUT", 0, 65), ds("OUTPUT", 0, 65))}}}));
  auto p = read_ok(past, R"({"type":"AllReduce","ranks":1,"dataType":"INT8","count":64})");
  std::vector<u16> c = codes(p[0]);
  EXPECT_NE(std::find(c.begin(), c.end(), 201), c.end());
  EXPECT_EQ(std::find(c.begin(), c.end(), 902), c.end());
  // Without parameters, INPUT and OUTPUT are inferred too.
  auto none = read_ok(past);
  EXPECT_EQ(none[0].read.findings.size(), 2u);
  EXPECT_EQ(none[0].read.trace.buffer_size(0, kOutput), 65u);
}

TEST(StLogParams, SidecarsNextToTheLog) {
  fs::path dir = temp_path("stlog_sidecars");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string ag = dump(allgather2());
  std::ofstream(dir / "run.log") << gtest("S.a", ag) + gtest("P/S.b/0", ag) + gtest("S.c", ag);
  // LOG.op.json for every case; CASE.op.json ('/' as '_' too) overrides it.
  std::ofstream(dir / "run.op.json") << R"({"type":"AllGather","ranks":2,"dataType":"INT8","count":256})";
  std::ofstream(dir / "S.a.op.json") << R"({"type":"AllGather","ranks":2,"dataType":"FP32","count":64})";
  std::ofstream(dir / "P_S.b_0.op.json")
      << R"({"test":"P/S.b/0","op":{"type":"AllGather","ranks":2,"dataType":"FP16","count":128}})";
  auto r = read_stlog_file((dir / "run.log").string(), StLogOptions{});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r.value().size(), 3u);
  EXPECT_EQ(r.value()[0].read.trace.op.data_type, DataType::FP32);
  EXPECT_EQ(r.value()[1].read.trace.op.data_type, DataType::FP16);
  EXPECT_EQ(r.value()[2].read.trace.op.data_type, DataType::INT8);
  // --op wins over every sidecar.
  auto o = read_stlog_file((dir / "run.log").string(),
                           StLogOptions{R"({"type":"AllGather","ranks":2,"dataType":"UINT8","count":256})", ""});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o.value()[0].read.trace.op.data_type, DataType::UINT8);
  // A broken sidecar is an input error naming it.
  std::ofstream(dir / "run.op.json") << "{";
  auto bad = read_stlog_file((dir / "run.log").string(), StLogOptions{});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("run.op.json:1: invalid JSON"), std::string::npos) << bad.error().message;
  fs::remove_all(dir);
}

// ---------------------------------------------------------------- §7 notes

TEST(StLogNotes, ReferenceErrorLinesAreKeptPerDump) {
  std::string err = "[2026-04-07 10:3 :05.123456][pid:9][ERROR][check_rank_mem.cc:88] [9]memory conflict between "
                    "node [rankId:1, queueId:0, index:3] and node [rankId:1, queueId:1, index:1]\n";
  std::string info = "[2026-04-07 10:3 :05.123456][pid:9][INFO][x.cc:1] [9]fine\n";
  auto cases = read_ok(gtest("S.a", dump(allgather2()) + info + err, false) + gtest("S.b", dump(allgather2())));
  ASSERT_EQ(cases[0].read.notes.size(), 1u);
  EXPECT_NE(cases[0].read.notes[0].find("t.log:"), std::string::npos);
  EXPECT_NE(cases[0].read.notes[0].find("memory conflict between node [rankId:1, queueId:0, index:3]"),
            std::string::npos);
  EXPECT_TRUE(cases[1].read.notes.empty());
}

}  // namespace
}  // namespace cc::test::stlog_reader_test
