#!/usr/bin/env python3
"""Does `gpuclean check --runtime R --precision P` agree with the H200 sweep? Every measured case
(ok / wrong / init_failed; fixed twins excluded: their models are what `gpuclean fix` wrote when
they were packed) is checked: wrong -> gpu_correct false, init_failed -> no GPU node (or wrong),
ok -> GPU-clean and correct. Rows whose numbers were right with part of the graph on the CPU
(rejected, cpu_fallback) must not be called wrong either: a fact that fires there fires where the
device was right (listed as 'right-but-flagged', not counted in the agreement). Prints the counts
and every disagreement; a row whose CPU reference is in doubt (native and LiteRT.js CPUs disagree,
cpu_agree false) is marked so."""
import json,subprocess,collections,sys,os
os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
subprocess.run(['make','-s','build/gpuclean','build/gpu-sweep'],check=True)
subprocess.run(['build/gpu-sweep','build/gpu-sweep-models'],check=True,stdout=subprocess.DEVNULL)
res=collections.Counter(); bad=[]; flagged=[]; unran=[]
for rt,arg in (('native-2.3.0','native-2.3'),('js-2.5.3','js-2.5')):
    rows={}
    for l in open(f'data/gpu/sweep/{rt}__nvidia-h200.jsonl'):
        r=json.loads(l)
        if r['case'].endswith('__fixed'): continue
        rows.setdefault(r['case'],{})[r['precision']]=r
    for case,pr in sorted(rows.items()):
        for prec in ('fp32','fp16'):
            m=pr.get(prec)
            if not m or m['status'] not in ('ok','wrong','init_failed','rejected','cpu_fallback'): continue
            p=subprocess.run(['build/gpuclean','check',f'build/gpu-sweep-models/{case}.tflite','--runtime',arg,'--precision',prec,'--json'],capture_output=True,text=True)
            d=json.loads(p.stdout); s=d['summary']
            pred='init_failed' if s.get('gpu_nodes',1)==0 and any('fact' in str(x) or 'init' in str(x) for x in [s]) else None
            wrong=not s.get('gpu_correct',True)
            gpu0 = s.get('gpu_nodes')==0 if 'gpu_nodes' in s else None
            if m['status'] in ('rejected','cpu_fallback'):
                rules=[n.get('numerics_rule') for n in d['nodes'] if n.get('numerics')=='wrong']
                # "the GPU did not run": no node ran there, so its numbers say nothing about a fact
                if wrong: (unran if 'did not run' in (m.get('message') or '') else flagged).append((rt,prec,case,m['status'],rules))
                continue
            if m['status']=='wrong': ok = wrong
            elif m['status']=='init_failed': ok = (gpu0 is True) or wrong
            else: ok = (not wrong) and s.get('gpu_clean')
            res[(rt,prec,m['status'],ok)]+=1
            if not ok: bad.append((rt,prec,case,m['status'],s.get('gpu_clean'),s.get('gpu_correct'),s.get('gpu_nodes'))
                                  + (('cpu_agree=false: the CPU reference is in doubt',) if m.get('cpu_agree') is False else ()))
for k,v in sorted(res.items()): print(k,v)
for rt in ('native-2.3.0','js-2.5.3'):
    n=sum(v for k,v in res.items() if k[0]==rt); a=sum(v for k,v in res.items() if k[0]==rt and k[3])
    print('%s: %d of %d rows agree' % (rt,a,n))
for b in bad: print(b)
print('right-but-flagged (rejected / cpu_fallback rows with numbers right that check calls wrong): %d' % len(flagged))
for f in flagged: print(f)
print('called wrong where the device ran nothing on the GPU (residency differs; no evidence either way): %d' % len(unran))
for f in unran: print(f)
