import sys,collections,statistics as st
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    b,c,T,th,ms,cpu,pf=l.strip().split('|')
    d[(c,b,T)].append((float(ms),float(cpu),int(pf),int(th)))
cases=sorted(set(k[0] for k in d)); builds=[]
for k in d:
    if k[1] not in builds: builds.append(k[1])
for c in cases:
    for b in builds:
        a=d[(c,b,'1')]; z=d[(c,b,'2')]
        m1=st.median(x[0] for x in a); m2=st.median(x[0] for x in z)
        c1=st.median(x[1] for x in a); c2=st.median(x[1] for x in z)
        f1=st.median(x[2] for x in a); f2=st.median(x[2] for x in z)
        j=sum(1 for x in z if x[3]==2)
        print(f"{c:32s} {b:10s} n={len(a)} wall1 {m1:6.2f} wall2 {m2:6.2f} speedup {m1/m2:4.2f}  cpu1 {c1:6.1f} cpu2 {c2:6.1f} (+{c2-c1:4.1f} ms) faults {f1:.0f}/{f2:.0f}")
