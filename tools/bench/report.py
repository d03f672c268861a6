#!/usr/bin/env python3
"""Turn the bench VMs' results.log files into results.csv, results.md and plots.

Usage: report.py RESULTS_LOG... OUTDIR

Reads the lines the guest printed:
  BENCH,section,metric,peer,param,value,unit   one measurement
  CDF,peer,percentile,lateness_us              lateness distribution
  INFO,key,value                               how the run was made
bench.sh appends "INFO,run,R" to each log: the logs of one round (one boot
per vCPU count, the host's runs, the UML run) are one run. Contended rows
become section "contended-smpN", N the boot's vCPUs, since each vCPU count
has its own. The UML run's log (tools/bench/uml-bench.sh) has sections
uml-armcancel, uml-modify, uml-expiry and uml-ids, and "INFO,uml_*" lines about
its kernel; OUTDIR/insns.txt (bench.sh BENCH_INSNS=1), when there, gives
the instructions per call of the in-kernel operations' entry functions.

Every figure is the median over the runs, with the spread (min-max) beside
it; a ratio is taken within each run and its median and spread reported,
so a target compares peers measured in the same boot.

Contended figures are throughput based: with n workers each doing P
pairs (or moves), aggregate ns per pair = (last worker's end - first
worker's start) / (n * P); scaling with n workers = aggregate ns per pair
with 1 worker / aggregate ns per pair with n workers (n is perfect).

Writes into OUTDIR:
  results.csv    every measurement (median, min, max, runs), then the
                 derived ratios (section ratio)
  results.md     the tables, the benchmark targets marked met/missed
  armcancel.png  in-kernel arm+cancel cost against pending count, per peer
  scaling.png    contended aggregate throughput against workers, per peer
  lateness.png   lateness distribution (CDF), hwtimer against timerfd
  ucost.png      userspace cost per timeout, per method
Exits 1 when nothing was measured or a TAP line says "not ok".
"""
import csv
import os
import statistics
import subprocess
import sys

PEERS = ["hwtimer", "timer_list", "hrtimer", "delayed_work"]
# hwtimer on a HWTIMER_WHEEL_PERCPU wheel, beside the one-base "hwtimer".
PERCPU = "hwtimer-percpu"
MPEERS = ["hwtimer", PERCPU, "timer_list", "hrtimer", "delayed_work"]
CPEERS = [PERCPU, "hwtimer", "timer_list", "hrtimer"]
# Contended diagnostics: the per-CPU wheel armed with absolute deadlines
# (no clock read per op), and a clock read alone, beside timer_list.
CLOCK_PEERS = ["ktime_get", f"{PERCPU}-abs", PERCPU, "timer_list"]
PENDING = [1000, 10000, 100000, 1000000]
UPEERS = ["hwtimer-ioctl", "hwtimer-batch64", "hwtimer-batch1024",
          "io_uring-batch1024", "heap-timerfd", "timerfd-settime",
          "timerfd-create"]
# hwtimer_lib_bench, its own run (262144 timeouts, 1024 at a time, at most
# 1024 pending): libhwtimer's submission queue beside BATCH by hand, and
# the same through the device's timer rings.
LPEERS = ["libhwtimer-lib_sq1024", "libhwtimer-raw_batch1024",
          "libhwtimer-lib_single", "libhwtimer-rings_sq1024",
          "libhwtimer-rings_single", "libhwtimer-rings_loop1024",
          "libhwtimer-heap_single"]
# hwtimer_lib_bench -b stand-in on the host's CPU, no VM (bench.sh): the
# rings against test/fake_kernel.c's stand-in beside the heap peer.
NPEERS = ["libhwtimer-heap_single", "libhwtimer-rings_single",
          "libhwtimer-rings_sq1024", "libhwtimer-rings_loop1024"]
# hwtimer_lib_bench's expiry delivery, 100,000 a second: taken from the
# completion ring, and from read() (a context kept on BATCH).
XPEERS = ["libhwtimer-rings", "libhwtimer-read"]
# The KUnit suite hwtimer_bench natively under User Mode Linux
# (tools/bench/uml-bench.sh): sections uml-armcancel, uml-modify,
# uml-expiry and uml-ids (hwtimer_ids against an xarray); "hwtimer" is a
# private wheel as in the VMs, "hwtimer-default" the default wheel.
NATIVE_PEERS = ["hwtimer", "hwtimer-default", "timer_list", "hrtimer",
                "delayed_work"]
# The entry functions of each in-kernel operation, per peer, whose
# instructions per call tcgprof counts (bench.sh BENCH_INSNS=1).
# The stock kernel's and the module's symbols, as tcgprof names them: what
# an arm, a cancel and a move enter, and the helpers they call that gcc
# keeps out of line (a row each: a function's own instructions only).
ENTRY_FUNCS = [
    ("hwtimer", ["hwtimer_arm", "lock_timeout", "start", "hwtimer_wc_arm",
                 "hwtimer_cancel", "cancel_locked", "hwtimer_modify"]),
    ("timer_list", ["mod_timer", "__mod_timer", "enqueue_timer",
                    "timer_delete", "del_timer"]),
    ("hrtimer", ["hrtimer_start_range_ns", "enqueue_hrtimer",
                 "hrtimer_try_to_cancel"]),
    ("delayed_work", ["mod_delayed_work_on", "__queue_delayed_work",
                      "cancel_delayed_work", "try_to_grab_pending"])]


class Fig(float):
    """A median over runs that remembers its spread (min, max, runs)."""

    def __new__(cls, values):
        f = float.__new__(cls, statistics.median(values))
        f.lo, f.hi, f.n = min(values), max(values), len(values)
        return f


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
    for r in rows:
        if r["section"] == "contended":
            r["section"] = f"contended-smp{info.get('cpus', '?')}"
    return rows, cdf, info, notok


class Results:
    """One run's figures, or (from runs()) the medians over runs."""

    def __init__(self, rows):
        self.rows = rows
        self.idx = {(r["section"], r["metric"], r["peer"], r["param"]): r["value"]
                    for r in rows}
        self.info = {}

    @staticmethod
    def merge(runs):
        """The medians of every figure over @runs, as Fig values."""
        vals = {}
        for R in runs:
            for k, v in R.idx.items():
                vals.setdefault(k, []).append(v)
        M = Results([])
        M.idx = {k: Fig(v) for k, v in vals.items()}
        units = {}
        for R in runs:
            for r in R.rows:
                units[(r["section"], r["metric"], r["peer"], r["param"])] = r["unit"]
        M.rows = [dict(section=k[0], metric=k[1], peer=k[2], param=k[3],
                       value=v, unit=units[k]) for k, v in M.idx.items()]
        return M

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


def fmt1(v, nd=1):
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.{nd}f}"


def fmt(v, nd=1):
    """A figure; a median over runs gets its spread: "m (lo–hi)"."""
    if v is None:
        return "–"
    if isinstance(v, Fig) and v.n > 1:
        return f"{fmt1(v, nd)} ({fmt1(v.lo, nd)}–{fmt1(v.hi, nd)})"
    return fmt1(v, nd)


def fmt_ratio(v):
    if v is None:
        return "–"
    if isinstance(v, Fig) and v.n > 1:
        return f"{v:.2f}× ({v.lo:.2f}–{v.hi:.2f})"
    return f"{v:.2f}×"


def per_run(runs, fn):
    """fn(R) in every run that has it: a Fig (median and spread) or None."""
    v = [x for x in (fn(R) for R in runs) if x is not None]
    return Fig(v) if v else None


def kfmt(n):
    return {1000: "1k", 10000: "10k", 100000: "100k", 1000000: "1M"}.get(n, str(n))


def top_pending(R, section, peer):
    """The largest background population @section has for @peer."""
    return max((n for n in PENDING if R.get(section, "ns_per_pair" if section
                                           != "modify" else "ns_per_op",
                                           peer, n) is not None),
               default=None)


