/*
 * rs_plan.c -- the sharding planner (sc_rs_plan_search).
 *
 * Every plan is ranked by the predicted iteration time (rs_eval); plans
 * that do not fit in memory are never kept while one that fits exists.
 *   exhaustive  when options^tables <= exhaustive_max: every assignment of
 *               {data-parallel, row-wise, table-wise on each GPU, two column
 *               slices on each pair of neighbouring GPUs, 4-16 slices on
 *               aligned blocks of GPUs, table-row-wise on each node} to
 *               every table;
 *   otherwise   local search from each of four seeds (greedy table-wise
 *               with oversized tables sliced, all row-wise, all
 *               data-parallel, all table-row-wise; one that does not
 *               fit first made to fit by steepest descent when every
 *               option of every table is at most 8,192 evaluations,
 *               fit_seed): the tables of the
 *               slowest GPU first, then every table, try their moves
 *               (with at most 40 options per table: every option and every
 *               swap with another table; else every kind aimed at the
 *               least-loaded GPU or node, column splits in 2-16 parts and a
 *               swap with a table of the least-loaded GPU; when neither
 *               improves and a table's pair moves are few (options^2 x
 *               (tables - 1) <= 2048), every option of it with every
 *               option of one other table); an improving move is
 *               kept and the pass restarts, until a pass finds none or
 *               local_iters tables were tried.
 * A budget (max_seconds, max_evals) or the progress callback stops either
 * early: every evaluation after the stop returns at once without a plan
 * (eval), so no move is kept and the loops unwind; the plans kept are the
 * best seen, and `stopped` says why. Without a budget nothing differs.
 * A headroom (sc_rs_plan_opts) lowers what a GPU may hold for every
 * verdict of the search (rs_ctx.headroom: rs_eval's `fits`, the greedy
 * seed's placement), as `search --headroom` does for training plans.
 *
 * The search never sees the order the user listed the tables in (canon):
 * it runs on the job with its tables heaviest first (whole-table lookup
 * time on one GPU, rs_table_tw_s), equal costs by shape (rs_table_cmp),
 * and its plans are mapped back to the user's order. Every order of the
 * same tables gives the same search, so the same plans up to the order of
 * identical tables, and the same predictions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/mem.h"
#include "recsys/rs_shard.h"

#define PROGRESS_EVERY_S 0.1
/* Evaluations between two reads of the clock. */
#define WATCH_EVERY 16

void sc_rs_plan_opts_default(sc_rs_plan_opts *o) {
  memset(o, 0, sizeof *o);
  o->top = 5;
  o->exhaustive_max = 20000;
  o->local_iters = 4000;
}

void sc_rs_plans_free(sc_rs_plans *p) {
  for (int i = 0; i < p->n; i++) {
    sc_rs_plan_free(&p->plan[i]);
    sc_rs_result_free(&p->res[i]);
  }
  p->n = 0;
}

/* The search state. */
typedef struct search {
  rs_ctx c;
  sc_rs_plans *out;
  int top;
  int fit_found;            /* a fitting plan was seen */
  sc_rs_result r;           /* scratch result with per-GPU arrays */
  int oom;
  int none_fits;            /* mem_floor exceeds what a GPU may hold */
  const sc_rs_plan_opts *o; /* borrowed: budgets and progress */
  double t0, last_report;   /* clock_now_s() */
} search;

static int same_plan(const sc_rs_plan *a, const sc_rs_plan *b) {
  return !memcmp(a->s, b->s, sizeof *a->s * (size_t)a->n);
}

/* 1 when a and b use each shard kind for the same number of tables. */
static int same_mix(const sc_rs_plan *a, const sc_rs_plan *b) {
  int ka[SC_RS_SHARD_KINDS] = {0}, kb[SC_RS_SHARD_KINDS] = {0};
  for (int t = 0; t < a->n; t++) { ka[a->s[t].kind]++; kb[b->s[t].kind]++; }
  return !memcmp(ka, kb, sizeof ka);
}

