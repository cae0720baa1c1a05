/*
 * kineto.c -- see kineto.h.
 *
 * The whole document is parsed by jansson (integers as doubles, so that
 * ids beyond 64 bits load), then each event of traceEvents is classified
 * by its category and copied into the rank. Messages name the event by
 * its index: "FILE: traceEvents[12].dur: expected a number >= 0".
 */
#include "trace/kineto.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "core/file.h"
#include "core/mem.h"
#include "core/vec.h"
#include "trace/chakra.h"
#include "trace/jscan.h"

/* One parse: where, and what to report to. */
typedef struct kin_ctx {
  const char *origin;
  tg_rank *r;
  tg_job *j;
  sc_error *err;
  js js;                /* the scanner over the text */
  VEC(double) tids;     /* (pid, tid) of each host thread seen, pairs */
  VEC(tg_kv) corrs;     /* (correlation id, event index) of each host call */
  char unknown_cat[64]; /* the first unknown category, for the warning */
  char name[4096];      /* the current event's name, decoded */
} kin_ctx;

/* The fields of one event that the loader reads; NAN / NULL when absent. */
typedef struct kin_ev {
  js_str ph, cat, name, tid_str, coll, dtype;
  double ts, dur, pid, tid;
  char ts_kind, dur_kind;              /* what ts and dur were: 0 absent, '#' a
                                          number, else the first byte of the value */
  double corr, stream, in, out, group; /* from args */
  double uid, wait_uid, own;           /* args of an exported graph (tgraph_write.h) */
  const char *dims, *types;            /* where args "Input Dims" and "Input type" start; NULL */
} kin_ev;

/* What an event's category makes of it. */
typedef enum kin_role {
  KR_IGNORE = 0,
  KR_CPU,
  KR_RUNTIME,
  KR_KERNEL,
  KR_MEMCPY,
  KR_MEMSET,
  KR_UNKNOWN
} kin_role;

static const struct {
  const char *cat;
  kin_role role;
} kin_cats[] = {
    {"cpu_op", KR_CPU},
    {"Operator", KR_CPU},
    {"user_annotation", KR_CPU},
    {"python_function", KR_IGNORE},
    {"cuda_runtime", KR_RUNTIME},
    {"Runtime", KR_RUNTIME},
    {"cuda_driver", KR_RUNTIME},
    {"kernel", KR_KERNEL},
    {"Kernel", KR_KERNEL},
    {"gpu_memcpy", KR_MEMCPY},
    {"Memcpy", KR_MEMCPY},
    {"gpu_memset", KR_MEMSET},
    {"Memset", KR_MEMSET},
    {"gpu_user_annotation", KR_IGNORE},
    {"Trace", KR_IGNORE},
    {"overhead", KR_IGNORE},
    {"cpu_instant_event", KR_IGNORE},
    {"user_annotation_gpu", KR_IGNORE},
    {"ac2g", KR_IGNORE},
    {"fwdbwd", KR_IGNORE},
    {"async", KR_IGNORE},
    {"Python", KR_IGNORE},
    {"python_function", KR_IGNORE},
};

/* s equals the NUL-terminated word. */
static int is(const js_str *s, const char *word) {
  return s->s && strlen(word) == s->len && !memcmp(s->s, word, s->len);
}

static kin_role role_of(const js_str *cat) {
  if (!cat->s) return KR_IGNORE;
  for (size_t i = 0; i < sizeof kin_cats / sizeof kin_cats[0]; i++)
    if (is(cat, kin_cats[i].cat)) return kin_cats[i].role;
  return KR_UNKNOWN;
}

static int nomem(const kin_ctx *c) {
  return sc_error_set(c->err, SC_ENOMEM, "%s: out of memory while reading the trace", c->origin);
}

/* A number member of o (a JSON number, or a string holding one); def
 * when absent or not a number. For the small header objects. */
static double num(const json_t *o, const char *key, double def) {
  const json_t *v = json_object_get(o, key);
  if (json_is_number(v)) return json_number_value(v);
  if (json_is_string(v)) {
    char *end;
    double d = strtod(json_string_value(v), &end);
    if (end != json_string_value(v) && !*end) return d;
  }
  return def;
}

static const char *str(const json_t *o, const char *key) {
  return json_string_value(json_object_get(o, key));
}

/* ----------------------------------------------------------- threads */

/* Index of the host thread (pid, tid) of e; a string tid is hashed to a
 * number. -1 when out of memory. */
