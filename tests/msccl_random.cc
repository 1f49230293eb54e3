#include "msccl_random.h"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>
#include <vector>

#include "msccl/fold.h"

namespace cc::test {

using msccl::Buf;
using msccl::Coll;
using msccl::Program;
using msccl::Step;
using msccl::StepType;

namespace {

int pick(std::mt19937_64& rng, int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<u64>(hi - lo + 1)); }
bool chance(std::mt19937_64& rng, int percent) { return static_cast<int>(rng() % 100) < percent; }

struct Sizes {
  int i = 0, o = 0;
};
Sizes sizes(Coll c, int n, int p) {
  if (c == Coll::AllGather) return {p, n * p};
  if (c == Coll::ReduceScatter) return {n * p, p};
  return {n * p, n * p};
}

}  // namespace

Program random_msccl_program(std::mt19937_64& rng) {
  static const Coll kColls[] = {Coll::AllReduce, Coll::AllGather, Coll::AllToAll, Coll::ReduceScatter};
  Program p;
  p.file = "random.xml";
  p.name = "random";
  p.ngpus = pick(rng, 2, 4);
  int per = pick(rng, 1, 2);
  p.nchunksperloop = p.ngpus * per;
  p.coll = kColls[rng() % 4];
  p.proto = chance(rng, 70) ? msccl::Proto::Simple : msccl::Proto::LL;
  p.nchannels = 1;
  p.inplace = chance(rng, 50);
  p.outofplace = !p.inplace || chance(rng, 50);
  Sizes sz = sizes(p.coll, p.ngpus, per);
  int n = p.ngpus;
  // Peers: each rank's thread blocks send to distinct ranks and receive from
  // distinct ranks (no 602), some not at all.
  for (int r = 0; r < n; ++r) {
    msccl::Gpu g;
    g.id = r;
    g.i_chunks = sz.i, g.o_chunks = sz.o, g.s_chunks = pick(rng, 0, 3);
    int k = pick(rng, 1, 3);
    std::vector<int> others;
    for (int q = 0; q < n; ++q)
      if (q != r) others.push_back(q);
    std::shuffle(others.begin(), others.end(), rng);
    std::vector<int> recvs = others;
    std::shuffle(recvs.begin(), recvs.end(), rng);
    for (int t = 0; t < k; ++t) {
      msccl::Tb tb;
      tb.id = t;
      tb.chan = 0;
      tb.send = t < static_cast<int>(others.size()) && chance(rng, 70) ? others[t] : -1;
      tb.recv = t < static_cast<int>(recvs.size()) && chance(rng, 70) ? recvs[t] : -1;
      g.tbs.push_back(tb);
    }
    p.gpus.push_back(std::move(g));
  }
  // The chunk count of every connection: its steps pair with equal counts.
  std::map<std::pair<int, int>, int> conn_cnt;
  auto cnt_of = [&](int a, int b) {
    auto [it, fresh] = conn_cnt.emplace(std::make_pair(a, b), 0);
    if (fresh) it->second = pick(rng, 1, 2);
    return it->second;
  };
  auto buf = [&](const msccl::Gpu& g) {
    int b = pick(rng, 0, g.s_chunks > 0 ? 2 : 1);
    return b == 0 ? Buf::I : b == 1 ? Buf::O : Buf::S;
  };
  auto chunks = [&](const msccl::Gpu& g, Buf b) { return b == Buf::I ? g.i_chunks : b == Buf::O ? g.o_chunks : g.s_chunks; };
  auto off = [&](const msccl::Gpu& g, Buf b, int cnt) {
    int size = chunks(g, b);
    if (chance(rng, 3)) return size;  // past the end (201)
    return size >= cnt ? pick(rng, 0, size - cnt) : 0;
  };
  // Count pushes and pops per connection to balance them afterwards.
  std::map<std::pair<int, int>, int> pushed, popped;
  for (msccl::Gpu& g : p.gpus)
    for (msccl::Tb& tb : g.tbs) {
      int steps = pick(rng, 1, 6);
      bool nop_deps = false;  // a nop chain must end with a step that has a dependency
      for (int s = 0; s < steps; ++s) {
        std::vector<StepType> types{StepType::Cpy, StepType::Re, StepType::Nop};
        if (tb.send >= 0) types.push_back(StepType::S), types.push_back(StepType::S);
        if (tb.recv >= 0) types.push_back(StepType::R), types.push_back(StepType::R);
        if (tb.send >= 0 && tb.recv >= 0)
          for (StepType t : {StepType::Rcs, StepType::Rrs, StepType::Rrc, StepType::Rrcs}) types.push_back(t);
        Step st;
        st.type = types[rng() % types.size()];
        st.type_name = std::string(msccl::name(st.type));
        st.s = static_cast<int>(tb.steps.size());
        int cnt = 1;
        if (msccl::pushes(st.type)) cnt = cnt_of(g.id, tb.send);
        else if (msccl::pops(st.type)) cnt = cnt_of(tb.recv, g.id);
        else cnt = pick(rng, 1, 2);
        if (msccl::pushes(st.type) && msccl::pops(st.type) && cnt_of(tb.recv, g.id) != cnt) st.type = StepType::S;
        st.cnt = st.type == StepType::Nop ? 0 : cnt;
        st.srcbuf = buf(g), st.dstbuf = buf(g);
        st.srcoff = msccl::reads_src(st.type) ? off(g, st.srcbuf, cnt) : -1;
        st.dstoff = msccl::writes_dst(st.type) ? off(g, st.dstbuf, cnt) : -1;
        if (st.type == StepType::Re && chance(rng, 50) && !tb.steps.empty() && tb.steps.back().type == StepType::Re) {
          // Continue the previous chain (same destination and source buffer).
          st.dstbuf = tb.steps.back().dstbuf, st.dstoff = tb.steps.back().dstoff, st.srcbuf = tb.steps.back().srcbuf;
          st.cnt = tb.steps.back().cnt;
          st.srcoff = off(g, st.srcbuf, st.cnt);
        }
        // Which steps carry a dependency is decided now (it moves the hidden
        // counter); which publication it names, once the levels are known.
        bool dep = st.type == StepType::Nop ? chance(rng, 90) : nop_deps || chance(rng, 30);
        if (g.tbs.size() < 2) dep = false;
        if (dep) st.depid = 0, st.deps = 0;
        if (st.type == StepType::Nop) nop_deps |= dep;
        else if (!(st.type == StepType::Re && !dep)) nop_deps = false;
        st.hasdep = chance(rng, 40);
        if (msccl::pushes(st.type)) pushed[{g.id, tb.send}]++;
        if (msccl::pops(st.type)) popped[{tb.recv, g.id}]++;
        tb.steps.push_back(st);
      }
      // A nop chain must end with a dependency: give the last step one.
      if (!tb.steps.empty() && tb.steps.back().type == StepType::Nop) tb.steps.pop_back();
    }
  // Balance: equal numbers of data steps on each connection.
  for (msccl::Gpu& g : p.gpus)
    for (msccl::Tb& tb : g.tbs) {
      auto extra = [&](StepType type, int a, int b) {
        int cnt = cnt_of(a, b);
        Step st;
        st.type = type;
        st.type_name = std::string(msccl::name(type));
        st.s = static_cast<int>(tb.steps.size());
        st.cnt = cnt;
        st.srcbuf = Buf::O, st.dstbuf = Buf::O;
        st.srcoff = type == StepType::S ? off(g, Buf::O, cnt) : -1;
        st.dstoff = type == StepType::R ? off(g, Buf::O, cnt) : -1;
        tb.steps.push_back(st);
      };
      if (tb.send >= 0)
        while (pushed[{g.id, tb.send}] < popped[{g.id, tb.send}]) extra(StepType::S, g.id, tb.send), pushed[{g.id, tb.send}]++;
      if (tb.recv >= 0)
        while (popped[{tb.recv, g.id}] < pushed[{tb.recv, g.id}]) extra(StepType::R, tb.recv, g.id), popped[{tb.recv, g.id}]++;
    }
  // Pushes on a connection nobody pops from, or the reverse, cannot balance:
  // such steps become copies.
  for (msccl::Gpu& g : p.gpus)
    for (msccl::Tb& tb : g.tbs) {
      bool send_ok = false, recv_ok = false;
      for (const msccl::Gpu& h : p.gpus)
        for (const msccl::Tb& u : h.tbs) {
          send_ok |= tb.send >= 0 && h.id == tb.send && u.recv == g.id;
          recv_ok |= tb.recv >= 0 && h.id == tb.recv && u.send == g.id;
        }
      for (Step& st : tb.steps)
        if ((msccl::pushes(st.type) && !send_ok) || (msccl::pops(st.type) && !recv_ok)) {
          st.type = StepType::Cpy;
          st.type_name = "cpy";
          st.srcbuf = Buf::I, st.srcoff = off(g, Buf::I, st.cnt);
          st.dstbuf = Buf::O, st.dstoff = off(g, Buf::O, st.cnt);
        }
    }
  // The dependencies: a publication of another thread block of the rank
  // (its level, sometimes one less: the same release, MSCCL-W-DEP-LATE),
  // rarely a level nobody publishes.
  for (msccl::Gpu& g : p.gpus) {
    std::vector<std::vector<std::pair<int, int>>> pubs(g.tbs.size());  // (tb id, level)
    for (u32 t = 0; t < g.tbs.size(); ++t) {
      std::vector<msccl::Diag> ignored;
      msccl::FoldedTb f = msccl::fold_tb(g.tbs[t], 0, t, ignored);
      for (const msccl::Transmission& x : f.tx)
        if (x.hasdep) pubs[t].push_back({g.tbs[t].id, x.level});
    }
    for (u32 t = 0; t < g.tbs.size(); ++t)
      for (Step& st : g.tbs[t].steps) {
        if (st.depid < 0) continue;
        std::vector<std::pair<int, int>> from;
        for (u32 x = 0; x < g.tbs.size(); ++x)
          if (x != t) from.insert(from.end(), pubs[x].begin(), pubs[x].end());
        if (from.empty() || chance(rng, 3)) {
          st.depid = g.tbs[(t + 1) % g.tbs.size()].id;
          st.deps = pick(rng, 0, 6);
          continue;
        }
        auto [id, level] = from[rng() % from.size()];
        st.depid = id;
        st.deps = std::max(0, level - (chance(rng, 20) ? 1 : 0));
      }
  }
  return p;
}

