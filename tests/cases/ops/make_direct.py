#!/usr/bin/env python3
"""Writes tests/cases/ops/direct_*.jsonl: one correct trace per operator.

The schedule is the simplest correct one ("direct"): every rank offers its
INPUT to every peer (RECORD #1 per peer), pulls what the operator needs from
each peer once that peer said it is ready (WAIT #1, then copy or reduce), tells
each peer it is done reading (RECORD #2) and waits until every peer is done
with its own INPUT (WAIT #2). It exercises every operator's parameters and
the OUTPUT layout of checks.md without depending on a particular algorithm.
Run it from anywhere; it rewrites the files next to itself.
"""
import collections, json, os

HERE = os.path.dirname(os.path.abspath(__file__))
U = {"INT8": 1, "INT16": 2, "INT32": 4, "FP16": 2, "FP32": 4, "INT64": 8}


def sl(rank, buf, off, ln):
    return {"rank": rank, "type": buf, "offset": off, "len": ln}


class Trace:
    def __init__(self, op, name):
        self.op, self.name, self.lines, self.buffers = op, name, [], None

    def task(self, rank, **kw):
        d = {"rank": rank, "stream": 0}
        d.update(kw)
        self.lines.append(d)

    def copy(self, r, src, dst):
        self.task(r, type="TRANS_MEM", src=src, dst=dst, link="LOCAL" if src["rank"] == dst["rank"] == r else "SDMA")

    def reduce(self, r, src, dst):
        self.task(r, type="REDUCE", srcs=[src], dst=dst)

    def write(self, fname, expect="exit=0 codes=", here=HERE, comment=None):
        hdr = {"format": "collcheck-trace", "version": 1, "name": self.name, "op": self.op}
        if self.buffers:
            hdr["buffers"] = self.buffers
        with open(os.path.join(here, fname), "w") as f:
            f.write("# expect: " + expect + "\n")
            if comment:
                f.write("# " + comment + "\n")
            f.write(json.dumps(hdr, separators=(",", ":")) + "\n")
            for d in self.lines:
                f.write(json.dumps(d, separators=(",", ":")) + "\n")


def direct(op, name, fname, work, write=True, pre=None):
    """work(r) -> list of (peer or None, kind, src, dst); peer None = local.
    pre(r) -> the same, issued before rank r offers its data (staging).
    Writes the trace, or returns it (write=False) for a caller to edit."""
    n = op["ranks"]
    t = Trace(op, name)
    for r in range(n):
        for p, kind, src, dst in (pre(r) if pre else []):
            (t.copy if kind == "copy" else t.reduce)(r, src, dst)
        items = work(r)
        peers = sorted({p for p, *_ in items if p is not None and p != r})
        for p in range(n):
            if p != r:
                t.task(r, type="RECORD", waitRank=p, notifyId=1)
        for p, kind, src, dst in items:
            if p is None or p == r:
                (t.copy if kind == "copy" else t.reduce)(r, src, dst)
        for p in peers:
            t.task(r, type="WAIT", recordRank=p, notifyId=1)
            for q, kind, src, dst in items:
                if q == p:
                    (t.copy if kind == "copy" else t.reduce)(r, src, dst)
        for p in range(n):
            if p != r:
                t.task(r, type="RECORD", waitRank=p, notifyId=2)
        for p in range(n):
            if p != r:
                t.task(r, type="WAIT", recordRank=p, notifyId=2)
        for p in range(n):
            if p != r and p not in peers:
                t.task(r, type="WAIT", recordRank=p, notifyId=1)
    if not write:
        return t
    t.write(fname)