static int thread_of(kin_ctx *c, const kin_ev *e) {
  double pid = isnan(e->pid) ? 0 : e->pid, tid = e->tid;
  if (isnan(tid)) {
    unsigned h = 5381;
    for (size_t i = 0; i < e->tid_str.len; i++) h = h * 33 + (unsigned char)e->tid_str.s[i];
    tid = -1.0 - h;
  }
  for (int i = 0; i + 1 < c->tids.n; i += 2)
    if (c->tids.v[i] == pid && c->tids.v[i + 1] == tid) return i / 2;
  if (VEC_PUSH(c->tids, pid) || VEC_PUSH(c->tids, tid)) return -1;
  c->r->threads = c->tids.n / 2;
  return c->tids.n / 2 - 1;
}

/* ------------------------------------------------------ collectives */

/* Bytes of one element of a Kineto dtype name; 0 when unknown. */
static double dtype_bytes(const char *d) {
  static const struct {
    const char *name;
    double bytes;
  } t[] = {{"Float", 4},         {"float", 4},       {"Half", 2}, {"BFloat16", 2}, {"Double", 8},
           {"Long", 8},          {"Int", 4},         {"Byte", 1}, {"Char", 1},     {"Bool", 1},
           {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}, {"Short", 2}};
  for (size_t i = 0; d && i < sizeof t / sizeof t[0]; i++)
    if (!strcmp(d, t[i].name)) return t[i].bytes;
  return 0;
}

/* The sc_coll_op of a collective name as PyTorch writes it ("allreduce",
 * "_allgather_base", "reduce_scatter_tensor_coalesced", "all_to_allv")
 * or of an NCCL/RCCL kernel name (ncclKernel_AllReduce_RING_LL_...);
 * -1 when unknown. */
static int coll_op_of(const char *name) {
  static const struct {
    const char *key;
    int op;
  } t[] = {{"allreduce", SC_COLL_ALL_REDUCE},
           {"allgather", SC_COLL_ALL_GATHER},
           {"reducescatter", SC_COLL_REDUCE_SCATTER},
           {"alltoall", SC_COLL_ALL_TO_ALL},
           {"broadcast", SC_COLL_BROADCAST},
           {"sendrecv", SC_COLL_SEND_RECV},
           {"send", SC_COLL_SEND_RECV},
           {"recv", SC_COLL_SEND_RECV},
           {"reduce", SC_COLL_REDUCE}};
  char low[64];
  size_t n = 0;
  for (const char *s = name; s && *s && n + 1 < sizeof low; s++)
    if (*s != '_') low[n++] = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
  low[n] = '\0';
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strstr(low, t[i].key)) return t[i].op;
  return -1;
}

/* Collective name, message size and group size from a kernel's args
 * (the group falls back on the world size after loading). */
static void coll_args(const kin_ctx *c, const kin_ev *e, tg_gpu *g) {
  char cn[64] = "", dt[32] = "";
  if (e->coll.s) js_decode(&e->coll, cn, sizeof cn);
  if (e->dtype.s) js_decode(&e->dtype, dt, sizeof dt);
  const char *kn = tg_str(c->r, g->name), *under = strchr(kn, '_');
  g->coll_op = coll_op_of(cn[0] ? cn : under ? under + 1 : kn);
  double eb = dtype_bytes(dt);
  double elems = g->coll_op == SC_COLL_ALL_GATHER ? e->out : e->in;
  g->bytes = elems > 0 && eb > 0 ? elems * eb : 0;
  g->group = e->group > 0 && e->group < 1e9 ? (int)e->group : 0;
}

/* ----------------------------------------------------------- classes */

static int has(const char *s, const char *const *keys, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strstr(s, keys[i])) return 1;
  return 0;
}

/* The tg_class of a kernel by its name: GEMM and convolution (the tensor
 * cores), attention, else memory-bound. */
