#!/usr/bin/env python3
"""Instructions per guest kernel function from a tcgprof run.

usage: tcgprof.py TCGPROF_OUT RESULTS_LOG [TOP]

TCGPROF_OUT has one line per translation block: "<hex vaddr> <ninsns>
<executions>" (tcgprof.c). RESULTS_LOG carries the guest's text symbols,
kernel and modules, as "KSYM,<kallsyms line>" lines (Debian's System.map
is a stub; the guest's kallsyms is the real one). Prints, for the TOP
functions by instructions executed: calls (executions of blocks that
start at the function's first byte), instructions, instructions per call
and blocks per call (each block entered costs the emulator a dispatch).
"""
import bisect
import sys


def read_symbols(results_log):
    syms = []
    with open(results_log, errors="replace") as f:
        for line in f:
            if not line.startswith("KSYM,"):
                continue
            parts = line[5:].split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                syms.append((int(parts[0], 16), " ".join(parts[2:4])))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def profile(prof_out, addrs, names):
    funcs = {}
    with open(prof_out) as f:
        for line in f:
            vaddr, ninsns, count = line.split()
            vaddr, ninsns, count = int(vaddr, 16), int(ninsns), int(count)
            if vaddr < 0xffff800000000000:
                continue
            i = bisect.bisect_right(addrs, vaddr) - 1
            name = names[i] if i >= 0 else "?"
            fn = funcs.setdefault(name, [0, 0, 0])
            fn[1] += ninsns * count
            fn[2] += count
            if i >= 0 and addrs[i] == vaddr:
                fn[0] += count
    return funcs


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    addrs, names = read_symbols(sys.argv[2])
    funcs = profile(sys.argv[1], addrs, names)
    total = sum(v[1] for v in funcs.values()) or 1
    print(f"{'function':<44} {'calls':>11} {'insns':>13} {'%':>6}"
          f" {'insns/call':>10} {'blocks/call':>11}")
    rows = sorted(funcs.items(), key=lambda kv: -kv[1][1])[:top]
    for name, (calls, insns, blocks) in rows:
        per = f"{insns / calls:.1f}" if calls else "-"
        bper = f"{blocks / calls:.1f}" if calls else "-"
        print(f"{name[:44]:<44} {calls:>11} {insns:>13}"
              f" {100 * insns / total:>6.2f} {per:>10} {bper:>11}")


if __name__ == "__main__":
    main()