def smps(R):
    """vCPU counts of the contended boots, smallest first."""
    return sorted({int(s[len("contended-smp"):]) for (s, _, _, _) in R.idx
                   if s.startswith("contended-smp") and
                   s[len("contended-smp"):].isdigit()})


def cget(R, smp, metric, peer, n):
    return R.get(f"contended-smp{smp}", metric, peer, n)


def scaling(R, smp, metric, peer, n):
    """1-worker aggregate ns per op / n-worker aggregate ns per op."""
    return ratio(cget(R, smp, metric, peer, 1), cget(R, smp, metric, peer, n))


def tick_us(R):
    try:
        return float(R.info.get("hwtimer_tick_ns", "")) / 1000
    except ValueError:
        return None


def diff(a, b):
    return None if a is None or b is None else a - b


def first_late_gap(R):
    """hwtimer's first expiry callback lateness minus timer_list's, in µs."""
    d = diff(R.get("expiry", "first_late", "hwtimer"),
             R.get("expiry", "first_late", "timer_list"))
    return None if d is None else d / 1e3


def kernel_targets(M):
    """arm+cancel and modify at the largest population hwtimer measured."""
    ac = lambda p, n: lambda R: R.get("armcancel", "ns_per_pair", p, n)
    mo = lambda p, n: lambda R: R.get("modify", "ns_per_op", p, n)
    n = top_pending(M, "armcancel", "hwtimer") or PENDING[-1]
    nm = top_pending(M, "modify", "hwtimer") or PENDING[-1]
    t = [(f"arm+cancel at {kfmt(n)} pending ≤ 1.0× timer_list",
          lambda R: ratio(ac("hwtimer", n)(R), ac("timer_list", n)(R)), "<=", 1.0, "x"),
         (f"arm+cancel at {kfmt(n)} pending ≤ 0.33× hrtimer",
          lambda R: ratio(ac("hwtimer", n)(R), ac("hrtimer", n)(R)), "<=", 0.33, "x"),
         (f"arm+cancel growth 1k → {kfmt(n)} pending ≤ 1.3×",
          lambda R: ratio(ac("hwtimer", n)(R), ac("hwtimer", 1000)(R)), "<=", 1.3, "x"),
         (f"modify at {kfmt(nm)} pending ≤ 1.0× mod_timer",
          lambda R: ratio(mo("hwtimer", nm)(R), mo("timer_list", nm)(R)), "<=", 1.0, "x"),
         (f"modify growth 1k → {kfmt(nm)} pending ≤ 1.3×",
          lambda R: ratio(mo("hwtimer", nm)(R), mo("hwtimer", 1000)(R)), "<=", 1.3, "x")]
    return t


def contended_targets(M):
    """Scaling and aggregate cost of the per-CPU wheel, per vCPU count."""
    t = []
    for smp in smps(M):
        if smp < 2:
            continue
        for what, metric in [("arm+cancel", "armcancel_ns_per_pair"),
                             ("modify", "modify_ns_per_op")]:
            t.append((f"{smp}-worker {what} scaling ({PERCPU}) ≥ timer_list's "
                      "(shown: hwtimer's ÷ timer_list's)",
                      lambda R, smp=smp, metric=metric: ratio(
                          scaling(R, smp, metric, PERCPU, smp),
                          scaling(R, smp, metric, "timer_list", smp)),
                      ">=", 1.0, "x"))
            t.append((f"{smp}-worker aggregate {what} ns ({PERCPU}) ≤ 1.0× timer_list's",
                      lambda R, smp=smp, metric=metric: ratio(
                          cget(R, smp, metric, PERCPU, smp),
                          cget(R, smp, metric, "timer_list", smp)),
                      "<=", 1.0, "x"))
    return t


def expiry_targets(M):
    """Cost per expiry and lateness of the first callback."""
    ex = lambda p, m="ns_per_expiry": lambda R: R.get("expiry", m, p)
    ne = M.param_of("expiry", "ns_per_expiry", "hwtimer") or 0
    t = [(f"expiry cost per timeout ({kfmt(ne)} in one tick) ≤ 1.0× timer_list",
          lambda R: ratio(ex("hwtimer")(R), ex("timer_list")(R)), "<=", 1.0, "x"),
         (f"expiry cost per timeout ({kfmt(ne)} in one tick) on the per-CPU "
          "wheel (hwtimer-percpu) ≤ 1.0× timer_list",
          lambda R: ratio(ex("hwtimer-percpu")(R), ex("timer_list")(R)),
          "<=", 1.0, "x"),
         ("expiry: first callback no later than timer_list's "
          "(shown: hwtimer's lateness − timer_list's, µs)",
          lambda R: first_late_gap(R), "<=", 0.0, "µs")]
    return t


def ring_calls(R, peer):
    """System calls in a round of hwtimer_lib_bench's @peer: every one (its
    total, counted with ptrace), or ioctl + read where a log has no total."""
    total = R.get("usyscalls", "total_per_round", peer)
    if total is not None:
        return total
    io = R.get("usyscalls", "ioctl_per_round", peer)
    rd = R.get("usyscalls", "read_per_round", peer)
    return None if io is None or rd is None else io + rd


def rings_targets():
    """The timer rings: cost against an event loop's timerfd, system
    calls, expiry delivery against read()."""
    uc = lambda p: lambda R: R.get("ucost", "ns_per_timeout", p)
    ux = lambda p, m: lambda R: R.get("uexpiry", m, p)
    t = []
    for v in ["sq1024", "single"]:
        p = f"libhwtimer-rings_{v}"
        t += [(f"userspace arm+cancel per timeout through the rings "
               f"(rings_{v}) ≤ 1.0× heap+timerfd",
               lambda R, p=p: ratio(uc(p)(R), uc("heap-timerfd")(R)),
               "<=", 1.0, "x"),
              (f"userspace arm+cancel per timeout through the rings "
               f"(rings_{v}) ≤ 0.05× timerfd arm+disarm",
               lambda R, p=p: ratio(uc(p)(R), uc("timerfd-settime")(R)),
               "<=", 0.05, "x"),
              (f"0 system calls per timeout in steady state through the "
               f"rings (rings_{v}; shown: system calls per 262,144 timeouts)",
               lambda R, p=p: ring_calls(R, p), "<=", 0, "calls")]
    t += [("100k expiries/s: every one delivered through the completion "
           "ring (shown: missing)",
           lambda R: diff(R.param_of("uexpiry", "delivered", XPEERS[0]),
                          ux(XPEERS[0], "delivered")(R)), "<=", 0, ""),
          ("100k expiries/s: p99 lateness via the completion ring ≤ p99 "
           "via read() (shown: rings − read(), µs)",
           lambda R: diff(ux(XPEERS[0], "p99")(R), ux(XPEERS[1], "p99")(R)),
           "<=", 0.0, "µs")]
    return t


def user_targets():
    """Userspace cost per timeout, the empty wheel, kernel memory."""
    uc = lambda p: lambda R: R.get("ucost", "ns_per_timeout", p)
    t = [("userspace BATCH-1024 per timeout ≤ 0.5× io_uring's batched timeouts",
          lambda R: ratio(uc("hwtimer-batch1024")(R), uc("io_uring-batch1024")(R)),
          "<=", 0.5, "x"),
         ("userspace BATCH-1024 per timeout ≤ 0.25× timerfd arm+disarm",
          lambda R: ratio(uc("hwtimer-batch1024")(R), uc("timerfd-settime")(R)),
          "<=", 0.25, "x"),
         ("userspace BATCH-1024 per timeout ≤ 0.1× timerfd arm+disarm",
          lambda R: ratio(uc("hwtimer-batch1024")(R), uc("timerfd-settime")(R)),
          "<=", 0.1, "x"),
         ("libhwtimer submission queue of 1024 within 10% of BATCH by hand",
          lambda R: ratio(uc("libhwtimer-lib_sq1024")(R),
                          uc("libhwtimer-raw_batch1024")(R)),
          "<=", 1.1, "x"),
         ("arm+cancel on an empty wheel ≤ 1.0× timer_list",
          lambda R: ratio(R.get("empty", "ns_per_pair", "hwtimer", 0),
                          R.get("empty", "ns_per_pair", "timer_list", 0)),
          "<=", 1.0, "x"),
         ("kernel memory per pending userspace timeout ≤ 128 B",
          lambda R: umem(R, "hwtimer"), "<=", 128, "B"),
         ("kernel memory per pending timeout ≤ 0.25× timerfd",
          lambda R: ratio(umem(R, "hwtimer"), umem(R, "timerfd")), "<=", 0.25, "x")]
    return t


