#include "msccl/rank_order.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "msccl/text.h"

namespace cc::msccl {

namespace {

// Reduction trees, hash-consed: id 0 is "unknown" (empty or out of bounds),
// a leaf is one rank's input chunk, an inner node a commutative ⊕ of two.
class Trees {
 public:
  u32 leaf(u32 rank, i64 chunk) {
    u64 key = (u64{rank} << 40) | static_cast<u64>(chunk);
    auto [it, fresh] = leaves_.emplace(key, static_cast<u32>(nodes_.size()));
    if (fresh) nodes_.push_back({true, rank, chunk, 0, 0, mix(key)});
    return it->second;
  }
  // A hash of the multiset of a tree's leaves: equal for trees of the same
  // terms, whatever their association.
  u64 terms(u32 id) const { return nodes_[id].terms; }
  u32 op(u32 x, u32 y) {
    if (!x || !y) return 0;
    if (x > y) std::swap(x, y);
    u64 key = (u64{x} << 32) | y;
    auto [it, fresh] = ops_.emplace(key, static_cast<u32>(nodes_.size()));
    if (fresh) nodes_.push_back({false, 0, 0, x, y, nodes_[x].terms + nodes_[y].terms});
    return it->second;
  }
  // "((r0 + r1) + r2)"; chunks other than `chunk` are written r1[3].
  std::string text(u32 id, i64 chunk, std::size_t limit = 240) const {
    std::string out;
    write(id, chunk, out, limit);
    if (out.size() > limit) out = out.substr(0, limit) + "...";
    return out;
  }

 private:
  struct Node {
    bool leaf = false;
    u32 rank = 0;
    i64 chunk = 0;
    u32 a = 0, b = 0;
    u64 terms = 0;
  };
  static u64 mix(u64 x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  void write(u32 id, i64 chunk, std::string& out, std::size_t limit) const {
    if (out.size() > limit) return;
    const Node& n = nodes_[id];
    if (id == 0) {
      out += "?";
    } else if (n.leaf) {
      out += n.chunk == chunk ? fmt::format("r{}", n.rank) : fmt::format("r{}[{}]", n.rank, n.chunk);
    } else {
      out += "(";
      write(n.a, chunk, out, limit);
      out += " + ";
      write(n.b, chunk, out, limit);
      out += ")";
    }
  }
  std::vector<Node> nodes_{Node{}};
  std::unordered_map<u64, u32> leaves_, ops_;
};

class Evaluator {
 public:
  Evaluator(const Program& p, const Analysis& a, const Layout& lay) : p_(p), a_(a), lay_(lay) {
    msgs_.resize(a.conns.size());
  }

  void apply(const TxRef& r) {
    const Transmission& t = a_.tx(r);
    const TxLink& l = a_.link(r);
    const Gpu& g = p_.gpus[r.gpu];
    const Tb& tb = g.tbs[r.tb];
    if (t.cnt <= 0) return;
    std::vector<u32> popped;
    if (l.pop_conn != kNone) {
      auto& m = msgs_[l.pop_conn];
      auto it = m.find(l.pop_pos);
      popped = it != m.end() ? it->second : std::vector<u32>(t.cnt, 0);
      popped.resize(t.cnt, 0);
    }
    auto push = [&](std::vector<u32> v) {
      if (l.push_conn != kNone) msgs_[l.push_conn][l.push_pos] = std::move(v);
    };
    switch (t.type) {
      case StepType::S: push(read(r.gpu, t.srcbuf, t.srcoff, t.cnt)); break;
      case StepType::R: write(r.gpu, t.dstbuf, t.dstoff, popped); break;
      case StepType::Rcs:
        write(r.gpu, t.dstbuf, t.dstoff, popped);
        push(popped);
        break;
      case StepType::Rrs: push(combine(popped, read(r.gpu, t.srcbuf, t.srcoff, t.cnt))); break;
      case StepType::Rrc: write(r.gpu, t.dstbuf, t.dstoff, combine(popped, read(r.gpu, t.srcbuf, t.srcoff, t.cnt))); break;
      case StepType::Rrcs: {
        std::vector<u32> v = combine(popped, read(r.gpu, t.srcbuf, t.srcoff, t.cnt));
        write(r.gpu, t.dstbuf, t.dstoff, v);
        push(std::move(v));
        break;
      }
      case StepType::Cpy: write(r.gpu, t.dstbuf, t.dstoff, read(r.gpu, t.srcbuf, t.srcoff, t.cnt)); break;
      case StepType::Re: {
        std::vector<u32> acc = read(r.gpu, t.dstbuf, t.dstoff, t.cnt);
        for (u32 s : t.sources) acc = combine(acc, read(r.gpu, t.srcbuf, tb.steps[s].srcoff, t.cnt));
        write(r.gpu, t.dstbuf, t.dstoff, acc);
        break;
      }
      case StepType::Nop:
      case StepType::Unknown:
        break;
    }
  }

