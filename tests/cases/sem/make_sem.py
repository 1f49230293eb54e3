#!/usr/bin/env python3
"""Writes tests/cases/sem/*.jsonl: golden cases of the semantic stage.

For every operator the direct schedule of ../ops/make_direct.py on 2, 3 and
4 ranks (pass_*), and on 3 ranks each way it can go wrong, made by editing
that schedule's tasks: a missing slice, data from the wrong rank or offset,
an over-long run, a missing, doubled or wrongly reduced contribution, a
reduce into an empty destination, in-place variants, and parameters that
cannot be checked. Each file carries the exit status and codes collcheck
must report (with a comment saying what was broken). Run it from anywhere.
"""
import copy, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "ops"))
from make_direct import direct, works, sl, U  # noqa: E402

DT, COUNT = "INT32", 8
u = U[DT]
D = COUNT * u

SHAPES = {
    2: dict(counts=(3, 2), displs=(0, 4), M=((1, 2), (3, 0)),
            items=[{"src": 0, "dst": 1, "count": 3}, {"src": 1, "dst": 0, "count": 2}, {"src": 0, "dst": 1, "count": 1}]),
    3: dict(counts=(3, 0, 5), displs=(0, 4, 6), M=((1, 0, 4), (2, 3, 0), (0, 5, 6))),
    4: dict(counts=(2, 3, 0, 1), displs=(0, 3, 6, 8), M=((1, 0, 2, 1), (0, 3, 1, 0), (2, 1, 0, 1), (1, 1, 1, 1)),
            items=[{"src": 0, "dst": 1, "count": 3}, {"src": 2, "dst": 1, "count": 2}, {"src": 3, "dst": 0, "count": 2},
                   {"src": 1, "dst": 3, "count": 1}, {"src": 0, "dst": 1, "count": 1}]),
}


def schedule(opname, n=3, pre=None, work=None, **over):
    shape = dict(SHAPES[n])
    shape.update(over)
    op, w = works(n=n, count=COUNT, dt=DT, **shape)[opname]
    op = copy.deepcopy(op)
    return direct(op, "", "", work or w, write=False, pre=pre)


def src_of(d):
    return d["src"] if d["type"] == "TRANS_MEM" else d["srcs"][0]


def find(t, rank, src_rank=None, kind=None, nth=0):
    """Index of the nth data task issued by `rank` (reading `src_rank`)."""
    hits = [i for i, d in enumerate(t.lines)
            if d["rank"] == rank and d["type"] in ("TRANS_MEM", "REDUCE")
            and (src_rank is None or src_of(d)["rank"] == src_rank)
            and (kind is None or d["type"] == kind)]
    return hits[nth]


def write(t, fname, expect, what, name=None):
    t.name = name or fname[:-6]
    t.write(fname, expect=expect, here=HERE, comment=what)


def passes():
    for n in (2, 3, 4):
        for opname in works(n=n, **SHAPES[n]):
            write(schedule(opname, n), "pass_%s_%d.jsonl" % (opname.lower(), n), "exit=0 codes=",
                  "the direct %s schedule on %d ranks" % (opname, n))


def reduce_cases(opname, first_src_rank_of=lambda r: r):
    """The faults of a reducing operator, on rank 0's (or the root's) result."""
    r = 1 if opname == "Reduce" else 0
    low = opname.lower()
    # A missing slice of the destination: the local copy that fills it is half as long.
    t = schedule(opname)
    i = find(t, r, src_rank=r, kind="TRANS_MEM")
    for k in ("src", "dst"):
        t.lines[i][k]["len"] //= 2
    write(t, "402_%s_missing_slice.jsonl" % low, "exit=1 codes=402,403,409",
          "rank %d's first copy fills only half its OUTPUT, then the reduces run into the unfilled tail" % r)
    # A reduce into an empty destination: the local copy is gone.
    t = schedule(opname)
    del t.lines[find(t, r, src_rank=r, kind="TRANS_MEM")]
    write(t, "401_%s_reduce_into_empty.jsonl" % low, "exit=1 codes=401,403,409",
          "rank %d never copies its own INPUT into OUTPUT before reducing the peers into it" % r)
    # A missing contribution: one REDUCE dropped.
    t = schedule(opname)
    del t.lines[find(t, r, kind="REDUCE")]
    write(t, "409_%s_missing_contribution.jsonl" % low, "exit=1 codes=409",
          "rank %d drops its first REDUCE: one rank's contribution is missing" % r)
    # A double contribution: one REDUCE issued twice.
    t = schedule(opname)
    i = find(t, r, kind="REDUCE")
    t.lines.insert(i + 1, copy.deepcopy(t.lines[i]))
    write(t, "403_%s_double_contribution.jsonl" % low, "exit=1 codes=403,409",
          "rank %d issues its first REDUCE twice: a contribution counted twice" % r)
    # One REDUCE with another operator: mixed ops.
    t = schedule(opname)
    i = find(t, r, kind="REDUCE")
    t.lines[i]["reduceOp"] = "MIN" if t.op.get("reduceOp") != "MIN" else "MAX"
    write(t, "403_%s_mixed_ops.jsonl" % low, "exit=1 codes=403,409",
          "rank %d's first REDUCE uses another reduce op than the operator" % r)
    # Every REDUCE with another operator: uniformly wrong.
    t = schedule(opname)
    for d in t.lines:
        if d["type"] == "REDUCE":
            d["reduceOp"] = "MIN" if t.op.get("reduceOp") != "MIN" else "MAX"
    write(t, "409_%s_wrong_op.jsonl" % low, "exit=1 codes=409", "every REDUCE uses another reduce op")
    # Data from the wrong rank: rank r's first REDUCE reads a rank it already holds.
    t = schedule(opname)
    i = find(t, r, kind="REDUCE")
    src_of(t.lines[i])["rank"] = r
    t.lines[i]["link"] = "LOCAL"
    t.lines[i]["srcs"][0]["type"] = "INPUT"
    write(t, "407_%s_wrong_rank.jsonl" % low, "exit=1 codes=403,407",
          "rank %d's first REDUCE reads its own INPUT again in place of a peer's: 403 (counted twice), "
          "then 407 at the end (right count, one contribution from the wrong rank)" % r)