def early_fires(R):
    """hwtimer's early expiries, seen by the process and by the kernel."""
    he = R.get("lateness", "early_all_rounds", "hwtimer")
    if he is None:
        he = R.get("lateness", "early", "hwtimer")
    if he is None:
        return None
    return he + (R.get("lateness", "kernel_early", "hwtimer") or 0)


def lateness_targets(M):
    """Lateness against timerfd within a tick, no early fire, idle cost."""
    t = []
    tk = tick_us(M)
    la = lambda m, p: lambda R: R.get("lateness", m, p)
    if tk is not None:
        t += [(f"lateness p99 ≤ timerfd p99 + one tick (shown: hwtimer − timerfd, "
               f"limit {fmt(tk)} µs)",
               lambda R: diff(la("p99", "hwtimer")(R), la("p99", "timerfd")(R)),
               "<=", tk, "µs"),
              (f"lateness p50 ≤ timerfd p50 + half a tick (shown: hwtimer − "
               f"timerfd, limit {fmt(tk / 2)} µs)",
               lambda R: diff(la("p50", "hwtimer")(R), la("p50", "timerfd")(R)),
               "<=", tk / 2, "µs")]
    t += [("early fires: 0 (seen by the process or by the kernel's fire time)",
           early_fires, "<=", 0, ""),
          ("idle: 0 hrtimer fires/s with nothing pending",
           lambda R: R.get("idle", "hrtimer_fires_per_s", "nothing-pending"),
           "<=", 0, "/s")]
    return t


def target_specs(M):
    """(target, fn(run) -> value, "<=" or ">=", limit, unit) for each target."""
    return (kernel_targets(M) + contended_targets(M) + expiry_targets(M) +
            user_targets() + rings_targets() + lateness_targets(M))


def targets(runs, M):
    """The benchmark targets: (what, measured text, met or None).

    Each value is taken within each run; met is judged on the median."""
    out = []
    for what, fn, op, limit, unit in target_specs(M):
        v = per_run(runs, fn)
        if v is None:
            out.append((what, "–", None))
            continue
        text = fmt_ratio(v) if unit == "x" else f"{fmt(v)} {unit}".rstrip()
        ok = v <= limit if op == "<=" else v >= limit
        out.append((what, text, ok))
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
    for n in PENDING:
        hw = R.get("modify", "ns_per_op", "hwtimer", n)
        for p in MPEERS[1:]:
            r = ratio(hw, R.get("modify", "ns_per_op", p, n))
            if r is not None:
                d.append(("modify_vs", p, n, r))
    for p in MPEERS:
        hi = top_pending(R, "modify", p)
        r = ratio(R.get("modify", "ns_per_op", p, hi),
                  R.get("modify", "ns_per_op", p, PENDING[0]))
        if r is not None and hi != PENDING[0]:
            d.append(("modify_growth", p, hi, r))
    hw = R.get("empty", "ns_per_pair", "hwtimer", 0)
    for p in MPEERS[1:]:
        r = ratio(hw, R.get("empty", "ns_per_pair", p, 0))
        if r is not None:
            d.append(("empty_vs", p, 0, r))
    for section, metric in [("uml-armcancel", "ns_per_pair"),
                            ("uml-modify", "ns_per_op"),
                            ("uml-expiry", "ns_per_expiry")]:
        for (s, m, p, n) in list(R.idx):
            if (s, m) != (section, metric) or p == "hwtimer":
                continue
            r = ratio(R.get(s, m, "hwtimer", n), R.get(s, m, p, n))
            if r is not None:
                d.append((f"{section.replace('-', '_')}_vs", p, n, r))
    for smp in smps(R):
        for metric in ["armcancel_ns_per_pair", "modify_ns_per_op"]:
            short = metric.split("_")[0]
            for p in CPEERS:
                for n in workers(R, smp, metric, p):
                    r = scaling(R, smp, metric, p, n)
                    if n > 1 and r is not None:
                        d.append((f"smp{smp}_{short}_scaling", p, n, r))
                    r = ratio(cget(R, smp, metric, PERCPU, n),
                              cget(R, smp, metric, p, n))
                    if p != PERCPU and r is not None:
                        d.append((f"smp{smp}_{short}_percpu_vs", p, n, r))
    return d


def workers(R, smp, metric, peer):
    """Worker counts measured in the @smp-vCPU boot, fewest first."""
    return sorted(n for (s, m, p, n) in R.idx
                  if (s, m, p) == (f"contended-smp{smp}", metric, peer))