/* Remove entry i of the top list. */
static void drop(sc_rs_plans *o, int i) {
  sc_rs_plan_free(&o->plan[i]);
  sc_rs_result_free(&o->res[i]);
  memmove(&o->plan[i], &o->plan[i + 1], sizeof o->plan[0] * (size_t)(o->n - i - 1));
  memmove(&o->res[i], &o->res[i + 1], sizeof o->res[0] * (size_t)(o->n - i - 1));
  o->n--;
}

/* Search key of local search: fitting plans by time (seconds, far below
 * 1e9), any plan that does not fit above them all and ordered by its
 * memory (bytes x 1e-6: the double keeps about 0.1 byte of resolution at
 * 1e9, so local search steers a seed that does not fit towards less
 * memory). */
static double key(const sc_rs_result *r) {
  return r->fits ? r->iter_s : 1e9 + r->mem_bytes * 1e-6;
}

/* The order of the listed plans: 1 when a ranks before b. Fitting plans by
 * time; those that do not fit after them, by memory (then time): with
 * nothing fitting the list is the plans closest to fitting. */
static int ranks_before(const sc_rs_result *a, const sc_rs_result *b) {
  if (a->fits != b->fits) return a->fits;
  if (a->fits) return a->iter_s < b->iter_s;
  return a->mem_bytes < b->mem_bytes || (a->mem_bytes == b->mem_bytes && a->iter_s < b->iter_s);
}

/* Keep plan p (result in s->r) among the top when it is good enough. */
static void offer(search *s, const sc_rs_plan *p) {
  sc_rs_plans *o = s->out;
  /* the fastest plan of each mix of shard kinds (how many tables of each
   * kind): the top plans are distinct choices, not the same tables
   * permuted over GPUs */
  for (int i = 0; i < o->n; i++) {
    if (same_plan(&o->plan[i], p)) return;
    if (same_mix(&o->plan[i], p)) {
      if (!ranks_before(&s->r, &o->res[i])) return;
      drop(o, i); /* the new one is faster: it replaces this one */
      break;
    }
  }
  int pos = o->n;
  while (pos > 0 && ranks_before(&s->r, &o->res[pos - 1])) pos--;
  if (pos >= s->top) return;
  int n = s->c.j->gpus;
  if (o->n == s->top) drop(o, o->n - 1);
  sc_rs_plan cp;
  double *e = mem_alloc(sizeof *e * (size_t)n), *m = mem_alloc(sizeof *m * (size_t)n);
  if (sc_rs_plan_alloc(&cp, p->n) || !e || !m) {
    sc_rs_plan_free(&cp);
    mem_free(e);
    mem_free(m);
    s->oom = 1;
    return;
  }
  memcpy(cp.s, p->s, sizeof *p->s * (size_t)p->n);
  memcpy(e, s->r.gpu_emb_s, sizeof *e * (size_t)n);
  memcpy(m, s->r.gpu_mem, sizeof *m * (size_t)n);
  memmove(&o->plan[pos + 1], &o->plan[pos], sizeof o->plan[0] * (size_t)(o->n - pos));
  memmove(&o->res[pos + 1], &o->res[pos], sizeof o->res[0] * (size_t)(o->n - pos));
  o->plan[pos] = cp;
  o->res[pos] = s->r;
  o->res[pos].gpu_emb_s = e;
  o->res[pos].gpu_mem = m;
  o->n++;
}

/* After an evaluation: the budgets and the progress callback, which may
 * stop the search (s->out->stopped). The clock is read every WATCH_EVERY
 * evaluations, and only when a time budget or a callback asks for it. */
static void watch(search *s) {
  const sc_rs_plan_opts *o = s->o;
  long done = s->out->evaluated;
  if (o->max_evals > 0 && done >= o->max_evals) s->out->stopped = SC_RS_STOP_MAX_EVALS;
  if ((o->max_seconds <= 0 && !o->progress) || done % WATCH_EVERY) return;
  double now = clock_now_s();
  if (o->max_seconds > 0 && now - s->t0 > o->max_seconds && !s->out->stopped)
    s->out->stopped = SC_RS_STOP_MAX_SECONDS;
  if (o->progress && now - s->last_report >= PROGRESS_EVERY_S) {
    s->last_report = now;
    if (o->progress(o->progress_ctx, done, now - s->t0) && !s->out->stopped)
      s->out->stopped = SC_RS_STOP_INTERRUPTED;
  }
}

