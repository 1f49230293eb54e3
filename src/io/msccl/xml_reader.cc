#include "io/msccl/xml_reader.h"

#include <fmt/format.h>
#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "io/byte_source.h"

namespace cc {

namespace {

using msccl::i32;
using msccl::i64;
using msccl::Program;

constexpr std::size_t kXmlChunk = 1 << 16;

// Element kinds by nesting: algo > gpu > tb > step; anything else is
// ignored (with MSCCL-W-UNKNOWN), and so is everything inside it.
enum class Kind : u8 { Algo, Gpu, Tb, Step, Ignored };

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// A decimal integer in [lo, hi], nothing else (surrounding blanks allowed).
std::optional<i64> parse_int(std::string_view s, i64 lo, i64 hi) {
  s = trim(s);
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.size() > 19) return std::nullopt;
  u64 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<u64>(c - '0');
  }
  if (v > static_cast<u64>(std::numeric_limits<i64>::max())) return std::nullopt;
  i64 x = neg ? -static_cast<i64>(v) : static_cast<i64>(v);
  if (x < lo || x > hi) return std::nullopt;
  return x;
}

struct Attr {
  std::string name;
  std::string value;
  bool used = false;
};

class Reader {
 public:
  explicit Reader(std::string display) {
    prog_.file = std::move(display);
  }

  Result<Program> parse(ByteSource* src, std::string_view text) {
    static std::once_flag init;
    std::call_once(init, [] { xmlInitParser(); });
    xmlSAXHandler sax;
    std::memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = &Reader::on_start;
    sax.endElementNs = &Reader::on_end;
    sax.serror = &Reader::on_error;
    sax.internalSubset = &Reader::on_dtd;
    sax.externalSubset = &Reader::on_dtd;
    sax.entityDecl = &Reader::on_entity;
    std::unique_ptr<xmlParserCtxt, void (*)(xmlParserCtxtPtr)> ctxt(
        xmlCreatePushParserCtxt(&sax, this, nullptr, 0, prog_.file.c_str()), xmlFreeParserCtxt);
    if (!ctxt) return Error{fmt::format("{}: cannot create an XML parser", prog_.file)};
    // No XML_PARSE_NOENT (entities are not substituted), no XML_PARSE_DTDLOAD
    // or DTDATTR (nothing is fetched or defaulted from a DTD, which is refused
    // anyway), no network; libxml2's default limits (no XML_PARSE_HUGE).
    xmlCtxtUseOptions(ctxt.get(), XML_PARSE_NONET);
    ctxt_ = ctxt.get();
    std::vector<char> buf(kXmlChunk);
    while (!failed()) {
      std::size_t n = 0;
      const char* data = buf.data();
      if (src) {
        n = src->read(buf.data(), buf.size());
        if (n == 0 && !src->error().empty()) return Error{fmt::format("{}: {}", prog_.file, src->error())};
      } else {
        n = std::min(text.size(), kXmlChunk);
        data = text.data();
        text.remove_prefix(n);
      }
      bool last = n == 0;
      int rc = xmlParseChunk(ctxt_, data, static_cast<int>(n), last ? 1 : 0);
      if (rc != 0 && error_.empty()) fail(line(), "malformed XML");
      if (last) break;
    }
    if (failed()) return Error{error_};
    if (!seen_algo_) return Error{fmt::format("{}:1: no <algo> element (not an MSCCL algorithm file)", prog_.file)};
    if (std::string e = finish(); !e.empty()) return Error{e};
    return std::move(prog_);
  }

 private:
  bool failed() const { return !error_.empty(); }
  u32 line() const { return static_cast<u32>(std::max(1, xmlSAX2GetLineNumber(ctxt_))); }

  void fail(u32 at, std::string what) {
    if (!error_.empty()) return;
    error_ = fmt::format("{}:{}: {}", prog_.file, at, what);
    xmlStopParser(ctxt_);
  }

