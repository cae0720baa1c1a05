import re,sys,collections
cur=None; case=None
data=collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    if line.startswith('###'): cur=line.split()[1].split('/')[-1]; continue
    m=re.match(r'(\S.*?) \(load average ([\d.]+)',line)
    if m: case=m.group(1); continue
    m=re.search(r'one search, 1 thread :\s+([\d.]+) ms',line)
    if m: data[(case,cur)]['t1'].append(float(m.group(1)))
    m=re.search(r'one search, 2 threads:\s+([\d.]+) ms',line)
    if m: data[(case,cur)]['t2'].append(float(m.group(1)))
    m=re.search(r'speed-up ([\d.]+)x median \(([\d.]+)x fastest',line)
    if m: data[(case,cur)]['su'].append(float(m.group(1))); data[(case,cur)]['suf'].append(float(m.group(2)))
    m=re.search(r'CPU time of a 2-thread search ([\d.]+)x',line)
    if m: data[(case,cur)]['cpu'].append(float(m.group(1)))
    m=re.search(r'at once:.*\(([\d.]+)x one search',line)
    if m: data[(case,cur)]['once'].append(float(m.group(1)))
import statistics as st
for k in sorted(data):
    d=data[k]
    print(f"{k[0][:40]:40s} {k[1]:10s} " + ' '.join(f"{n}={st.median(v):.2f}[{min(v):.2f}-{max(v):.2f}]" for n,v in d.items()))
