// Trace format version 2 (docs/CCU_FORMAT.md): reading CCU data, the
// version gate, input errors, and round trips through the writer.
#include <gtest/gtest.h>

#include <cstdio>

#include "ccu_examples.h"
#include "io/jsonl/reader.h"
#include "export/jsonl.h"
#include "test_util.h"

namespace cc {
namespace {

using test::reader_error;

const char* kHeader2 =
    R"({"format":"collcheck-trace","version":2,"op":{"type":"AllReduce","ranks":2,"dataType":"FP32","count":64},"buffers":{"CCL":4096},"ccu":{"isa":"A5"}})"
    "\n";

std::string word0() { return ccu::word_hex(test::a5::load_imm_xn(1, 7)); }

TEST(CcuFormat, ReadsEveryKindOfLine) {
  std::string text = std::string(kHeader2) +
                     R"({"ccu":"image","rank":1,"die":1,"start":4,"size":100,"words":[")" + word0() + R"(",")" +
                     word0() + R"("]})" "\n" +
                     R"({"ccu":"image","rank":1,"die":1,"start":0,"words":[")" + word0() + R"("]})" "\n" +
                     R"({"ccu":"channel","rank":0,"die":0,"channelId":5,"dstRank":1,"dstDie":1})" "\n" +
                     R"({"ccu":"address","rank":0,"type":"CCL","addr":4096})" "\n" +
                     R"({"ccu":"dieBase","rank":1,"die":1,"base":77})" "\n" +
                     R"({"rank":1,"stream":3,"type":"CCU_GRAPH","dieId":1,"missionId":2,"instStartId":4,"instCnt":2,"args":[1,2,3],"timeout":9,"key":10})"
                     "\n";
  Trace t = test::parse(text);
  const CcuData& c = t.ccu;
  EXPECT_EQ(c.isa, CcuIsa::A5);
  ASSERT_EQ(c.images.size(), 1u);
  EXPECT_EQ(c.images[0].rank, 1u);
  EXPECT_EQ(c.images[0].die, 1u);
  EXPECT_EQ(c.images[0].size, 100u);
  ASSERT_EQ(c.images[0].blocks.size(), 2u);  // sorted by start
  EXPECT_EQ(c.images[0].blocks[0].start, 0u);
  EXPECT_EQ(c.images[0].blocks[1].start, 4u);
  EXPECT_EQ(c.images[0].blocks[1].bytes.size(), 64u);
  ASSERT_EQ(c.channels.size(), 1u);
  EXPECT_EQ(c.channels[0].channel, 5u);
  EXPECT_EQ(c.channels[0].peer_rank, 1u);
  EXPECT_EQ(c.channels[0].peer_die, 1u);
  ASSERT_EQ(c.addresses.size(), 1u);
  EXPECT_EQ(t.buffers.name(c.addresses[0].buf), "CCL");
  EXPECT_EQ(c.addresses[0].addr, 4096u);
  ASSERT_EQ(c.die_bases.size(), 1u);
  EXPECT_EQ(c.die_bases[0].base, 77u);
  ASSERT_EQ(c.sqes.size(), 1u);
  const CcuSqe& q = c.sqes[0];
  EXPECT_EQ(q.die, 1);
  EXPECT_EQ(q.mission, 2);
  EXPECT_EQ(q.inst_start, 4);
  EXPECT_EQ(q.inst_count, 2);
  EXPECT_EQ(q.arg_size, 3u);
  EXPECT_EQ(q.args[2], 3u);
  EXPECT_EQ(q.timeout, 9);
  EXPECT_EQ(q.key, 10u);
  ASSERT_EQ(t.tasks.size(), 1u);
  EXPECT_EQ(t.tasks[0].type, TaskType::CCU_GRAPH);
  EXPECT_EQ(t.tasks[0].notify(), 0u);
  // Without "size", an image is as long as its words reach.
  Trace t2 = test::parse(std::string(kHeader2) + R"({"ccu":"image","rank":0,"die":0,"start":3,"words":[")" +
                         word0() + R"("]})" "\n");
  EXPECT_EQ(t2.ccu.images[0].size, 4u);
}