/* Evaluate p, offer it; its rank key (+inf, with nothing evaluated, once
 * the search is stopped: no move beats it). */
static double eval(search *s, const sc_rs_plan *p) {
  if (s->out->stopped) return INFINITY;
  rs_eval(&s->c, p, &s->r);
  s->out->evaluated++;
  if (s->r.fits) s->fit_found = 1;
  offer(s, p);
  watch(s);
  return key(&s->r);
}

/* ---------------------------------------------------------- exhaustive */

/* The options of one table: data-parallel, row-wise, table-wise on each
 * GPU, two column slices on each pair of neighbouring GPUs, 4, 8 and 16
 * slices on each aligned block of that many GPUs, table-row-wise on each
 * node (several nodes). A column option that does not divide the table's
 * width falls back to row-wise (a repeat, harmless). */
static int options(const rs_ctx *c) {
  int n = c->j->gpus, k = 2 + n + (n > 1 ? n - 1 : 0);
  for (int parts = 4; parts <= 16 && parts <= n; parts *= 2) k += n / parts;
  return k + (c->nodes > 1 ? c->nodes : 0);
}

static sc_rs_shard option(const rs_ctx *c, int t, int k) {
  int n = c->j->gpus, dim = c->j->model.tables[t].dim;
  if (k == 0) return (sc_rs_shard){SC_RS_DATA_PARALLEL, 0, 1};
  if (k == 1) return (sc_rs_shard){SC_RS_ROW_WISE, 0, 1};
  if (k < 2 + n) return (sc_rs_shard){SC_RS_TABLE_WISE, k - 2, 1};
  k -= 2 + n;
  if (n > 1 && k < n - 1)
    return dim % 2 ? (sc_rs_shard){SC_RS_ROW_WISE, 0, 1} : (sc_rs_shard){SC_RS_COLUMN_WISE, k, 2};
  if (n > 1) k -= n - 1;
  for (int parts = 4; parts <= 16 && parts <= n; parts *= 2) {
    if (k < n / parts)
      return dim % parts ? (sc_rs_shard){SC_RS_ROW_WISE, 0, 1}
                         : (sc_rs_shard){SC_RS_COLUMN_WISE, k * parts, parts};
    k -= n / parts;
  }
  return (sc_rs_shard){SC_RS_TABLE_ROW_WISE, k, 1};
}

static void exhaustive(search *s, sc_rs_plan *p) {
  int m = p->n, k = options(&s->c);
  int *digit = mem_calloc((size_t)m, sizeof *digit);
  if (!digit) { s->oom = 1; return; }
  for (int t = 0; t < m; t++) p->s[t] = option(&s->c, t, 0);
  for (;;) {
    eval(s, p);
    int t = 0;
    while (t < m && ++digit[t] == k) { digit[t] = 0; p->s[t] = option(&s->c, t, 0); t++; }
    if (t == m || s->out->stopped) break;
    p->s[t] = option(&s->c, t, digit[t]);
  }
  mem_free(digit);
  s->out->exhaustive = 1;
}

/* --------------------------------------------------------- local search */

static int argmin(const double *v, int n) {
  int b = 0;
  for (int i = 1; i < n; i++) if (v[i] < v[b]) b = i;
  return b;
}

/* Try move `to` for table t of p (best so far `*best`); keep it when
 * better, else restore. 1 when kept. */
static int try_move(search *s, sc_rs_plan *p, int t, sc_rs_shard to, double *best) {
  sc_rs_shard was = p->s[t];
  if (!memcmp(&was, &to, sizeof to)) return 0;
  p->s[t] = to;
  double k = eval(s, p);
  if (k < *best * (1 - 1e-9)) { *best = k; return 1; }
  p->s[t] = was;
  return 0;
}

/* Per-GPU embedding time of the current plan (for the least-loaded). */
/* A GPU's load: its lookup time plus the time its pooled vectors take to
 * leave it at its link rate (the all-to-all waits for the busiest sender). */
static void loads(search *s, const sc_rs_plan *p, double *load) {
  rs_eval(&s->c, p, &s->r);
  const coll_group *g = &s->c.all;
  double bw = g->ranks > g->ranks_per_node && g->inter_bw > 0 ? g->inter_bw : g->intra_bw;
  for (int i = 0; i < s->c.j->gpus; i++)
    load[i] = s->r.gpu_emb_s[i] + (bw > 0 ? 2 * s->c.send[i] / bw : 0);
}