// ---------------------------------------------------------------- references

namespace {

// The transmissions of every thread block (levels from msccl::fold_tb,
// which MscclCounter pins against hand-computed counters).
struct Node {
  u32 gpu = 0, tb = 0, tx = 0;
  const msccl::Transmission* t = nullptr;
};

struct Flat {
  std::vector<Node> nodes;
  std::vector<std::vector<u32>> first;  // (gpu, tb) -> first node
  std::vector<std::vector<msccl::FoldedTb>> folds;
};

Flat flatten(const Program& p) {
  Flat f;
  f.first.resize(p.gpus.size());
  f.folds.resize(p.gpus.size());
  for (u32 g = 0; g < p.gpus.size(); ++g)
    for (u32 t = 0; t < p.gpus[g].tbs.size(); ++t) {
      std::vector<msccl::Diag> ignored;
      f.folds[g].push_back(msccl::fold_tb(p.gpus[g].tbs[t], g, t, ignored));
    }
  for (u32 g = 0; g < p.gpus.size(); ++g)
    for (u32 t = 0; t < p.gpus[g].tbs.size(); ++t) {
      f.first[g].push_back(static_cast<u32>(f.nodes.size()));
      for (u32 x = 0; x < f.folds[g][t].tx.size(); ++x) f.nodes.push_back({g, t, x, &f.folds[g][t].tx[x]});
    }
  return f;
}

int tb_index(const msccl::Gpu& g, int id) {
  for (u32 t = 0; t < g.tbs.size(); ++t)
    if (g.tbs[t].id == id) return static_cast<int>(t);
  return -1;
}

// Per connection: pushing and popping nodes in program order.
using ConnKey = std::tuple<int, int, int>;
struct Conn {
  std::vector<u32> pushes, pops;
};
std::map<ConnKey, Conn> connections(const Program& p, const Flat& f) {
  std::map<ConnKey, Conn> out;
  for (u32 i = 0; i < f.nodes.size(); ++i) {
    const Node& n = f.nodes[i];
    const msccl::Tb& tb = p.gpus[n.gpu].tbs[n.tb];
    if (n.t->cnt <= 0) continue;
    if (msccl::pushes(n.t->type) && tb.send >= 0) out[{p.gpus[n.gpu].id, tb.send, tb.chan}].pushes.push_back(i);
    if (msccl::pops(n.t->type) && tb.recv >= 0) out[{tb.recv, p.gpus[n.gpu].id, tb.chan}].pops.push_back(i);
  }
  return out;
}

}  // namespace

