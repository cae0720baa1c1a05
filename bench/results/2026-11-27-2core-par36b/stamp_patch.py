p='src/engine/netcost.c'
s=open(p).read()
s=s.replace('#include "core/mem.h"','#include "core/mem.h"\n#include "core/clock.h"\nextern __thread int stamp_tid;\nextern double stamp_t0;',1)
s=s.replace('''    flow = simulate(n, op, grid, ranks, stride, window, k, 0, per);''','''    double sa_ = clock_now_s();
    flow = simulate(n, op, grid, ranks, stride, window, k, 0, per);
    fprintf(stderr, "SIM t%d %.3f %.3f op%d r%d s%d w%d h%d\\n", stamp_tid, (sa_ - stamp_t0)*1e3, (clock_now_s()-sa_)*1e3, op, ranks, stride, window, n->helping);''')
s=s.replace('''  wait_for_entry(c);
  return 0;''','''  double wa = clock_now_s();
  wait_for_entry(c);
  fprintf(stderr, "WAITFLOW t%d %.3f %.3f\\n", stamp_tid, (wa - stamp_t0)*1e3, (clock_now_s()-wa)*1e3);
  return 0;''')
s=s.replace('''  int failed = shape_bound(n, out, per) != 0;''','''  double sa_ = clock_now_s();
  int failed = shape_bound(n, out, per) != 0;
  fprintf(stderr, "SHAPE t%d %.3f %.3f op%d r%d s%d w%d h%d\\n", stamp_tid, (sa_ - stamp_t0)*1e3, (clock_now_s()-sa_)*1e3, op, ranks, stride, window, n->helping);''')
open(p,'w').write(s)
p='src/search/search.c'
s=open(p).read()
s=s.replace('#define PLANS_PER_THREAD 256','__thread int stamp_tid;\ndouble stamp_t0;\n#define PLANS_PER_THREAD 256',1)
s=s.replace('''  int ok = worker_job(sh, p->ws, t) == 0;''','''  stamp_tid = t;
  fprintf(stderr, "START t%d %.3f\\n", t, (clock_now_s()-stamp_t0)*1e3);
  int ok = worker_job(sh, p->ws, t) == 0;''')
s=s.replace('''  if (w->n_b > 1) qsort(w->b, (size_t)w->n_b, sizeof *w->b, by_bound);''','''  fprintf(stderr, "P1END t%d %.3f\\n", t, (clock_now_s()-stamp_t0)*1e3);
  if (w->n_b > 1) qsort(w->b, (size_t)w->n_b, sizeof *w->b, by_bound);''')
s=s.replace('''  second_pass(sh, &p->ws[t]);
}''','''  fprintf(stderr, "P2START t%d %.3f\\n", t, (clock_now_s()-stamp_t0)*1e3);
  second_pass(sh, &p->ws[t]);
  fprintf(stderr, "P2END t%d %.3f\\n", t, (clock_now_s()-stamp_t0)*1e3);
}''')
s=s.replace('''    second_step(sh, w, what, j, b);''','''    double a0 = clock_now_s();
    second_step(sh, w, what, j, b);
    fprintf(stderr, "ITEM t%d %s %ld %.3f %.3f\\n", w->id, what == NEXT_BOUND ? "bound" : "cost", what == NEXT_BOUND ? sh->all[j].idx : b.idx, (a0-stamp_t0)*1e3, (clock_now_s()-a0)*1e3);''')
s=s.replace('''    if (!helped && seen == sh->posted) pthread_cond_wait(&sh->more, &sh->mu);''','''    double wa = clock_now_s();
    if (!helped && seen == sh->posted) pthread_cond_wait(&sh->more, &sh->mu);
    if (!helped) fprintf(stderr, "IDLE t%d %.3f %.3f\\n", w->id, (wa-stamp_t0)*1e3, (clock_now_s()-wa)*1e3);''')
s=s.replace('''  crew_run(sh->pool, nt, both_passes, &p);''','''  stamp_t0 = clock_now_s();
  fprintf(stderr, "SEARCH nt%d\\n", nt);
  crew_run(sh->pool, nt, both_passes, &p);
  fprintf(stderr, "CREWEND %.3f\\n", (clock_now_s()-stamp_t0)*1e3);''')
open(p,'w').write(s)
