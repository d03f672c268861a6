#!/usr/bin/env python3
"""Turn the bench VM's results.log into results.csv, results.md and plots.

Usage: report.py RESULTS_LOG OUTDIR

Reads the lines the guest printed:
  BENCH,section,metric,peer,param,value,unit   one measurement
  CDF,peer,percentile,lateness_us              lateness distribution
  INFO,key,value                               how the run was made
and writes into OUTDIR:
  results.csv    every measurement, then the derived ratios (section ratio)
  results.md     the tables, the benchmark targets marked met/missed
  armcancel.png  in-kernel arm+cancel cost against pending count, per peer
  lateness.png   lateness distribution (CDF), hwtimer against timerfd
  ucost.png      userspace cost per timeout, per method
Exits 1 when nothing was measured or a TAP line says "not ok".
"""
import csv
import os
import subprocess
import sys

PEERS = ["hwtimer", "timer_list", "hrtimer", "delayed_work"]
PENDING = [1000, 10000, 100000, 1000000]
UPEERS = ["hwtimer-ioctl", "hwtimer-batch64", "hwtimer-batch1024",
          "timerfd-settime", "timerfd-create"]


def umem(R, peer):
    """Kernel memory per pending userspace timeout: Slab + vmalloc growth."""
    slab = R.get("umemory", "slab_per_timeout", peer)
    if slab is None:
        return None
    return slab + max(R.get("umemory", "vmalloc_per_timeout", peer) or 0, 0)


def parse(path):
    rows, cdf, info, notok = [], {}, {}, []
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.strip()
            # Kernel lines may carry a log prefix; results start at BENCH.
            i = line.find("BENCH,")
            if i >= 0:
                p = line[i:].split(",")
                if len(p) == 7:
                    try:
                        rows.append(dict(section=p[1], metric=p[2], peer=p[3],
                                         param=int(p[4]), value=float(p[5]),
                                         unit=p[6]))
                    except ValueError:
                        pass
            elif line.startswith("CDF,"):
                p = line.split(",")
                cdf.setdefault(p[1], []).append((float(p[2]), float(p[3])))
            elif line.startswith("INFO,"):
                p = line.split(",", 2)
                if len(p) == 3:
                    info[p[1]] = p[2]
            elif line.startswith("not ok"):
                notok.append(line)
    return rows, cdf, info, notok


class Results:
    def __init__(self, rows):
        self.rows = rows
        self.idx = {(r["section"], r["metric"], r["peer"], r["param"]): r["value"]
                    for r in rows}

    def get(self, section, metric, peer, param=None):
        if param is not None:
            return self.idx.get((section, metric, peer, param))
        for (s, m, p, _), v in self.idx.items():
            if (s, m, p) == (section, metric, peer):
                return v
        return None

    def param_of(self, section, metric, peer):
        for (s, m, p, n) in self.idx:
            if (s, m, p) == (section, metric, peer):
                return n
        return None


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(v, nd=1):
    if v is None:
        return "–"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.{nd}f}"


def fmt_ratio(v):
    return "–" if v is None else f"{v:.2f}×"


def kfmt(n):
    return {1000: "1k", 10000: "10k", 100000: "100k", 1000000: "1M"}.get(n, str(n))


