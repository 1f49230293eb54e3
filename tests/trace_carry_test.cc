// What a trace carries beyond trace-format.md's core so that an imported
// operator survives conversion: the unknown operator, notify names, tags and
// the importer's findings (DESIGN.md, "Decisions where HCCL leaves a choice open").
#include <gtest/gtest.h>

#include "export/jsonl.h"
#include "io/stlog/reader.h"
#include "stlog_test_util.h"
#include "test_util.h"

namespace cc::test {
namespace {

using namespace st;

TEST(TraceCarry, ImportedTraceSurvivesJsonLines) {
  auto r = read_stlog_string(gtest("S.t", dump({Queues{{lpost(1), "Frobnicate[x=1]", lwait(1), post(1)}},
                                                Queues{{wait(0, "READY", "SDMA", "RXACK")}}})),
                             "t.log", StLogOptions{});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const ReadTrace& in = r.value()[0].read;
  std::string text = to_jsonl(in.trace, in.findings);
  EXPECT_NE(text.find(R"("op":{"type":"Unknown","ranks":2})"), std::string::npos) << text;
  EXPECT_NE(text.find(R"x("notifyNames":{"1":"Lk(1)","2":"K(READY,SDMA)"})x"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("tag":"TXACK")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("importFindings":[{"code":101)"), std::string::npos) << text;
  auto back = read_jsonl_string(text, "t.jsonl");
  ASSERT_TRUE(back.ok()) << back.error().message;
  const ReadTrace& out = back.value();
  EXPECT_FALSE(out.trace.op.known);
  EXPECT_EQ(out.trace.op.ranks, 2u);
  EXPECT_EQ(out.trace.notify_names, in.trace.notify_names);
  EXPECT_EQ(out.trace.tags, in.trace.tags);
  ASSERT_EQ(out.trace.tasks.size(), in.trace.tasks.size());
  for (std::size_t i = 0; i < in.trace.tasks.size(); ++i) EXPECT_EQ(out.trace.tasks[i].tag, in.trace.tasks[i].tag);
  // The carried 101 stands for the UNKNOWN task: the reader adds no second one.
  ASSERT_EQ(out.findings.size(), in.findings.size());
  for (std::size_t i = 0; i < in.findings.size(); ++i) {
    EXPECT_EQ(out.findings[i].code, in.findings[i].code);
    EXPECT_EQ(out.findings[i].severity, in.findings[i].severity);
    EXPECT_EQ(out.findings[i].stage, in.findings[i].stage);
    EXPECT_EQ(out.findings[i].message, in.findings[i].message);
    EXPECT_EQ(out.findings[i].details, in.findings[i].details);
    EXPECT_EQ(out.findings[i].tasks, in.findings[i].tasks);
  }
  EXPECT_EQ(to_jsonl(out.trace, out.findings), text) << "writing again changes nothing";
}

TEST(TraceCarry, HandWrittenUnknownTypeStillGets101) {
  std::string text = header(R"({"type":"Unknown","ranks":1})") + R"({"rank":0,"stream":0,"type":"UNKNOWN"})" "\n";
  auto r = read_jsonl_string(text, "t.jsonl");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r.value().findings.size(), 1u);
  EXPECT_EQ(r.value().findings[0].code, 101);
}

TEST(TraceCarry, UnknownOperatorHasNoImpliedSizes) {
  Trace t = parse(header(R"({"type":"Unknown","ranks":2})"));
  EXPECT_FALSE(t.op.known);
  EXPECT_EQ(t.buffer_size(0, kInput), BufferSizes::kUndeclared);
  EXPECT_EQ(codes_of(header(R"({"type":"Unknown","ranks":1})",
                            R"("buffers":{"INPUT":8,"OUTPUT":8})") +
                     R"({"rank":0,"stream":0,"type":"TRANS_MEM","src":{"rank":0,"type":"INPUT","offset":0,"len":8},"dst":{"rank":0,"type":"OUTPUT","offset":0,"len":8}})" "\n"),
            std::vector<u16>{902})
      << "the semantic stage is skipped";
}

TEST(TraceCarry, Errors) {
  std::string h = header(R"({"type":"Unknown","ranks":1})", R"("importFindings":[{"code":101,"tasks":[{"rank":0,"stream":0,"index":1}]}])");
  EXPECT_NE(reader_error(h + R"({"rank":0,"stream":0,"type":"UNKNOWN"})" "\n")
                .find("\"importFindings\" names task 0/0/1, which the trace lacks"),
            std::string::npos);
  EXPECT_NE(reader_error(header(R"({"type":"Unknown","ranks":1})", R"("notifyNames":{"x":"a"})")).find("notify id"),
            std::string::npos);
  EXPECT_NE(reader_error(header(R"({"type":"Unknown","ranks":1})", R"("importFindings":[{"code":"x"}])"))
                .find("\"code\""),
            std::string::npos);
}

}  // namespace
}  // namespace cc::test
