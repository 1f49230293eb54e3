#!/usr/bin/env python3
"""Writes the golden MSCCL cases of tests/cases/msccl/ and their .expect sidecars.

msccl.md's three worked examples (ex1-ex3), one minimal file per finding,
one per named warning, and the files that are not usable (exit 2). Run it
from anywhere; it rewrites every file it owns (hand-made files beside them
are left alone).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


class Step:
    def __init__(self, s, type, srcbuf="i", srcoff=-1, dstbuf="o", dstoff=-1, cnt=1, depid=-1, deps=-1,
                 hasdep=0, extra=""):
        self.__dict__.update(locals())

    def xml(self):
        return (f'      <step s="{self.s}" type="{self.type}" srcbuf="{self.srcbuf}" srcoff="{self.srcoff}" '
                f'dstbuf="{self.dstbuf}" dstoff="{self.dstoff}" cnt="{self.cnt}" depid="{self.depid}" '
                f'deps="{self.deps}" hasdep="{self.hasdep}"{self.extra}/>')


class Tb:
    def __init__(self, id, send=-1, recv=-1, chan=0, raw=""):
        self.id, self.send, self.recv, self.chan, self.raw = id, send, recv, chan, raw
        self.steps = []

    def step(self, type, srcbuf="i", srcoff=-1, dstbuf="o", dstoff=-1, cnt=1, depid=-1, deps=-1, hasdep=0, s=None,
             extra=""):
        if s is None:
            s = len(self.steps)
        self.steps.append(Step(s, type, srcbuf, srcoff, dstbuf, dstoff, cnt, depid, deps, hasdep, extra))
        return self

    def send_(self, buf, off, cnt=1, remote=None, **kw):
        rb, ro = remote if remote else ("o", -1)
        return self.step("s", buf, off, rb, ro, cnt, **kw)

    def recv_(self, buf, off, cnt=1, remote=None, **kw):
        rb, ro = remote if remote else ("o", -1)
        return self.step("r", rb, ro, buf, off, cnt, **kw)

    def xml(self):
        out = [f'    <tb id="{self.id}" send="{self.send}" recv="{self.recv}" chan="{self.chan}">']
        out += [s.xml() for s in self.steps]
        out += [self.raw] if self.raw else []
        out.append("    </tb>")
        return out


class Gpu:
    def __init__(self, id, i, o, s=0):
        self.id, self.i, self.o, self.s = id, i, o, s
        self.tbs = []
        self.raw = ""

    def tb(self, id, send=-1, recv=-1, chan=0):
        t = Tb(id, send, recv, chan)
        self.tbs.append(t)
        return t

    def xml(self):
        out = [f'  <gpu id="{self.id}" i_chunks="{self.i}" o_chunks="{self.o}" s_chunks="{self.s}">']
        for t in self.tbs:
            out += t.xml()
        if self.raw:
            out.append(self.raw)
        out.append("  </gpu>")
        return out


class Algo:
    def __init__(self, name, coll, ngpus, c, proto="Simple", nchannels=1, inplace=0, outofplace=1, minBytes=0,
                 maxBytes=0, legacy=False, extra=""):
        self.__dict__.update(locals())
        self.gpus = []
        self.raw = ""
        self.header = ""

    def gpu(self, id, i, o, s=0):
        g = Gpu(id, i, o, s)
        self.gpus.append(g)
        return g

    def xml(self):
        attrs = (f'name="{self.name}" proto="{self.proto}" nchannels="{self.nchannels}" '
                 f'nchunksperloop="{self.c}" ngpus="{self.ngpus}" coll="{self.coll}"')
        if not self.legacy:
            attrs += (f' inplace="{self.inplace}" outofplace="{self.outofplace}" minBytes="{self.minBytes}" '
                      f'maxBytes="{self.maxBytes}"')
        out = [self.header] if self.header else []
        out.append(f"<algo {attrs}{self.extra}>")
        for g in self.gpus:
            out += g.xml()
        if self.raw:
            out.append(self.raw)
        out.append("</algo>")
        return "\n".join(out) + "\n"


def write(name, text, expect):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)
    with open(os.path.join(HERE, name + ".expect"), "w") as f:
        f.write(f"# expect: {expect}\n")


# ---------------------------------------------------------------- examples

def ring_allgather(n=4, name=None, missing_dep=None, recv_of=None, inplace=0, tweak=None):
    """msccl.md §13 example 1, with the changes of examples 2 and 3."""
    a = Algo(name or f"ring_allgather_{n}", "allgather", n, n, inplace=inplace)
    for r in range(n):
        g = a.gpu(r, 1, n)
        g.tb(0).step("cpy", "i", 0, "o", r, hasdep=1)
        recv = (r - 1) % n
        if recv_of and recv_of[0] == r:
            recv = recv_of[1]
        t = g.tb(1, (r + 1) % n, recv)
        dep = (-1, -1) if missing_dep == r else (0, 0)
        t.step("s", "o", r, "o", r, depid=dep[0], deps=dep[1])
        for k in range(1, n):
            c = (r - k) % n
            t.step("r", "o", c, "o", c)
            if k + 1 < n:
                t.step("s", "o", c, "o", c)
        if tweak:
            tweak(r, g)
    return a


def examples():
    write("ex1_ring_allgather_4.xml", ring_allgather().xml(), "exit=0 codes= warnings=")
    write("ex2_ring_allgather_4_missing_dep.xml", ring_allgather(missing_dep=1).xml(), "exit=1 codes=302 warnings=")
    write("ex3_ring_allgather_4_recv_missing.xml", ring_allgather(recv_of=(3, 1)).xml(),
          "exit=1 codes=102,103,902 warnings=")
    write("ex1_both_modes.xml", ring_allgather(name="ring_allgather_4_both", inplace=1).xml(),
          "exit=0 codes= warnings=\ncase: outofplace verdict=PASS codes=\ncase: inplace verdict=PASS codes=")
    # The same program under LL: 8 calls per connection instead of 2.
    a = ring_allgather(recv_of=(3, 1))
    a.proto = "LL"
    write("ex3_under_ll.xml", a.xml(), "exit=1 codes=102,103,902 warnings=")


# ---------------------------------------------------------------- helpers

def pair_allreduce(name="allreduce_2", tweak=None, s_chunks=1):
    """A correct 2-rank allreduce: each rank reduces its own chunk and sends it back."""
    a = Algo(name, "allreduce", 2, 2)
    for r in range(2):
        p = 1 - r
        g = a.gpu(r, 2, 2, s_chunks)
        t = g.tb(0, p, p)
        t.step("cpy", "i", 0, "o", 0, cnt=2)
        t.send_("i", p, remote=("s", 0))
        t.recv_("s", 0, remote=("i", r))
        t.step("re", "s", 0, "o", r)
        t.send_("o", r, remote=("o", r))
        t.recv_("o", p, remote=("o", p))
        if tweak:
            tweak(r, g, t)
    return a


def pair_alltoall(name, tweak=None, inplace=0, outofplace=1, split=False):
    a = Algo(name, "alltoall", 2, 2, inplace=inplace, outofplace=outofplace)
    for r in range(2):
        p = 1 - r
        g = a.gpu(r, 2, 2)
        g.tb(0).step("cpy", "i", r, "o", r)
        if split:
            g.tb(1, p, -1).send_("i", p, remote=("o", r))
            g.tb(2, -1, p).recv_("o", p, remote=("i", r))
        else:
            g.tb(1, p, p).send_("i", p, remote=("o", r)).recv_("o", p, remote=("i", r))
        if tweak:
            tweak(r, g)
    return a


def single(coll, c, steps, i=None, o=None, s=0, **kw):
    a = Algo(f"{coll}_1", coll, 1, c, **kw)
    g = a.gpu(0, c if i is None else i, c if o is None else o, s)
    t = g.tb(0)
    for st in steps:
        t.step(*st[0], **st[1])
    return a


# ---------------------------------------------------------------- one file per finding

def findings():
    # 101: an unknown step type.
    a = pair_allreduce("101_unknown_type", lambda r, g, t: t.step("frob", "i", 0, "o", 0) if r == 0 else None)
    write("101_unknown_type.xml", a.xml(), "exit=1 codes=101,902 warnings=")

    # 101: a send step on a thread block without a send peer.
    a = Algo("101_send_without_peer", "allgather", 2, 2)
    for r in range(2):
        g = a.gpu(r, 1, 2)
        g.tb(0).step("cpy", "i", 0, "o", r)
        g.tb(1, -1 if r == 0 else 0, 1 - r).send_("i", 0, remote=("o", r)).recv_("o", 1 - r, remote=("i", 0))
    write("101_send_without_peer.xml", a.xml(), "exit=1 codes=101,102,902 warnings=")

    # 101: a nop chain not ended by a step with a dependency.
    def nop_chain(r, g):
        t = g.tbs[1]
        t.steps.insert(0, Step(0, "nop", "i", -1, "o", -1, 0, depid=0, deps=0))
        t.steps[1].depid, t.steps[1].deps = -1, -1
        for i, st in enumerate(t.steps):
            st.s = i
    # (The runtime refuses the file; the counter, which the nop no longer
    # advances, also departs from s.)
    write("101_nop_chain.xml", ring_allgather(2, "101_nop_chain", tweak=lambda r, g: nop_chain(r, g) if r == 0 else None).xml(),
          "exit=1 codes=0,101,902 warnings=MSCCL-W-STEP-NUMBER")

    # 101: depid names no thread block.
    def bad_depid(r, g):
        if r == 1:
            g.tbs[1].steps[0].depid = 5
    write("101_depid.xml", ring_allgather(2, "101_depid", tweak=bad_depid).xml(), "exit=1 codes=101,902 warnings=")

    # 101: thread block ids with a hole.
    def hole(r, g):
        if r == 0:
            g.tbs[1].id = 2
            g.tbs[1].steps[0].depid = 0
    write("101_tb_ids.xml", ring_allgather(2, "101_tb_ids", tweak=hole).xml(), "exit=1 codes=101,902 warnings=")

    # 101: a peer that is the rank itself.
    def self_peer(r, g):
        if r == 1:
            g.tbs[1].send = 1
    write("101_peer_self.xml", ring_allgather(2, "101_peer_self", tweak=self_peer).xml(),
          "exit=1 codes=101,102,902 warnings=")

    # 102: a dependency on a level its thread block never publishes. Iteration 0
    # is released by the next iteration's flag; the last iteration hangs, and
    # what rank 1 sent for it is never received (103).
    def never(r, g):
        if r == 0:
            g.tbs[1].steps[0].deps = 3
    write("102_dep_never_published.xml", ring_allgather(2, "102_dep_never_published", tweak=never).xml(),
          "exit=1 codes=102,103,902 warnings=")

    # 102: both ranks push three chunks before receiving any; Simple holds 2 calls.
    for proto, expect in (("Simple", "exit=1 codes=102,103,902 warnings="), ("LL", "exit=0 codes= warnings=")):
        a = Algo(f"102_fifo_full_{proto}", "alltoall", 2, 6, proto=proto)
        for r in range(2):
            p = 1 - r
            g = a.gpu(r, 6, 6)
            g.tb(0).step("cpy", "i", 3 * r, "o", 3 * r, cnt=3)
            t = g.tb(1, p, p)
            for k in range(3):
                t.send_("i", 3 * p + k, remote=("o", 3 * r + k))
            for k in range(3):
                t.recv_("o", 3 * p + k, remote=("i", 3 * r + k))
        write(f"102_fifo_full_{proto}.xml", a.xml(), expect)

    # 102: a cycle: both ranks receive before they send.
    a = pair_alltoall("102_cycle")
    for r in range(2):
        t = a.gpus[r].tbs[1]
        t.steps.reverse()
        for i, st in enumerate(t.steps):
            st.s = i
    write("102_cycle.xml", a.xml(), "exit=1 codes=102,902 warnings=")

    # 103: a second send nobody receives.
    a = pair_alltoall("103_extra_send",
                      tweak=lambda r, g: g.tbs[1].steps.append(Step(2, "s", "i", 1 - r, "s", 0)) if r == 0 else None)
    write("103_extra_send.xml", a.xml(), "exit=1 codes=103 warnings=")

    # 201: a chunk outside its buffer (the runtime checks only the first).
    a = single("allreduce", 2, [(("cpy", "i", 0, "o", 0), {"cnt": 2}), (("cpy", "i", 1, "o", 1), {"cnt": 2})])
    a.name = "201_bounds"
    write("201_bounds.xml", a.xml(), "exit=1 codes=201 warnings=")

    # 201: a negative offset where the step uses it.
    a = single("allreduce", 1, [(("cpy", "i", -1, "o", 0), {}), (("cpy", "i", 0, "o", 0), {})])
    a.name = "201_negative_offset"
    write("201_negative_offset.xml", a.xml(), "exit=1 codes=201 warnings=")

    # 201: a send of 2 chunks received as 1 + 1.
    a = Algo("201_cnt_mismatch", "allgather", 2, 4)
    for r in range(2):
        p = 1 - r
        g = a.gpu(r, 2, 4)
        g.tb(0).step("cpy", "i", 0, "o", 2 * r, cnt=2, hasdep=1)
        t = g.tb(1, p, p)
        if r == 0:
            t.send_("o", 0, cnt=2, remote=("o", 0), depid=0, deps=0)
            t.recv_("o", 2, cnt=2, remote=("o", 2))
        else:
            t.send_("o", 2, cnt=2, remote=("o", 2), depid=0, deps=0)
            t.recv_("o", 0, remote=("o", 0))
            t.recv_("o", 1, remote=("o", 1))
    write("201_cnt_mismatch.xml", a.xml(), "exit=1 codes=201 warnings=")

    # 202: in place, a copy whose source and destination overlap.
    a = single("allreduce", 4, [(("cpy", "i", 0, "o", 1), {"cnt": 2})], inplace=1, outofplace=0)
    a.name = "202_inplace_overlap"
    write("202_inplace_overlap.xml", a.xml(), "exit=1 codes=202,407 warnings=")

    # 302 in place only: the send of i[p] and the receive into o[p] are the same
    # bytes in place, on two thread blocks without an order.
    a = pair_alltoall("302_inplace_only", inplace=1, outofplace=1, split=True)
    write("302_inplace_only.xml", a.xml(),
          "exit=1 codes=302 warnings=\ncase: outofplace verdict=PASS codes=\ncase: inplace verdict=FAIL codes=302")

    # 401 + 403: a reduce into scratch nothing has written.
    a = pair_allreduce("401_empty_reduce", lambda r, g, t: t.step("re", "i", 0, "s", 1) if r == 0 else None, s_chunks=2)
    write("401_empty_reduce.xml", a.xml(), "exit=1 codes=401,403 warnings=")

    # 402 + 403: a reduce into scratch that is half written.
    def half(r, g, t):
        if r == 0:
            t.step("cpy", "i", 0, "s", 1)
            t.step("re", "i", 0, "s", 1, cnt=2)
    write("402_partial_reduce.xml", pair_allreduce("402_partial_reduce", half, s_chunks=3).xml(),
          "exit=1 codes=402,403 warnings=")

    # 403 + 409: a contribution added twice.
    def twice(r, g, t):
        if r == 0:
            t.steps.insert(4, Step(4, "re", "s", 0, "o", r))
            for i, st in enumerate(t.steps):
                st.s = i
    write("403_double_contribution.xml", pair_allreduce("403_double_contribution", twice).xml(),
          "exit=1 codes=403,409 warnings=")

    # 404 (warning): a send of scratch nothing has written; the receiver drops it into scratch.
    def empty_send(r, g, t):
        g.s = 2
        if r == 0:
            t.send_("s", 1, remote=("s", 1))
        else:
            t.recv_("s", 1, remote=("s", 1))
    write("404_empty_send.xml", pair_allreduce("404_empty_send", empty_send).xml(), "exit=0 codes=404 warnings=")

    # 406: rank 1 receives rank 0's chunk into scratch instead of its output.
    def to_scratch(r, g):
        if r == 1:
            g.s = 1
            st = g.tbs[1].steps[1]
            st.dstbuf, st.dstoff = "s", 0
    a = ring_allgather(2, "406_missing", tweak=to_scratch)
    a.gpus[0].tbs[1].steps[0].dstbuf, a.gpus[0].tbs[1].steps[0].dstoff = "s", 0
    write("406_missing.xml", a.xml(), "exit=1 codes=406 warnings=")

    # 407: rank 0 copies the wrong input chunk to its own output chunk.
    def wrong(r, g):
        if r == 0:
            g.tbs[0].steps[0].srcoff = 1
    write("407_wrong_source.xml", pair_alltoall("407_wrong_source", wrong).xml(), "exit=1 codes=407 warnings=")

    # 407 + 408: rank 0 copies two chunks where one belongs and nobody sends it the other.
    a = Algo("408_too_long", "alltoall", 2, 2)
    g = a.gpu(0, 2, 2)
    g.tb(0).step("cpy", "i", 0, "o", 0, cnt=2)
    g.tb(1, 1, -1).send_("i", 1, remote=("o", 0))
    g = a.gpu(1, 2, 2)
    g.tb(0).step("cpy", "i", 1, "o", 1)
    g.tb(1, -1, 0).recv_("o", 0, remote=("i", 1))
    write("408_too_long.xml", a.xml(), "exit=1 codes=407,408 warnings=")

    # 409: rank 0 forgets to add its peer's contribution.
    def forget(r, g, t):
        if r == 0:
            del t.steps[3]
            for i, st in enumerate(t.steps):
                st.s = i
    write("409_missing_contribution.xml", pair_allreduce("409_missing_contribution", forget).xml(),
          "exit=1 codes=409 warnings=")

    # 602: two thread blocks of rank 0 both send to rank 1 on channel 0.
    a = Algo("602_two_senders", "alltoall", 2, 2)
    g = a.gpu(0, 2, 2)
    g.tb(0, 1, -1).step("cpy", "i", 0, "o", 0).send_("i", 1, remote=("o", 0))
    g.tb(1, 1, 1).recv_("o", 1, remote=("i", 0))
    g = a.gpu(1, 2, 2)
    g.tb(0, 0, 0).step("cpy", "i", 1, "o", 1).send_("i", 0, remote=("o", 1)).recv_("o", 0, remote=("i", 1))
    # A second sender on 0->1 chan 0: rank 0 tb 1 also sends (the receiver takes two).
    a.gpus[0].tbs[1].send = 1
    a.gpus[0].tbs[1].send_("o", 1, remote=("s", 0))
    a.gpus[1].s = 1
    a.gpus[1].tbs[0].recv_("s", 0, remote=("o", 1))
    write("602_two_senders.xml", a.xml(), "exit=1 codes=602,902 warnings=")

    # 902: a send schedule (no counts or peers in the XML): stages 1-4 only.
    a = Algo("902_send", "send", 2, 1)
    a.gpu(0, 1, 1).tb(0, 1, -1).send_("i", 0, remote=("o", 0))
    a.gpu(1, 1, 1).tb(0, -1, 0).recv_("o", 0, remote=("i", 0))
    write("902_send.xml", a.xml(), "exit=0 codes=902 warnings=")


# ---------------------------------------------------------------- named warnings

def warnings():
    a = ring_allgather(name="w_unknown")
    a.extra = ' redop="sum" nthreadblocks="2"'
    a.gpus[0].tbs[1].raw = '      <copy src="0" dst="1"/>'
    write("w_unknown.xml", a.xml(), "exit=0 codes=0 warnings=MSCCL-W-UNKNOWN")

    a = ring_allgather(name="w_legacy")
    a.legacy = True
    write("w_legacy.xml", a.xml(), "exit=0 codes=0 warnings=MSCCL-W-LEGACY")

    a = ring_allgather(name="w_chunks")
    a.gpus[2].o = 3
    write("w_chunks.xml", a.xml(), "exit=0 codes=0 warnings=MSCCL-W-CHUNKS")

    a = ring_allgather(name="w_channel")
    for g in a.gpus:
        g.tbs[1].chan = 1
    write("w_channel.xml", a.xml(), "exit=0 codes=0 warnings=MSCCL-W-CHANNEL")

    a = ring_allgather(name="w_remote_fields")
    a.gpus[0].tbs[1].steps[0].dstoff = 3
    write("w_remote_fields.xml", a.xml(), "exit=0 codes=0 warnings=MSCCL-W-REMOTE-FIELDS")

    def nodep(r, g):
        g.tbs[0].steps.insert(0, Step(0, "nop", "i", -1, "o", -1, 0))
        g.tbs[0].steps[1].s = 1
    write("w_nop_nodep.xml", ring_allgather(name="w_nop_nodep", tweak=nodep).xml(),
          "exit=0 codes=0 warnings=MSCCL-W-NOP-NODEP,MSCCL-W-STEP-NUMBER")

    def trailing(r, g):
        g.tbs[0].steps.append(Step(1, "nop", "i", -1, "o", -1, 0, depid=1, deps=0))
    write("w_nop_trailing.xml", ring_allgather(name="w_nop_trailing", tweak=trailing).xml(),
          "exit=0 codes=0 warnings=MSCCL-W-NOP-TRAILING")

    def renumber(r, g):
        for st in g.tbs[1].steps:
            st.s += 1
    write("w_step_number.xml", ring_allgather(name="w_step_number", tweak=renumber).xml(),
          "exit=0 codes=0 warnings=MSCCL-W-STEP-NUMBER")

    def late(r, g):
        g.s = 1
        t0 = g.tbs[0]
        t0.steps[0].hasdep = 0
        t0.step("cpy", "i", 0, "s", 0, hasdep=1)
    write("w_dep_late.xml", ring_allgather(name="w_dep_late", tweak=late).xml(),
          "exit=0 codes=0 warnings=MSCCL-W-DEP-LATE")

    # RCCL's disabled "1-shot" allreduce: every rank adds the others' inputs in its own order.
    n = 3
    a = Algo("w_rank_order_1shot", "allreduce", n, n, proto="LL")
    for r in range(n):
        g = a.gpu(r, n, n, 2 * n)
        t0 = g.tb(0)
        t0.step("cpy", "i", 0, "o", 0, cnt=n)
        t0.step("re", "s", n, "o", 0, cnt=n, depid=2, deps=1)
        t0.step("re", "s", 0, "o", 0, cnt=n, depid=1, deps=1)
        # Each rank sends its whole input before it receives: 3 calls of one
        # chunk, which only LL's 8 calls per connection hold.
        g.tb(1, (r + 1) % n, (r + 2) % n).send_("i", 0, cnt=n, remote=("s", 0)).recv_("s", 0, cnt=n, remote=("i", 0),
                                                                                     hasdep=1)
        g.tb(2, (r + 2) % n, (r + 1) % n).send_("i", 0, cnt=n, remote=("s", n)).recv_("s", n, cnt=n, remote=("i", 0),
                                                                                     hasdep=1)
    write("w_rank_order_1shot.xml", a.xml(), "exit=0 codes=0 warnings=MSCCL-W-RANK-ORDER")

    # The fused types: the NVIDIA executor runs them, RCCL's setup refuses them.
    a = Algo("w_rccl_fused", "allreduce", 2, 2)
    for r in range(2):
        p = 1 - r
        g = a.gpu(r, 2, 2)
        t = g.tb(0, p, p)
        t.step("s", "i", p, "o", p)
        t.step("rrc", "i", r, "o", r)
        t.step("s", "o", r, "o", r)
        t.step("r", "o", p, "o", p)
    write("w_rccl_fused.xml", a.xml(), "exit=0 codes=0 warnings=MSCCL-W-RCCL-FUSED")


# ---------------------------------------------------------------- unusable files (exit 2)

def unusable():
    base = ring_allgather(2, "bad").xml()

    def bad(name, text, error, args=""):
        write(name, text, f'exit=2 error="{error}"' + (f" args={args}" if args else ""))

    bad("bad_malformed.xml", base.replace("</gpu>\n  <gpu", "</gpu>\n  </tb>\n  <gpu", 1), "malformed XML")
    bad("bad_missing_attr.xml", base.replace(' cnt="1"', "", 1), 'lacks the required attribute \\"cnt\\"')
    bad("bad_not_integer.xml", base.replace(' cnt="1"', ' cnt="one"', 1), "not an integer")
    bad("bad_32bit.xml", base.replace(' srcoff="0"', ' srcoff="4294967296"', 1), "does not fit in 32 bits")
    bad("bad_buffer.xml", base.replace(' srcbuf="i"', ' srcbuf="x"', 1), "is not a buffer")
    bad("bad_gpu_dup.xml", base.replace('<gpu id="1"', '<gpu id="0"', 1), "appears twice")
    bad("bad_gpu_range.xml", base.replace('<gpu id="1"', '<gpu id="2"', 1), "a rank 0 .. 1")
    bad("bad_gpu_missing.xml", base.replace('ngpus="2"', 'ngpus="3"', 1).replace('nchunksperloop="2"',
                                                                                 'nchunksperloop="3"', 1),
        "is missing")
    bad("bad_coll.xml", base.replace('coll="allgather"', 'coll="allsum"', 1), "is not a collective")
    bad("bad_proto.xml", base.replace('proto="Simple"', 'proto="LL64"', 1), "is not Simple, LL or LL128")
    bad("bad_nchunks.xml", base.replace('nchunksperloop="2"', 'nchunksperloop="3"', 1), "not a multiple of ngpus")
    bad("bad_cnt72.xml", base.replace(' cnt="1"', ' cnt="72"', 1), "must be 0 .. 71")
    bad("bad_ngpus.xml", base.replace('ngpus="2"', 'ngpus="5000"', 1), "must be 1 .. 4096")
    bad("bad_hasdep.xml", base.replace('hasdep="1"', 'hasdep="2"', 1), "must be 0 or 1")
    bad("bad_doctype.xml",
        '<?xml version="1.0"?>\n<!DOCTYPE algo [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>\n' + base,
        "DOCTYPE", args="--format msccl")
    bad("bad_root.xml", '<?xml version="1.0"?>\n<graph name="x"/>\n', "not <algo>", args="--format msccl")
    many = Algo("bad_tbs", "allgather", 1, 1)
    g = many.gpu(0, 1, 1)
    for t in range(1025):
        g.tb(t)
    bad("bad_tb_count.xml", many.xml(), "more than 1024 thread blocks")


# ---------------------------------------------------------------- every collective's required output

def collectives():
    """One correct 3-GPU file for each collective the examples do not cover
    (the required OUTPUT differs per coll), and the rooted ones checked
    against another root than the one they were written for."""
    n = 3

    def peers(r):
        return [q for q in range(n) if q != r]

    # reducescatter: o_r[0] = sum of i_q[r]; each rank sends i[q] to q and
    # adds what it receives in one fused re chain after its own chunk.
    a = Algo("reducescatter_3", "reducescatter", n, n)
    for r in range(n):
        g = a.gpu(r, n, 1, 2)
        t0 = g.tb(0)
        for k, q in enumerate(peers(r)):
            g.tb(k + 1, q, q).send_("i", q, remote=("s", peers(q).index(r))).recv_("s", k, remote=("i", r), hasdep=1)
        t0.step("cpy", "i", r, "o", 0)
        t0.step("nop", depid=1, deps=1)
        t0.step("re", "s", 0, "o", 0, depid=2, deps=1)
        t0.step("re", "s", 1, "o", 0)
    write("coll_reducescatter_3.xml", a.xml(), "exit=0 codes= warnings=")

    # broadcast from rank 0: o_r = i_0 (2 chunks).
    def broadcast(name):
        a = Algo(name, "broadcast", n, 2)
        for r in range(n):
            g = a.gpu(r, 2, 2)
            if r == 0:
                g.tb(0).step("cpy", "i", 0, "o", 0, cnt=2)
                for k, q in enumerate(peers(r)):
                    g.tb(k + 1, q, -1).send_("i", 0, cnt=2, remote=("o", 0))
            else:
                g.tb(0, -1, 0).recv_("o", 0, cnt=2, remote=("i", 0))
        return a
    write("coll_broadcast_3.xml", broadcast("broadcast_3").xml(), "exit=0 codes= warnings=")
    write("coll_broadcast_3_root1.xml", broadcast("broadcast_3_root1").xml(),
          "exit=1 codes=404,406 warnings= args=--msccl-root 1")

    # reduce to rank 0: o_0[0] = sum of i_q[0].
    def reduce(name):
        a = Algo(name, "reduce", n, 1)
        for r in range(n):
            if r == 0:
                g = a.gpu(r, 1, 1, 2)
                t0 = g.tb(0)
                for k, q in enumerate(peers(r)):
                    g.tb(k + 1, -1, q).recv_("s", k, remote=("i", 0), hasdep=1)
                t0.step("cpy", "i", 0, "o", 0)
                t0.step("nop", depid=1, deps=0)
                t0.step("re", "s", 0, "o", 0, depid=2, deps=0)
                t0.step("re", "s", 1, "o", 0)
            else:
                a.gpu(r, 1, 1).tb(0, 0, -1).send_("i", 0, remote=("s", r - 1))
        return a
    write("coll_reduce_3.xml", reduce("reduce_3").xml(), "exit=0 codes= warnings=")
    write("coll_reduce_3_root2.xml", reduce("reduce_3_root2").xml(), "exit=1 codes=406 warnings= args=--msccl-root 2")

    # gather to rank 0: o_0[q] = i_q[0].
    a = Algo("gather_3", "gather", n, n)
    for r in range(n):
        g = a.gpu(r, 1, n)
        if r == 0:
            g.tb(0).step("cpy", "i", 0, "o", 0)
            for k, q in enumerate(peers(r)):
                g.tb(k + 1, -1, q).recv_("o", q, remote=("i", 0))
        else:
            g.tb(0, 0, -1).send_("i", 0, remote=("o", r))
    write("coll_gather_3.xml", a.xml(), "exit=0 codes= warnings=")

    # scatter from rank 0: o_r[0] = i_0[r].
    a = Algo("scatter_3", "scatter", n, n)
    for r in range(n):
        g = a.gpu(r, n, 1)
        if r == 0:
            g.tb(0).step("cpy", "i", 0, "o", 0)
            for k, q in enumerate(peers(r)):
                g.tb(k + 1, q, -1).send_("i", q, remote=("o", 0))
        else:
            g.tb(0, -1, 0).recv_("o", 0, remote=("i", r))
    write("coll_scatter_3.xml", a.xml(), "exit=0 codes= warnings=")


if __name__ == "__main__":
    examples()
    findings()
    warnings()
    unusable()
    collectives()