static int argmax(const double *v, int n) {
  int b = 0;
  for (int i = 1; i < n; i++) if (v[i] > v[b]) b = i;
  return b;
}

/* Swaps tried per table, and evaluations a search may spend: bounds that
 * keep a plan of a thousand tables within seconds. */
#define RS_SWAPS 64
#define RS_MAX_EVALS 300000
/* Evaluations one table's pair moves may take (small cases only). */
#define RS_PAIR_EVALS 2048

/* Swap the shards of tables t and u; kept (1) when that beats *best
 * (then updated), else undone (0). */
static int try_swap(search *s, sc_rs_plan *p, int t, int u, double *best) {
  sc_rs_shard a = p->s[t], b = p->s[u];
  p->s[t] = b;
  p->s[u] = a;
  double k = eval(s, p);
  if (k < *best * (1 - 1e-9)) {
    *best = k;
    return 1;
  }
  p->s[t] = a;
  p->s[u] = b;
  return 0;
}

/* Every option of table t together with every option of one other table
 * u: a move neither table improves on alone (two tables that must trade
 * places and kinds at once); the first improvement is kept (1). */
static int try_pairs(search *s, sc_rs_plan *p, int t, double *best) {
  int k = options(&s->c);
  for (int u = 0; u < p->n; u++) {
    if (u == t) continue;
    sc_rs_shard a = p->s[t], b = p->s[u];
    for (int i = 0; i < k; i++)
      for (int m = 0; m < k; m++) {
        p->s[t] = option(&s->c, t, i);
        p->s[u] = option(&s->c, u, m);
        if (!memcmp(&p->s[t], &a, sizeof a) || !memcmp(&p->s[u], &b, sizeof b)) continue;
        double x = eval(s, p);
        if (x < *best * (1 - 1e-9)) { *best = x; return 1; }
      }
    p->s[t] = a;
    p->s[u] = b;
  }
  return 0;
}

/* Moves of table t; 1 when one was kept. With few options per table
 * (small clusters) every option is tried, else the ones aimed at the
 * least-loaded GPU. */
static int improve_table(search *s, sc_rs_plan *p, int t, double *best, double *load) {
  const sc_rs_job *j = s->c.j;
  int n = j->gpus, kept = 0;
  if (options(&s->c) <= 40) {
    for (int k = 0; k < options(&s->c); k++) kept |= try_move(s, p, t, option(&s->c, t, k), best);
    for (int u = 0, tries = 0; u < p->n && tries < RS_SWAPS; u++) { /* swap two tables' shards */
      if (u == t || !memcmp(&p->s[u], &p->s[t], sizeof p->s[t])) continue;
      tries++;
      kept |= try_swap(s, p, t, u, best);
    }
    long pairs = (long)options(&s->c) * options(&s->c) * (p->n - 1);
    if (!kept && pairs <= RS_PAIR_EVALS) kept = try_pairs(s, p, t, best);
    return kept;
  }
  loads(s, p, load);
  int lo = argmin(load, n);
  kept |= try_move(s, p, t, (sc_rs_shard){SC_RS_TABLE_WISE, lo, 1}, best);
  kept |= try_move(s, p, t, (sc_rs_shard){SC_RS_ROW_WISE, 0, 1}, best);
  kept |= try_move(s, p, t, (sc_rs_shard){SC_RS_DATA_PARALLEL, 0, 1}, best);
  if (s->c.nodes > 1) {
    int gpn = s->c.all.ranks_per_node, node = lo / gpn;
    kept |= try_move(s, p, t, (sc_rs_shard){SC_RS_TABLE_ROW_WISE, node, 1}, best);
  }
  /* column slices in 2, 4, ... 16 parts on the aligned block of GPUs
   * around the least-loaded one: many slices shrink the largest sender of
   * the all-to-all */
  for (int parts = 2; parts <= 16 && parts <= n && j->model.tables[t].dim % parts == 0;
       parts *= 2) {
    int g = lo - lo % parts;
    if (g + parts > n) g = n - parts;
    kept |= try_move(s, p, t, (sc_rs_shard){SC_RS_COLUMN_WISE, g, parts}, best);
  }
  /* swap with a table-wise table of the least-loaded GPU */
  if (p->s[t].kind == SC_RS_TABLE_WISE && p->s[t].gpu != lo) {
    for (int u = 0; u < p->n && !kept; u++) {
      if (p->s[u].kind != SC_RS_TABLE_WISE || p->s[u].gpu != lo) continue;
      kept |= try_swap(s, p, t, u, best);
    }
  }
  return kept;
}