  static void on_error(void* user, xmlErrorPtr e) {
    auto* r = static_cast<Reader*>(user);
    if (!e || e->level == XML_ERR_WARNING || r->failed()) return;
    std::string msg = e->message ? e->message : "malformed XML";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    r->fail(static_cast<u32>(std::max(1, e->line)), "malformed XML: " + msg);
  }

  static void on_dtd(void* user, const xmlChar*, const xmlChar*, const xmlChar*) {
    auto* r = static_cast<Reader*>(user);
    r->fail(r->line(), "a DOCTYPE (DTD) is not allowed in an MSCCL file (no DTD is loaded and no entity is expanded)");
  }

  static void on_entity(void* user, const xmlChar*, int, const xmlChar*, const xmlChar*, xmlChar*) {
    auto* r = static_cast<Reader*>(user);
    r->fail(r->line(), "an entity declaration is not allowed in an MSCCL file");
  }

  static void on_end(void* user, const xmlChar*, const xmlChar*, const xmlChar*) {
    auto* r = static_cast<Reader*>(user);
    if (!r->stack_.empty()) r->stack_.pop_back();
  }

  static void on_start(void* user, const xmlChar* local, const xmlChar* prefix, const xmlChar*, int, const xmlChar**,
                       int nb_attributes, int, const xmlChar** attributes) {
    auto* r = static_cast<Reader*>(user);
    if (r->failed()) return;
    std::string name = reinterpret_cast<const char*>(local);
    if (prefix) name = std::string(reinterpret_cast<const char*>(prefix)) + ":" + name;
    r->attrs_.clear();
    for (int i = 0; i < nb_attributes; ++i) {
      const xmlChar** a = attributes + 5 * i;
      Attr at;
      at.name = reinterpret_cast<const char*>(a[0]);
      if (a[1]) at.name = std::string(reinterpret_cast<const char*>(a[1])) + ":" + at.name;
      at.value.assign(reinterpret_cast<const char*>(a[3]), reinterpret_cast<const char*>(a[4]));
      // Without entity substitution, libxml2 hands over every '&' of a value
      // (from &amp; or a character reference) as "&#38;".
      for (std::size_t at_amp = at.value.find("&#38;"); at_amp != std::string::npos;
           at_amp = at.value.find("&#38;", at_amp + 1))
        at.value.replace(at_amp, 5, "&");
      r->attrs_.push_back(std::move(at));
    }
    r->element(name);
  }

  void element(const std::string& name) {
    Kind parent = stack_.empty() ? Kind::Ignored : stack_.back();
    Kind kind = Kind::Ignored;
    u32 at = line();
    if (stack_.empty()) {
      if (name != "algo") return fail(at, fmt::format("the root element is <{}>, not <algo> (not an MSCCL algorithm)", name));
      kind = Kind::Algo;
    } else if (parent == Kind::Algo && name == "gpu") {
      kind = Kind::Gpu;
    } else if (parent == Kind::Gpu && name == "tb") {
      kind = Kind::Tb;
    } else if (parent == Kind::Tb && name == "step") {
      kind = Kind::Step;
    } else if (parent != Kind::Ignored) {
      static constexpr std::string_view kParent[] = {"algo", "gpu", "tb", "step"};
      unknown(fmt::format("element <{}> inside <{}>", name, kParent[static_cast<int>(parent)]), at);
    }
    stack_.push_back(kind);
    switch (kind) {
      case Kind::Algo: algo(at); break;
      case Kind::Gpu: gpu(at); break;
      case Kind::Tb: tb(at); break;
      case Kind::Step: step(at); break;
      case Kind::Ignored: return;
    }
    if (failed()) return;
    for (const Attr& a : attrs_)
      if (!a.used) unknown(fmt::format("attribute \"{}\" of <{}>", a.name, name), at);
  }