static int class_of(const char *name, int kind) {
  static const char *const gemm[] = {"gemm",    "Gemm",  "GEMM",  "cutlass", "xmma",    "cublas",
                                     "conv",    "Conv",  "wgrad", "dgrad",   "s884",    "h884",
                                     "s1688",   "h1688", "sm80_", "sm90_",   "ampere_", "volta_",
                                     "turing_", "Cijk_", "nvjet"};
  static const char *const attn[] = {"flash", "fmha", "attention", "Attention", "attn"};
  if (kind == TG_COMM) return TG_CL_COMM;
  if (kind == TG_MEMSET) return TG_CL_MEM;
  if (kind == TG_MEMCPY) return strstr(name, "DtoD") ? TG_CL_MEM : TG_CL_COPY;
  if (has(name, attn, sizeof attn / sizeof attn[0])) return TG_CL_ATTN;
  if (strstr(name, "bn_fw") || strstr(name, "bn_bw")) return TG_CL_MEM; /* cudnn batch norm */
  if (has(name, gemm, sizeof gemm / sizeof gemm[0])) return TG_CL_GEMM;
  return TG_CL_MEM;
}

/* ------------------------------------------------------------ events */

static int bad(const kin_ctx *c, size_t i, const char *key, const char *what) {
  return sc_error_set(c->err, SC_EINPUT, "%s: traceEvents[%zu]%s%s: %s", c->origin, i,
                      *key ? "." : "", key, what);
}

/* ts and dur of event i (us), checked finite and within what a clock
 * gives: |ts| <= 1e18 us (epoch microseconds are about 1.7e15), dur 0 or
 * 1e-6 us (a picosecond, no denormal) .. 1e13 us (115 days), so that no
 * sum of them overflows into an infinite or NaN result. */
static int times(const kin_ctx *c, const kin_ev *e, size_t i) {
  if (!e->ts_kind)
    return bad(c, i, "ts", "missing (a complete event needs its start, microseconds)");
  if (!e->dur_kind)
    return bad(c, i, "dur", "missing (a complete event, \"ph\": \"X\", needs its duration, "
                            "microseconds)");
  if (!(fabs(e->ts) <= 1e18))
    return bad(c, i, "ts", "expected a number of microseconds in -1e18..1e18");
  if (!(e->dur == 0 || (e->dur >= 1e-6 && e->dur <= 1e13)))
    return bad(c, i, "dur", "expected 0 or a number of microseconds in 1e-6..1e13");
  return SC_OK;
}

/* A cpu op: only ProfilerStep#N annotations are kept. */
/* Bytes of the first input of a cpu op from its args "Input Dims" (the
 * product of the first shape) and "Input type" (the first type); 0 when
 * either is missing or the type is not known. The spans were scanned
 * once already, so they are well-formed. */
static double first_input_bytes(const kin_ctx *c, const kin_ev *e) {
  static const struct {
    const char *name;
    double bytes;
  } t[] = {{"float", 4},         {"double", 8}, {"c10::Half", 2},          {"c10::BFloat16", 2},
           {"long int", 8},      {"int", 4},    {"short int", 2},          {"signed char", 1},
           {"unsigned char", 1}, {"bool", 1},   {"c10::Float8_e4m3fn", 1}, {"c10::Float8_e5m2", 1}};
  if (!e->dims || !e->types) return 0;
  js j;
  js_init(&j, e->types, (size_t)(c->js.end - e->types));
  js_str ty;
  if (js_eat(&j, '[') || js_string(&j, &ty)) return 0;
  double eb = 0, elems = 1, d;
  for (size_t k = 0; k < sizeof t / sizeof t[0]; k++)
    if (is(&ty, t[k].name)) eb = t[k].bytes;
  js_init(&j, e->dims, (size_t)(c->js.end - e->dims));
  if (js_eat(&j, '[') || js_eat(&j, '[')) return 0;
  if (js_peek(&j) == ']') return 0; /* a scalar or a list of tensors */
  do {
    if (js_number(&j, &d) || d < 0) return 0;
    elems *= d;
  } while (js_more(&j, ']') == 1);
  return eb * elems;
}

/* A "nccl:<collective>" annotation: its op and the size of its input,
 * for the collectives whose kernels do not say (tg_link). */
static int add_comm_annotation(kin_ctx *c, const kin_ev *e, size_t i) {
  int rc = times(c, e, i);
  if (rc) return rc;
  tg_comm_note n = {e->ts, e->dur, thread_of(c, e), coll_op_of(c->name + 5),
                    first_input_bytes(c, e)};
  if (n.thread < 0 || VEC_PUSH(c->r->notes, n)) return nomem(c);
  return SC_OK;
}

/* The process of the host events: the first numeric pid seen. */
static void note_pid(kin_ctx *c, const kin_ev *e) {
  if (c->r->pid < 0 && isfinite(e->pid) && e->pid >= 0) c->r->pid = e->pid;
}