/* Evaluations one step of fit_seed may take (every option of every
 * table): small cases only, as RS_PAIR_EVALS. */
#define RS_STEEP_EVALS 8192

/* A floor under the memory of the fullest GPU of every plan the planner
 * forms, bytes: the dense part's activations and the larger of the mean
 * over GPUs of what the tables hold together and the most any one table
 * puts on a GPU, each table sharded the way that needs least (every
 * option of every table: rs_shard_mem, O(options x tables)). When it
 * exceeds what a GPU may hold no plan fits (none_fits): steepest descent
 * towards fitting (fit_seed) is not tried, and local search, whose key is
 * then memory alone, starts from the seed that needs least (seeds): a 3.1
 * TiB model on one GPU had all-data-parallel descend table by table to
 * the least memory the table-wise seed already had, 290,000 evaluations. */
static double mem_floor(const rs_ctx *c) {
  int k = options(c), n = c->j->gpus;
  double sum = 0, most = 0;
  for (int t = 0; t < c->j->model.n_tables; t++) {
    double peak = INFINITY, total = INFINITY;
    for (int o = 0; o < k; o++) {
      sc_rs_shard x = option(c, t, o);
      double pk, tot;
      rs_shard_mem(c, t, &x, &pk, &tot);
      peak = fmin(peak, pk);
      total = fmin(total, tot);
    }
    sum += total;
    most = fmax(most, peak);
  }
  return c->dense.act_bytes + fmax(sum / n, most);
}

/* A seed that does not fit (key >= 1e9), made to fit by steepest descent:
 * each step evaluates every option of every table and keeps the one move
 * with the lowest key -- the fastest that fits, else the one leaving the
 * least memory on the fullest GPU (ties: the first table and option) --
 * until the plan fits or no move lowers the key. Local search's own
 * steering keeps the first improving move in table order, so the fitting
 * plan it reaches, and the basin it then descends by time, depended on
 * memory terms that do not bind the plan found (audit33: a replicated
 * table's gradient memory moved 6 MLPerf DLRM rows, up to 4.2 %, with
 * every final plan below a sixth of the GPU's memory); a steepest step
 * depends on them only through which move saves most. Only where a step
 * takes at most RS_STEEP_EVALS evaluations; else local search steers. */
static void fit_seed(search *s, sc_rs_plan *p, double *best) {
  int k = options(&s->c);
  if ((long)k * p->n > RS_STEEP_EVALS) return;
  if (s->none_fits) return;
  while (*best >= 1e9 && !s->out->stopped && s->out->evaluated < RS_MAX_EVALS) {
    int bt = -1, bo = 0;
    double bx = *best * (1 - 1e-9);
    for (int t = 0; t < p->n; t++) {
      sc_rs_shard was = p->s[t];
      for (int o = 0; o < k; o++) {
        p->s[t] = option(&s->c, t, o);
        if (!memcmp(&p->s[t], &was, sizeof was)) continue;
        double x = eval(s, p);
        if (x < bx) bx = x, bt = t, bo = o;
      }
      p->s[t] = was;
    }
    if (bt < 0) return;
    p->s[bt] = option(&s->c, bt, bo);
    *best = bx;
  }
}

/* 1 when no plan the planner forms fits (mem_floor). */
static int none_fits(const rs_ctx *c) {
  return mem_floor(c) > c->j->gpu.hbm_bytes - c->headroom;
}