  void unknown(std::string what, u32 at) {
    if (unknown_seen_.insert(what).second) prog_.unknown.emplace_back(std::move(what), at);
  }

  Attr* find(std::string_view name) {
    for (Attr& a : attrs_)
      if (a.name == name) {
        a.used = true;
        return &a;
      }
    return nullptr;
  }

  // A required integer attribute in [lo, hi]; nullopt after fail().
  std::optional<i64> integer(std::string_view elem, std::string_view name, u32 at, i64 lo, i64 hi,
                             std::string_view range = {}) {
    Attr* a = find(name);
    if (!a) {
      fail(at, fmt::format("<{}> lacks the required attribute \"{}\"", elem, name));
      return std::nullopt;
    }
    return integer_value(elem, *a, at, lo, hi, range);
  }

  std::optional<i64> integer_value(std::string_view elem, const Attr& a, u32 at, i64 lo, i64 hi,
                                   std::string_view range) {
    std::optional<i64> v = parse_int(a.value, std::numeric_limits<i64>::min(), std::numeric_limits<i64>::max());
    if (!v) {
      fail(at, fmt::format("<{}> attribute \"{}\" is \"{}\", not an integer", elem, a.name, a.value));
      return std::nullopt;
    }
    if (*v < lo || *v > hi) {
      if (range.empty())
        fail(at, fmt::format("<{}> attribute \"{}\" is {}, which does not fit in 32 bits", elem, a.name, *v));
      else
        fail(at, fmt::format("<{}> attribute \"{}\" is {}; it must be {}", elem, a.name, *v, range));
      return std::nullopt;
    }
    return v;
  }

  std::optional<i32> i32_attr(std::string_view elem, std::string_view name, u32 at) {
    auto v = integer(elem, name, at, std::numeric_limits<i32>::min(), std::numeric_limits<i32>::max());
    return v ? std::optional<i32>(static_cast<i32>(*v)) : std::nullopt;
  }

  std::optional<bool> flag(std::string_view elem, std::string_view name, u32 at) {
    auto v = integer(elem, name, at, 0, 1, "0 or 1");
    return v ? std::optional<bool>(*v == 1) : std::nullopt;
  }

  std::optional<std::string> text(std::string_view elem, std::string_view name, u32 at) {
    Attr* a = find(name);
    if (!a) {
      fail(at, fmt::format("<{}> lacks the required attribute \"{}\"", elem, name));
      return std::nullopt;
    }
    return a->value;
  }