static int add_cpu(kin_ctx *c, const kin_ev *e, size_t i) {
  note_pid(c, e);
  if (isfinite(e->ts) && isfinite(e->dur) && e->dur >= 0) { /* for etjoin.c */
    tg_op op = {e->ts, e->dur, thread_of(c, e), tg_hash(c->name, strlen(c->name))};
    if (op.thread < 0 || VEC_PUSH(c->r->ops, op)) return nomem(c);
  }
  if (!strncmp(c->name, "nccl:", 5)) return add_comm_annotation(c, e, i);
  if (strncmp(c->name, "ProfilerStep#", 13)) return c->r->ignored++, SC_OK;
  int rc = times(c, e, i);
  if (rc) return rc;
  tg_step s = {e->ts, e->dur, strtol(c->name + 13, NULL, 10), thread_of(c, e)};
  if (s.thread < 0 || VEC_PUSH(c->r->steps, s)) return nomem(c);
  return SC_OK;
}

static int add_runtime(kin_ctx *c, const kin_ev *e, size_t i) {
  note_pid(c, e);
  int rc = times(c, e, i);
  if (rc) return rc;
  tg_host h = {e->ts,
               e->dur,
               thread_of(c, e),
               tg_name(c->r, c->name, strlen(c->name)),
               TG_CALL,
               -1,
               0,
               -1,
               isnan(e->corr) ? -1 : e->corr,
               0,
               -1,
               0};
  if (isfinite(e->wait_uid) && isfinite(e->own) && e->own >= 0) /* stated by an export */
    h.has_wait = 1, h.wait_uid = e->wait_uid >= 0 ? e->wait_uid : -1, h.own = e->own;
  if (!strncmp(c->name, "hip", 3)) c->r->amd = 1;
  if (h.thread < 0 || h.name < 0 || VEC_PUSH(c->r->host, h)) return nomem(c);
  if (h.corr >= 0 && VEC_PUSH(c->corrs, ((tg_kv){h.corr, (int)i}))) return nomem(c);
  return SC_OK;
}

static int add_gpu(kin_ctx *c, const kin_ev *e, size_t i, kin_role role) {
  int rc = times(c, e, i);
  if (rc) return rc;
  const char *name = c->name;
  tg_gpu g = {.ts = e->ts, .dur = e->dur, .launch = -1, .coll_op = -1, .uid = -1};
  if (isfinite(e->uid) && e->uid >= 0) g.uid = e->uid;
  g.stream = (int)(!isnan(e->stream) && fabs(e->stream) < 1e9 ? e->stream
                   : !isnan(e->tid) && fabs(e->tid) < 1e9     ? e->tid
                                                              : 0);
  g.corr = isnan(e->corr) ? -1 : e->corr;
  g.kind = role == KR_MEMCPY ? TG_MEMCPY : role == KR_MEMSET ? TG_MEMSET : TG_KERNEL;
  if (g.kind == TG_KERNEL && (!strncmp(name, "nccl", 4) || !strncmp(name, "rccl", 4)))
    g.kind = TG_COMM;
  g.name = tg_name(c->r, name, strlen(name));
  if (g.name < 0) return nomem(c);
  if (g.kind == TG_COMM) coll_args(c, e, &g);
  g.cls = class_of(name, g.kind);
  g.fp32 = strstr(name, "sgemm") || strstr(name, "fp32") || strstr(name, "f32");
  if (VEC_PUSH(c->r->gpu, g)) return nomem(c);
  return SC_OK;
}

/* What a JSON value that starts with byte k is, for messages. */
static const char *kind_name(char k) {
  return k == '"' ? "a string" : k == '{' ? "an object" : k == '[' ? "an array"
         : k == 'n' ? "null" : "a boolean";
}

/* ts and dur of a complete event, when given, are JSON numbers (the
 * Chrome trace format's; PyTorch's profiler writes numbers): a string
 * "5" is refused, not read as one. */
static int time_types(const kin_ctx *c, const kin_ev *e, size_t i) {
  char buf[96];
  if (e->ts_kind && e->ts_kind != '#') {
    snprintf(buf, sizeof buf, "expected a number of microseconds, not %s", kind_name(e->ts_kind));
    return bad(c, i, "ts", buf);
  }
  if (e->dur_kind && e->dur_kind != '#') {
    snprintf(buf, sizeof buf, "expected a number of microseconds, not %s",
             kind_name(e->dur_kind));
    return bad(c, i, "dur", buf);
  }
  return SC_OK;
}