std::set<std::pair<StepId, StepId>> reference_msccl_races(const Program& p, bool inplace) {
  Flat f = flatten(p);
  std::size_t n = f.nodes.size();
  std::vector<std::vector<u32>> succ(n);
  for (u32 i = 0; i + 1 < n; ++i)
    if (f.nodes[i].gpu == f.nodes[i + 1].gpu && f.nodes[i].tb == f.nodes[i + 1].tb) succ[i].push_back(i + 1);
  for (u32 i = 0; i < n; ++i) {
    const Node& nd = f.nodes[i];
    const msccl::FoldedTb& fold = f.folds[nd.gpu][nd.tb];
    for (u32 d = nd.t->dep_begin; d < nd.t->dep_begin + nd.t->dep_count; ++d) {
      int x = tb_index(p.gpus[nd.gpu], fold.deps[d].depid);
      if (x < 0) continue;
      const msccl::FoldedTb& xf = f.folds[nd.gpu][x];
      for (u32 k = 0; k < xf.tx.size(); ++k)
        if (xf.tx[k].hasdep && xf.tx[k].level >= fold.deps[d].deps) {
          succ[f.first[nd.gpu][x] + k].push_back(i);
          break;
        }
    }
  }
  for (const auto& [key, c] : connections(p, f)) {
    int a = 0;
    for (u32 j = 0, qb = 0; j < c.pops.size(); qb += f.nodes[c.pops[j]].t->cnt, ++j) {
      int pb = 0;
      for (u32 i = 0; i < c.pushes.size(); pb += f.nodes[c.pushes[i]].t->cnt, ++i) {
        int pe = pb + f.nodes[c.pushes[i]].t->cnt, qe = static_cast<int>(qb) + f.nodes[c.pops[j]].t->cnt;
        if (pb < qe && static_cast<int>(qb) < pe) succ[c.pushes[i]].push_back(c.pops[j]);
      }
    }
    (void)a;
  }
  // Reachability by bitsets, in reverse topological order.
  std::vector<u32> indeg(n, 0), order;
  for (u32 i = 0; i < n; ++i)
    for (u32 s : succ[i]) indeg[s]++;
  for (u32 i = 0; i < n; ++i)
    if (!indeg[i]) order.push_back(i);
  for (std::size_t k = 0; k < order.size(); ++k)
    for (u32 s : succ[order[k]])
      if (--indeg[s] == 0) order.push_back(s);
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (std::size_t k = order.size(); k-- > 0;) {
    u32 i = order[k];
    for (u32 s : succ[i]) {
      reach[i][s] = true;
      for (u32 x = 0; x < n; ++x)
        if (reach[s][x]) reach[i][x] = true;
    }
  }
  // Accesses: (space, chunk) with the call mode's aliasing (§4.3).
  int np = p.ngpus, per = p.nchunksperloop / p.ngpus;
  Sizes sz = sizes(p.coll, np, per);
  struct Access {
    int space;
    long chunk;
    bool write;
  };
  auto place = [&](int rank, const msccl::Gpu& g, Buf b, int off, int cnt, bool write, std::vector<Access>& out) {
    if (off < 0) return;  // overflows: not located
    int space = b == Buf::I ? 0 : b == Buf::O ? 1 : 2;
    int size = space == 0 ? sz.i : space == 1 ? sz.o : g.s_chunks;
    long base = off;
    if (inplace && off + cnt <= size) {
      bool outisin = p.coll == Coll::AllReduce || p.coll == Coll::AllToAll;
      if (outisin && space == 1) space = 0;
      if (p.coll == Coll::AllGather && space == 0) space = 1, base = static_cast<long>(rank) * per + off;
      if (p.coll == Coll::ReduceScatter && space == 1) space = 0, base = static_cast<long>(rank) * per + off;
    }
    for (int k = 0; k < cnt; ++k) out.push_back({space, base + k, write});
  };
  std::vector<std::vector<Access>> acc(n);
  for (u32 i = 0; i < n; ++i) {
    const Node& nd = f.nodes[i];
    const msccl::Transmission& t = *nd.t;
    const msccl::Gpu& g = p.gpus[nd.gpu];
    if (t.cnt <= 0) continue;
    std::vector<Access> src, dst;
    bool reads = msccl::reads_src(t.type), writes = msccl::writes_dst(t.type);
    if (reads) {
      if (t.type == StepType::Re)
        for (u32 s : t.sources) place(g.id, g, t.srcbuf, g.tbs[nd.tb].steps[s].srcoff, t.cnt, false, src);
      else
        place(g.id, g, t.srcbuf, t.srcoff, t.cnt, false, src);
    }
    if (writes) place(g.id, g, t.dstbuf, t.dstoff, t.cnt, true, dst);
    // An identical copy moves nothing (§4.3).
    bool same = !src.empty() && !dst.empty() && src.front().space == dst.front().space &&
                src.front().chunk == dst.front().chunk;
    if (t.type == StepType::Cpy && same) continue;
    acc[i] = src;
    acc[i].insert(acc[i].end(), dst.begin(), dst.end());
  }
  std::set<std::pair<StepId, StepId>> out;
  for (u32 a = 0; a < n; ++a)
    for (u32 b = a + 1; b < n; ++b) {
      const Node &x = f.nodes[a], &y = f.nodes[b];
      if (x.gpu != y.gpu || x.tb == y.tb || reach[a][b] || reach[b][a]) continue;
      bool hit = false;
      for (const Access& u : acc[a])
        for (const Access& v : acc[b])
          hit |= u.space == v.space && u.chunk == v.chunk && (u.write || v.write);
      if (!hit) continue;
      StepId sa{x.gpu, x.tb, x.t->first_step}, sb{y.gpu, y.tb, y.t->first_step};
      out.insert(sa < sb ? std::make_pair(sa, sb) : std::make_pair(sb, sa));
    }
  return out;
}

