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
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
U = {"INT8": 1, "INT16": 2, "INT32": 4, "FP16": 2, "FP32": 4, "INT64": 8}


def sl(rank, buf, off, ln):
    return {"rank": rank, "type": buf, "offset": off, "len": ln}


class Trace:
    def __init__(self, op, name):
        self.op, self.name, self.lines = op, name, []

    def task(self, rank, **kw):
        d = {"rank": rank, "stream": 0}
        d.update(kw)
        self.lines.append(d)

    def copy(self, r, src, dst):
        self.task(r, type="TRANS_MEM", src=src, dst=dst, link="LOCAL" if src["rank"] == dst["rank"] == r else "SDMA")

    def reduce(self, r, src, dst):
        self.task(r, type="REDUCE", srcs=[src], dst=dst)

    def write(self, fname):
        hdr = {"format": "collcheck-trace", "version": 1, "name": self.name, "op": self.op}
        with open(os.path.join(HERE, fname), "w") as f:
            f.write("# expect: exit=0 codes=\n")
            f.write(json.dumps(hdr, separators=(",", ":")) + "\n")
            for d in self.lines:
                f.write(json.dumps(d, separators=(",", ":")) + "\n")


def direct(op, name, fname, work):
    """work(r) -> list of (peer or None, kind, src, dst); peer None = local."""
    n = op["ranks"]
    t = Trace(op, name)
    for r in range(n):
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
    t.write(fname)


def main():
    n, count, dt = 3, 40, "INT32"
    u = U[dt]
    D = count * u
    base = {"ranks": n, "dataType": dt}

    def op(**kw):
        d = dict(base)
        d.update(kw)
        return d

    def allreduce(r):
        return [(None, "copy", sl(r, "INPUT", 0, D), sl(r, "OUTPUT", 0, D))] + \
               [(q, "reduce", sl(q, "INPUT", 0, D), sl(r, "OUTPUT", 0, D)) for q in range(n) if q != r]
    direct(op(type="AllReduce", count=count, reduceOp="SUM"), "direct AllReduce", "direct_allreduce.jsonl", allreduce)

    def allgather(r):
        return [(q, "copy", sl(q, "INPUT", 0, D), sl(r, "OUTPUT", q * D, D)) for q in range(n)]
    direct(op(type="AllGather", count=count), "direct AllGather", "direct_allgather.jsonl", allgather)

    def reducescatter(r):
        return [(None, "copy", sl(r, "INPUT", r * D, D), sl(r, "OUTPUT", 0, D))] + \
               [(q, "reduce", sl(q, "INPUT", r * D, D), sl(r, "OUTPUT", 0, D)) for q in range(n) if q != r]
    direct(op(type="ReduceScatter", count=count, reduceOp="MAX"), "direct ReduceScatter", "direct_reducescatter.jsonl", reducescatter)

    counts, displs = [3, 0, 5], [0, 4, 6]
    ext = max(d + c for d, c in zip(displs, counts)) * u

    def allgatherv(r):
        return [(q, "copy", sl(q, "INPUT", 0, counts[q] * u), sl(r, "OUTPUT", displs[q] * u, counts[q] * u))
                for q in range(n) if counts[q]]
    direct(op(type="AllGatherV", counts=counts, displs=displs), "direct AllGatherV", "direct_allgatherv.jsonl", allgatherv)

    def reducescatterv(r):
        if counts[r] == 0:
            return []
        L = counts[r] * u
        return [(None, "copy", sl(r, "INPUT", displs[r] * u, L), sl(r, "OUTPUT", 0, L))] + \
               [(q, "reduce", sl(q, "INPUT", displs[r] * u, L), sl(r, "OUTPUT", 0, L)) for q in range(n) if q != r]
    direct(op(type="ReduceScatterV", counts=counts, displs=displs, reduceOp="SUM"), "direct ReduceScatterV", "direct_reducescatterv.jsonl", reducescatterv)

    root = 1

    def broadcast(r):
        return [(root, "copy", sl(root, "INPUT", 0, D), sl(r, "OUTPUT", 0, D))]
    direct(op(type="Broadcast", count=count, root=root), "direct Broadcast", "direct_broadcast.jsonl", broadcast)

    def reduce_(r):
        if r != root:
            return []
        return [(None, "copy", sl(r, "INPUT", 0, D), sl(r, "OUTPUT", 0, D))] + \
               [(q, "reduce", sl(q, "INPUT", 0, D), sl(r, "OUTPUT", 0, D)) for q in range(n) if q != r]
    direct(op(type="Reduce", count=count, root=root, reduceOp="PROD"), "direct Reduce", "direct_reduce.jsonl", reduce_)

    def scatter(r):
        return [(root, "copy", sl(root, "INPUT", r * D, D), sl(r, "OUTPUT", 0, D))]
    direct(op(type="Scatter", count=count, root=root), "direct Scatter", "direct_scatter.jsonl", scatter)

    def gather(r):
        if r != root:
            return []
        return [(q, "copy", sl(q, "INPUT", 0, D), sl(r, "OUTPUT", q * D, D)) for q in range(n)]
    direct(op(type="Gather", count=count, root=root), "direct Gather", "direct_gather.jsonl", gather)

    def alltoall(r):
        return [(q, "copy", sl(q, "INPUT", r * D, D), sl(r, "OUTPUT", q * D, D)) for q in range(n)]
    direct(op(type="AllToAll", count=count), "direct AllToAll", "direct_alltoall.jsonl", alltoall)

    M = [[1, 0, 4], [2, 3, 0], [0, 5, 6]]

    def alltoallv(r):
        out, off = [], 0
        for q in range(n):
            L = M[q][r] * u
            if L:
                src_off = sum(M[q][j] for j in range(r)) * u
                out.append((q, "copy", sl(q, "INPUT", src_off, L), sl(r, "OUTPUT", off, L)))
            off += L
        return out
    direct(op(type="AllToAllV", sendCounts=M), "direct AllToAllV", "direct_alltoallv.jsonl", alltoallv)

    def sendrecv_work(items):
        def work(r):
            sent, recv, out = [0] * n, [0] * n, []
            sent_off = {}
            # running offsets per rank, in item order
            soff, roff = [0] * n, [0] * n
            for it in items:
                L = it["count"] * u
                if it["dst"] == r:
                    out.append((it["src"], "copy", sl(it["src"], "INPUT", soff[it["src"]], L), sl(r, "OUTPUT", roff[r], L)))
                soff[it["src"]] += L
                roff[it["dst"]] += L
            return out
        return work
    items1 = [{"src": 0, "dst": 2, "count": 7}]
    direct(op(type="SendRecv", items=items1), "direct SendRecv", "direct_sendrecv.jsonl", sendrecv_work(items1))
    items = [{"src": 0, "dst": 1, "count": 3}, {"src": 2, "dst": 1, "count": 2}, {"src": 1, "dst": 0, "count": 5},
             {"src": 0, "dst": 1, "count": 1}]
    direct(op(type="BatchSendRecv", items=items), "direct BatchSendRecv", "direct_batchsendrecv.jsonl", sendrecv_work(items))


main()