static int add_event(kin_ctx *c, const kin_ev *e, size_t i) {
  if (!is(&e->ph, "X")) return c->r->ignored++, SC_OK; /* flows, metadata, instants */
  int rc = time_types(c, e, i);
  if (rc) return rc;
  if (!e->name.s) return bad(c, i, "name", "expected a string");
  js_decode(&e->name, c->name, sizeof c->name);
  kin_role role = role_of(&e->cat);
  switch (role) {
    case KR_CPU:
      return add_cpu(c, e, i);
    case KR_RUNTIME:
      return add_runtime(c, e, i);
    case KR_KERNEL:
    case KR_MEMCPY:
    case KR_MEMSET:
      return add_gpu(c, e, i, role);
    case KR_UNKNOWN:
      if (!c->r->unknown++) js_decode(&e->cat, c->unknown_cat, sizeof c->unknown_cat);
      return SC_OK;
    default:
      return c->r->ignored++, SC_OK;
  }
}

/* ----------------------------------------------------------- scanning */

/* A number, or a string holding one (ROCm writes "stream": "0x0"); NAN
 * for other values, which are skipped. */
static int scan_num(js *j, double *out) {
  char ch = js_peek(j);
  *out = NAN;
  if (ch == '-' || (ch >= '0' && ch <= '9')) return js_number(j, out);
  if (ch != '"') return js_skip(j);
  js_str s;
  if (js_string(j, &s)) return -1;
  char buf[64], *end;
  js_decode(&s, buf, sizeof buf);
  double d = strtod(buf, &end);
  if (end != buf && !*end) *out = d;
  return 0;
}

/* ts or dur: a JSON number into *out (*kind '#'); another value is
 * skipped, *out NAN and *kind its first byte, for time_types() to refuse. */
static int scan_time(js *j, double *out, char *kind) {
  char ch = js_peek(j);
  *out = NAN;
  if (ch == '-' || (ch >= '0' && ch <= '9')) return *kind = '#', js_number(j, out);
  *kind = ch ? ch : '?';
  return js_skip(j);
}

/* A string member value; other kinds are skipped (left absent). */
static int scan_str(js *j, js_str *out) {
  if (js_peek(j) != '"') return out->s = NULL, js_skip(j);
  return js_string(j, out);
}

static int scan_args(js *j, kin_ev *e) {
  if (js_peek(j) != '{') return js_skip(j);
  j->p++;
  if (js_peek(j) == '}') return j->p++, 0;
  int more;
  do {
    js_str k;
    if (js_string(j, &k) || js_eat(j, ':')) return -1;
    int rc = is(&k, "correlation")        ? scan_num(j, &e->corr)
             : is(&k, "stream")           ? scan_num(j, &e->stream)
             : is(&k, "In msg nelems")    ? scan_num(j, &e->in)
             : is(&k, "Out msg nelems")   ? scan_num(j, &e->out)
             : is(&k, "Group size")       ? scan_num(j, &e->group)
             : is(&k, "stepcast op")      ? scan_num(j, &e->uid)
             : is(&k, "stepcast wait op") ? scan_num(j, &e->wait_uid)
             : is(&k, "stepcast own us")  ? scan_num(j, &e->own)
             : is(&k, "Collective name")  ? scan_str(j, &e->coll)
             : is(&k, "dtype")            ? scan_str(j, &e->dtype)
             : is(&k, "Input Dims")       ? (e->dims = (js_peek(j), j->p), js_skip(j))
             : is(&k, "Input type")       ? (e->types = (js_peek(j), j->p), js_skip(j))
                                          : js_skip(j);
    if (rc) return -1;
  } while ((more = js_more(j, '}')) == 1);
  return more;
}

/* One member of an event object. */
static int scan_member(js *j, const js_str *k, kin_ev *e) {
  if (is(k, "ph")) return scan_str(j, &e->ph);
  if (is(k, "cat")) return scan_str(j, &e->cat);
  if (is(k, "name")) return scan_str(j, &e->name);
  if (is(k, "ts")) return scan_time(j, &e->ts, &e->ts_kind);
  if (is(k, "dur")) return scan_time(j, &e->dur, &e->dur_kind);
  if (is(k, "pid")) return scan_num(j, &e->pid);
  if (is(k, "tid")) {
    if (js_peek(j) == '"') return e->tid = NAN, js_string(j, &e->tid_str);
    return scan_num(j, &e->tid);
  }
  if (is(k, "args")) return scan_args(j, e);
  return js_skip(j);
}