  void algo(u32 at) {
    seen_algo_ = true;
    prog_.line = at;
    if (Attr* a = find("name")) prog_.name = a->value;
    auto ngpus = integer("algo", "ngpus", at, 1, msccl::kMaxGpus, fmt::format("1 .. {}", msccl::kMaxGpus));
    if (!ngpus) return;
    prog_.ngpus = static_cast<i32>(*ngpus);
    auto c = integer("algo", "nchunksperloop", at, 1, std::numeric_limits<i32>::max(), "at least 1");
    if (!c) return;
    prog_.nchunksperloop = static_cast<i32>(*c);
    auto coll = text("algo", "coll", at);
    if (!coll) return;
    if (!msccl::parse_coll(*coll, prog_.coll))
      return fail(at, fmt::format("<algo> coll=\"{}\" is not a collective MSCCL knows (allreduce, allgather, "
                                  "reducescatter, alltoall, broadcast, reduce, gather, scatter, send, recv, alltoallv)",
                                  *coll));
    auto proto = text("algo", "proto", at);
    if (!proto) return;
    if (!msccl::parse_proto(*proto, prog_.proto))
      return fail(at, fmt::format("<algo> proto=\"{}\" is not Simple, LL or LL128", *proto));
    auto nch = i32_attr("algo", "nchannels", at);
    if (!nch) return;
    prog_.nchannels = *nch;
    if (msccl::splits_per_rank(prog_.coll) && prog_.nchunksperloop % prog_.ngpus != 0)
      return fail(at, fmt::format("a {} splits its buffer per rank, but nchunksperloop={} is not a multiple of "
                                  "ngpus={}",
                                  *coll, prog_.nchunksperloop, prog_.ngpus));
    // Legacy attributes (§2.1): absent in files of older msccl-tools.
    auto legacy_i64 = [&](std::string_view name, i64& out) {
      Attr* a = find(name);
      if (!a) {
        prog_.missing_legacy.emplace_back(name);
        out = 0;
        return true;
      }
      auto v = integer_value("algo", *a, at, std::numeric_limits<i64>::min(), std::numeric_limits<i64>::max(), {});
      if (!v) return false;
      out = *v;
      return true;
    };
    if (!legacy_i64("minBytes", prog_.min_bytes) || !legacy_i64("maxBytes", prog_.max_bytes)) return;
    i64 inplace = 0, outofplace = 0;
    Attr* ip = find("inplace");
    if (ip) {
      auto v = integer_value("algo", *ip, at, 0, 1, "0 or 1");
      if (!v) return;
      inplace = *v;
    } else {
      prog_.missing_legacy.emplace_back("inplace");
    }
    Attr* oop = find("outofplace");
    if (oop) {
      auto v = integer_value("algo", *oop, at, 0, 1, "0 or 1");
      if (!v) return;
      outofplace = *v;
    } else {
      prog_.missing_legacy.emplace_back("outofplace");
      outofplace = 1 - inplace;
    }
    prog_.inplace = inplace == 1;
    prog_.outofplace = outofplace == 1;
    if (prog_.min_bytes < 0 || prog_.max_bytes < 0)
      return fail(at, fmt::format("<algo> minBytes={} maxBytes={}: sizes cannot be negative", prog_.min_bytes,
                                  prog_.max_bytes));
    gpu_seen_.assign(static_cast<std::size_t>(prog_.ngpus), false);
  }

  void gpu(u32 at) {
    auto id = integer("gpu", "id", at, 0, prog_.ngpus - 1, fmt::format("a rank 0 .. {} (ngpus={})", prog_.ngpus - 1,
                                                                        prog_.ngpus));
    if (!id) return;
    if (gpu_seen_[static_cast<std::size_t>(*id)])
      return fail(at, fmt::format("<gpu id=\"{}\"> appears twice; gpu ids must be 0 .. {}, each once", *id,
                                  prog_.ngpus - 1));
    gpu_seen_[static_cast<std::size_t>(*id)] = true;
    msccl::Gpu g;
    g.line = at;
    g.id = static_cast<i32>(*id);
    auto chunks = [&](std::string_view name, i32& out) {
      auto v = integer("gpu", name, at, 0, std::numeric_limits<i32>::max(), "a chunk count >= 0");
      if (v) out = static_cast<i32>(*v);
      return v.has_value();
    };
    if (!chunks("i_chunks", g.i_chunks) || !chunks("o_chunks", g.o_chunks) || !chunks("s_chunks", g.s_chunks)) return;
    prog_.gpus.push_back(std::move(g));
  }

  void tb(u32 at) {
    if (prog_.gpus.empty()) return;
    msccl::Gpu& g = prog_.gpus.back();
    if (g.tbs.size() >= static_cast<std::size_t>(msccl::kMaxTbsPerGpu))
      return fail(at, fmt::format("gpu {} has more than {} thread blocks", g.id, msccl::kMaxTbsPerGpu));
    msccl::Tb t;
    t.line = at;
    auto id = i32_attr("tb", "id", at);
    auto send = id ? i32_attr("tb", "send", at) : std::nullopt;
    auto recv = send ? i32_attr("tb", "recv", at) : std::nullopt;
    auto chan = recv ? i32_attr("tb", "chan", at) : std::nullopt;
    if (!chan) return;
    t.id = *id, t.send = *send, t.recv = *recv, t.chan = *chan;
    g.tbs.push_back(std::move(t));
  }