  // Output chunks of `gpu` some step wrote (directly or through the alias).
  std::vector<i64> written_output(u32 gpu) const {
    Space sp = lay_.alias == Alias::OutIsIn ? Space::Input : Space::Output;
    std::vector<i64> out;
    for (const auto& [k, v] : mem_)
      if ((k >> 50) == gpu && ((k >> 46) & 0xf) == static_cast<u64>(sp)) out.push_back(static_cast<i64>(k & ((u64{1} << 46) - 1)));
    std::sort(out.begin(), out.end());
    return out;
  }

  u32 output(u32 gpu, i64 chunk) {
    return value(gpu, lay_.resolve(p_.gpus[gpu].id, p_.gpus[gpu], Buf::O, static_cast<i32>(chunk), 1));
  }
  Trees& trees() { return trees_; }

 private:
  u64 key(u32 gpu, const Place& pl) const {
    return (u64{gpu} << 50) | (u64{static_cast<u8>(pl.space)} << 46) | (static_cast<u64>(pl.off) & ((u64{1} << 46) - 1));
  }
  bool inside(u32 gpu, const Place& pl) const { return pl.off >= 0 && pl.off < lay_.chunks(pl.space, p_.gpus[gpu]); }

  u32 value(u32 gpu, const Place& pl) {
    if (!inside(gpu, pl)) return 0;
    auto it = mem_.find(key(gpu, pl));
    if (it != mem_.end()) return it->second;
    return pl.space == Space::Input ? trees_.leaf(static_cast<u32>(p_.gpus[gpu].id), pl.off) : 0;
  }

  std::vector<u32> read(u32 gpu, Buf b, i32 off, i32 cnt) {
    Place base = lay_.resolve(p_.gpus[gpu].id, p_.gpus[gpu], b, off, cnt);
    std::vector<u32> v(cnt);
    for (i32 k = 0; k < cnt; ++k) v[k] = value(gpu, {base.space, base.off + k});
    return v;
  }
  void write(u32 gpu, Buf b, i32 off, const std::vector<u32>& v) {
    Place base = lay_.resolve(p_.gpus[gpu].id, p_.gpus[gpu], b, off, static_cast<i32>(v.size()));
    for (std::size_t k = 0; k < v.size(); ++k) {
      Place pl{base.space, base.off + static_cast<i64>(k)};
      if (inside(gpu, pl)) mem_[key(gpu, pl)] = v[k];
    }
  }
  std::vector<u32> combine(const std::vector<u32>& x, const std::vector<u32>& y) {
    std::vector<u32> v(x.size());
    for (std::size_t k = 0; k < x.size(); ++k) v[k] = trees_.op(x[k], k < y.size() ? y[k] : 0);
    return v;
  }

  const Program& p_;
  const Analysis& a_;
  const Layout& lay_;
  Trees trees_;
  std::unordered_map<u64, u32> mem_;
  std::vector<std::unordered_map<u32, std::vector<u32>>> msgs_;  // per connection: push position -> chunks
};

}  // namespace

std::optional<Diag> rank_order_warning(const Program& p, const Analysis& a, const SimResult& sim, const Layout& lay) {
  const Options& o = a.options;
  if (p.coll != Coll::AllReduce || !sim.complete || a.ambiguous || a.structural_errors) return std::nullopt;
  if (!is_floating(o.data_type) || (o.reduce_op != ReduceOp::SUM && o.reduce_op != ReduceOp::PROD))
    return std::nullopt;
  if (p.gpus.size() < 2) return std::nullopt;
  Evaluator ev(p, a, lay);
  for (const TxRef& r : sim.order0) ev.apply(r);
  for (i64 x : ev.written_output(0)) {
    if (x >= lay.out_chunks) continue;
    u32 first = ev.output(0, x);
    if (!first) continue;
    for (u32 g = 1; g < p.gpus.size(); ++g) {
      u32 v = ev.output(g, x);
      // Different terms are a wrong result (stage 5's finding), not an order.
      if (!v || v == first || ev.trees().terms(v) != ev.trees().terms(first)) continue;
      Diag d = make_warning(
          "MSCCL-W-RANK-ORDER", StageTag::SemanticCheck,
          fmt::format("Output chunk {} is reduced by different trees on rank {} and rank {}: with {} {} the ranks "
                      "end with different results (the terms are the same; their association is not).",
                      x, p.gpus[0].id, p.gpus[g].id, name(o.reduce_op), name(o.data_type)),
          {});
      d.details.push_back(fmt::format("rank {} o[{}] = {}", p.gpus[0].id, x, ev.trees().text(first, x)));
      d.details.push_back(fmt::format("rank {} o[{}] = {}", p.gpus[g].id, x, ev.trees().text(v, x)));
      d.details.push_back("Make every rank combine the contributions in the same order (e.g. reduce once and "
                          "broadcast the result), or accept rank-dependent rounding.");
      return d;
    }
  }
  return std::nullopt;
}

}  // namespace cc::msccl
