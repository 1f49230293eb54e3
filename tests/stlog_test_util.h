// Builders of HCCL ST-framework log text (stlog.md) for the tests.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

namespace cc::test::st {

inline std::string ds(const std::string& buf, unsigned long long off, unsigned long long size) {
  return fmt::format("DataSlice[BufferType::{}, offset={}, size={}]", buf, off, size);
}
inline std::string link(const std::string& l = "SDMA") { return "link=link prototyp=LinkProtoStub::" + l; }
inline std::string copy(const std::string& src, const std::string& dst) {
  return fmt::format("LocalCopy[srcSlice={}, dstSlice={}]", src, dst);
}
inline std::string post(int remote, const std::string& type = "READY", const std::string& l = "SDMA",
                        const std::string& tag = "TXACK") {
  return fmt::format("Post[remoteRank={}, {}, notifyType=NotifyTypeStub::{}, originated tag={}]", remote, link(l),
                     type, tag);
}
inline std::string wait(int remote, const std::string& type = "READY", const std::string& l = "SDMA",
                        const std::string& tag = "RXACK") {
  return fmt::format("Wait[remoteRank={}, {}, notifyType=NotifyTypeStub::{}, originated tag={}]", remote, link(l),
                     type, tag);
}
inline std::string lpost(long long topic) { return fmt::format("LocalPostTo[topicId={}]", topic); }
inline std::string lwait(long long topic) { return fmt::format("LocalWaitFrom[topicId={}]", topic); }
inline std::string read(int remote, const std::string& local, const std::string& rem, const std::string& l = "SDMA") {
  return fmt::format("Read[remoteRank={}, {}, localSlice={}, remoteSlice={}]", remote, link(l), local, rem);
}
inline std::string write(int remote, const std::string& local, const std::string& rem,
                         const std::string& l = "SDMA") {
  return fmt::format("Write[remoteRank={}, {}, localSlice={}, remoteSlice={}]", remote, link(l), local, rem);
}

using Queues = std::vector<std::vector<std::string>>;  // queue -> task texts

// The dump of `ranks` (rank -> queues), as Checker::Check prints it.
inline std::string dump(const std::vector<Queues>& ranks) {
  std::string out;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    out += std::string(55, '=') + "\n" + fmt::format("rank id is {}\n", r);
    for (std::size_t q = 0; q < ranks[r].size(); ++q) {
      out += std::string(55, '-') + "\n" + fmt::format("stream/queue id is {}\n", q);
      for (std::size_t i = 0; i < ranks[r][q].size(); ++i)
        out += fmt::format("[rankId:{}, queueId:{}, index:{}] {}\n", r, q, i, ranks[r][q][i]);
    }
  }
  return out;
}

// A gtest case around `body`.
inline std::string gtest(const std::string& name, const std::string& body, bool ok = true) {
  return "[ RUN      ] " + name + "\n" + body + (ok ? "[       OK ] " : "[  FAILED  ] ") + name + " (1 ms)\n";
}

// The two-rank AllGather of stlog.md §8.
inline std::vector<Queues> allgather2() {
  const unsigned long long d = 256;
  return {Queues{{copy(ds("INPUT", 0, d), ds("OUTPUT", 0, d)), post(1, "READY", "SDMA", "TXACK"),
                  wait(1, "FIN", "SDMA", "RXDATASIGNAL")}},
          Queues{{lpost(5), wait(0, "READY", "SDMA", "RXACK"), write(0, ds("INPUT", 0, d), ds("OUTPUT", d, d)),
                  read(0, ds("OUTPUT", 0, d), ds("INPUT", 0, d)), post(0, "FIN", "SDMA", "TXDATASIGNAL"), lwait(6)},
                 {lwait(5), copy(ds("INPUT", 0, d), ds("OUTPUT", d, d)), lpost(6)}}};
}

inline const char* kAllGather2Op = R"({"type":"AllGather","ranks":2,"dataType":"FP32","count":64})";

}  // namespace cc::test::st
