#!/usr/bin/env python3
"""Per file: idle share and load at the start, the five speed-ups, the median 1- and
2-thread searches (ms). Usage: summarize.py GLOB..."""
import glob, re, sys
for g in sys.argv[1:]:
    for f in sorted(glob.glob(g)):
        L = open(f).read()
        head = L.splitlines()[0]
        idle = re.search(r'idle (\d+)%', head)
        load = re.search(r'loadavg ([\d.]+)', head).group(1)
        sp = re.findall(r'speed-up ([\d.]+)x median', L)
        t1 = re.findall(r'one search, 1 thread :\s+([\d.]+) ms', L)
        t2 = re.findall(r'one search, 2 threads:\s+([\d.]+) ms', L)
        print('%-34s idle %3s load %s | %s | 1thr %s | 2thr %s' % (
            f, idle.group(1) if idle else '-', load, ' '.join(sp), ' '.join(t1), ' '.join(t2)))