def targets(R):
    """The benchmark targets: (what, measured text, met or None)."""
    out = []
    hw1m = R.get("armcancel", "ns_per_pair", "hwtimer", 1000000)
    tl1m = R.get("armcancel", "ns_per_pair", "timer_list", 1000000)
    hr1m = R.get("armcancel", "ns_per_pair", "hrtimer", 1000000)
    r = ratio(hw1m, tl1m)
    out.append(("arm+cancel at 1M pending ≤ 1.0× timer_list",
                f"{fmt(hw1m)} ns vs {fmt(tl1m)} ns = {fmt_ratio(r)}",
                None if r is None else r <= 1.0))
    r = ratio(hw1m, hr1m)
    out.append(("arm+cancel at 1M pending ≤ 0.33× hrtimer",
                f"{fmt(hw1m)} ns vs {fmt(hr1m)} ns = {fmt_ratio(r)}",
                None if r is None else r <= 0.33))
    hw1k = R.get("armcancel", "ns_per_pair", "hwtimer", 1000)
    r = ratio(hw1m, hw1k)
    out.append(("hwtimer cost growth 1k → 1M pending ≤ 1.3×",
                f"{fmt(hw1k)} → {fmt(hw1m)} ns = {fmt_ratio(r)}",
                None if r is None else r <= 1.3))
    n = R.param_of("expiry", "ns_per_expiry", "hwtimer")
    hwe = R.get("expiry", "ns_per_expiry", "hwtimer")
    tle = R.get("expiry", "ns_per_expiry", "timer_list")
    r = ratio(hwe, tle)
    out.append((f"expiry cost per timeout ({kfmt(n or 0)} in one tick) ≤ 1.0× timer_list",
                f"{fmt(hwe)} ns vs {fmt(tle)} ns = {fmt_ratio(r)}",
                None if r is None else r <= 1.0))
    b = R.get("ucost", "ns_per_timeout", "hwtimer-batch1024")
    t = R.get("ucost", "ns_per_timeout", "timerfd-settime")
    r = ratio(b, t)
    out.append(("userspace BATCH 1024 per timeout ≤ 0.1× timerfd arm+disarm",
                f"{fmt(b)} ns vs {fmt(t)} ns = {fmt_ratio(r)}",
                None if r is None else r <= 0.1))
    hm = umem(R, "hwtimer")
    tm = umem(R, "timerfd")
    out.append(("kernel memory per pending userspace timeout ≤ 128 B",
                f"{fmt(hm)} B (Slab + vmalloc)",
                None if hm is None else hm <= 128))
    r = ratio(hm, tm)
    out.append(("kernel memory per pending timeout ≤ 0.25× timerfd",
                f"{fmt(hm)} B vs {fmt(tm)} B = {fmt_ratio(r)}",
                None if r is None else r <= 0.25))
    tick_us = None
    try:
        tick_us = float(R.info.get("hwtimer_tick_ns", "")) / 1000
    except ValueError:
        pass
    hp = R.get("lateness", "p99", "hwtimer")
    tp = R.get("lateness", "p99", "timerfd")
    ok = None
    if hp is not None and tp is not None and tick_us is not None:
        ok = hp <= tp + tick_us
    out.append(("lateness p99 ≤ timerfd p99 + one tick",
                f"{fmt(hp)} µs vs {fmt(tp)} µs + {fmt(tick_us)} µs", ok))
    he = R.get("lateness", "early_all_rounds", "hwtimer")
    if he is None:
        he = R.get("lateness", "early", "hwtimer")
    ke = R.get("lateness", "kernel_early", "hwtimer")
    out.append(("early fires: 0",
                f"{fmt(he, 0)} seen early by the process, {fmt(ke, 0)} by the kernel's fire time",
                None if he is None else (he == 0 and not ke)))
    idle = R.get("idle", "hrtimer_fires_per_s", "nothing-pending")
    out.append(("idle: 0 hrtimer fires/s with nothing pending",
                f"{fmt(idle, 2)}/s", None if idle is None else idle == 0))
    return out


def derived(R):
    """Ratio rows for the CSV: (metric, peer, param, value)."""
    d = []
    for n in PENDING:
        hw = R.get("armcancel", "ns_per_pair", "hwtimer", n)
        for p in PEERS[1:]:
            r = ratio(hw, R.get("armcancel", "ns_per_pair", p, n))
            if r is not None:
                d.append(("armcancel_vs", p, n, r))
    for p in PEERS:
        lo = R.get("armcancel", "ns_per_pair", p, PENDING[0])
        hi = max((n for n in PENDING
                  if R.get("armcancel", "ns_per_pair", p, n) is not None),
                 default=None)
        if lo and hi and hi != PENDING[0]:
            d.append(("armcancel_growth", p, hi,
                      R.get("armcancel", "ns_per_pair", p, hi) / lo))
    hwe = R.get("expiry", "ns_per_expiry", "hwtimer")
    for p in PEERS[1:]:
        r = ratio(hwe, R.get("expiry", "ns_per_expiry", p))
        if r is not None:
            d.append(("expiry_vs", p, R.param_of("expiry", "ns_per_expiry", p), r))
    t = R.get("ucost", "ns_per_timeout", "timerfd-settime")
    for p in UPEERS:
        r = ratio(R.get("ucost", "ns_per_timeout", p), t)
        if r is not None:
            d.append(("ucost_vs_timerfd_settime", p,
                      R.param_of("ucost", "ns_per_timeout", p), r))
    r = ratio(umem(R, "hwtimer"), umem(R, "timerfd"))
    if r is not None:
        d.append(("umemory_vs_timerfd", "hwtimer",
                  R.param_of("umemory", "slab_per_timeout", "hwtimer"), r))
    return d


