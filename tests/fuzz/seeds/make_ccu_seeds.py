#!/usr/bin/env python3
"""Writes the seeds of fuzz_ccu_decoder (tests/fuzz/fuzz_ccu_decoder.cc):
the worked examples of ccu.md §14 and a small A6 program, in the target's
input layout (flags, instStartId, instCnt, three arguments, the words).
Run it from anywhere; it rewrites fuzz_ccu_decoder/ next to this script."""
import os, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "cases", "ccu"))
import make_ccu as ccu  # noqa: E402  (the golden cases' encoder and the spec's words)

OUT = os.path.join(HERE, "fuzz_ccu_decoder")


def seed(name, flags, start, count, args, words):
    data = struct.pack("<BHH3Q", flags, start, count, *args) + b"".join(bytes.fromhex(w) for w in words)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def a6(header, fields=(), set_=(0, 0)):
    b = bytearray(32)
    struct.pack_into("<H", b, 0, header)
    for off, size, val in fields:
        struct.pack_into({1: "<B", 2: "<H", 4: "<I", 8: "<Q"}[size], b, off, val)
    struct.pack_into("<2H", b, 28, *set_)
    return b.hex()


os.makedirs(OUT, exist_ok=True)
seed("example1", 4, 0, 10, (0x10000000, 0x21000000, 0x100), ccu.EXAMPLE1)
seed("example2", 0, 3, 11, (0x10000000, 0x20000000, 0x100), ccu.EXAMPLE2)
seed("example2_merge", 2, 3, 11, (0x10000000, 0x20000000, 0x100), ccu.EXAMPLE2)
seed("example2_strict_drain", 8 | 16, 3, 11, (0x10000000, 0x20000000, 0x100), ccu.EXAMPLE2)
# A6: X1 <- arg0, X2 <- arg1, X3 <- arg2, X5 <- 0, a local copy that sets
# cke 1, ClearCKE waiting for it, Store/Load of a register block.
seed("a6_copy", 1, 0, 12, (0x10000000, 0x20000000, 0x100), [
    a6(0x0001, [(2, 2, 1), (4, 2, 0)]), a6(0x0001, [(2, 2, 2), (4, 2, 1)]), a6(0x0001, [(2, 2, 3), (4, 2, 2)]),
    a6(0x0002, [(2, 2, 5), (4, 8, 0)]),
    a6(0x1006, [(2, 2, 2), (4, 2, 5), (6, 2, 1), (8, 2, 5), (10, 2, 3)], (1, 1)),
    a6(0x0804, [(2, 1, 1), (8, 2, 1), (10, 2, 1)]),
    a6(0x0002, [(2, 2, 50), (4, 8, 0x1000)]), a6(0x0002, [(2, 2, 51), (4, 8, 64)]),
    a6(0x0002, [(2, 2, 52), (4, 8, 1)]), a6(0x0008, [(2, 2, 1), (4, 2, 8)]),
    a6(0x000b, [(2, 2, 50), (6, 2, 52), (8, 2, 51)]), a6(0x000a, [(2, 2, 52), (4, 2, 50), (8, 2, 51)]),
])
