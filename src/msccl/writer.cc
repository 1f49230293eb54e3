#include "msccl/writer.h"

#include <fmt/format.h>

#include <iterator>

#include "text/xml.h"

namespace cc::msccl {

std::string write_xml(const Program& p) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "<algo name=\"{}\" proto=\"{}\" nchannels=\"{}\" nchunksperloop=\"{}\" ngpus=\"{}\" coll=\"{}\" "
                 "inplace=\"{}\" outofplace=\"{}\" minBytes=\"{}\" maxBytes=\"{}\">\n",
                 xml_escape(p.name), name(p.proto), p.nchannels, p.nchunksperloop, p.ngpus, name(p.coll),
                 p.inplace ? 1 : 0, p.outofplace ? 1 : 0, p.min_bytes, p.max_bytes);
  for (const Gpu& g : p.gpus) {
    fmt::format_to(it, "  <gpu id=\"{}\" i_chunks=\"{}\" o_chunks=\"{}\" s_chunks=\"{}\">\n", g.id, g.i_chunks,
                   g.o_chunks, g.s_chunks);
    for (const Tb& t : g.tbs) {
      fmt::format_to(it, "    <tb id=\"{}\" send=\"{}\" recv=\"{}\" chan=\"{}\">\n", t.id, t.send, t.recv, t.chan);
      for (const Step& s : t.steps) {
        std::string_view type = s.type == StepType::Unknown ? std::string_view(s.type_name) : name(s.type);
        fmt::format_to(it,
                       "      <step s=\"{}\" type=\"{}\" srcbuf=\"{}\" srcoff=\"{}\" dstbuf=\"{}\" dstoff=\"{}\" "
                       "cnt=\"{}\" depid=\"{}\" deps=\"{}\" hasdep=\"{}\"/>\n",
                       s.s, xml_escape(type), letter(s.srcbuf), s.srcoff, letter(s.dstbuf), s.dstoff, s.cnt, s.depid,
                       s.deps, s.hasdep ? 1 : 0);
      }
      out += "    </tb>\n";
    }
    out += "  </gpu>\n";
  }
  out += "</algo>\n";
  return out;
}

}  // namespace cc::msccl
