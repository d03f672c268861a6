#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Result accounting for hwtimer's VM tests.

  results.py vm LABEL OUTDIR      parse OUTDIR/{results,console}.log of one VM
  results.py tap LABEL LOG RC     count a host-side TAP log (exit status RC)
  results.py ktap LABEL LOG RC    count the KUnit KTAP in a kernel's output
                                  (kunit.py's test.log; exit status RC)
  results.py fail LABEL DIR WHY      record one failure (a build step, ...)
  results.py total CHECKDIR       sum every CHECKDIR/**/counts, print the line

Each of the first four writes a `counts` file ("P F S") and prints one line
"LABEL: P passed, F failed, S skipped"; `total` prints the final summary and
writes it to CHECKDIR/summary.txt. Exit status is 0 unless failures.
"""
import os
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\] ')          # printk timestamp
TAP = re.compile(r'^(ok|not ok) +\d+\b(.*)$')
SKIP = re.compile(r'#\s*SKIP', re.I)
BEGIN = re.compile(r'^=== BEGIN (\S+) ===$')
END = re.compile(r'^=== END (\S+) rc=(-?\d+) ===$')
# Kernel splats. Only lines carrying a printk timestamp are kernel messages,
# so a test named e.g. "warning_on_bad_input" cannot trip these. kmemleak's
# "new suspected memory leaks" is left to 99-unload, which reports only the
# leaks whose backtraces are ours (boot-time leaks are not our failures).
SPLAT = re.compile(
    r'\] .*(BUG:|WARNING:|KASAN|ODEBUG|UBSAN|Oops|Call Trace|'
    r'possible recursive locking|circular locking|'
    r'lockdep is turned off|DEBUG_LOCKS_WARN_ON|detected stall|'
    r'inconsistent lock state|suspicious RCU usage|'
    r'general protection fault|'
    r'Kernel panic|watchdog: BUG|hung_task|INFO: task .* blocked|'
    r'list_add corruption|list_del corruption|sleeping function called)')
# Kernel log markers around a report provoked on purpose (98-lockdep.sh,
# which checks the report itself): splats between them are not failures.
# Searched anywhere in a console line: a test's own output to the same
# console may still lack its newline when the kernel prints the marker
# ("ok 2 insmod ...[  867.72] hwtimer-expect-splat: end").
EXPECT_BEGIN = re.compile(r'\[\s*\d+\.\d+\] hwtimer-expect-splat: begin\s*$')
EXPECT_END = re.compile(r'\[\s*\d+\.\d+\] hwtimer-expect-splat: end\s*$')


class Counts:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.notes = []

    def add(self, other):
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped

    def fail(self, why):
        self.failed += 1
        self.notes.append('FAIL: ' + why)

    def line(self):
        return '%d passed, %d failed, %d skipped' % (
            self.passed, self.failed, self.skipped)


def count_tap(lines, c, where):
    """kselftest TAP: unindented ok / not ok lines, '# SKIP' directives."""
    for ln in lines:
        if ln.startswith('1..0') and SKIP.search(ln):
            c.skipped += 1
            continue
        m = TAP.match(ln)
        if not m:
            continue
        if SKIP.search(m.group(2)):
            c.skipped += 1
        elif m.group(1) == 'ok':
            c.passed += 1
        else:
            c.fail('%s: %s' % (where, ln))


def count_ktap(lines, c, where):
    """KTAP of 6.1 KUnit modules, printk timestamps already stripped.

    A suite is '    # Subtest: S', '    1..N', its cases as
    '    ok I case', parameter results at 8 spaces (not counted: one case is
    one test), and '(not )ok K S' at column 0. Cases missing from a plan,
    or a failed suite without failed cases (suite init error), count as
    failures; so does a suite that never ends (crash inside insmod).
    """
    suite = None
    for ln in lines:
        m = re.match(r'^    # Subtest: (\S+)', ln)
        if m:
            if suite:
                c.fail('%s: suite %s never ended' % (where, suite['name']))
            suite = {'name': m.group(1), 'plan': None, 'seen': 0, 'bad': 0}
            continue
        if suite is None:
            continue
        m = re.match(r'^    1\.\.(\d+)', ln)
        if m and suite['plan'] is None:
            suite['plan'] = int(m.group(1))
            continue
        m = re.match(r'^    (ok|not ok) \d+ (\S+)(.*)$', ln)
        if m:
            suite['seen'] += 1
            name = '%s.%s' % (suite['name'], m.group(2))
            if SKIP.search(m.group(3)):
                c.skipped += 1
            elif m.group(1) == 'ok':
                c.passed += 1
            else:
                suite['bad'] += 1
                c.fail('%s: %s' % (where, name))
            continue
        m = re.match(r'^        not ok \d+ (.*)$', ln)
        if m:
            c.notes.append('  failed param of %s: %s' % (suite['name'],
                                                          m.group(1)))
            continue
        m = re.match(r'^(ok|not ok) \d+ (\S+)', ln)
        if m and m.group(2) == suite['name']:
            missing = (suite['plan'] or 0) - suite['seen']
            for _ in range(max(missing, 0)):
                c.fail('%s: %s: case missing from plan' % (where, suite['name']))
            if m.group(1) == 'not ok' and suite['bad'] == 0 and missing <= 0:
                c.fail('%s: suite %s failed (init error?)' % (where, suite['name']))
            suite = None
    if suite:
        c.fail('%s: suite %s never ended' % (where, suite['name']))


def find_splats(console):
    """[(index, line)] of the splat lines of a console log, except between
    an expect-splat begin marker and the next end marker; without its end
    marker (the VM died there), a begin marker excuses nothing."""
    splats, held, inside = [], [], False
    for i, ln in enumerate(console):
        ln = ln.rstrip('\r')
        if EXPECT_BEGIN.search(ln):
            splats += held
            held, inside = [], True
        elif inside and EXPECT_END.search(ln):
            held, inside = [], False
        elif SPLAT.search(ln):
            (held if inside else splats).append((i, ln))
    return splats + held


# What identifies a crash: where it happened and how it got there, with
# the stack pointer and the faulting address (a double fault's cause).
CRASH_CTX = re.compile(r'\] (RIP: |RSP: |CR2: |Code: |'
                       r'\s+(\? )?[\w.]+\+0x[0-9a-f]+/0x|'
                       r'.*(Modules linked in|Comm: |PANIC: ))')


def crash_context(console, at):
    """The lines that place the splat on console line AT: the panic line
    just before it, its CPU and task, RIP, RSP, CR2, code bytes and up to
    16 frames of its trace."""
    frames = 0
    # Before the splat, only its panic line: anything else there belongs
    # to an earlier message.
    out = [ln.rstrip('\r') for ln in console[max(at - 2, 0):at]
           if 'PANIC: ' in ln]
    for ln in console[at + 1:at + 120]:
        ln = ln.rstrip('\r')
        if not CRASH_CTX.search(ln):
            continue
        if '+0x' in ln and 'RIP:' not in ln:
            frames += 1
            if frames > 16:
                continue
        out.append(ln)
    return out[:28]


def split_fragments(text):
    """[(name, rc or None, [lines])] from a results log."""
    frags, cur = [], None
    for ln in text.splitlines():
        ln = ln.rstrip('\r')
        m = BEGIN.match(ln)
        if m:
            if cur:
                frags.append(cur)
            cur = [m.group(1), None, []]
            continue
        m = END.match(ln)
        if m and cur and m.group(1) == cur[0]:
            cur[1] = int(m.group(2))
            frags.append(cur)
            cur = None
            continue
        if cur:
            cur[2].append(ln)
    if cur:
        frags.append(cur)
    return frags


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return ''


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


def do_vm(label, outdir):
    c = Counts()
    frags = split_fragments(read(os.path.join(outdir, 'results.log')))
    if not frags:
        c.fail('%s: no fragment ran (VM did not boot to /init?)' % label)
    for name, rc, lines in frags:
        where = '%s/%s' % (label, name)
        fc = Counts()
        plain = [ln for ln in lines if not TS.match(ln)]
        kmsg = [TS.sub('', ln) for ln in lines if TS.match(ln)]
        count_tap(plain, fc, where)
        if kmsg and any('# Subtest:' in ln for ln in kmsg):
            count_ktap(kmsg, fc, where)
            write(os.path.join(outdir, name + '.ktap'), '\n'.join(kmsg) + '\n')
        write(os.path.join(outdir, name + '.tap'), '\n'.join(plain) + '\n')
        if rc is None:
            fc.fail('%s: no END marker (VM died or hung here)' % where)
        elif rc != 0 and fc.failed == 0:
            fc.fail('%s: exit status %d' % (where, rc))
        c.add(fc)
        c.notes += fc.notes
        print('  %-24s %s' % (where, fc.line()))
    console = read(os.path.join(outdir, 'console.log')).splitlines()
    splats = find_splats(console)
    if splats:
        c.fail('%s: kernel splat in console log' % label)
        c.notes += ['  ' + ln for _, ln in splats[:40]]
        c.notes += ['  | ' + ln
                    for ln in crash_context(console, splats[0][0])]
    return c


def do_tap(label, log, rc):
    c = Counts()
    count_tap(read(log).splitlines(), c, label)
    if rc != 0 and c.failed == 0:
        c.fail('%s: exit status %d' % (label, rc))
    return c


def do_ktap(label, log, rc):
    """KUnit cases as in a VM's KTAP; a log without a suite (the kernel
    was not built or never ran its tests) is a failure."""
    c = Counts()
    lines = [TS.sub('', ln.rstrip('\r')) for ln in read(log).splitlines()]
    if not any(re.match(r'^    # Subtest: ', ln) for ln in lines):
        c.fail('%s: no KUnit suite in %s (kernel not built, or did not '
               'run its tests)' % (label, log))
    count_ktap(lines, c, label)
    if rc != 0 and c.failed == 0:
        c.fail('%s: exit status %d' % (label, rc))
    return c


def brief(lines, where):
    """At most 10 failure lines, 6 splat lines and every crash context line
    (at most 28) of one file of notes, with what was left out counted."""
    fails = [n for n in lines if not n.startswith('  ')]
    ctx = [n for n in lines if n.startswith('  | ')]
    splat = [n for n in lines if n.startswith('  ') and n not in ctx]
    out = fails[:10] + splat[:6] + ctx
    left = len(lines) - len(out)
    if left > 0:
        out.append('  (%d more line(s) in %s/notes)' % (left, where))
    return out


def do_total(checkdir):
    c = Counts()
    for root, _, files in sorted(os.walk(checkdir)):
        if 'counts' in files:
            p, f, s = map(int, read(os.path.join(root, 'counts')).split())
            c.passed += p
            c.failed += f
            c.skipped += s
    line = '%d passed, %d failed' % (c.passed, c.failed)
    if c.skipped:
        line += ', %d skipped' % c.skipped
    write(os.path.join(checkdir, 'summary.txt'), line + '\n')
    if c.failed:
        # Repeated next to the summary, so that a log's tail tells why:
        # from each file of notes, its first failures, its first splat
        # lines and the whole crash context, which no other file's notes
        # can crowd out.
        print('what failed (the whole story is in build/check/):')
        for root, _, files in sorted(os.walk(checkdir)):
            if 'notes' in files:
                for n in brief(read(os.path.join(root, 'notes')).splitlines(),
                               os.path.relpath(root, checkdir)):
                    print(n)
    print(line)
    return 1 if c.failed else 0


def record(label, outdir, c):
    os.makedirs(outdir, exist_ok=True)
    write(os.path.join(outdir, 'counts'),
          '%d %d %d\n' % (c.passed, c.failed, c.skipped))
    write(os.path.join(outdir, 'notes'),
          ''.join(n + '\n' for n in c.notes))
    for n in c.notes:
        print(n)
    print('%s: %s' % (label, c.line()))
    return 1 if c.failed else 0


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ''
    if cmd == 'vm' and len(argv) == 4:
        return record(argv[2], argv[3], do_vm(argv[2], argv[3]))
    if cmd == 'tap' and len(argv) == 5:
        return record(argv[2], os.path.dirname(argv[3]) or '.',
                      do_tap(argv[2], argv[3], int(argv[4])))
    if cmd == 'ktap' and len(argv) == 5:
        return record(argv[2], os.path.dirname(argv[3]) or '.',
                      do_ktap(argv[2], argv[3], int(argv[4])))
    if cmd == 'fail' and len(argv) == 5:
        c = Counts()
        c.fail(argv[4])
        return record(argv[2], argv[3], c)
    if cmd == 'total' and len(argv) == 3:
        return do_total(argv[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
