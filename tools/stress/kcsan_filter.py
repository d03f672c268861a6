#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Keep only hwtimer's KCSAN reports in a VM console log.

  kcsan_filter.py CONSOLE.LOG FOREIGN.LOG

A KCSAN kernel reports data races anywhere, and 6.1's core kernel has
known ones. A report (the lines between two '=====' rulers around
'BUG: KCSAN:') that names no hwtimer symbol or module is moved from
CONSOLE.LOG to FOREIGN.LOG, so results.py counts only ours as splats.
Prints how many reports were kept and moved.
"""
import re
import sys

RULER = re.compile(r'^(\[\s*\d+\.\d+\] )?={40,}\s*$')
OURS = re.compile(r'hwtimer|hwt_')


def main():
    con, foreign = sys.argv[1], sys.argv[2]
    with open(con, errors='replace') as f:
        lines = f.readlines()
    out, moved, block = [], [], None
    kept = dropped = 0
    for ln in lines:
        if block is None:
            if RULER.match(ln):
                block = [ln]
            else:
                out.append(ln)
            continue
        block.append(ln)
        if RULER.match(ln) and len(block) > 1:
            text = ''.join(block)
            if 'KCSAN' not in text:
                out.extend(block)
            elif OURS.search(text):
                out.extend(block)
                kept += 1
            else:
                moved.extend(block)
                dropped += 1
            block = None
    if block:
        out.extend(block)
    with open(con, 'w') as f:
        f.writelines(out)
    with open(foreign, 'w') as f:
        f.writelines(moved)
    print('kcsan: %d report(s) involving hwtimer kept, %d foreign moved to %s'
          % (kept, dropped, foreign))


if __name__ == '__main__':
    main()