static int event_member(void *e, js *j, const js_str *k) { return scan_member(j, k, e) ? -1 : 0; }

/* Event i at the scanner: SC_OK, or an error code (a syntax error leaves
 * js.err set and returns SC_EINPUT without a message). */
static int scan_event(kin_ctx *c, size_t i) {
  js *j = &c->js;
  kin_ev e = {.ts = NAN,
              .dur = NAN,
              .pid = NAN,
              .tid = NAN,
              .corr = NAN,
              .stream = NAN,
              .in = NAN,
              .out = NAN,
              .group = NAN,
              .uid = NAN,
              .wait_uid = NAN,
              .own = NAN};
  if (js_peek(j) != '{') {
    if (js_skip(j)) return SC_EINPUT;
    return bad(c, i, "", "expected an object (one trace event)");
  }
  j->p++;
  return js_members(j, event_member, &e) ? SC_EINPUT : add_event(c, &e, i);
}

static int event_elem(void *c, js *j, size_t i) {
  (void)j;
  return scan_event(c, i);
}

static int scan_events(kin_ctx *c) {
  int rc = js_array(&c->js, event_elem, c);
  return rc < 0 ? SC_EINPUT : rc;
}

/* distributedInfo's rank and world_size, when present: a whole number
 * of ranks in 1..1e7 and a rank below it (a rank outside the world
 * would order and join the files wrongly); absent: -1 and 0. */
static int dist_info(kin_ctx *c, const json_t *v) {
  tg_rank *r = c->r;
  const json_t *jw = json_object_get(v, "world_size"), *jr = json_object_get(v, "rank");
  int has_w = jw && !json_is_null(jw), has_r = jr && !json_is_null(jr); /* null: absent */
  double w = num(v, "world_size", NAN), k = num(v, "rank", NAN);
  if (has_w && !(w >= 1 && w <= 1e7 && w == floor(w)))
    return sc_error_set(c->err, SC_EINPUT,
                        "%s: distributedInfo.world_size: expected a whole number of ranks in "
                        "1..10000000",
                        c->origin);
  if (has_r && !(k >= 0 && k == floor(k) && k < (has_w ? w : 1e7)))
    return sc_error_set(c->err, SC_EINPUT,
                        "%s: distributedInfo.rank: expected a whole number in 0..%.0f (below "
                        "world_size)",
                        c->origin, (has_w ? w : 1e7) - 1);
  r->rank = has_r ? (int)k : -1;
  r->world = has_w ? (int)w : 0;
  return SC_OK;
}

/* deviceProperties[0] and distributedInfo (small: parsed as a tree). */
static int header(kin_ctx *c, const js_str *key, const char *from, const char *to) {
  json_t *v =
      json_loadb(from, (size_t)(to - from), JSON_DECODE_INT_AS_REAL | JSON_DECODE_ANY, NULL);
  tg_rank *r = c->r;
  int rc = SC_OK;
  if (is(key, "deviceProperties")) {
    const json_t *dp = json_array_get(v, 0);
    const char *gname = str(dp, "name");
    snprintf(r->device, sizeof r->device, "%s", gname ? gname : "");
    int major = (int)num(dp, "computeMajor", 0), minor = (int)num(dp, "computeMinor", 0);
    r->amd = r->amd || strstr(r->device, "AMD") || strstr(r->device, "Instinct") ||
             strstr(r->device, "Radeon");
    r->arch = r->amd || major < 0 || major > 99 || minor < 0 || minor > 9 ? 0 : major * 10 + minor;
  } else {
    rc = dist_info(c, v);
  }
  json_decref(v);
  return rc;
}

/* Operations that overlap the one before them on their stream (clock
 * jitter, programmatic dependent launch, an edited trace): the replay
 * runs them one after the other, which a warning says. */
static void warn_overlaps(const kin_ctx *c) {
  double most, at;
  int stream, n = tg_stream_overlaps(c->r, &most, &stream, &at);
  if (n)
    tg_warn(c->j,
            "%s: %d GPU operations start up to %.3g us before the one before them on their "
            "stream ended (the first on stream %d at ts %.17g): the replay runs each stream's "
            "operations one after the other",
            c->origin, n, most, stream, at);
}

