#include "msccl/writer.h"

#include <fmt/format.h>

#include <iterator>

namespace cc::msccl {

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters other than tab and newline are not XML.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') out += ' ';
        else out += c;
    }
  }
  return out;
}

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
