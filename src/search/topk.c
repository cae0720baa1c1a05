/*
 * topk.c -- the k best plans of a search; see topk.h. A sorted array
 * with insertion: a search keeps at most a thousand plans, and a plan
 * enters only when it beats the k-th.
 */
#include "search/topk.h"

#include <math.h>
#include <string.h>

#include "core/mem.h"

int topk_init(topk *t, sc_candidate *c, int max, sc_error *err) {
  t->c = c;
  t->n = 0;
  t->max = max;
  t->idx = mem_alloc(sizeof *t->idx * (size_t)(max > 0 ? max : 1));
  return t->idx ? SC_OK : sc_error_set(err, SC_ENOMEM, "out of memory keeping the best plans");
}

void topk_free(topk *t) {
  mem_free(t->idx);
  t->idx = NULL;
}

int topk_before(const topk *t, double step, double mem, long idx, int i) {
  const sc_result *r = &t->c[i].result;
  if (step != r->step_s) return step < r->step_s;
  if (mem != r->mem.total) return mem < r->mem.total;
  return idx < t->idx[i];
}

double topk_bar(const topk *t) {
  return t->n < t->max ? INFINITY : t->c[t->n - 1].result.step_s;
}

void topk_add(topk *t, const sc_candidate *c, long idx) {
  double step = c->result.step_s, mem = c->result.mem.total;
  int pos = t->n;
  while (pos > 0 && topk_before(t, step, mem, idx, pos - 1)) pos--;
  if (pos >= t->max) return;
  int last = t->n < t->max ? t->n : t->max - 1;
  memmove(&t->c[pos + 1], &t->c[pos], sizeof *t->c * (size_t)(last - pos));
  memmove(&t->idx[pos + 1], &t->idx[pos], sizeof *t->idx * (size_t)(last - pos));
  t->c[pos] = *c;
  t->idx[pos] = idx;
  if (t->n < t->max) t->n++;
}

void topk_merge(topk *dst, const topk *src) {
  for (int i = 0; i < src->n; i++) topk_add(dst, &src->c[i], src->idx[i]);
}

void topk_by_event(topk *t) {
  /* insertion sort: at most a thousand plans, nearly in order already */
  for (int i = 1; i < t->n; i++) {
    sc_candidate c = t->c[i];
    long idx = t->idx[i];
    int j = i;
    for (; j > 0; j--) {
      const sc_candidate *p = &t->c[j - 1];
      int before = c.event_s != p->event_s     ? c.event_s < p->event_s
                   : c.result.mem.total != p->result.mem.total ? c.result.mem.total < p->result.mem.total
                                                                : idx < t->idx[j - 1];
      if (!before) break;
      t->c[j] = t->c[j - 1];
      t->idx[j] = t->idx[j - 1];
    }
    t->c[j] = c;
    t->idx[j] = idx;
  }
}

void topk_pareto(topk *t) {
  /* fastest first (by whichever engine ranked them): a plan is on the
   * front when it needs less memory than every faster one */
  double least = INFINITY;
  for (int i = 0; i < t->n; i++) {
    double m = t->c[i].result.mem.total;
    t->c[i].pareto = m < least;
    if (m < least) least = m;
  }
}