/* The top-level object: traceEvents scanned, the header parsed, an
 * execution trace ("nodes") recognised. */
static int scan_root_object(kin_ctx *c, int *events, int *nodes) {
  js *j = &c->js;
  j->p++;
  int more = js_peek(j) == '}' ? (j->p++, 0) : 1;
  while (more == 1) {
    js_str k;
    if (js_string(j, &k) || js_eat(j, ':')) return SC_EINPUT;
    int rc;
    if (is(&k, "traceEvents"))
      rc = scan_events(c), *events = 1;
    else {
      const char *from = (js_peek(j), j->p);
      rc = js_skip(j) ? SC_EINPUT : SC_OK;
      if (!rc && (is(&k, "deviceProperties") || is(&k, "distributedInfo")))
        rc = header(c, &k, from, j->p);
      if (is(&k, "nodes")) *nodes = *from == '[' ? 1 : 2; /* 2: not an array */
    }
    if (rc) return rc;
    more = js_more(j, '}');
  }
  return more < 0 ? SC_EINPUT : SC_OK;
}

static int syntax_error(kin_ctx *c) {
  int line, col;
  js_where(&c->js, c->js.err_at, &line, &col);
  return sc_error_set(c->err, SC_EINPUT, "%s:%d:%d: invalid JSON: expected %s%s", c->origin, line,
                      col, c->js.err ? c->js.err : "a value", js_end_note(&c->js));
}

/* Two host calls (cuda_runtime, cuda_driver) with one correlation id: the
 * GPU operations of that id would be joined with the later one. PyTorch's
 * profiler gives each call its own id within a process (CUPTI's), so a
 * duplicate means files or processes merged into one: refused, naming
 * both events. GPU operations may share an id: the kernels of one
 * cudaGraphLaunch do. */
static int unique_corrs(kin_ctx *c) {
  if (c->corrs.n < 2) return SC_OK; /* none yet: corrs.v is NULL */
  qsort(c->corrs.v, (size_t)c->corrs.n, sizeof *c->corrs.v, tg_kv_cmp);
  for (int k = 1; k < c->corrs.n; k++)
    if (c->corrs.v[k].key == c->corrs.v[k - 1].key)
      return sc_error_set(c->err, SC_EINPUT,
                          "%s: traceEvents[%d].args.correlation: %.17g is also that of "
                          "traceEvents[%d]: two host calls with one correlation id (PyTorch's "
                          "profiler gives each its own within a process: give one process's "
                          "trace per file)",
                          c->origin, c->corrs.v[k].idx, c->corrs.v[k].key, c->corrs.v[k - 1].idx);
  return SC_OK;
}

static int kin_root(kin_ctx *c) {
  int events = 0, nodes = 0, rc;
  char first = js_peek(&c->js);
  if (first == '[')
    rc = scan_events(c), events = 1;
  else if (first == '{')
    rc = scan_root_object(c, &events, &nodes);
  else
    rc = (js_eat(&c->js, '{'), SC_EINPUT);
  if (!rc && js_peek(&c->js) != '\0')
    rc = (c->js.err = "the end of the text", c->js.err_at = c->js.p, SC_EINPUT);
  if (rc == SC_EINPUT && c->js.err) return syntax_error(c);
  if (rc) return rc;
  if (!events && nodes == 2)
    return sc_error_set(c->err, SC_EINPUT,
                        "%s: nodes: expected an array of operator nodes (a PyTorch execution "
                        "trace), or traceEvents (a profiler trace)",
                        c->origin);
  if (!events && nodes)
    return sc_error_set(c->err, SC_EINPUT,
                        "%s: a PyTorch execution trace (\"nodes\"), not a profiler trace: "
                        "execution traces are read by src/trace/pyet.c and joined with the "
                        "Kineto trace of the same process (docs/trace.md)",
                        c->origin);
  if (!events)
    return sc_error_set(c->err, SC_EINPUT,
                        "%s: traceEvents: missing (expected an array of trace events: is this a "
                        "PyTorch profiler trace?)",
                        c->origin);
  for (int i = 0; i < c->r->gpu.n; i++)
    if (c->r->gpu.v[i].kind == TG_COMM && c->r->gpu.v[i].group <= 0)
      c->r->gpu.v[i].group = c->r->world;
  if (c->r->unknown && c->j)
    tg_warn(c->j, "%s: %ld events of unknown category skipped (first: \"%s\")", c->origin,
            c->r->unknown, c->unknown_cat);
  if ((rc = unique_corrs(c))) return rc;
  rc = tg_link(c->r, c->err);
  if (!rc && c->j) warn_overlaps(c);
  return rc;
}

