#!/usr/bin/env python3
"""Writes the golden CCU cases (trace format version 2, docs/CCU_FORMAT.md).

The worked examples of ccu.md §14 use the spec's raw instruction words
verbatim; the other cases are built with the small encoder below (its
layouts are those of ccu.md §3.3). Each case carries its expectation; the
`--ccu-*` options of `check` each have a case. Run it from anywhere; it
rewrites the files in this directory.
"""
import json, os, struct

HERE = os.path.dirname(os.path.abspath(__file__))


def word(header, fields=(), tail=None, raw=None):
    """A 32-byte word: header, then (offset, size, value) fields."""
    b = bytearray(32)
    struct.pack_into("<H", b, 0, header)
    for off, size, val in fields:
        struct.pack_into({1: "<B", 2: "<H", 8: "<Q"}[size], b, off, val)
    if tail:  # (control half-word, set id, set mask, wait id, wait mask)
        struct.pack_into("<5H", b, 22, *tail)
    return b.hex()


def load_sqe_gsa(g, slot): return word(0x0000, [(2, 2, g), (4, 2, slot)])
def load_sqe_xn(x, slot): return word(0x0001, [(2, 2, x), (4, 2, slot)])
def load_imm_xn(x, imm): return word(0x0003, [(2, 2, x), (4, 8, imm)])
def jmp(dst, cond, expect): return word(0x0805, [(2, 2, dst), (4, 2, cond), (6, 8, expect)])
def set_cke(sid, smask, wid=0, wmask=0, clear=1):
    return word(0x0802, [(2, 1, clear), (4, 2, sid), (6, 2, smask), (8, 2, wid), (10, 2, wmask)])
def clear_cke(wid, wmask, cid=0, cmask=0, clear=1):
    return word(0x0804, [(2, 1, clear), (4, 2, cid), (6, 2, cmask), (8, 2, wid), (10, 2, wmask)])
def loc_copy(dst_g, src_g, len_x, sid=0, smask=0, wid=0, wmask=0):  # 0x100a
    return word(0x100a, [(2, 2, dst_g), (6, 2, src_g), (10, 2, len_x)], (3, sid, smask, wid, wmask))


# ccu.md §14, raw words as printed there.
EXAMPLE1 = [
    "0000010000000000000000000000000000000000000000000000000000000000",
    "0000020001000000000000000000000000000000000000000000000000000000",
    "0100010002000000000000000000000000000000000000000000000000000000",
    "020801000000ffff000000000000000000000000000000000000000000000000",
    "0b10080000000100000000000000000000000000000001000000000000000000",
    "0408010000000000080001000000000000000000000000000000000000000000",
    "0910020003000100040001000000000000000000000003000100010000000000",
    "0408010000000000010001000000000000000000000000000000000000000000",
    "0b10090000000100000000000000000000000000000001000000000000000000",
    "0408010000000000090001000000000000000000000000000000000000000000",
]
EXAMPLE2 = [
    "0010008001000500010000000000000000000000000003000200010000000000",
    "0210020006000080010000000000000000000000000003000400010002000100",
    "0408010000000000040001000000000000000000000000000000000000000000",
    "0000010000000000000000000000000000000000000000000000000000000000",
    "0000020001000000000000000000000000000000000000000000000000000000",
    "0100010002000000000000000000000000000000000000000000000000000000",
    "0300020002002000000000000000000000000000000000000000000000000000",
    "0300030000000000000280000000000000000000000000000000000000000000",
    "0300040001040040000000000000000000000000000000000000000000000000",
    "01080c0003000400000000000000000000000000000000000000000000000000",
    "030000000d000000000000000000000000000000000000000000000000000000",
    "0508000000000100000000000000000000000000000000000000000000000000",
    "0008000002000200000000000000000000000000000000000000000000000000",
    "0300000000000000000000000000000000000000000000000000000000000000",
]


def header(op, version=2, **extra):
    h = {"format": "collcheck-trace", "version": version, "op": op}
    h.update(extra)
    if version >= 2:
        h["ccu"] = {"isa": "A5"}
    return h


def allreduce(ranks, count):
    return {"type": "AllReduce", "ranks": ranks, "dataType": "FP32", "count": count, "reduceOp": "SUM"}


def image(rank, words, die=0, start=0):
    return {"ccu": "image", "rank": rank, "die": die, "start": start, "words": words}


def address(rank, buf, addr): return {"ccu": "address", "rank": rank, "type": buf, "addr": addr}
def channel(rank, ch, dst): return {"ccu": "channel", "rank": rank, "die": 0, "channelId": ch, "dstRank": dst, "dstDie": 0}


def sqe(rank, start, count, args, stream=0, die=0, mission=0):
    return {"rank": rank, "stream": stream, "type": "CCU_GRAPH", "dieId": die, "missionId": mission,
            "instStartId": start, "instCnt": count, "args": args}


def write(name, expect, comment, lines):
    with open(os.path.join(HERE, name), "w") as f:
        f.write("# expect: " + expect + "\n")
        for c in comment.strip().splitlines():
            f.write("# " + c.strip() + "\n")
        for l in lines:
            f.write(json.dumps(l, separators=(",", ":")) + "\n")


def example1(words=EXAMPLE1, channels=((0, 0, 1), (1, 0, 0))):
    lines = [header(allreduce(2, 1024))]
    for r, (i, o) in enumerate(((0x10000000, 0x20000000), (0x11000000, 0x21000000))):
        lines += [address(r, "INPUT", i), address(r, "OUTPUT", o)]
    lines += [channel(*c) for c in channels]
    lines += [image(0, words), image(1, words)]
    lines += [sqe(0, 0, 10, [0x10000000, 0x21000000, 0x100]), sqe(1, 0, 10, [0x11000000, 0x20000000, 0x100])]
    return lines