TEST(CcuFormat, VersionOneRefusesCcu) {
  std::string v1 = test::header(R"({"type":"AllReduce","ranks":1,"dataType":"FP32","count":64})");
  // A CCU_GRAPH task in a version-1 file is a 101 naming the line.
  Result<ReadTrace> r = read_jsonl_string(
      v1 + "# c\n" +
          R"({"rank":0,"stream":0,"type":"CCU_GRAPH","dieId":0,"missionId":0,"instStartId":0,"instCnt":1})" "\n",
      "t.jsonl");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.value().findings.size(), 1u);
  EXPECT_EQ(r.value().findings[0].code, 101);
  EXPECT_NE(r.value().findings[0].message.find("on line 3 needs trace format version 2"), std::string::npos)
      << r.value().findings[0].message;
  EXPECT_EQ(test::codes_of(v1 + R"({"rank":0,"stream":0,"type":"CCU_GRAPH"})" "\n"), (std::vector<u16>{101, 902}));
  EXPECT_EQ(reader_error(v1 + R"({"ccu":"channel","rank":0,"die":0,"channelId":0,"dstRank":0,"dstDie":0})" "\n"),
            "t.jsonl:2: CCU data lines need trace format version 2");
  std::string h = v1;
  h.insert(h.rfind('}'), R"(,"ccu":{"isa":"A5"})");
  EXPECT_EQ(reader_error(h), "t.jsonl:1: \"ccu\" needs trace format version 2");
}

TEST(CcuFormat, InputErrors) {
  std::string h = kHeader2;
  auto err = [&](const std::string& line) { return reader_error(h + line + "\n"); };
  EXPECT_EQ(err(R"({"ccu":"image","rank":0,"die":0,"start":0,"words":["00"]})"),
            "t.jsonl:2: word 0 of \"words\" must be a string of 64 hex digits (byte 0 first)");
  EXPECT_EQ(err(R"({"ccu":"image","rank":0,"die":0,"start":32767,"words":[")" + word0() + "\",\"" + word0() + "\"]}"),
            "t.jsonl:2: words [32767, 32769) reach past instruction id 32768");
  EXPECT_EQ(err(R"({"ccu":"image","rank":2,"die":0,"start":0,"words":[]})"),
            "t.jsonl:2: \"rank\" 2 is outside the operator's ranks 0..1");
  EXPECT_EQ(err(R"({"ccu":"image","rank":0,"die":256,"start":0,"words":[]})"), "t.jsonl:2: \"die\" 256 is larger than 255");
  EXPECT_EQ(err(R"({"ccu":"image","rank":0,"die":0,"words":[]})"), "t.jsonl:2: CCU image line lacks \"start\"");
  EXPECT_EQ(err(R"({"ccu":"image","rank":0,"die":0,"start":1,"size":1,"words":[")" + word0() + "\"]}"),
            "t.jsonl:2: \"size\" 1 of rank 0 die 0 is smaller than its words (up to id 2)");
  EXPECT_EQ(reader_error(h + R"({"ccu":"image","rank":0,"die":0,"start":0,"words":[")" + word0() + "\",\"" + word0() +
                         "\"]}\n" + R"({"ccu":"image","rank":0,"die":0,"start":1,"words":[")" + word0() + "\"]}\n"),
            "t.jsonl:3: words [1, 2) of rank 0 die 0 overlap words given on another line");
  std::string ch = R"({"ccu":"channel","rank":0,"die":0,"channelId":1,"dstRank":1,"dstDie":0})";
  EXPECT_EQ(reader_error(h + ch + "\n" + ch + "\n"), "t.jsonl:3: channel 1 of rank 0 die 0 is already given on line 2");
  EXPECT_EQ(err(R"({"ccu":"channel","rank":0,"die":0,"channelId":1,"dstRank":5,"dstDie":0})"),
            "t.jsonl:2: \"dstRank\" 5 is outside the operator's ranks 0..1");
  EXPECT_EQ(err(R"({"ccu":"address","rank":0,"type":"SCRATCH","addr":1})"),
            "t.jsonl:2: buffer SCRATCH of rank 0 has an address but no size (declare it in \"buffers\")");
  std::string ad = R"({"ccu":"address","rank":0,"type":"INPUT","addr":1})";
  EXPECT_EQ(reader_error(h + ad + "\n" + ad + "\n"), "t.jsonl:3: the address of rank 0 INPUT is already given on line 2");
  EXPECT_EQ(err(R"({"ccu":"widget"})"), "t.jsonl:2: unknown CCU line \"widget\" (image, channel, address, dieBase)");
  EXPECT_EQ(err(R"({"rank":0,"stream":0,"type":"CCU_GRAPH","dieId":0,"missionId":0,"instStartId":0,"instCnt":1,"args":[1,2,3,4,5,6,7,8,9,10,11,12,13,14]})"),
            "t.jsonl:2: \"args\" has 14 entries; an SQE holds 13");
  EXPECT_EQ(err(R"({"rank":0,"stream":0,"type":"CCU_GRAPH","dieId":0,"missionId":0,"instStartId":65536,"instCnt":1})"),
            "t.jsonl:2: \"instStartId\" 65536 is larger than 65535");
  EXPECT_EQ(err(R"({"rank":0,"stream":0,"type":"CCU_GRAPH","dieId":0,"instStartId":0,"instCnt":1})"),
            "t.jsonl:2: CCU_GRAPH lacks \"missionId\"");
  std::string bad_isa = kHeader2;
  bad_isa.replace(bad_isa.find("\"A5\""), 4, "\"A7\"");
  EXPECT_EQ(reader_error(bad_isa), "t.jsonl:1: unknown CCU instruction set \"A7\" (A5, A6)");
  // argSize above 13 is not an input error: the expansion reports it (101).
  EXPECT_EQ(err(R"({"rank":0,"stream":0,"type":"CCU_GRAPH","dieId":0,"missionId":0,"instStartId":0,"instCnt":1,"argSize":14})"),
            "");
}