int kin_load_buffer(const char *buf, size_t len, const char *origin, tg_rank *r, tg_job *j,
                    sc_error *err) {
  kin_ctx *c = mem_calloc(1, sizeof *c);
  if (!c) return sc_error_set(err, SC_ENOMEM, "%s: out of memory", origin ? origin : "<buffer>");
  *c = (kin_ctx){.origin = origin ? origin : "<buffer>", .r = r, .j = j, .err = err};
  snprintf(r->path, sizeof r->path, "%s", c->origin);
  r->rank = -1, r->pid = -1;
  js_init(&c->js, buf ? buf : "", buf ? len : 0);
  int rc = kin_root(c);
  mem_free(c->tids.v);
  mem_free(c->corrs.v);
  mem_free(c);
  return rc;
}

/* What the first bytes of a trace say, once there is one that is not
 * white space: 1 a JSON document or a Chakra ET, -1 neither (so that
 * /dev/zero or a binary file is refused at once, not read to the limit);
 * 0 while undecided. */
static int first_look(const char *b, size_t n) {
  size_t i = 0;
  if (n >= 3 && !memcmp(b, "\xEF\xBB\xBF", 3)) i = 3; /* a UTF-8 byte-order mark */
  while (i < n && b[i] && strchr(" \t\r\n", b[i])) i++;
  if (i == n) return 0;
  if (b[i] == '{' || b[i] == '[') return 1;
  return ch_sniff((const unsigned char *)b, n) ? 1 : -1;
}

/* Bytes of a trace read into memory at most (the buffer's int index). */
#define KIN_MAX_BYTES 2147483647L

int kin_read_file(const char *path, char **buf, size_t *len, sc_error *err) {
  *buf = NULL, *len = 0;
  int frc = file_check(path, "trace", err);
  if (frc) return frc;
  gzFile f = gzopen(path, "rb");
  if (!f) return sc_error_set(err, SC_EIO, "%s: cannot read the trace (%s)", path, strerror(errno));
  gzbuffer(f, 1 << 20); /* fewer, larger reads */
  char *b = NULL;
  int cap = 0, got, looked = 0;
  size_t n = 0;
  do {
    /* the buffer is indexed by int: a trace (decompressed) of 2 GiB or
     * more is refused as too large, not reported as out of memory */
    if ((long)n + (1L << 20) + 1 > KIN_MAX_BYTES) {
      mem_free(b), gzclose(f);
      return sc_error_set(err, SC_EINPUT,
                          "%s: the trace holds more than %ld bytes (decompressed); the limit is "
                          "%ld bytes (2 GiB; docs/input.md, Limits): trace fewer steps",
                          path, (long)n, KIN_MAX_BYTES);
    }
    if (vec_grow((void **)&b, &cap, (long)n + (1L << 20) + 1, 1)) {
      mem_free(b), gzclose(f);
      return sc_error_set(err, SC_ENOMEM, "%s: out of memory reading the trace", path);
    }
    got = gzread(f, b + n, (unsigned)((size_t)cap - 1 - n));
    if (got > 0) n += (size_t)got;
    if (!looked && (looked = first_look(b, n)) < 0) {
      unsigned first = (unsigned char)b[0];
      int tar = n >= 262 && !memcmp(b + 257, "ustar", 5); /* POSIX tar's magic */
      mem_free(b), gzclose(f);
      return sc_error_set(err, SC_EINPUT,
                          "%s: neither a JSON trace (a '{' or '[' first) nor a Chakra ET: it "
                          "starts with byte 0x%02x%s", path, first,
                          tar ? " (a tar archive: unpack it and give the trace files in it)" : "");
    }
  } while (got > 0);
  int zerr = 0;
  const char *why = gzerror(f, &zerr);
  if (got < 0 || zerr != Z_OK) {
    sc_error_set(err, SC_EINPUT, "%s: truncated or corrupt gzip data (%s)", path, why);
    mem_free(b), gzclose(f);
    return SC_EINPUT;
  }
  gzclose(f);
  b[n] = '\0';
  *buf = b, *len = n;
  return SC_OK;
}