def write_csv(R, d, path):
    """@R and @d hold Figs: the median, then min, max and runs."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["section", "metric", "peer", "param", "value", "unit",
                    "min", "max", "runs"])
        for r in R.rows:
            v = r["value"]
            w.writerow([r["section"], r["metric"], r["peer"], r["param"],
                        float(v), r["unit"], v.lo, v.hi, v.n])
        for metric, peer, param, v in d:
            w.writerow(["ratio", metric, peer, param, f"{v:.3f}", "x",
                        f"{v.lo:.3f}", f"{v.hi:.3f}", v.n])


def table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join(" --- " for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def counted_intro(md, title, n, text):
    """A section heading, then a paragraph opening with the count @n."""
    md.append(f"\n## {title}\n")
    md.append(f"{kfmt(n or 0)} {text}")


def peer_table(R, head, section, metric, peers, cols):
    """A row per peer: its name, its @metric, then col(peer, that figure)."""
    rows = []
    for p in peers:
        v = R.get(section, metric, p)
        rows.append([p, fmt(v)] + [col(p, v) for col in cols])
    return table(head, rows)


def intro_section(md, R, runs, info):
    """How, where and how often the figures were measured."""
    md.append(f"Measured in qemu VMs (`-accel tcg`, software emulation, "
              f"{info.get('cpus', '?')} vCPUs, contended rows with "
              f"{', '.join(map(str, smps(R))) or '–'}; {info.get('cpu', '?')}) on "
              f"Debian's stock kernel {info.get('kernel', '?')}; clocksource "
              f"{info.get('clocksource', '?')}; hwtimer tick "
              f"{info.get('hwtimer_tick_ns', '?')} ns, "
              f"{info.get('hwtimer_workers', '?')} workers. Absolute numbers "
              "are those of an emulated CPU (tens of times slower than "
              "hardware); the ratios, measured in the same run, are what "
              "carry over.\n")
    hc = info.get("host_cpus")
    if hc and hc.isdigit() and any(n > int(hc) for n in smps(R)):
        md.append(f"The host has {hc} CPUs: with more vCPUs than that, the "
                  "vCPUs share host CPUs and the contended rows cannot "
                  f"scale past {hc}.\n")
    md.append(f"{len(runs)} run(s), each a fresh boot per vCPU count. Every "
              "figure is the median over the runs with the spread (min–max) "
              "in brackets. A ratio shown with a spread, and every target, "
              "is taken within each run, then its median over runs shown "
              "(a target is judged on that median); a ratio without one is "
              "the ratio of the medians.\n")


def targets_section(md, R, runs):
    """The targets, each marked met or missed."""
    md.append("## Targets\n")
    md.append(table(["target", "measured", "result"],
                    [[t, m, "–" if ok is None else ("met" if ok else "**missed**")]
                     for t, m, ok in targets(runs, R)]))


def pending_sections(md, R, runs):
    """arm+cancel and modify against each background population."""
    md.append("\n## In-kernel arm+cancel, ns per pair\n")
    md.append("Arm one timeout (random deadline 1 s – 1 h) and cancel it at "
              "once, with N other timeouts of the same kind pending; 10k "
              "pairs per pass, the peers take turns over 7 passes and each "
              "keeps its fastest.\n")
    pending_table(md, R, runs, "armcancel", "ns_per_pair", PEERS + [PERCPU])
    md.append(f"\n{PERCPU} is the same on a wheel with one base per CPU "
              "(HWTIMER_WHEEL_PERCPU); the pairs run on one CPU.\n")

    md.append("\n## In-kernel modify of a pending timeout, ns per move\n")
    md.append("Against the same populations: a random pending background "
              "timeout moved to a new random deadline (1 s – 1 h): "
              "hwtimer_modify(), mod_timer(), hrtimer_start() of a pending "
              "hrtimer, mod_delayed_work(); as many moves as pairs, the "
              "peers taking turns, each keeping its fastest pass.\n")
    pending_table(md, R, runs, "modify", "ns_per_op", MPEERS)


def empty_section(md, R, runs):
    """arm+cancel before any background timeout is armed."""
    md.append("\n## In-kernel arm+cancel on an empty wheel, ns per pair\n")
    md.append("The same pairs before any background timeout is armed "
              "(timer_list's and hrtimer's per-CPU bases still hold the "
              "kernel's own timers).\n")
    rows = []
    for p in MPEERS:
        v = R.get("empty", "ns_per_pair", p, 0)
        if v is not None:
            rows.append([p, fmt(v), fmt_ratio(per_run(runs, lambda Q, p=p: ratio(
                Q.get("empty", "ns_per_pair", "hwtimer", 0),
                Q.get("empty", "ns_per_pair", p, 0))))])
    md.append(table(["peer", "ns per pair", "hwtimer / peer"], rows))


def expiry_section(md, R):
    """Cost per expiry of many timeouts due at once, and lateness."""
    counted_intro(md, "In-kernel expiry",
                  R.param_of("expiry", "ns_per_expiry", "hwtimer"),
                  "timeouts armed for one deadline; time from the first "
                  "callback to the last, per expiry, and how late the first "
                  "and last callbacks ran.\n")
    hwe = R.get("expiry", "ns_per_expiry", "hwtimer")
    late = lambda m: lambda p, v: fmt((R.get("expiry", m, p) or 0) / 1e3)
    md.append(peer_table(R, ["peer", "ns per expiry", "first callback late (µs)",
                             "last callback late (µs)", "hwtimer / peer"],
                         "expiry", "ns_per_expiry",
                         [p for p in PEERS + ["hwtimer-1worker",
                                              "hwtimer-percpu"]
                          if R.get("expiry", "ns_per_expiry", p) is not None],
                         [late("first_late"), late("last_late"),
                          lambda p, v: fmt_ratio(ratio(hwe, v))]))
    md.append("\nhwtimer-1worker is the same run on a wheel with one worker "
              "instead of the default pool of two; hwtimer-percpu on a wheel "
              "with one base per CPU, whose workers run on their base's CPU: "
              "the timeouts, armed from one CPU, all go to its base, as "
              "timer_list's go to the arming CPU's.\n")


def sizeof_section(md, R):
    """Bytes per in-kernel timeout: its size and slab growth."""
    md.append("\n## Bytes per in-kernel timeout\n")
    md.append("Every peer is embedded in the caller's object: its size is the "
              "cost; slab growth from 0 to 100k pending is ~0 (the residue "
              "is other activity and per-CPU counter drift).\n")
    md.append(table(["peer", "sizeof (B)", "slab growth per timeout at 100k (B)"],
                    [[p, fmt(R.get("memory", "sizeof", p), 0),
                      fmt(R.get("memory", "slab_per_timeout", p))]
                     for p in PEERS]))


def variants_section(md, R):
    """hwtimer's arm+cancel with an absolute deadline, then also unpinned."""
    variants = ["hwtimer", "hwtimer-abs", "hwtimer-abs-nopin", "timer_list"]
    if R.get("armcancel", "ns_per_pair", "hwtimer-abs") is not None:
        md.append("\n## hwtimer arm+cancel variants, ns per pair\n")
        md.append("The same pairs with an absolute deadline (no clock read "
                  "on the arm path, as timer_list's jiffies) on a wheel the "
                  "benchmark module does not own, so that each pending "
                  "timeout pins the module as on the default wheel "
                  "(hwtimer-abs), and with no owner module at all "
                  "(hwtimer-abs-nopin). The hwtimer column's wheel is the "
                  "module's own: no pin.\n")
        rows = []
        for n in PENDING:
            v = [R.get("armcancel", "ns_per_pair", p, n) for p in variants]
            if all(x is None for x in v):
                continue
            rows.append([kfmt(n)] + [fmt(x) for x in v] +
                        [fmt_ratio(ratio(x, v[-1])) for x in v[:-1]])
        md.append(table(["pending"] + variants +
                        [p + " / timer_list" for p in variants[:-1]], rows))


def parts_section(md, R):
    """The primitives an arm+cancel is made of, timed alone."""
    parts = ["ktime_get", "jiffies", "module_get_put", "div64",
             "raw_lock_irqsave", "spin_lock", "slab_alloc_free",
             "xa_alloc_load_erase"]
    if any(R.get("parts", "ns_per_op", p) is not None for p in parts):
        md.append("\n## Parts of an arm+cancel, ns each\n")
        md.append("The primitives a pair is made of, timed alone in the same "
                  "run: what hwtimer pays per pair that timer_list does not "
                  "(a clock read instead of jiffies, a module pin and unpin "
                  "on a wheel the owner did not create, a 64-bit division "
                  "for ns to ticks), and what /dev/hwtimer "
                  "adds per timeout (a plain spinlock round trip, a 112-byte "
                  "slab object allocated and freed); xa_alloc_load_erase is "
                  "an id allocated, looked up and erased in an xarray, 4096 "
                  "at a time, which /dev/hwtimer paid before its O(1) id "
                  "table replaced the xarray.\n")
        md.append(peer_table(R, ["primitive", "ns per op"], "parts",
                             "ns_per_op", parts, []))


def ucost_section(md, R):
    """Userspace cost per timeout, per method."""
    counted_intro(md, "Userspace cost per timeout armed and cancelled",
                  R.param_of("ucost", "ns_per_timeout", "hwtimer-ioctl"),
                  "timeouts (random deadlines 1 s – 1 h) armed, then all "
                  "cancelled; ns per timeout. The methods take turns over 7 "
                  "rounds and each keeps its fastest. Each keeps what it "
                  "arms on over its rounds, as a server does: the hwtimer "
                  "methods their /dev/hwtimer context, io_uring its ring, "
                  "timerfd-settime its timerfds; timerfd-create makes and "
                  "closes one per timeout.\n")
    t = R.get("ucost", "ns_per_timeout", "timerfd-settime")
    part = lambda m: lambda p, v: fmt(R.get("ucost", m, p))
    md.append(peer_table(R, ["method", "ns per timeout", "vs timerfd arm+disarm",
                             "of which arm", "of which cancel"],
                         "ucost", "ns_per_timeout", UPEERS,
                         [lambda p, v: fmt_ratio(ratio(v, t)),
                          part("arm_ns"), part("cancel_ns")]))