def works(n=3, count=40, dt="INT32", counts=(3, 0, 5), displs=(0, 4, 6),
          M=((1, 0, 4), (2, 3, 0), (0, 5, 6)), items=None, item1=None, root=1):
    """{operator: (op, work)} of the direct schedule of every operator on n
    ranks; V counts, the AllToAllV matrix and the items must fit n."""
    u = U[dt]
    D = count * u
    counts, displs, M = list(counts), list(displs), [list(row) for row in M]
    items = items or [{"src": 0, "dst": 1, "count": 3}, {"src": 2, "dst": 1, "count": 2},
                      {"src": 1, "dst": 0, "count": 5}, {"src": 0, "dst": 1, "count": 1}]
    item1 = item1 or [{"src": 0, "dst": n - 1, "count": 7}]
    base = {"ranks": n, "dataType": dt}

    def op(**kw):
        d = dict(base)
        d.update(kw)
        return d

    def allreduce(r):
        return [(None, "copy", sl(r, "INPUT", 0, D), sl(r, "OUTPUT", 0, D))] + \
               [(q, "reduce", sl(q, "INPUT", 0, D), sl(r, "OUTPUT", 0, D)) for q in range(n) if q != r]

    def allgather(r):
        return [(q, "copy", sl(q, "INPUT", 0, D), sl(r, "OUTPUT", q * D, D)) for q in range(n)]

    def reducescatter(r):
        return [(None, "copy", sl(r, "INPUT", r * D, D), sl(r, "OUTPUT", 0, D))] + \
               [(q, "reduce", sl(q, "INPUT", r * D, D), sl(r, "OUTPUT", 0, D)) for q in range(n) if q != r]

    def allgatherv(r):
        return [(q, "copy", sl(q, "INPUT", 0, counts[q] * u), sl(r, "OUTPUT", displs[q] * u, counts[q] * u))
                for q in range(n) if counts[q]]

    def reducescatterv(r):
        if counts[r] == 0:
            return []
        L = counts[r] * u
        return [(None, "copy", sl(r, "INPUT", displs[r] * u, L), sl(r, "OUTPUT", 0, L))] + \
               [(q, "reduce", sl(q, "INPUT", displs[r] * u, L), sl(r, "OUTPUT", 0, L)) for q in range(n) if q != r]

    def broadcast(r):
        return [(root, "copy", sl(root, "INPUT", 0, D), sl(r, "OUTPUT", 0, D))]

    def reduce_(r):
        if r != root:
            return []
        return [(None, "copy", sl(r, "INPUT", 0, D), sl(r, "OUTPUT", 0, D))] + \
               [(q, "reduce", sl(q, "INPUT", 0, D), sl(r, "OUTPUT", 0, D)) for q in range(n) if q != r]

    def scatter(r):
        return [(root, "copy", sl(root, "INPUT", r * D, D), sl(r, "OUTPUT", 0, D))]

    def gather(r):
        if r != root:
            return []
        return [(q, "copy", sl(q, "INPUT", 0, D), sl(r, "OUTPUT", q * D, D)) for q in range(n)]

    def alltoall(r):
        return [(q, "copy", sl(q, "INPUT", r * D, D), sl(r, "OUTPUT", q * D, D)) for q in range(n)]

    def alltoallv(r):
        out, off = [], 0
        for q in range(n):
            L = M[q][r] * u
            if L:
                src_off = sum(M[q][j] for j in range(r)) * u
                out.append((q, "copy", sl(q, "INPUT", src_off, L), sl(r, "OUTPUT", off, L)))
            off += L
        return out

    def sendrecv_work(its):
        def work(r):
            out = []
            # running offsets per rank, in item order
            soff, roff = collections.defaultdict(int), collections.defaultdict(int)
            for it in its:
                L = it["count"] * u
                if it["dst"] == r and it["src"] < n:
                    out.append((it["src"], "copy", sl(it["src"], "INPUT", soff[it["src"]], L), sl(r, "OUTPUT", roff[r], L)))
                soff[it["src"]] += L
                roff[it["dst"]] += L
            return out
        return work

    return {
        "AllReduce": (op(type="AllReduce", count=count, reduceOp="SUM"), allreduce),
        "AllGather": (op(type="AllGather", count=count), allgather),
        "ReduceScatter": (op(type="ReduceScatter", count=count, reduceOp="MAX"), reducescatter),
        "AllGatherV": (op(type="AllGatherV", counts=counts, displs=displs), allgatherv),
        "ReduceScatterV": (op(type="ReduceScatterV", counts=counts, displs=displs, reduceOp="SUM"), reducescatterv),
        "Broadcast": (op(type="Broadcast", count=count, root=root), broadcast),
        "Reduce": (op(type="Reduce", count=count, root=root, reduceOp="PROD"), reduce_),
        "Scatter": (op(type="Scatter", count=count, root=root), scatter),
        "Gather": (op(type="Gather", count=count, root=root), gather),
        "AllToAll": (op(type="AllToAll", count=count), alltoall),
        "AllToAllV": (op(type="AllToAllV", sendCounts=M), alltoallv),
        "SendRecv": (op(type="SendRecv", items=item1), sendrecv_work(item1)),
        "BatchSendRecv": (op(type="BatchSendRecv", items=items), sendrecv_work(items)),
    }


def main():
    for opname, (op, work) in works().items():
        direct(op, "direct " + opname, "direct_" + opname.lower() + ".jsonl", work)


if __name__ == "__main__":
    main()