TEST(CcuFormat, RoundTrip) {
  for (const test::CcuProgram& p : {test::spec_example1(), test::spec_example2()}) {
    std::string text = p.text();
    Trace t = test::parse(text);
    std::string once = to_jsonl(t);
    Trace back = test::parse(once);
    EXPECT_EQ(to_jsonl(back), once);
    EXPECT_EQ(back.ccu.sqes.size(), t.ccu.sqes.size());
    EXPECT_EQ(back.ccu.images.size(), t.ccu.images.size());
    // An expanded trace writes its input form: the same text.
    test::Expanded e = test::expand_text(text);
    EXPECT_GT(e.trace.tasks.size(), t.tasks.size());
    std::string expanded = to_jsonl(e.trace);
    // The expansion declares the MS buffer; apart from that the text is equal.
    std::string ms = R"(,"buffers":{"MS":268435456})";
    ASSERT_NE(expanded.find(ms), std::string::npos) << expanded;
    expanded.erase(expanded.find(ms), ms.size());
    EXPECT_EQ(expanded, once);
    // Checking the written trace finds the same codes.
    EXPECT_EQ(test::codes_of(text), test::codes_of(to_jsonl(e.trace)));
  }
  // Odd shapes: an image without words, argSize above 13, a size beyond the words.
  test::CcuProgram p;
  p.image(0, 1, 0, {}, 0);
  p.image(1, 0, 2, {test::a5::load_imm_xn(1, 1)}, 50);
  p.sqe(0, 0, 1, 0, 0, 1, {5, 6}, 14);
  Trace t = test::parse(p.text());
  std::string once = to_jsonl(t);
  EXPECT_EQ(to_jsonl(test::parse(once)), once);
  EXPECT_EQ(test::parse(once).ccu.sqes[0].arg_size, 14u);
  EXPECT_EQ(test::parse(once).ccu.images.size(), 2u);
}

// `collcheck ccu-dis`: an input's images, or words given in hex.
TEST(CcuFormat, Disassembler) {
  std::string path = test::temp_path("ccu_dis.jsonl");
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::string text = test::spec_example1().text();
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  test::RunResult r = test::run_collcheck("ccu-dis '" + path + "' --rank 1 --from 4 --to 6");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "# rank 1 die 0: 10 words (A5)\n"
            "    4  100b  SyncCKE rmt.cke 8 |= cke 0 & 0x1 ch 0\n"
            "    5  0804  ClearCKE wait 8/0x1 clr\n");
  r = test::run_collcheck("ccu-dis --hex 0508000000000100000000000000000000000000000000000000000000000000");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "0805  Jmp to X0 if X0 != 0x1\n");
  r = test::run_collcheck("ccu-dis --hex 12");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("not 64 hexadecimal digits"), std::string::npos);
}

}  // namespace
}  // namespace cc