RefRun reference_msccl_run(const Program& p, u32 iterations, u32 fifo_calls, u32 max_count) {
  Flat f = flatten(p);
  struct State {
    u32 iter = 0, x = 0;
    bool deps_ok = false;
    int done = 0, popped = 0;
    bool pub = false;
    u32 pub_iter = 0;
    int pub_level = 0;
  };
  std::vector<std::vector<State>> st(p.gpus.size());
  for (u32 g = 0; g < p.gpus.size(); ++g) st[g].resize(p.gpus[g].tbs.size());
  std::map<ConnKey, std::deque<int>> fifo;  // chunks left of each call
  auto finished = [&](u32 g, u32 t) { return f.folds[g][t].tx.empty() || st[g][t].iter >= iterations; };
  bool progress = true;
  while (progress) {
    progress = false;
    for (u32 g = 0; g < p.gpus.size(); ++g)
      for (u32 t = 0; t < p.gpus[g].tbs.size(); ++t) {
        if (finished(g, t)) continue;
        State& s = st[g][t];
        const msccl::FoldedTb& fold = f.folds[g][t];
        const msccl::Transmission& tx = fold.tx[s.x];
        const msccl::Tb& tb = p.gpus[g].tbs[t];
        if (!s.deps_ok) {
          bool ok = true;
          for (u32 d = tx.dep_begin; d < tx.dep_begin + tx.dep_count && ok; ++d) {
            int x = tb_index(p.gpus[g], fold.deps[d].depid);
            if (x < 0) continue;
            const State& o = st[g][x];
            ok = o.pub && (o.pub_iter > s.iter || (o.pub_iter == s.iter && o.pub_level >= fold.deps[d].deps));
          }
          if (ok) s.deps_ok = progress = true;
          continue;
        }
        bool push = msccl::pushes(tx.type) && tb.send >= 0 && tx.cnt > 0;
        bool pop = msccl::pops(tx.type) && tb.recv >= 0 && tx.cnt > 0;
        if (s.done < tx.cnt) {
          int call = std::min<int>(static_cast<int>(max_count), tx.cnt - s.done);
          if (pop && s.popped < call) {
            std::deque<int>& q = fifo[{tb.recv, p.gpus[g].id, tb.chan}];
            if (q.empty()) continue;
            if (--q.front() == 0) q.pop_front();
            ++s.popped;
            progress = true;
            continue;
          }
          if (push) {
            std::deque<int>& q = fifo[{p.gpus[g].id, tb.send, tb.chan}];
            if (q.size() >= fifo_calls) continue;
            q.push_back(call);
          }
          s.done += call;
          s.popped = 0;
          progress = true;
          continue;
        }
        if (tx.hasdep) s.pub = true, s.pub_iter = s.iter, s.pub_level = tx.level;
        s.deps_ok = false, s.done = 0;
        if (++s.x == fold.tx.size()) s.x = 0, ++s.iter;
        progress = true;
      }
  }
  RefRun r;
  r.complete = true;
  for (u32 g = 0; g < p.gpus.size(); ++g)
    for (u32 t = 0; t < p.gpus[g].tbs.size(); ++t) r.complete &= finished(g, t);
  for (const auto& [k, q] : fifo) r.leftover |= !q.empty();
  return r;
}

}  // namespace cc::test
