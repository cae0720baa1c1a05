import sys,re
runs=[];cur=None
for l in open(sys.argv[1]):
    f=l.split()
    if f[0]=='SEARCH': cur={'nt':int(f[1][2:]),'L':[]}; runs.append(cur); continue
    cur['L'].append(f)
for r in runs:
    d={}
    wait={0:0,1:0,2:0}; sim={0:0,1:0,2:0}; shp={0:0,1:0,2:0}
    for f in r['L']:
        if f[0] in('P1END','P2START','P2END','START'): d[f[0]+f[1]]=float(f[2])
        if f[0]=='CREWEND': d['END']=float(f[1])
        if f[0]=='WAITFLOW': wait[int(f[1][1:])]+=float(f[3])
        if f[0]=='SIM': sim[int(f[1][1:])]+=float(f[3])
        if f[0]=='SHAPE': shp[int(f[1][1:])]+=float(f[3])
    s=' '.join('%s=%.2f'%(k,v) for k,v in sorted(d.items()))
    print('nt%d'%r['nt'], s, 'wait', ['%.2f'%wait[i] for i in range(r['nt'])], 'sim', ['%.2f'%sim[i] for i in range(r['nt'])],'shape', ['%.2f'%shp[i] for i in range(r['nt'])])