def lib_section(md, R):
    """libhwtimer's submission queue against BATCH by hand."""
    if any(R.get("ucost", "ns_per_timeout", p) is not None for p in LPEERS):
        md.append("\nlibhwtimer (hwtimer_lib_bench: 262,144 timeouts armed "
                  "and cancelled 1024 at a time, so at most 1024 pending, "
                  "with absolute deadlines from one clock read per 1024, "
                  "spread at random over the second after it; the "
                  "variants take turns over 5 rounds, and each shows its "
                  "fastest, as hwtimer_ubench does, and its median): its "
                  "submission queue of 1024 against a BATCH array of 1024 "
                  "filled by hand, single calls, and both through the "
                  "timer rings, the first also with a hwtimer_peek() per "
                  "1024 (loop1024), as an event loop takes its expiries; "
                  "heap_single is the heap+timerfd peer in the loop of "
                  "the single calls, the same timeouts at the same "
                  "deadlines.\n")
        raw = R.get("ucost", "ns_per_timeout", "libhwtimer-raw_batch1024")
        heap = R.get("ucost", "ns_per_timeout", "heap-timerfd")
        sc = lambda m: lambda p, v: fmt(R.get("usyscalls", f"{m}_per_round", p), 0)
        md.append("System calls are all those of one counted run of "
                  "262,144 timeouts after a warm-up, counted with ptrace as "
                  "strace -c counts them (that run is not timed); ENTER and "
                  "BATCH are of the ioctls, other is every call but ioctl "
                  "and read. heap+timerfd is hwtimer_ubench's "
                  "(above: its own count pending, fastest of its rounds), "
                  "from the same boot. Through the rings, a cancel takes "
                  "its arm back from the submission ring when no drain "
                  "has copied it yet, and the kernel never hears of the "
                  "timeout; else the kernel applies the arm and the "
                  "cancel, and the cancel's completion comes back. Which "
                  "one depends on where the periodic drain falls: "
                  "\"reached the kernel\" is the share of the fastest "
                  "round's arms that the kernel applied.\n")
        loop = R.get("ucost", "ns_per_timeout", "libhwtimer-heap_single")
        md.append(peer_table(R, ["method", "ns per timeout", "median (ns)",
                                 "vs BATCH by hand", "vs heap+timerfd",
                                 "vs heap_single", "reached the kernel (%)",
                                 "system calls per round",
                                 "ENTER", "BATCH", "read", "other"],
                             "ucost", "ns_per_timeout", LPEERS,
                             [lambda p, v: fmt(R.get("ucost", "ns_median", p)),
                              lambda p, v: fmt_ratio(ratio(v, raw)),
                              lambda p, v: fmt_ratio(ratio(v, heap)),
                              lambda p, v: fmt_ratio(ratio(v, loop)),
                              lambda p, v: fmt(R.get("urings", "kernel_pct", p)),
                              lambda p, v: fmt(ring_calls(R, p), 0),
                              sc("enter"), sc("batch"), sc("read"),
                              sc("other")]))
    uexpiry_section(md, R)


def native_section(md, R, runs):
    """The rings beside the heap peer on the host's own CPU."""
    heap = "libhwtimer-heap_single"
    nc = lambda p: lambda Q: Q.get("unative", "ns_per_timeout", p)
    if nc(heap)(R) is None:
        return
    n = R.param_of("unative", "ns_per_timeout", heap)
    md.append(f"\nThe same loop on the host's own CPU, not emulated "
              f"(hwtimer_lib_bench -b stand-in, make ring-native: "
              f"{n:,} timeouts, 5 rounds, pinned to one CPU, one run per "
              "round of boots): the rings of a stand-in for the driver "
              "(tools/lib/hwtimer/test/fake_kernel.c) that drains only "
              "when the library enters it, so every cancel takes its arm "
              "back, beside heap_single with its timerfd on the host's "
              "kernel. The rings make no system call; heap_single makes "
              "its timerfd_settime() calls (about 9 per 1,024 "
              "timeouts), whose cost varies more from machine to "
              "machine than the rest does, so this ratio holds for "
              "this host alone. TCG, too, weighs loads, "
              "stores, calls and locked instructions against system "
              "calls otherwise than a CPU does (docs/design.md, timer "
              "rings). The ratio is taken in each run, then the median "
              "and spread over runs.\n")
    md.append(peer_table(R, ["method", "ns per timeout", "median (ns)",
                             "vs heap_single"],
                         "unative", "ns_per_timeout", NPEERS,
                         [lambda p, v: fmt(R.get("unative", "ns_median", p)),
                          lambda p, v: fmt_ratio(per_run(
                              runs, lambda Q: ratio(nc(p)(Q), nc(heap)(Q))))]))


def opcost_section(md, R):
    """What TCG and the host charge for an operation of each kind."""
    kinds = ["call_ret", "lock_or", "load", "store", "getppid",
             "timerfd_settime"]
    oc = lambda where, k: R.get("opcost", "ns_per_op", f"{where}-{k}")
    if all(oc("tcg", k) is None and oc("host", k) is None for k in kinds):
        return
    md.append("\nWhat one operation of a kind costs (tools/bench/opcost: "
              "a loop of it alone, the fastest of 3 passes less an empty "
              "loop's) in the VM's first boot of each round, under TCG, "
              "and on the host, pinned to one CPU, after the boots. "
              "call_ret: a call of a function that is not inlined and its "
              "return; lock_or: the full barrier GCC emits for a "
              "sequentially consistent fence; load, store: 8 bytes "
              "within 48 KiB.\n")
    md.append(table(["operation", "under TCG (ns)", "on the host (ns)",
                     "TCG ÷ host"],
                    [[k, fmt(oc("tcg", k), 2), fmt(oc("host", k), 2),
                      fmt_ratio(ratio(oc("tcg", k), oc("host", k)))]
                     for k in kinds]))


def uexpiry_section(md, R):
    """100,000 expiries a second through the completion ring and read()."""
    n = R.param_of("uexpiry", "p99", XPEERS[0])
    if n is None:
        return
    md.append(f"\nExpiry delivery (hwtimer_lib_bench): {n:,} one-shots with "
              "deadlines 10 µs apart, 100,000 a second, each armed through "
              "libhwtimer 20 ms ahead (no more waiting than the rings have "
              "slots) and taken back with hwtimer_peek(), or hwtimer_wait() "
              "when none is there; lateness is clock_gettime() when the "
              "caller got the expiry minus its deadline. rings: a context "
              "on the timer rings, expiries from the completion ring; read: "
              "one kept on BATCH, expiries from read(). The two take turns "
              "over 5 rounds each; the round with the median p99 is shown.\n")
    x = lambda m, nd=1: lambda p, v: fmt(R.get("uexpiry", m, p), nd)
    md.append(peer_table(R, ["delivered through", "expiries delivered",
                             "early", "p50 (µs)", "p99 (µs)", "max (µs)"],
                         "uexpiry", "delivered", XPEERS,
                         [x("early", 0), x("p50"), x("p99"), x("max")]))


def echo_section(md, R):
    """examples/echo_idle on /dev/hwtimer at many loopback connections."""
    e = lambda m: R.get("echo", m, "hwtimer")
    if e("closed") is None:
        return
    md.append("\nexamples/echo_idle on /dev/hwtimer (an epoll echo server "
              "whose connections close after 1 s without a byte; a random "
              "half of them send a byte at a time for 3 s, each send "
              "pushing the timeout out with a modify in the submission "
              "queue, one BATCH per loop pass), at "
              f"{fmt(R.param_of('echo', 'closed', 'hwtimer'), 0)} "
              "loopback connections, the most of 2,000, 5,000, 10,000 and "
              "20,000 at which every connection closed by idle timeout, none "
              "early, no byte lost, and at most 1% sent late. Sent late: "
              "connections on which the client, behind its own schedule, "
              "sent a byte 1 s or more after the one before; the server may "
              "rightly close those first, so they are left out of early and "
              "lost, and a count where more than 1% of them are late "
              "measures the client, not the server:\n")
    md.append(table(["closed by idle timeout", "early", "bytes lost",
                     "sent late", "close after idle p50 (ms)", "p99 (ms)",
                     "modifies", "BATCH submits", "wall (s)"],
                    [[fmt(e("closed"), 0), fmt(e("early"), 0),
                      fmt(e("lost"), 0), fmt(e("late"), 0),
                      fmt(e("close_p50")),
                      fmt(e("close_p99")), fmt(e("modifies"), 0),
                      fmt(e("submits"), 0), fmt(e("wall"), 0)]]))


