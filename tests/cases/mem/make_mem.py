#!/usr/bin/env python3
"""Writes the golden cases of stage 4 (memory conflicts) next to itself.

Each case is a small 3-rank trace whose only question is whether two data
tasks may run at the same time on the same bytes. The cases run the stages
up to mem (the semantic stage is not their subject), so 902 is expected.
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
HDR = {"format": "collcheck-trace", "version": 1,
       "op": {"type": "AllGather", "ranks": 3, "dataType": "INT8", "count": 128},
       "buffers": {"CCL": 1024}}
ARGS = " args=--stages graph,single,sync,mem"


def s(rank, buf, off, ln):
    return {"rank": rank, "type": buf, "offset": off, "len": ln}


def cp(r, src, dst, stream=0):
    return {"rank": r, "stream": stream, "type": "TRANS_MEM", "src": src, "dst": dst}


def red(r, src, dst, stream=0):
    return {"rank": r, "stream": stream, "type": "REDUCE", "srcs": [src], "dst": dst, "reduceOp": "SUM"}


def rec(r, peer, nid, stream=0):
    return {"rank": r, "stream": stream, "type": "RECORD", "waitRank": peer, "notifyId": nid}


def wt(r, peer, nid, stream=0):
    return {"rank": r, "stream": stream, "type": "WAIT", "recordRank": peer, "notifyId": nid}


def write(name, expect, comment, tasks, hdr=HDR):
    with open(os.path.join(HERE, name), "w") as f:
        f.write("# expect: %s%s\n# %s\n" % (expect, ARGS, comment))
        f.write(json.dumps(hdr, separators=(",", ":")) + "\n")
        for t in tasks:
            f.write(json.dumps(t, separators=(",", ":")) + "\n")


RACE, OK = "exit=1 codes=302,902", "exit=0 codes=902"

# The ordering rank 0 -> rank 1 exists only through rank 2, and only if rank 2
# forwards the signal after receiving it.
write("302_third_rank.jsonl", RACE,
      "rank 2 posts to rank 1 before it has heard from rank 0: the write on rank 0 and the read on rank 1 are unordered",
      [cp(0, s(0, "INPUT", 0, 64), s(0, "CCL", 0, 64)), rec(0, 2, 1),
       rec(2, 1, 2), wt(2, 0, 1),
       wt(1, 2, 2), cp(1, s(0, "CCL", 0, 64), s(1, "OUTPUT", 0, 64))])
write("pass_third_rank.jsonl", OK,
      "the same schedule, but rank 2 forwards rank 0's signal: the order goes 0 -> 2 -> 1",
      [cp(0, s(0, "INPUT", 0, 64), s(0, "CCL", 0, 64)), rec(0, 2, 1),
       wt(2, 0, 1), rec(2, 1, 2),
       wt(1, 2, 2), cp(1, s(0, "CCL", 0, 64), s(1, "OUTPUT", 0, 64))])
write("302_write_write.jsonl", RACE, "ranks 0 and 1 both write rank 2's OUTPUT [0,64) with no order between them",
      [cp(0, s(0, "INPUT", 0, 64), s(2, "OUTPUT", 0, 64)),
       cp(1, s(1, "INPUT", 0, 64), s(2, "OUTPUT", 32, 64))])
write("302_read_write.jsonl", RACE, "rank 1 reads rank 0's CCL while rank 0 may still be filling it",
      [cp(0, s(0, "INPUT", 0, 128), s(0, "CCL", 0, 128)), rec(0, 1, 1),
       cp(1, s(0, "CCL", 64, 64), s(1, "OUTPUT", 0, 64)), wt(1, 0, 1)])
write("302_reduce_reduce.jsonl", RACE, "ranks 1 and 2 reduce into rank 0's OUTPUT at the same time",
      [cp(0, s(0, "INPUT", 0, 64), s(0, "OUTPUT", 0, 64)), rec(0, 1, 1), rec(0, 2, 1),
       wt(1, 0, 1), red(1, s(1, "INPUT", 0, 64), s(0, "OUTPUT", 0, 64)),
       wt(2, 0, 1), red(2, s(2, "INPUT", 0, 64), s(0, "OUTPUT", 0, 64))])
write("pass_reduce_chain.jsonl", OK, "the two reductions are serialised through rank 1 -> rank 2",
      [cp(0, s(0, "INPUT", 0, 64), s(0, "OUTPUT", 0, 64)), rec(0, 1, 1),
       wt(1, 0, 1), red(1, s(1, "INPUT", 0, 64), s(0, "OUTPUT", 0, 64)), rec(1, 2, 2),
       wt(2, 1, 2), red(2, s(2, "INPUT", 0, 64), s(0, "OUTPUT", 0, 64))])
# A CCL slot reused in the next step without the reader's "done" handshake.
step = lambda k: [cp(0, s(0, "INPUT", 64 * k, 64), s(0, "CCL", 0, 64)), rec(0, 1, 10 + k)]
read = lambda k: [wt(1, 0, 10 + k), cp(1, s(0, "CCL", 0, 64), s(1, "OUTPUT", 64 * k, 64))]
write("302_ccl_reuse.jsonl", RACE, "rank 0 refills its CCL slot for step 1 while rank 1 may still read step 0 from it",
      step(0) + step(1) + read(0) + read(1))
write("pass_ccl_reuse.jsonl", OK, "the same with the handshake: rank 0 waits for rank 1's ACK before refilling the slot",
      step(0) + [wt(0, 1, 20)] + step(1) + read(0) + [rec(1, 0, 20)] + read(1))
write("302_batch.jsonl", RACE, "the second pair of a batch copy writes bytes rank 1 reads unordered",
      [{"rank": 0, "stream": 0, "type": "BATCH_TRANS_MEM",
        "pairs": [{"src": s(0, "INPUT", 0, 32), "dst": s(0, "CCL", 0, 32)},
                  {"src": s(0, "INPUT", 32, 32), "dst": s(0, "CCL", 512, 32)}]}, rec(0, 1, 1),
       cp(1, s(0, "CCL", 520, 8), s(1, "OUTPUT", 0, 8)), wt(1, 0, 1)])
write("pass_batch.jsonl", OK, "a batch copy, then the reader after the signal",
      [{"rank": 0, "stream": 0, "type": "BATCH_TRANS_MEM",
        "pairs": [{"src": s(0, "INPUT", 0, 32), "dst": s(0, "CCL", 0, 32)},
                  {"src": s(0, "INPUT", 32, 32), "dst": s(0, "CCL", 512, 32)}]}, rec(0, 1, 1),
       wt(1, 0, 1), cp(1, s(0, "CCL", 520, 8), s(1, "OUTPUT", 0, 8))])
write("302_local_vs_remote.jsonl", RACE, "rank 0's own copy into its OUTPUT and rank 1's remote write into it overlap",
      [cp(0, s(0, "INPUT", 0, 64), s(0, "OUTPUT", 0, 64)),
       cp(1, s(1, "INPUT", 0, 64), s(0, "OUTPUT", 32, 64))])
write("302_slave_stream.jsonl", RACE, "rank 0's slave stream writes the CCL bytes its main stream writes, with no order after the start",
      [rec(0, 0, 1), cp(0, s(0, "INPUT", 0, 64), s(0, "CCL", 0, 64)), wt(0, 0, 2),
       wt(0, 0, 1, stream=1), cp(0, s(0, "INPUT", 64, 64), s(0, "CCL", 32, 64), stream=1), rec(0, 0, 2, stream=1)])
write("pass_slave_stream.jsonl", OK, "the slave stream starts after the main stream's write",
      [cp(0, s(0, "INPUT", 0, 64), s(0, "CCL", 0, 64)), rec(0, 0, 1), wt(0, 0, 2),
       wt(0, 0, 1, stream=1), cp(0, s(0, "INPUT", 64, 64), s(0, "CCL", 32, 64), stream=1), rec(0, 0, 2, stream=1)])
write("pass_read_read.jsonl", OK, "two unordered reads of the same bytes are not a conflict",
      [cp(1, s(0, "INPUT", 0, 64), s(1, "OUTPUT", 0, 64)),
       cp(2, s(0, "INPUT", 0, 64), s(2, "OUTPUT", 0, 64))])
write("302_physical_notify.jsonl", "exit=1 codes=302,602,902",
      "a reused notify id pairs by timing (602) and leaves the second read unordered with the refill (302)",
      step(0)[:1] + [rec(0, 1, 7)] + step(1)[:1] + [rec(0, 1, 7)] +
      [wt(1, 0, 7), cp(1, s(0, "CCL", 0, 64), s(1, "OUTPUT", 0, 64)), wt(1, 0, 7),
       cp(1, s(0, "CCL", 0, 64), s(1, "OUTPUT", 64, 64))])

# Inline reduces (checks.md stage 4): SDMA and RDMA reduces into the same
# bytes with the same operator and data type are applied atomically by the
# engine; every other pair is still a conflict.
def ired(r, src, dst, link="SDMA", op="SUM", dtype="FP32", stream=0):
    return {"rank": r, "stream": stream, "type": "REDUCE", "srcs": [src], "dst": dst, "reduceOp": op,
            "dataType": dtype, "link": link}


ATOMIC_PAIR = [rec(0, 1, 1), rec(0, 2, 1), wt(1, 0, 1), wt(2, 0, 1)]
write("pass_atomic_reduce.jsonl", "exit=0 codes=0,902 warnings=ATOMIC-REDUCE-ORDER",
      "ranks 1 and 2 reduce into rank 0's CCL at the same time by SDMA inline reduce (SUM, FP32): atomic, not a race; "
      "the FP32 rounding depends on the order (warning)",
      ATOMIC_PAIR + [ired(1, s(1, "INPUT", 0, 64), s(0, "CCL", 0, 64)), ired(2, s(2, "INPUT", 0, 64), s(0, "CCL", 0, 64))])
write("pass_atomic_reduce_int.jsonl", "exit=0 codes=902 warnings=",
      "the same with INT32 (MAX) and one RDMA reduce: atomic, and the result does not depend on the order",
      ATOMIC_PAIR + [ired(1, s(1, "INPUT", 0, 64), s(0, "CCL", 0, 64), op="MAX", dtype="INT32"),
                     ired(2, s(2, "INPUT", 0, 64), s(0, "CCL", 0, 64), link="RDMA", op="MAX", dtype="INT32")])
hdr_strict = HDR
with open(os.path.join(HERE, "302_atomic_reduce_strict.jsonl"), "w") as f:
    f.write("# expect: exit=1 codes=302,902 warnings= args=--strict-reduce --stages graph,single,sync,mem\n")
    f.write("# --strict-reduce: HCCL's checker's rule, the pair of pass_atomic_reduce.jsonl is a conflict\n")
    f.write(json.dumps(HDR, separators=(",", ":")) + "\n")
    for t in ATOMIC_PAIR + [ired(1, s(1, "INPUT", 0, 64), s(0, "CCL", 0, 64)),
                            ired(2, s(2, "INPUT", 0, 64), s(0, "CCL", 0, 64))]:
        f.write(json.dumps(t, separators=(",", ":")) + "\n")
write("302_atomic_reduce_other_op.jsonl", RACE + " warnings=",
      "ranks 1 and 2 reduce into the same bytes by SDMA with different operators (SUM, MAX): a race",
      ATOMIC_PAIR + [ired(1, s(1, "INPUT", 0, 64), s(0, "CCL", 0, 64)),
                     ired(2, s(2, "INPUT", 0, 64), s(0, "CCL", 0, 64), op="MAX")])
write("302_atomic_reduce_local.jsonl", RACE + " warnings=",
      "rank 0 reduces locally (not inline by a DMA engine) into the bytes rank 1 reduces into by SDMA: a race",
      [rec(0, 1, 1), wt(1, 0, 1), ired(0, s(0, "INPUT", 0, 64), s(0, "CCL", 0, 64), link="LOCAL"),
       ired(1, s(1, "INPUT", 0, 64), s(0, "CCL", 0, 64))])
write("302_atomic_reduce_after_copy.jsonl", "exit=1 codes=0,302,902 warnings=ATOMIC-REDUCE-ORDER",
      "rank 0 fills its CCL and then reduces into it; rank 1's reduce of the same class is unordered with both: "
      "atomic against the reduce (FP32: the warning), a race against the copy",
      [cp(0, s(0, "INPUT", 0, 64), s(0, "CCL", 0, 64)), ired(0, s(0, "INPUT", 64, 64), s(0, "CCL", 0, 64)),
       ired(1, s(1, "INPUT", 0, 64), s(0, "CCL", 0, 64))])
