// An MSCCL algorithm as its XML file states it: the <algo> attributes, one
// Gpu per rank, its thread blocks and their steps in file order. Plain data,
// no I/O, so that it sits in model/ where every room can hold it: the XML
// reader (io/msccl/) fills it, the generators (gen/msccl_gen) and the
// mutations (mutate/msccl_faults) build and change it, and src/msccl/
// writes it back as XML, folds, pairs and simulates it and maps it onto a
// trace.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/types.h"

namespace cc::msccl {

using i32 = std::int32_t;
using i64 = std::int64_t;

// Limits checked before anything is allocated (msccl.md §11).
inline constexpr i32 kMaxGpus = 4096;
inline constexpr i32 kMaxTbsPerGpu = 1024;
inline constexpr i32 kMaxCount = 72;  // cnt < 72 (the runtime's MSCCL_MAX_COUNT)
inline constexpr u32 kMaxReduceFusion = 16;  // the runtime's MSCCL_MAX_REDUCE_FUSION

enum class Coll : u8 {
  AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, Reduce, Gather, Scatter, Send, Recv, AllToAllV,
};
enum class Proto : u8 { Simple, LL, LL128 };

// Step types (§3). Unknown keeps its name for the 101 it causes.
enum class StepType : u8 { S, R, Rcs, Rrs, Rrc, Rrcs, Cpy, Re, Nop, Unknown };
inline constexpr int kStepTypeCount = 10;

// Buffers a step names: input, output, scratch.
enum class Buf : u8 { I, O, S };

std::string_view name(Coll c);
std::string_view name(Proto p);
std::string_view name(StepType t);
char letter(Buf b);
bool parse_coll(std::string_view s, Coll& out);
bool parse_proto(std::string_view s, Proto& out);
StepType parse_step_type(std::string_view s);  // Unknown for anything else
bool parse_buf(std::string_view s, Buf& out);

// What a step type does with the FIFO and its buffers (§3).
bool pops(StepType t);    // r, rcs, rrs, rrc, rrcs
bool pushes(StepType t);  // s, rcs, rrs, rrcs
bool reads_src(StepType t);   // s, rrs, rrc, rrcs, cpy, re: srcbuf/srcoff is a local operand
bool writes_dst(StepType t);  // r, rcs, rrc, rrcs, cpy, re
bool is_fused(StepType t);    // rcs, rrs, rrc, rrcs (refused by the RCCL snapshot's setup)

struct Step {
  u32 line = 0;
  i32 s = 0;
  StepType type = StepType::Nop;
  std::string type_name;  // as written (kept for an unknown type)
  Buf srcbuf = Buf::I, dstbuf = Buf::O;
  i32 srcoff = -1, dstoff = -1;
  i32 cnt = 0;
  i32 depid = -1, deps = -1;
  bool hasdep = false;
};

struct Tb {
  u32 line = 0;
  i32 id = 0;
  i32 send = -1, recv = -1;
  i32 chan = 0;
  std::vector<Step> steps;
};

struct Gpu {
  u32 line = 0;
  i32 id = 0;
  i32 i_chunks = 0, o_chunks = 0, s_chunks = 0;
  std::vector<Tb> tbs;  // in file order
};

struct Program {
  std::string file;  // as given on the command line (messages)
  u32 line = 0;      // of <algo>
  std::string name;
  i32 ngpus = 0;
  i32 nchunksperloop = 0;
  i32 nchannels = 0;
  Coll coll = Coll::AllReduce;
  Proto proto = Proto::Simple;
  bool inplace = false, outofplace = true;
  i64 min_bytes = 0, max_bytes = 0;
  std::vector<Gpu> gpus;  // indexed by gpu id (the reader sorts them)

  // Legacy attributes that were absent (msccl.md §2.1): the reader fills the
  // defaults and the checker warns MSCCL-W-LEGACY naming them.
  std::vector<std::string> missing_legacy;
  // Unknown elements and attributes, each distinct name once with the line
  // of its first use (MSCCL-W-UNKNOWN).
  std::vector<std::pair<std::string, u32>> unknown;
};

// Chunks per rank, p = c / n (§0); 0 when n does not divide c.
inline i32 per_rank(const Program& p) { return p.ngpus > 0 && p.nchunksperloop % p.ngpus == 0 ? p.nchunksperloop / p.ngpus : 0; }
// Whether the collective splits its big buffer per rank, so that n must
// divide c (§4.2).
bool splits_per_rank(Coll c);

}  // namespace cc::msccl