def umemory_section(md, R):
    """Kernel memory per pending userspace timeout."""
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


def lateness_section(md, R):
    """Lateness seen by the process, hwtimer against timerfd."""
    counted_intro(md, "Lateness seen by the process",
                  R.param_of("lateness", "p50", "hwtimer"),
                  "timeouts with deadlines spread at random over 1 s; "
                  "lateness is when the process saw the expiry (read() of "
                  "the record; epoll + read() of the timerfd) minus the "
                  "deadline.\n")
    md.append("Three rounds each, taking turns; the round with the median "
              "p99 is shown. Early counts every round.\n")
    md.append(table(["peer", "p50 (µs)", "p99 (µs)", "max (µs)", "early"],
                    [[p] + [fmt(R.get("lateness", m, p)) for m in
                            ["p50", "p99", "max"]] +
                     [fmt(R.get("lateness", "early_all_rounds", p), 0)
                      if p in ("hwtimer", "timerfd") else "–"]
                     for p in ["hwtimer", "hwtimer-callback",
                               "hwtimer-delivery", "timerfd"]
                     if R.get("lateness", "p50", p) is not None]))
    if R.get("lateness", "p50", "hwtimer-callback") is not None:
        md.append("hwtimer-callback is when the callback ran (the record's "
                  "fire time) minus the deadline, hwtimer-delivery when the "
                  "process saw the record minus that fire time, both in "
                  "hwtimer's median round; each percentile is taken on its "
                  "own, so the two do not add up to hwtimer's.\n")


def dos_section(md, R):
    """One user's idle timeouts against another's (55-dos, hwtimer_dos)."""
    n = R.param_of("dos", "wake_p50", "a")
    if n is None:
        return
    md.append("\n## One user against another\n")
    md.append("hwtimer_dos: a root victim arms a 5 ms one-shot on "
              "/dev/hwtimer and reads its record, again and again; "
              "wake-up lateness is when read() returned minus the "
              "deadline. a: no attacker; b: an attacker (nobody) holding "
              "as many unread periodic 1 ms timeouts as its limits allow, "
              "which go dormant after their first expiry; c: the same "
              "attacker reading its records as fast as it can. Scenarios "
              "take turns over 3 runs; each figure is over the victim's "
              f"{n:,} wake-ups of all runs. Extra expiries: how many more "
              "the default wheel served during the victim's run than "
              "during a's of the same run, the most over the runs.\n")
    d = lambda m, p, nd=1: fmt(R.get("dos", m, p), nd)
    md.append(table(["scenario", "wake-up p50 (µs)", "p99 (µs)", "max (µs)",
                     "extra expiries"],
                    [[name, d("wake_p50", p), d("wake_p99", p),
                      d("wake_max", p),
                      d("extra_fired", p, 0) if p != "a" else "–"]
                     for p, name in [("a", "a: no attacker"),
                                     ("b", "b: idle attacker"),
                                     ("c", "c: busy reader")]
                     if R.get("dos", "wake_p50", p) is not None]))
    md.append("The bar for b (make bench fails without it): no extra "
              "expiry in any run, and a p50 within two ticks of a's. Its "
              "p99 is shown, not held to a bar: under TCG a whole victim "
              "run is now and then milliseconds slower, attacker or not.\n")


def idle_section(md, R):
    """hrtimer fires per second of an idle default wheel."""
    md.append("\n## Idle cost\n")
    md.append(table(["default wheel", "hrtimer fires per second"],
                    [[w, fmt(R.get("idle", "hrtimer_fires_per_s", w), 2)]
                     for w in ["nothing-pending", "one-1h-away"]]))


def tcg_of(R, section, metric, peer, n):
    """make bench's TCG figure beside a native one (pending 0: "empty")."""
    if section == "uml-armcancel" and n == 0:
        return R.get("empty", metric, peer, 0)
    return R.get(section[len("uml-"):], metric, peer, n)


def native_pending_table(md, R, runs, section, metric):
    """Native ns per op, per population; hwtimer's ratios, native and TCG."""
    cmp = ["timer_list", "hrtimer", "delayed_work"]
    rows = []
    for n in sorted({k[3] for k in R.idx if k[:2] == (section, metric)}):
        rows.append([kfmt(n) if n else "0 (empty)"] +
                    [fmt(R.get(section, metric, p, n)) for p in NATIVE_PEERS] +
                    [c for p in cmp for c in (
                        fmt_ratio(per_run(runs, lambda Q, p=p, n=n: ratio(
                            Q.get(section, metric, "hwtimer", n),
                            Q.get(section, metric, p, n)))),
                        fmt_ratio(per_run(runs, lambda Q, p=p, n=n: ratio(
                            tcg_of(Q, section, metric, "hwtimer", n),
                            tcg_of(Q, section, metric, p, n)))))])
    md.append(table(["pending"] + NATIVE_PEERS +
                    [c for p in cmp for c in (f"hwtimer / {p}",
                                              f"hwtimer / {p} (TCG)")],
                    rows))


def native_expiry_table(md, R, runs):
    """Native cost per expiry and lateness; hwtimer's ratios, native and TCG."""
    sec = "uml-expiry"
    ms = lambda m: lambda p: fmt((R.get(sec, m, p) or 0) / 1e6, 2) \
        if R.get(sec, m, p) is not None else "–"
    rows = []
    for p in NATIVE_PEERS:
        if R.get(sec, "ns_per_expiry", p) is None:
            continue
        rows.append([p, fmt(R.get(sec, "ns_per_expiry", p)),
                     ms("first_late")(p), ms("last_late")(p),
                     fmt_ratio(per_run(runs, lambda Q, p=p: ratio(
                         Q.get(sec, "ns_per_expiry", "hwtimer"),
                         Q.get(sec, "ns_per_expiry", p)))),
                     fmt(R.get("expiry", "ns_per_expiry", p)),
                     fmt_ratio(per_run(runs, lambda Q, p=p: ratio(
                         Q.get("expiry", "ns_per_expiry", "hwtimer"),
                         Q.get("expiry", "ns_per_expiry", p))))])
    md.append(table(["peer", "ns per expiry", "first callback late (ms)",
                     "last callback late (ms)", "hwtimer / peer",
                     "TCG: ns per expiry", "TCG: hwtimer / peer"], rows))


def native_ids_table(md, R, runs):
    """The context's id table against an xarray, natively."""
    sec = "uml-ids"
    rows = []
    for metric, what in [("ns_per_pair", "alloc+free"),
                         ("ns_per_lookup", "lookup")]:
        for n in sorted({k[3] for k in R.idx if k[:2] == (sec, metric)}):
            rows.append([what, kfmt(n) if n else "0"] +
                        [fmt(R.get(sec, metric, p, n))
                         for p in ("hwtimer_ids", "xarray")] +
                        [fmt_ratio(per_run(runs, lambda Q, m=metric, n=n: ratio(
                            Q.get(sec, m, "hwtimer_ids", n),
                            Q.get(sec, m, "xarray", n))))])
    if rows:
        md.append("\nA context's id table (chardev/hwtimer_ids.c) against "
                  "an xarray with cyclic allocation, natively: ns per "
                  "operation with that many ids live, under the table's "
                  "lock held for the round:\n")
        md.append(table(["operation", "live ids", "hwtimer_ids", "xarray",
                         "hwtimer_ids / xarray"], rows))