int rs_plan_fit(const rs_ctx *c, sc_rs_plan *p, sc_rs_result *r) {
  sc_rs_plans out = {0};
  sc_rs_plan_opts o;
  sc_rs_plan_opts_default(&o);
  search s = {.c = *c, .out = &out, .top = 1, .o = &o, .r = *r};
  s.none_fits = none_fits(c);
  double best = eval(&s, p);
  fit_seed(&s, p, &best);
  rs_eval(&s.c, p, r);
  sc_rs_plans_free(&out);
  return s.oom ? SC_ENOMEM : SC_OK;
}

static void local_search(search *s, sc_rs_plan *p, int iters) {
  double *load = mem_alloc(sizeof *load * (size_t)s->c.j->gpus);
  if (!load) { s->oom = 1; return; }
  double best = eval(s, p);
  fit_seed(s, p, &best);
  long tried = 0;
  int improved = 1;
  while (improved && tried < iters && !s->oom && !s->out->stopped &&
         s->out->evaluated < RS_MAX_EVALS) {
    improved = 0;
    /* tables of the most loaded GPU first, then every table */
    loads(s, p, load);
    int worst = argmax(load, s->c.j->gpus);
    for (int pass = 0; pass < 2 && !improved; pass++)
      for (int t = 0; t < p->n && tried < iters && s->out->evaluated < RS_MAX_EVALS &&
                      !s->out->stopped;
           t++) {
        const sc_rs_shard *x = &p->s[t];
        int on_worst = x->kind == SC_RS_TABLE_WISE ? x->gpu == worst
                       : x->kind == SC_RS_COLUMN_WISE ? worst >= x->gpu && worst < x->gpu + x->parts
                                                      : 0;
        if (pass == 0 && !on_worst) continue;
        tried++;
        if (improve_table(s, p, t, &best, load)) improved = 1;
      }
  }
  if (s->out->evaluated >= RS_MAX_EVALS) s->out->bounded = 1;
  mem_free(load);
}

/* ------------------------------------------------------------- the why */

static void explain(const sc_rs_job *j, sc_rs_plans *o) {
  for (int i = 0; i < o->n; i++) {
    const sc_rs_result *r = &o->res[i];
    double mean = 0, mx = 0;
    for (int g = 0; g < j->gpus; g++) {
      mean += r->gpu_emb_s[g] / j->gpus;
      if (r->gpu_emb_s[g] > mx) mx = r->gpu_emb_s[g];
    }
    double comm = r->ids_s + r->a2a_fwd_s + r->a2a_bwd_s + r->rs_fwd_s + r->ag_bwd_s +
                  r->allreduce_s;
    double emb = r->emb_fwd_s + r->emb_bwd_s, dense = r->dense_fwd_s + r->dense_bwd_s;
    const char *bound = emb >= comm && emb >= dense ? "embedding lookups"
                        : comm >= dense             ? "communication"
                                                    : "dense compute";
    int w = snprintf(o->why[i], sizeof o->why[i],
                     "%s bound: lookups %.3f ms on GPU %d (imbalance max/mean %.2f), "
                     "communication %.3f ms, dense %.3f ms",
                     bound, emb * 1e3, r->worst_gpu, mean > 0 ? mx / mean : 1, comm * 1e3,
                     dense * 1e3);
    if (i == 0 && o->n > 1 && r->fits && o->res[1].fits && w > 0 && w < (int)sizeof o->why[i])
      snprintf(o->why[i] + w, sizeof o->why[i] - (size_t)w, "; %.2f %% faster than #2",
               100 * (o->res[1].iter_s - r->iter_s) / o->res[1].iter_s);
    w = (int)strlen(o->why[i]);
    if (r->reader_s > 0 && w < (int)sizeof o->why[i])
      snprintf(o->why[i] + w, sizeof o->why[i] - (size_t)w,
               "; the data reader bounds it (+%.3f ms)", r->reader_s * 1e3);
    w = (int)strlen(o->why[i]);
    if (!r->fits && w > 0 && w < (int)sizeof o->why[i])
      snprintf(o->why[i] + w, sizeof o->why[i] - (size_t)w, "; DOES NOT FIT");
  }
}

static const sc_rs_shard_kind seed_kinds[] = {SC_RS_TABLE_WISE, SC_RS_ROW_WISE,
                                              SC_RS_DATA_PARALLEL, SC_RS_TABLE_ROW_WISE};