def copy_cases(opname, r=2, q=0, shifted=True, wrong_rank=1, wrong_codes="407"):
    low = opname.lower()
    t = schedule(opname)
    del t.lines[find(t, r, src_rank=q)]
    write(t, "406_%s_missing_slice.jsonl" % low, "exit=1 codes=406",
          "rank %d never copies the data it needs from rank %d" % (r, q))
    if wrong_rank is not None:
        t = schedule(opname)
        src_of(t.lines[find(t, r, src_rank=q)])["rank"] = wrong_rank
        write(t, "407_%s_wrong_rank.jsonl" % low, "exit=1 codes=" + wrong_codes,
              "rank %d copies from rank %d in place of rank %d" % (r, wrong_rank, q))
    if shifted:
        t = schedule(opname)
        d = t.lines[find(t, r, src_rank=q)]
        d["src"]["offset"] += u
        d["src"]["len"] -= u
        d["dst"]["len"] -= u
        write(t, "407_%s_wrong_offset.jsonl" % low, "exit=1 codes=406,407",
              "rank %d's copy from rank %d starts one element late: wrong offset, and the last element is "
              "missing" % (r, q))


def main():
    passes()
    for opname in ("AllReduce", "ReduceScatter", "ReduceScatterV", "Reduce"):
        reduce_cases(opname)
    copy_cases("AllGather")
    copy_cases("Gather", r=1, q=0)
    copy_cases("AllGatherV", r=1, q=0, wrong_rank=2)
    copy_cases("Broadcast", r=2, q=1, wrong_rank=0, wrong_codes="404,406")
    copy_cases("Scatter", r=2, q=1, wrong_rank=None)
    copy_cases("AllToAll", r=2, q=0)
    copy_cases("AllToAllV", r=2, q=0)
    copy_cases("SendRecv", r=2, q=0, wrong_rank=None)  # only rank 0 has INPUT
    copy_cases("BatchSendRecv", r=1, q=2)

    # Scatter: rank 2 copies the root's block for rank 1.
    t = schedule("Scatter")
    t.lines[find(t, 2, src_rank=1)]["src"]["offset"] = 1 * D
    write(t, "407_scatter_wrong_block.jsonl", "exit=1 codes=407", "rank 2 copies the root's block for rank 1")

    # AllGatherV with given displacements: rank 0 places rank 2's block at
    # the prefix sum of the counts (3) instead of displs[2] = 6.
    t = schedule("AllGatherV")
    t.lines[find(t, 0, src_rank=2)]["dst"]["offset"] = 3 * u
    write(t, "407_allgatherv_ignores_displs.jsonl", "exit=1 codes=406,407",
          "rank 0 puts rank 2's block at the prefix sum 3 in place of displs[2] = 6")

    # 408: a run continues past the end of the block it fills.
    t = schedule("AllToAll")
    i = find(t, 0, src_rank=1)
    for k in ("src", "dst"):
        t.lines[i][k]["len"] = 2 * D
    del t.lines[find(t, 0, src_rank=2)]
    write(t, "408_alltoall_overlong.jsonl", "exit=1 codes=407,408",
          "rank 0 copies two blocks of rank 1's INPUT in one go and nothing from rank 2")
    t = schedule("AllToAllV", M=((1, 2, 1), (2, 1, 2), (1, 1, 1)))
    i = find(t, 0, src_rank=1)
    for k in ("src", "dst"):
        t.lines[i][k]["len"] += u
    del t.lines[find(t, 0, src_rank=2)]
    write(t, "408_alltoallv_overlong.jsonl", "exit=1 codes=407,408",
          "rank 0's copy from rank 1 runs one element into the slot of rank 2's data, which never comes")
    t = schedule("BatchSendRecv")
    i = find(t, 1, src_rank=0)
    for k in ("src", "dst"):
        t.lines[i][k]["len"] += u
    del t.lines[find(t, 1, src_rank=2)]
    write(t, "408_batchsendrecv_overlong.jsonl", "exit=1 codes=406,407,408",
          "rank 1 copies one element too many from rank 0 into the place of the item from rank 2, "
          "which never comes")

    # In place (AllReduce, Broadcast, Reduce): staging where peers read.
    def ar_pre(r):
        return [(None, "copy", sl(r, "INPUT", 0, D), sl(r, "CCL", 0, D))]

    def ar_work(r):
        return [(q, "reduce", sl(q, "CCL", 0, D), sl(r, "INPUT", 0, D)) for q in range(3) if q != r]

    def ar_inplace(t):
        t.op["inPlace"] = True
        return t

    t = ar_inplace(schedule("AllReduce", pre=ar_pre, work=ar_work))
    t.buffers = {"CCL": D}
    write(t, "pass_allreduce_inplace.jsonl", "exit=0 codes=",
                  "in place: every rank stages its INPUT in CCL, then reduces the peers' CCL into its INPUT")
    t = ar_inplace(schedule("AllReduce", pre=ar_pre, work=ar_work))
    t.buffers = {"CCL": D}
    del t.lines[find(t, 2, kind="REDUCE")]
    write(t, "409_allreduce_inplace_missing.jsonl", "exit=1 codes=409",
                  "in place: rank 2 drops one REDUCE")

    def bc_work(r):
        return [] if r == 1 else [(1, "copy", sl(1, "INPUT", 0, D), sl(r, "INPUT", 0, D))]
    t = ar_inplace(schedule("Broadcast", work=bc_work))
    write(t, "pass_broadcast_inplace.jsonl", "exit=0 codes=",
                  "in place: the non-roots copy the root's INPUT into their INPUT")
    t = ar_inplace(schedule("Broadcast", work=bc_work))
    del t.lines[find(t, 0, src_rank=1)]
    write(t, "406_broadcast_inplace_missing.jsonl", "exit=1 codes=406",
                  "in place: rank 0 never copies the root's data; its INPUT (the result) holds nothing")

    def rd_work(r):
        return [] if r != 1 else [(q, "reduce", sl(q, "INPUT", 0, D), sl(1, "INPUT", 0, D)) for q in (0, 2)]
    t = ar_inplace(schedule("Reduce", work=rd_work))
    write(t, "pass_reduce_inplace.jsonl", "exit=0 codes=",
                  "in place: the root reduces the peers' INPUT into its own INPUT")
    t = ar_inplace(schedule("Reduce", work=rd_work))
    i = find(t, 1, kind="REDUCE")
    t.lines.insert(i + 1, copy.deepcopy(t.lines[i]))
    write(t, "403_reduce_inplace_double.jsonl", "exit=1 codes=403,409",
                  "in place: the root reduces rank 0's INPUT twice")

    # Reduce: non-roots' OUTPUT is unconstrained.
    t = schedule("Reduce")
    t.lines.append({"rank": 0, "stream": 0, "type": "TRANS_MEM", "src": sl(2, "INPUT", 0, D),
                    "dst": sl(0, "OUTPUT", 0, D), "link": "SDMA"})
    t.lines.insert(0, t.lines.pop())
    write(t, "pass_reduce_nonroot_output_free.jsonl", "exit=0 codes=",
          "rank 0 (not the root) writes rank 2's INPUT into its OUTPUT: not checked")

    # 404 alone: a copy of never-written scratch bytes nobody uses.
    t = schedule("AllGather")
    t.lines.insert(0, {"rank": 0, "stream": 0, "type": "TRANS_MEM", "src": sl(0, "CCL", 0, 16),
                       "dst": sl(0, "CCL", 16, 16), "link": "LOCAL"})
    t.buffers = {"CCL": 64}
    write(t, "404_copy_from_empty.jsonl", "exit=0 codes=404",
                  "rank 0 copies CCL bytes nothing wrote (a warning); the result is right")

    # 405: parameters that cannot be checked.
    t = schedule("Broadcast", work=lambda r: [(None, "copy", sl(r, "INPUT", 0, D), sl(r, "OUTPUT", 0, D))])
    t.op["root"] = 5
    write(t, "405_root_outside.jsonl", "exit=1 codes=404,405",
          "the root (5) is not one of the 3 ranks: no INPUT is initialised, and the result cannot be checked")
    items = [{"src": 0, "dst": 1, "count": 2}, {"src": 0, "dst": 5, "count": 1}, {"src": 0, "dst": 1, "count": 1}]
    t = schedule("BatchSendRecv", items=items)
    write(t, "405_item_outside.jsonl", "exit=1 codes=405",
          "item 1 sends to rank 5 of 3: reported and skipped; items 0 and 2 are still checked (rank 0 "
          "INPUT [0x0,0x8) and [0xc,0x10) to rank 1)")


main()
