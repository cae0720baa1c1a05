# medians of the hot_*.txt runs: 1-thread time and speed-up per case and build
import glob, re, statistics as S
for b in ('base', 'branch'):
    sp, one = {}, {}
    for f in sorted(glob.glob(f'hot_{b}_*.txt')):
        case = None
        for l in open(f):
            m = re.match(r'^(\S.*?) \(load average', l)
            if m: case = m.group(1)
            m = re.search(r'one search, 1 thread :\s+([0-9.]+) ms', l)
            if m: one.setdefault(case, []).append(float(m.group(1)))
            m = re.search(r'speed-up ([0-9.]+)x median', l)
            if m: sp.setdefault(case, []).append(float(m.group(1)))
    for c in sp:
        print(b, c, '1t %.2f ms' % S.median(one[c]),
              'speed-up median %.2f (%.2f-%.2f)' % (S.median(sp[c]), min(sp[c]), max(sp[c])))
