// libFuzzer target: the MSCCL XML reader (libxml2), the analysis, the
// execution model, the mapping of every mode and every stage on what it
// accepts, and the writer on it (its output must read back to the same
// text). Any crash, hang, sanitizer report or leak is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "pipeline/stages.h"
#include "pipeline/msccl.h"
#include "io/msccl/xml_reader.h"
#include "msccl/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  cc::Result<cc::msccl::Program> p = cc::read_msccl_program_string(text, "fuzz.xml");
  if (!p.ok()) return 0;
  std::size_t steps = 0;
  for (const auto& g : p->gpus)
    for (const auto& t : g.tbs) steps += t.steps.size();
  // The writer's text reads back as the same program.
  std::string xml = cc::msccl::write_xml(p.value());
  cc::Result<cc::msccl::Program> back = cc::read_msccl_program_string(xml, "written.xml");
  if (!back.ok() || cc::msccl::write_xml(back.value()) != xml) std::abort();
  if (steps > 4000 || p->ngpus > 256) return 0;
  cc::msccl::Options o;
  o.iterations = 1 + size % 3;
  cc::Result<std::vector<cc::MscclCase>> cases = cc::read_msccl_string(text, "fuzz.xml", o);
  if (!cases.ok()) return 0;
  for (cc::MscclCase& c : cases.value()) {
    if (c.trace.tasks.size() > 20000) continue;
    cc::CheckOptions check;
    check.all_pairs = size % 2 == 0;
    cc::run_checks(c.trace, std::move(c.findings), check);
  }
  return 0;
}