def example2(words=EXAMPLE2):
    return [header(allreduce(1, 256)), address(0, "INPUT", 0x10000000), address(0, "OUTPUT", 0x20000000),
            image(0, words), sqe(0, 3, 11, [0x10000000, 0x20000000, 0x100])]


def one_rank(words, args=(0x10000000, 0x20000000, 0x100), extra_tasks=()):
    return [header(allreduce(1, 256), buffers={"CCL": 1024}), address(0, "INPUT", 0x10000000),
            address(0, "OUTPUT", 0x20000000), image(0, words), sqe(0, 0, len(words), list(args))] + list(extra_tasks)


def main():
    PROLOGUE = [load_sqe_gsa(1, 0), load_sqe_gsa(2, 1), load_sqe_xn(1, 2)]
    NO_STAGE5 = "--stages graph,single,sync,mem"

    write("example1.jsonl", f"exit=0 codes=902 args={NO_STAGE5}", """
    ccu.md 14.1: two ranks exchange INPUT[0,0x100) into the peer's OUTPUT after a
    "ready" handshake, then tell each other they are done. Not a complete
    AllReduce, so the semantic stage is not run.""", example1())

    w7 = list(EXAMPLE1)
    w7[7] = clear_cke(0, 0)
    write("example1_no_wait.jsonl", f"exit=1 codes=103,902 args={NO_STAGE5}", """
    14.1 without word 7 (the wait on cke 1): each transfer's completion is never
    consumed (103 error).""", example1(w7))

    w6 = list(EXAMPLE1)
    w6[6] = w6[6][:52] + "0000" + w6[6][56:]  # setCKEMask = 0
    write("example1_no_set.jsonl", f"exit=1 codes=0,102,902 args={NO_STAGE5}", """
    14.1 with word 6 setting no bit: word 7 waits on cke 1 forever (102 on both
    ranks; CCU-W-UNOBSERVED for the transfer nobody can observe).""", example1(w6))

    write("example1_wrong_channel.jsonl", f"exit=1 codes=102,103,112,902 args={NO_STAGE5}", """
    14.1 with rank 0's channel 0 leading to rank 0: the remote address 0x21000000
    belongs to rank 1, not to the channel's rank 0 (112); rank 1's "ready" never
    arrives (102).""", example1(channels=((0, 0, 0), (1, 0, 0))))

    write("example2.jsonl", "exit=0 codes=", """
    ccu.md 14.2: one LoopGroup, one Loop replicated into two copies of two
    iterations, INPUT -> MS -> OUTPUT; a complete one-rank AllReduce.""", example2())

    write("example2_merged.jsonl", "exit=0 codes= args=--ccu-loop-merge", """
    14.2 with --ccu-loop-merge: the loop becomes one lane of two BATCH_TRANS_MEM
    nodes (same verdict).""", example2())

    w2 = list(EXAMPLE2)
    w2[2] = clear_cke(0, 0)
    w2[13] = clear_cke(4, 1)
    write("example2_no_clear.jsonl", "exit=1 codes=103,302", """
    14.2 without word 2 and the wait on cke 4 moved after the LoopGroup: the
    second iteration overwrites the MS slot while the first may still read it
    (302); copy 1's cke 5 is never consumed (103).""", example2(w2))

    write("v1_ccu_graph.jsonl", "exit=1 codes=101,902", """
    A CCU_GRAPH task in a version-1 trace: 101 naming the line.""",
          [header(allreduce(1, 256), version=1), sqe(0, 0, 1, [])])

    SPIN = [load_imm_xn(0, 1), jmp(0, 0, 0)]
    write("max_steps.jsonl", "exit=1 codes=105,902 args=--ccu-max-steps 1000", """
    An endless loop (X0 = 1 != 0 jumps back to pc 1): 105 after 1000 words.""", one_rank(SPIN))

    STRICT = PROLOGUE + [set_cke(3, 1, clear=0), clear_cke(3, 1), set_cke(5, 1), clear_cke(0, 0, 5, 1)] + \
        [load_imm_xn(1, 0x400), loc_copy(2, 1, 1, 1, 1), clear_cke(1, 1)]
    write("strict_ref_off.jsonl", "exit=0 codes=0", """
    SetCKE with clearType 0 (it waits on nothing: no effect) and a ClearCKE with a
    clear mask: collcheck honours both; the post the ClearCKE retires unconsumed
    is a warning (CCU-W-CLEARED-POST).""", one_rank(STRICT))
    write("strict_ref_on.jsonl", "exit=1 codes=111,902 args=--ccu-strict-ref", """
    The same program with --ccu-strict-ref: the reference rejects both words (111).""", one_rank(STRICT))

    HOST_READ = {"rank": 0, "stream": 0, "type": "TRANS_MEM", "src": {"rank": 0, "type": "OUTPUT", "offset": 0, "len": 256},
                 "dst": {"rank": 0, "type": "CCL", "offset": 0, "len": 256}}
    UNOBSERVED = PROLOGUE + [load_imm_xn(1, 0x400), loc_copy(2, 1, 1)]
    write("drain_off.jsonl", "exit=1 codes=0,302", """
    The mission copies INPUT to OUTPUT but sets no CKE bit: nothing orders it
    before the host copy that reads OUTPUT after the mission (302;
    CCU-W-UNOBSERVED).""", one_rank(UNOBSERVED, extra_tasks=[HOST_READ]))
    write("drain_on.jsonl", "exit=0 codes=0 args=--ccu-drain-at-end", """
    The same with --ccu-drain-at-end: the unobserved copy precedes the mission's
    END, so the host copy reads after it.""", one_rank(UNOBSERVED, extra_tasks=[HOST_READ]))


if __name__ == "__main__":
    main()
