// libFuzzer target: the HCCL ST-log reader, every stage on what it accepts,
// and the ST-log writer on it (its output must read back). A first line
// starting with '{' is taken as the --op parameters. Any crash, hang,
// sanitizer report or leak is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "pipeline/stages.h"
#include "io/stlog/reader.h"
#include "export/stlog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  cc::StLogOptions opt;
  if (!text.empty() && text[0] == '{') {
    std::size_t nl = text.find('\n');
    opt.op = text.substr(0, nl);
    text = nl == std::string::npos ? std::string() : text.substr(nl + 1);
  }
  cc::Result<std::vector<cc::StLogCase>> r = cc::read_stlog_string(text, "fuzz.log", opt);
  if (!r.ok()) return 0;
  for (cc::StLogCase& c : r.value()) {
    const cc::Trace& t = c.read.trace;
    if (t.tasks.size() > 4000 || t.op.ranks > 4096) continue;
    cc::CheckOptions check;
    check.all_pairs = size % 2 == 0;
    cc::run_checks(t, c.read.findings, check);
    cc::Result<cc::StLogOutput> w = cc::write_stlog(t, "");
    if (!w.ok()) continue;  // e.g. more buffer types than the ST format has
    cc::Result<std::vector<cc::StLogCase>> back =
        cc::read_stlog_string(w.value().log, "written.log", cc::StLogOptions{w.value().sidecar, ""});
    if (!back.ok() || back.value().size() != 1) std::abort();  // the writer wrote what the reader refuses
  }
  return 0;
}