#define SEEDS (int)(sizeof seed_kinds / sizeof seed_kinds[0])

/* Seed k into p: greedy table-wise, or every table of one kind
 * (table-row-wise round robin over the nodes). 0 when the cluster has no
 * such seed (table-row-wise on one node), else 1; s->oom on failure. */
static int seed(search *s, sc_rs_plan *p, int k) {
  sc_rs_shard_kind kind = seed_kinds[k];
  if (kind == SC_RS_TABLE_ROW_WISE && s->c.nodes < 2) return 0;
  if (kind == SC_RS_TABLE_WISE) {
    if (rs_plan_greedy_tw(&s->c, 1, p)) s->oom = 1;
    return !s->oom;
  }
  for (int t = 0; t < p->n; t++)
    p->s[t] = (sc_rs_shard){kind, kind == SC_RS_TABLE_ROW_WISE ? t % s->c.nodes : 0, 1};
  return 1;
}

/* Local search from each seed (greedy table-wise, all row-wise, all
 * data-parallel, all table-row-wise); every plan seen is offered to the
 * top list. When no plan fits (none_fits) every seed is evaluated first
 * and local search starts only from those that need least memory (equal
 * to 1e-9). */
static void seeds(search *s, sc_rs_plan *p, int iters) {
  double key_of[SEEDS], least = INFINITY;
  for (int k = 0; k < SEEDS; k++) key_of[k] = -INFINITY; /* searched */
  if (s->none_fits)
    for (int k = 0; k < SEEDS && !s->oom && !s->out->stopped; k++) {
      key_of[k] = seed(s, p, k) ? eval(s, p) : INFINITY;
      least = fmin(least, key_of[k]);
    }
  for (int k = 0; k < SEEDS && !s->oom && !s->out->stopped; k++)
    if (key_of[k] <= least * (1 + 1e-9) && seed(s, p, k)) local_search(s, p, iters);
}

/* ---------------------------------------------------- the tables' order */

/* A table in the canonical order: its whole-table cost (seconds), the
 * table (borrowed) and where the user listed it. */
typedef struct canon_item {
  double cost;
  const sc_rs_table *tb;
  int at;
} canon_item;

/* Heaviest first; equal costs by shape (rs_table_cmp); identical tables
 * as listed (interchangeable: the job is the same whichever goes first). */
static int canon_cmp(const void *x, const void *y) {
  const canon_item *a = x, *b = y;
  if (a->cost != b->cost) return a->cost > b->cost ? -1 : 1;
  int c = rs_table_cmp(a->tb, b->tb);
  return c ? c : (a->at > b->at) - (a->at < b->at);
}

/* jc's tables (jc->model.tables, owned by the caller) and ord (ord[i]:
 * the user's index of jc's table i) in the items' order. */
static void canon_apply(const canon_item *it, int m, sc_rs_job *jc, int *ord) {
  for (int i = 0; i < m; i++) {
    jc->model.tables[i] = *it[i].tb;
    ord[i] = it[i].at;
  }
}

/* The job the search runs on, jc: j (checked) with its tables in the
 * canonical order, ord[i] the user's index of jc's table i. The costs are
 * those of the tables sorted by shape alone, so they too are the same
 * whatever the user's order (a job-wide sum, as a hash layer's rows,
 * adds the same terms in the same order). jc borrows everything of j
 * but its tables (owned: mem_free(jc->model.tables)). SC_OK or SC_ENOMEM;
 * jc's tables NULL on failure. */
static int canon_job(const sc_rs_job *j, sc_rs_job *jc, int *ord, sc_error *err) {
  int m = j->model.n_tables;
  *jc = *j;
  jc->model.tables = mem_alloc(sizeof *jc->model.tables * (size_t)m);
  canon_item *it = mem_alloc(sizeof *it * (size_t)m);
  if (!jc->model.tables || !it) {
    mem_free(it);
    mem_free(jc->model.tables);
    jc->model.tables = NULL;
    return sc_error_set(err, SC_ENOMEM, "planner: out of memory");
  }
  for (int t = 0; t < m; t++) it[t] = (canon_item){0, &j->model.tables[t], t};
  qsort(it, (size_t)m, sizeof *it, canon_cmp); /* no costs yet: by shape */
  canon_apply(it, m, jc, ord);
  rs_ctx c;
  int rc = rs_ctx_open(&c, jc, err);
  if (rc) {
    mem_free(it);
    mem_free(jc->model.tables);
    jc->model.tables = NULL;
    return rc;
  }
  for (int i = 0; i < m; i++) it[i].cost = rs_table_tw_s(&c, i);
  rs_ctx_close(&c);
  qsort(it, (size_t)m, sizeof *it, canon_cmp);
  canon_apply(it, m, jc, ord);
  mem_free(it);
  return SC_OK;
}