def tcg_factor_table(md, R, runs):
    """TCG's ns over native ns, per peer and operation, fastest round each."""
    rows = []
    for what, section, metric in [("arm+cancel", "uml-armcancel", "ns_per_pair"),
                                  ("modify", "uml-modify", "ns_per_op"),
                                  ("expiry", "uml-expiry", "ns_per_expiry")]:
        for n in sorted({k[3] for k in R.idx if k[:2] == (section, metric)}):
            v = [per_run(runs, lambda Q, p=p, n=n: ratio(
                tcg_of(Q, section, metric, p, n),
                Q.get(section, metric + "_min", p, n)))
                 for p in PEERS]
            if any(x is not None for x in v):
                rows.append([f"{what}, {kfmt(n) if n else '0'}"] +
                            [fmt_ratio(x) for x in v])
    if rows:
        md.append("TCG ÷ native: how many times slower each peer's "
                  "operation is under TCG, make bench's fastest pass over "
                  "the suite's fastest round. One factor for all would make "
                  "TCG's ratios those of a CPU; they differ by peer, so "
                  "they do not.\n")
        md.append(table(["operation, pending"] + PEERS, rows))


def read_insns(out):
    """tcgprof.py's table in OUTDIR/insns.txt: {function: (calls, insns
    per call, blocks per call)}, or {} when there is none."""
    funcs = {}
    try:
        with open(os.path.join(out, "insns.txt")) as f:
            for line in f:
                p = line[44:].split()
                if len(p) != 5 or not p[0].isdigit() or p[3] == "-":
                    continue
                funcs.setdefault(line[:44].split()[0],
                                 (int(p[0]), float(p[3]), float(p[4])))
    except OSError:
        pass
    return funcs


def insns_table(md, out):
    """Instructions per call of each operation's entry functions, TCG."""
    funcs = read_insns(out)
    rows = [[peer, fn, fmt(funcs[fn][0], 0), fmt(funcs[fn][1]),
             fmt(funcs[fn][2])]
            for peer, fns in ENTRY_FUNCS for fn in fns if fn in funcs]
    if not rows:
        return
    md.append("\n## Instructions per in-kernel operation\n")
    md.append("Instructions per call of each operation's entry functions, "
              "counted by tools/bench/tcgprof in the first boot "
              "(BENCH_INSNS=1, build/bench/insns.txt): the function's own "
              "instructions over the whole boot, divided by its calls; "
              "what it calls (the base lock, the clock read, the wheel's "
              "helpers where not inlined) are rows of their own in "
              "insns.txt. Blocks per call is what TCG dispatches.\n")
    md.append(table(["peer", "function", "calls", "instructions per call",
                     "blocks per call"], rows))


def uml_section(md, R, runs, out):
    """hwtimer_bench under User Mode Linux beside the TCG figures."""
    if not any(k[0].startswith("uml-") for k in R.idx):
        return
    info = R.info
    md.append("\n## In-kernel operations natively (User Mode Linux)\n")
    md.append("The KUnit suite hwtimer_bench (kunit/hwtimer_bench_test.c) "
              "built into the User Mode Linux kernel of make kunit-uml "
              f"(Linux {info.get('uml_kernel', '?')}, "
              f"{'SMP' if info.get('uml_smp') == 'y' else 'one CPU, no SMP'}, "
              f"HZ={info.get('uml_hz', '?')}) and run on the host's CPU "
              f"({info.get('uml_host_cpu', '?')}), not emulated, one run per "
              "round of boots; alone: tools/bench/uml-bench.sh. The same "
              "operations as the VMs' in-kernel rows, with the same calls, "
              "deadline ranges (1 s – 1 h) and object counts: 10k arm+cancel "
              "pairs or moves of random pending timeouts per round, with "
              "0, 1k, 100k and 1M others pending; 100k timeouts due at "
              "once. The peers take turns over 15 rounds (expiry: 5); "
              "each run's figure is the median of its rounds, and the "
              "tables show the median and spread over runs. UML's clock "
              "is the host's: a round during which the host ran something "
              "else is slow, so the rounds are short (about a "
              "millisecond) and many, and the figures are only as quiet "
              "as the host was. hwtimer is a private wheel as in the VMs, "
              "hwtimer-default the default wheel. Each run checks every "
              "arm, cancel and callback, and fails on any wrong one; no "
              "time is asserted.\n")
    md.append("What differs from the VMs' kernel: UML has one CPU and no "
              "SMP, so a spinlock only disables preemption and atomics "
              "take no lock prefix; saving and restoring interrupts is a "
              "function call on a flag, the clock a vDSO read of the "
              "host's, a switch between kernel threads UML's own (the "
              "expiry hand-off wakes hwtimer's workers and the "
              "workqueue's); all its memory is mapped in the host's 4 KiB "
              "pages, which matters where the rows grow with the "
              "population (cache and TLB misses); and timer_list and "
              "delayed_work deadlines are in jiffies of 10 ms (the stock "
              "kernel's are 4 ms), which sets their expiry lateness.\n")
    md.append("Which figures to trust for what: for what a code path "
              "costs a CPU (an arm, cancel, move or expiry, and how that "
              "grows with the population, where cache misses that TCG "
              "does not model take over), these native rows. For what "
              "needs the VMs' SMP kernel (contention, per-CPU wheels, "
              "locking) and for the whole system (lateness, userspace, "
              "memory), the TCG rows; of those, only ratios between peers "
              "measured in the same boot carry over, and only as far as "
              "TCG slows the peers alike, which the TCG ÷ native table "
              "below shows it does not. For the exact work an operation "
              "does, the instructions tcgprof counts (BENCH_INSNS=1, "
              "shown below when counted): the stock kernel runs the same "
              "instructions on a CPU as under TCG, so those counts are "
              "exact where TCG's times are not, but they say nothing of "
              "cache misses, which the native rows' growth with the "
              "population shows. UML's kernel is another build (one CPU, "
              "its own arch code): its instructions per operation are "
              "close to those counts, not the same.\n")
    md.append("\nArm+cancel, ns per pair natively; hwtimer's ratio to each "
              "peer natively, then the same ratio in the VMs (TCG's):\n")
    native_pending_table(md, R, runs, "uml-armcancel", "ns_per_pair")
    md.append("\nModify of a pending timeout, ns per move natively; the "
              "same ratios:\n")
    native_pending_table(md, R, runs, "uml-modify", "ns_per_op")
    n = R.param_of("uml-expiry", "ns_per_expiry", "hwtimer")
    if n is not None:
        md.append(f"\nExpiry of {n:,} timeouts due at once, natively: ns "
                  "per expiry from the first callback to the last, and how "
                  "late the first and the last callback ran (a jiffies "
                  "deadline is one jiffy further, so that it is not early); "
                  "beside make bench's figures for the same:\n")
        native_expiry_table(md, R, runs)
    native_ids_table(md, R, runs)
    md.append("")
    tcg_factor_table(md, R, runs)


def write_md(R, runs, info, path):
    md = ["# hwtimer benchmark results\n"]
    intro_section(md, R, runs, info)
    targets_section(md, R, runs)
    pending_sections(md, R, runs)
    empty_section(md, R, runs)
    contended_tables(md, R, runs)
    contended_clock_section(md, R, runs)
    expiry_section(md, R)
    sizeof_section(md, R)
    variants_section(md, R)
    parts_section(md, R)
    uml_section(md, R, runs, os.path.dirname(path))
    insns_table(md, os.path.dirname(path))
    ucost_section(md, R)
    lib_section(md, R)
    native_section(md, R, runs)
    opcost_section(md, R)
    echo_section(md, R)
    umemory_section(md, R)
    lateness_section(md, R)
    dos_section(md, R)
    idle_section(md, R)
    with open(path, "w") as f:
        f.write("\n".join(md))