def write_csv(R, d, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["section", "metric", "peer", "param", "value", "unit"])
        for r in R.rows:
            w.writerow([r["section"], r["metric"], r["peer"], r["param"],
                        r["value"], r["unit"]])
        for metric, peer, param, v in d:
            w.writerow(["ratio", metric, peer, param, f"{v:.3f}", "x"])


def table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join(" --- " for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def write_md(R, info, path):
    md = ["# hwtimer benchmark results\n"]
    md.append(f"Measured in one qemu VM (`-accel tcg`, software emulation, "
              f"{info.get('cpus', '?')} vCPUs, {info.get('cpu', '?')}) on "
              f"Debian's stock kernel {info.get('kernel', '?')}; clocksource "
              f"{info.get('clocksource', '?')}; hwtimer tick "
              f"{info.get('hwtimer_tick_ns', '?')} ns, "
              f"{info.get('hwtimer_workers', '?')} workers. Absolute numbers "
              "are those of an emulated CPU (tens of times slower than "
              "hardware); the ratios, measured in the same run, are what "
              "carry over.\n")

    md.append("## Targets\n")
    md.append(table(["target", "measured", "result"],
                    [[t, m, "–" if ok is None else ("met" if ok else "**missed**")]
                     for t, m, ok in targets(R)]))

    md.append("\n## In-kernel arm+cancel, ns per pair\n")
    md.append("Arm one timeout (random deadline 1 s – 1 h) and cancel it at "
              "once, with N other timeouts of the same kind pending; 10k "
              "pairs per pass, the peers take turns over 7 passes and each "
              "keeps its fastest.\n")
    rows = []
    for n in PENDING:
        v = [R.get("armcancel", "ns_per_pair", p, n) for p in PEERS]
        if all(x is None for x in v):
            continue
        rows.append([kfmt(n)] + [fmt(x) for x in v] +
                    [fmt_ratio(ratio(v[0], x)) for x in v[1:]])
    g = []
    for p in PEERS:
        lo = R.get("armcancel", "ns_per_pair", p, PENDING[0])
        hi = R.get("armcancel", "ns_per_pair", p, PENDING[-1])
        g.append(fmt_ratio(ratio(hi, lo)))
    rows.append(["growth 1k→1M"] + g + ["", "", ""])
    md.append(table(["pending"] + PEERS +
                    ["hwtimer / " + p for p in PEERS[1:]], rows))

    md.append("\n## In-kernel expiry\n")
    n = R.param_of("expiry", "ns_per_expiry", "hwtimer")
    md.append(f"{kfmt(n or 0)} timeouts armed for one deadline; time from "
              "the first callback to the last, per expiry, and how late the "
              "first and last callbacks ran.\n")
    hwe = R.get("expiry", "ns_per_expiry", "hwtimer")
    md.append(table(["peer", "ns per expiry", "first callback late (µs)",
                     "last callback late (µs)", "hwtimer / peer"],
                    [[p, fmt(R.get("expiry", "ns_per_expiry", p)),
                      fmt((R.get("expiry", "first_late", p) or 0) / 1e3),
                      fmt((R.get("expiry", "last_late", p) or 0) / 1e3),
                      fmt_ratio(ratio(hwe, R.get("expiry", "ns_per_expiry", p)))]
                     for p in PEERS + ["hwtimer-1worker"]
                     if R.get("expiry", "ns_per_expiry", p) is not None]))
    md.append("\nhwtimer-1worker is the same run on a wheel with one worker "
              "instead of the default pool of two.\n")

    md.append("\n## Bytes per in-kernel timeout\n")
    md.append("Every peer is embedded in the caller's object: its size is the "
              "cost; slab growth from 0 to 100k pending is ~0 (the residue "
              "is other activity and per-CPU counter drift).\n")
    md.append(table(["peer", "sizeof (B)", "slab growth per timeout at 100k (B)"],
                    [[p, fmt(R.get("memory", "sizeof", p), 0),
                      fmt(R.get("memory", "slab_per_timeout", p))]
                     for p in PEERS]))

    variants = ["hwtimer", "hwtimer-abs", "hwtimer-abs-nopin", "timer_list"]
    if R.get("armcancel", "ns_per_pair", "hwtimer-abs") is not None:
        md.append("\n## hwtimer arm+cancel variants, ns per pair\n")
        md.append("The same pairs with an absolute deadline (no clock read "
                  "on the arm path, as timer_list's jiffies) and, on top, "
                  "no owner module to pin (NULL owner).\n")
        rows = []
        for n in PENDING:
            v = [R.get("armcancel", "ns_per_pair", p, n) for p in variants]
            if all(x is None for x in v):
                continue
            rows.append([kfmt(n)] + [fmt(x) for x in v] +
                        [fmt_ratio(ratio(x, v[-1])) for x in v[:-1]])
        md.append(table(["pending"] + variants +
                        [p + " / timer_list" for p in variants[:-1]], rows))

    parts = ["ktime_get", "jiffies", "module_get_put", "div64",
             "raw_lock_irqsave", "spin_lock", "slab_alloc_free",
             "xa_alloc_load_erase"]
    if any(R.get("parts", "ns_per_op", p) is not None for p in parts):
        md.append("\n## Parts of an arm+cancel, ns each\n")
        md.append("The primitives a pair is made of, timed alone in the same "
                  "run: what hwtimer pays per pair that timer_list does not "
                  "(a clock read instead of jiffies, a module pin and unpin, "
                  "a 64-bit division for ns to ticks), and what /dev/hwtimer "
                  "adds per timeout (a plain spinlock round trip, a 112-byte "
                  "slab object allocated and freed); xa_alloc_load_erase is "
                  "an id allocated, looked up and erased in an xarray, 4096 "
                  "at a time, which /dev/hwtimer paid before its O(1) id "
                  "table replaced the xarray.\n")
        md.append(table(["primitive", "ns per op"],
                        [[p, fmt(R.get("parts", "ns_per_op", p))]
                         for p in parts]))

    md.append("\n## Userspace cost per timeout armed and cancelled\n")
    n = R.param_of("ucost", "ns_per_timeout", "hwtimer-ioctl")
    md.append(f"{kfmt(n or 0)} timeouts (random deadlines 1 s – 1 h) armed, "
              "then all cancelled; ns per timeout. The methods take turns "
              "over 7 rounds and each keeps its fastest.\n")
    t = R.get("ucost", "ns_per_timeout", "timerfd-settime")
    md.append(table(["method", "ns per timeout", "vs timerfd arm+disarm",
                     "of which arm", "of which cancel"],
                    [[p, fmt(R.get("ucost", "ns_per_timeout", p)),
                      fmt_ratio(ratio(R.get("ucost", "ns_per_timeout", p), t)),
                      fmt(R.get("ucost", "arm_ns", p)),
                      fmt(R.get("ucost", "cancel_ns", p))]
                     for p in UPEERS]))

    md.append("\n## Kernel memory per pending userspace timeout\n")
    md.append("/proc/meminfo deltas with the timeouts pending (1 h away). "
              "Slab + vmalloc (VmallocUsed) is what the target counts: a "
              "table past 8 KiB (hwtimer's id table, the fd table) comes "
              "from kvmalloc(), which counts in Slab as a large kmalloc or "
              "else in vmalloc. The id table's own share, from the "
              "context's fdinfo, is shown apart (it is part of the total). "
              "MemFree also sees page tables and page-cache churn.\n")
    md.append(table(["peer", "pending", "Slab per timeout (B)",
                     "vmalloc per timeout (B)", "total (B)",
                     "of which id table (B)",
                     "MemFree drop per timeout (B)"],
                    [[p, fmt(R.param_of("umemory", "slab_per_timeout", p), 0),
                      fmt(R.get("umemory", "slab_per_timeout", p)),
                      fmt(R.get("umemory", "vmalloc_per_timeout", p)),
                      fmt(umem(R, p)),
                      fmt(R.get("umemory", "table_per_timeout", p))
                      if p == "hwtimer" else "–",
                      fmt(R.get("umemory", "memfree_per_timeout", p))]
                     for p in ["hwtimer", "timerfd"]]))

    md.append("\n## Lateness seen by the process\n")
    n = R.param_of("lateness", "p50", "hwtimer")
    md.append(f"{kfmt(n or 0)} timeouts with deadlines spread at random over "
              "100 ms; lateness is when the process saw the expiry (read() "
              "of the record; epoll + read() of the timerfd) minus the "
              "deadline.\n")
    md.append("Three rounds each, taking turns; the round with the median "
              "p99 is shown. Early counts every round.\n")
    md.append(table(["peer", "p50 (µs)", "p99 (µs)", "max (µs)", "early"],
                    [[p] + [fmt(R.get("lateness", m, p)) for m in
                            ["p50", "p99", "max"]] +
                     [fmt(R.get("lateness", "early_all_rounds", p), 0)]
                     for p in ["hwtimer", "timerfd"]]))

    md.append("\n## Idle cost\n")
    md.append(table(["default wheel", "hrtimer fires per second"],
                    [[w, fmt(R.get("idle", "hrtimer_fires_per_s", w), 2)]
                     for w in ["nothing-pending", "one-1h-away"]]))
    with open(path, "w") as f:
        f.write("\n".join(md))


def plots(R, cdf, out):
    gp = []
    with open(os.path.join(out, "armcancel.dat"), "w") as f:
        f.write("pending " + " ".join(PEERS) + "\n")
        for n in PENDING:
            v = [R.get("armcancel", "ns_per_pair", p, n) for p in PEERS]
            if all(x is None for x in v):
                continue
            f.write(f"{n} " + " ".join("NaN" if x is None else str(x)
                                       for x in v) + "\n")
    gp.append(f"""
set terminal pngcairo size 800,500 font ",10" noenhanced
set output "{out}/armcancel.png"
set title "In-kernel arm+cancel cost vs pending timeouts (qemu TCG)"
set logscale x
set xrange [500:2000000]
set xlabel "other timeouts pending"
set ylabel "ns per arm+cancel pair"
set yrange [0:*]
set key top left
set grid
plot for [i=2:{len(PEERS) + 1}] "{out}/armcancel.dat" using 1:i with linespoints lw 2 title columnhead(i)
""")
    for p, pts in cdf.items():
        with open(os.path.join(out, f"cdf-{p}.dat"), "w") as f:
            for pct, us in pts:
                f.write(f"{us} {pct}\n")
    if cdf:
        curves = ", ".join(f'"{out}/cdf-{p}.dat" using 1:2 with lines lw 2 title "{p}"'
                           for p in sorted(cdf))
        gp.append(f"""
set terminal pngcairo size 800,500 font ",10" noenhanced
set output "{out}/lateness.png"
set title "Lateness seen by the process, 10k timeouts over 100 ms (qemu TCG)"
unset logscale
set logscale x
set autoscale x
set xlabel "lateness (µs, log scale)"
set ylabel "percentile"
set yrange [0:100]
set key bottom right
set grid
plot {curves}
""")
    have_ucost = False
    with open(os.path.join(out, "ucost.dat"), "w") as f:
        for i, p in enumerate(UPEERS):
            v = R.get("ucost", "ns_per_timeout", p)
            if v is not None:
                f.write(f'{i} "{p}" {v}\n')
                have_ucost = True
    if have_ucost:
        gp.append(f"""
set terminal pngcairo size 800,500 font ",10" noenhanced
set output "{out}/ucost.png"
set title "Userspace: ns per timeout armed and cancelled (qemu TCG)"
unset logscale
set logscale y
set yrange [*:*]
set xrange [-0.5:{len(UPEERS) - 0.5}]
set ylabel "ns per timeout (log scale)"
unset xlabel
set style fill solid 0.6
set boxwidth 0.6
set grid ytics
plot "{out}/ucost.dat" using 1:3:xtic(2) with boxes notitle, "" using 1:3:(sprintf("%.0f", $3)) with labels offset 0,1 notitle
""")
    script = os.path.join(out, "plots.gp")
    with open(script, "w") as f:
        f.write("\n".join(gp))
    subprocess.run(["gnuplot", script], check=True)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows, cdf, info, notok = parse(sys.argv[1])
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    R = Results(rows)
    R.info = info
    d = derived(R)
    write_csv(R, d, os.path.join(out, "results.csv"))
    write_md(R, info, os.path.join(out, "results.md"))
    if rows:
        plots(R, cdf, out)
    for line in notok:
        print(f"bench: {line}", file=sys.stderr)
    print(f"bench: {len(rows)} measurements; see {out}/results.md")
    for t, m, ok in targets(R):
        print(f"  {'----' if ok is None else ('met ' if ok else 'MISS')}  {t}: {m}")
    if not rows or notok:
        sys.exit(1)


if __name__ == "__main__":
    main()
