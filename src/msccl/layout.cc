#include "msccl/layout.h"

namespace cc::msccl {

Layout::Layout(const Program& prog, bool inplace) {
  i64 c = prog.nchunksperloop;
  p = per_rank(prog);
  switch (prog.coll) {
    case Coll::AllGather:
    case Coll::Gather:
      in_chunks = p, out_chunks = c;
      alias = inplace ? Alias::InInOut : Alias::None;
      break;
    case Coll::ReduceScatter:
    case Coll::Scatter:
      in_chunks = c, out_chunks = p;
      alias = inplace ? Alias::OutInIn : Alias::None;
      break;
    default:
      in_chunks = out_chunks = c;
      alias = inplace ? Alias::OutIsIn : Alias::None;
      break;
  }
}

Place Layout::resolve(i32 rank, const Gpu& g, Buf b, i32 off, i32 cnt) const {
  Space s = b == Buf::I ? Space::Input : b == Buf::O ? Space::Output : Space::Scratch;
  Place pl{s, off};
  bool inside = off >= 0 && static_cast<i64>(off) + cnt <= chunks(s, g);
  if (!inside) return pl;
  switch (alias) {
    case Alias::None:
      break;
    case Alias::OutIsIn:
      if (s == Space::Output) pl.space = Space::Input;
      break;
    case Alias::InInOut:
      if (s == Space::Input) pl = {Space::Output, static_cast<i64>(rank) * p + off};
      break;
    case Alias::OutInIn:
      if (s == Space::Output) pl = {Space::Input, static_cast<i64>(rank) * p + off};
      break;
  }
  return pl;
}

}  // namespace cc::msccl