  void step(u32 at) {
    if (prog_.gpus.empty() || prog_.gpus.back().tbs.empty()) return;
    msccl::Tb& t = prog_.gpus.back().tbs.back();
    msccl::Step s;
    s.line = at;
    auto sv = i32_attr("step", "s", at);
    if (!sv) return;
    s.s = *sv;
    auto type = text("step", "type", at);
    if (!type) return;
    s.type_name = *type;
    s.type = msccl::parse_step_type(*type);
    auto buf = [&](std::string_view name, msccl::Buf& out) {
      auto v = text("step", name, at);
      if (!v) return false;
      if (!msccl::parse_buf(*v, out)) {
        fail(at, fmt::format("<step> {}=\"{}\" is not a buffer (i, o or s)", name, *v));
        return false;
      }
      return true;
    };
    if (!buf("srcbuf", s.srcbuf) || !buf("dstbuf", s.dstbuf)) return;
    auto so = i32_attr("step", "srcoff", at);
    auto dof = so ? i32_attr("step", "dstoff", at) : std::nullopt;
    if (!dof) return;
    s.srcoff = *so, s.dstoff = *dof;
    auto cnt = integer("step", "cnt", at, 0, msccl::kMaxCount - 1, fmt::format("0 .. {}", msccl::kMaxCount - 1));
    if (!cnt) return;
    s.cnt = static_cast<i32>(*cnt);
    auto depid = i32_attr("step", "depid", at);
    auto deps = depid ? i32_attr("step", "deps", at) : std::nullopt;
    auto hasdep = deps ? flag("step", "hasdep", at) : std::nullopt;
    if (!hasdep) return;
    s.depid = *depid, s.deps = *deps, s.hasdep = *hasdep;
    t.steps.push_back(std::move(s));
  }

  std::string finish() {
    for (i32 i = 0; i < prog_.ngpus; ++i)
      if (!gpu_seen_[static_cast<std::size_t>(i)])
        return fmt::format("{}:{}: <gpu id=\"{}\"> is missing; gpu ids must be 0 .. {}, each once", prog_.file,
                           prog_.line, i, prog_.ngpus - 1);
    std::sort(prog_.gpus.begin(), prog_.gpus.end(), [](const msccl::Gpu& a, const msccl::Gpu& b) { return a.id < b.id; });
    return {};
  }

  Program prog_;
  xmlParserCtxtPtr ctxt_ = nullptr;
  std::string error_;
  std::vector<Kind> stack_;
  std::vector<Attr> attrs_;
  std::set<std::string> unknown_seen_;
  std::vector<bool> gpu_seen_;
  bool seen_algo_ = false;
};

}  // namespace

Result<Program> read_msccl_program_file(const std::string& path) {
  ByteSource src;
  if (Status st = src.open(path); !st) return Error{fmt::format("{}: {}", path, st.message())};
  return Reader(path).parse(&src, {});
}

Result<Program> read_msccl_program_string(std::string_view text, const std::string& display) {
  return Reader(display).parse(nullptr, text);
}

bool looks_like_msccl(std::string_view s) {
  if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  while (true) {
    std::size_t i = s.find_first_not_of(" \t\r\n");
    if (i == std::string_view::npos) return false;
    s.remove_prefix(i);
    if (s.substr(0, 2) == "<?") {
      std::size_t e = s.find("?>");
      if (e == std::string_view::npos) return false;
      s.remove_prefix(e + 2);
    } else if (s.substr(0, 4) == "<!--") {
      std::size_t e = s.find("-->", 4);
      if (e == std::string_view::npos) return false;
      s.remove_prefix(e + 3);
    } else {
      if (s.substr(0, 5) != "<algo" || s.size() < 6) return false;
      char c = s[5];
      return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '>' || c == '/';
    }
  }
}

}  // namespace cc