/* Plan p (the canonical order) in the user's order: table i's shard goes
 * to table ord[i]; tmp holds p->n shards. */
static void canon_unmap(sc_rs_plan *p, const int *ord, sc_rs_shard *tmp) {
  memcpy(tmp, p->s, sizeof *tmp * (size_t)p->n);
  for (int i = 0; i < p->n; i++) p->s[ord[i]] = tmp[i];
}

int sc_rs_plan_search(const sc_rs_job *j, const sc_rs_plan_opts *opts, sc_rs_plans *out,
                      sc_error *err) {
  memset(out, 0, sizeof *out);
  sc_rs_plan_opts o;
  if (opts) o = *opts;
  else sc_rs_plan_opts_default(&o);
  if (o.top < 1 || o.top > 16)
    return sc_error_set(err, SC_EINPUT, "planner: top %d; valid: 1..16", o.top);
  /* NaN is refused too: the Python binding passes any float */
  if (!(o.max_seconds >= 0) || o.max_evals < 0)
    return sc_error_set(err, SC_EINPUT, "planner: max_seconds %g, max_evals %ld; valid: >= 0 "
                        "(0: no budget)", o.max_seconds, o.max_evals);
  if (!(o.headroom_bytes >= 0 && o.headroom_bytes <= 1e18) ||
      !(o.headroom_frac >= 0 && o.headroom_frac < 1))
    return sc_error_set(err, SC_EINPUT, "planner: headroom_bytes %g, headroom_frac %g; valid: "
                        "bytes >= 0 and a fraction in 0..1 (below 1)", o.headroom_bytes,
                        o.headroom_frac);
  search s = {0};
  s.out = out;
  s.top = o.top;
  s.o = &o;
  s.t0 = clock_now_s();
  s.last_report = s.t0;
  /* checked as listed first, so a message names the user's table */
  int rc = sc_rs_job_check(j, err);
  if (rc) return rc;
  int m = j->model.n_tables, n = j->gpus;
  sc_rs_job jc; /* the search's job: j's tables in the canonical order */
  int *ord = mem_alloc(sizeof *ord * (size_t)m);
  rc = ord ? canon_job(j, &jc, ord, err) : sc_error_set(err, SC_ENOMEM, "planner: out of memory");
  if (!rc && (rc = rs_ctx_open(&s.c, &jc, err))) mem_free(jc.model.tables);
  if (rc) { mem_free(ord); return rc; }
  s.c.headroom = o.headroom_bytes + o.headroom_frac * j->gpu.hbm_bytes;
  s.none_fits = none_fits(&s.c);
  sc_rs_plan p = {0};
  s.r.gpu_emb_s = mem_alloc(sizeof(double) * (size_t)n);
  s.r.gpu_mem = mem_alloc(sizeof(double) * (size_t)n);
  if (sc_rs_plan_alloc(&p, m) || !s.r.gpu_emb_s || !s.r.gpu_mem) {
    s.oom = 1;
  } else {
    double space = pow(options(&s.c), m);
    if (space <= o.exhaustive_max) exhaustive(&s, &p);
    else {
      seeds(&s, &p, o.local_iters);
    }
    for (int i = 0; i < out->n; i++) canon_unmap(&out->plan[i], ord, p.s);
  }
  sc_rs_plan_free(&p);
  sc_rs_result_free(&s.r);
  rs_ctx_close(&s.c);
  mem_free(jc.model.tables);
  mem_free(ord);
  if (s.oom) {
    sc_rs_plans_free(out);
    return sc_error_set(err, SC_ENOMEM, "planner: out of memory");
  }
  explain(j, out);
  return SC_OK;
}