def pending_table(md, R, runs, section, metric, peers):
    """Rows per population, a column per peer, hwtimer's ratios, growth."""
    cmp = [p for p in peers[1:] if p != PERCPU]
    rows = []
    for n in PENDING:
        v = [R.get(section, metric, p, n) for p in peers]
        if all(x is None for x in v):
            continue
        rows.append([kfmt(n)] + [fmt(x) for x in v] +
                    [fmt_ratio(per_run(runs, lambda Q, p=p, n=n: ratio(
                        Q.get(section, metric, "hwtimer", n),
                        Q.get(section, metric, p, n)))) for p in cmp])
    hi = top_pending(R, section, "hwtimer")
    g = [fmt_ratio(per_run(runs, lambda Q, p=p: ratio(
        Q.get(section, metric, p, hi), Q.get(section, metric, p, PENDING[0]))))
         for p in peers]
    rows.append([f"growth 1k→{kfmt(hi or 0)}"] + g + [""] * len(cmp))
    md.append(table(["pending"] + peers + ["hwtimer / " + p for p in cmp],
                    rows))


def contended_tables(md, R, runs):
    """One table per vCPU count and operation: aggregate ns, scaling."""
    for smp in smps(R):
        for what, metric in [("arm+cancel", "armcancel_ns_per_pair"),
                             ("modify", "modify_ns_per_op")]:
            md.append(f"\n## Contended {what}, {smp} vCPUs: aggregate ns per "
                      "op\n")
            md.append("n workers, each a kthread bound to its own CPU, "
                      "released together, each doing its own ops on its "
                      "own timeouts against a shared background population "
                      "(armed by the workers, each its share on its CPU). "
                      "Aggregate ns per op = (last worker's end − first "
                      "worker's start) ÷ (n × ops per worker); scaling = "
                      "1-worker aggregate ns ÷ n-worker aggregate ns (n is "
                      f"perfect). \"hwtimer\" is a one-base wheel, {PERCPU} "
                      "one base per CPU.\n")
            ns = workers(R, smp, metric, "timer_list")
            rows = []
            for n in ns:
                rows.append([str(n)] +
                            [fmt(cget(R, smp, metric, p, n)) for p in CPEERS] +
                            [fmt_ratio(per_run(runs, lambda Q, p=p, n=n: ratio(
                                cget(Q, smp, metric, PERCPU, n),
                                cget(Q, smp, metric, p, n))))
                             for p in CPEERS[1:]])
            for n in ns[1:]:
                rows.append([f"scaling ×{n}"] +
                            [fmt_ratio(per_run(runs, lambda Q, p=p, n=n: scaling(
                                Q, smp, metric, p, n))) for p in CPEERS] +
                            [""] * (len(CPEERS) - 1))
            md.append(table(["workers"] + CPEERS +
                            [f"{PERCPU} / {p}" for p in CPEERS[1:]], rows))


def contended_clock_section(md, R, runs):
    """What a clock read costs when every vCPU reads it at once."""
    for smp in smps(R):
        ns = workers(R, smp, "armcancel_ns_per_pair", "ktime_get")
        if not ns:
            continue
        md.append(f"\n## Contended clock reads, {smp} vCPUs\n")
        md.append("The contended arm+cancel runs of three more peers: "
                  "\"ktime_get\" is no timeout at all, one clock read per "
                  f"op; \"{PERCPU}-abs\" is {PERCPU} armed with absolute "
                  "deadlines, so that no arm reads the clock (a relative "
                  "arm reads it once to learn when now is, timer_list "
                  "reads jiffies). Under TCG a guest's TSC read takes a "
                  "lock global to the emulator and writes under it "
                  "(QEMU's cpu_get_ticks()), so clock reads from several "
                  "vCPUs queue behind each other, which on hardware they "
                  "do not: this table shows how much of the contended "
                  "rows' scaling that costs.\n")
        rows = [[str(n)] + [fmt(cget(R, smp, "armcancel_ns_per_pair", p, n))
                            for p in CLOCK_PEERS] for n in ns]
        for n in ns[1:]:
            rows.append([f"scaling ×{n}"] +
                        [fmt_ratio(per_run(runs, lambda Q, p=p, n=n: scaling(
                            Q, smp, "armcancel_ns_per_pair", p, n)))
                         for p in CLOCK_PEERS])
        md.append(table(["workers"] + [f"{p} (ns per op)"
                                       for p in CLOCK_PEERS], rows))


def plot_scaling(R, out):
    """gnuplot lines of aggregate throughput against workers, or None."""
    curves = []
    for smp in smps(R):
        for p in CPEERS:
            ns = workers(R, smp, "armcancel_ns_per_pair", p)
            if not ns:
                continue
            name = f"scaling-{p}-smp{smp}.dat"
            with open(os.path.join(out, name), "w") as f:
                for n in ns:
                    v = cget(R, smp, "armcancel_ns_per_pair", p, n)
                    f.write(f"{n} {1e3 / v if v else 'NaN'}\n")
            curves.append(f'"{out}/{name}" using 1:2 with linespoints lw 2 '
                          f'title "{p} ({smp} vCPUs)"')
    if not curves:
        return None
    return f"""
set terminal pngcairo size 800,500 font ",10" noenhanced
set output "{out}/scaling.png"
set title "Contended arm+cancel: aggregate throughput vs workers, one per CPU (qemu TCG)"
unset logscale
set xrange [0.5:*]
set yrange [0:*]
set xtics 1
set xlabel "workers (kthreads on distinct CPUs)"
set ylabel "arm+cancel pairs per µs, all workers"
set key top left
set grid
plot {", ".join(curves)}
"""


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
set title "Lateness seen by the process, 10k timeouts over 1 s (qemu TCG)"
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
    sc = plot_scaling(R, out)
    if sc:
        gp.append(sc)
    script = os.path.join(out, "plots.gp")
    with open(script, "w") as f:
        f.write("\n".join(gp))
    subprocess.run(["gnuplot", script], check=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = sys.argv[-1]
    os.makedirs(out, exist_ok=True)
    byrun, cdf, info, notok, uml_info = {}, {}, {}, [], {}
    for i, path in enumerate(sys.argv[1:-1]):
        rows, c, inf, nok = parse(path)
        uml_info.update({k: v for k, v in inf.items() if k.startswith("uml_")})
        byrun.setdefault(inf.get("run", f"log{i}"), []).extend(rows)
        notok += [f"{path}: {line}" for line in nok]
        # The lateness plot and the header come from the first full boot.
        if not cdf and c:
            cdf = c
        if not info or ("hwtimer_tick_ns" in inf and
                        "hwtimer_tick_ns" not in info):
            info = inf
    # The UML kernel's facts come with its logs, whichever log is first.
    for k, v in uml_info.items():
        info.setdefault(k, v)
    runs = []
    for rows in byrun.values():
        Q = Results(rows)
        Q.info = info
        runs.append(Q)
    R = Results.merge(runs)
    R.info = info
    dv = {}
    for Q in runs:
        for metric, peer, param, v in derived(Q):
            dv.setdefault((metric, peer, param), []).append(v)
    d = [(m, p, n, Fig(v)) for (m, p, n), v in dv.items()]
    write_csv(R, d, os.path.join(out, "results.csv"))
    write_md(R, runs, info, os.path.join(out, "results.md"))
    if R.rows:
        plots(R, cdf, out)
    for line in notok:
        print(f"bench: {line}", file=sys.stderr)
    print(f"bench: {len(R.rows)} figures from {len(runs)} run(s); see {out}/results.md")
    for t, m, ok in targets(runs, R):
        print(f"  {'----' if ok is None else ('met ' if ok else 'MISS')}  {t}: {m}")
    if not R.rows or notok:
        sys.exit(1)


if __name__ == "__main__":
    main()
