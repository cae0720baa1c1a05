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

#include "core/mem.h"
#include "core/vec.h"

/* One parse: where, and what to report to. */
typedef struct kin_ctx {
  const char *origin;
  tg_rank *r;
  tg_job *j;
  sc_error *err;
  VEC(double) tids;     /* (pid, tid) of each host thread seen, pairs */
  char unknown_cat[64]; /* the first unknown category, for the warning */
} kin_ctx;

/* What an event's category makes of it. */
typedef enum kin_role { KR_IGNORE = 0, KR_CPU, KR_RUNTIME, KR_KERNEL, KR_MEMCPY, KR_MEMSET, KR_UNKNOWN } kin_role;

static const struct {
  const char *cat;
  kin_role role;
} kin_cats[] = {
    {"cpu_op", KR_CPU},          {"Operator", KR_CPU},         {"user_annotation", KR_CPU},
    {"python_function", KR_IGNORE}, {"cuda_runtime", KR_RUNTIME}, {"Runtime", KR_RUNTIME},
    {"cuda_driver", KR_RUNTIME}, {"kernel", KR_KERNEL},        {"Kernel", KR_KERNEL},
    {"gpu_memcpy", KR_MEMCPY},   {"Memcpy", KR_MEMCPY},        {"gpu_memset", KR_MEMSET},
    {"Memset", KR_MEMSET},       {"gpu_user_annotation", KR_IGNORE}, {"Trace", KR_IGNORE},
    {"overhead", KR_IGNORE},     {"cpu_instant_event", KR_IGNORE}, {"python_function", KR_IGNORE},
    {"user_annotation_gpu", KR_IGNORE}, {"ac2g", KR_IGNORE},  {"fwdbwd", KR_IGNORE},
};

static kin_role role_of(const char *cat) {
  if (!cat) return KR_IGNORE;
  for (size_t i = 0; i < sizeof kin_cats / sizeof kin_cats[0]; i++)
    if (!strcmp(cat, kin_cats[i].cat)) return kin_cats[i].role;
  return KR_UNKNOWN;
}

static int nomem(const kin_ctx *c) {
  return sc_error_set(c->err, SC_ENOMEM, "%s: out of memory while reading the trace", c->origin);
}

/* A number member of o (a JSON number, or a string holding one, as some
 * ROCm args are); def when absent or not a number. */
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

/* Index of the host thread (pid, tid) of event e; tid may be a number or
 * a string (hashed to a number). -1 when out of memory. */
static int thread_of(kin_ctx *c, const json_t *e) {
  double pid = num(e, "pid", 0), tid = num(e, "tid", NAN);
  if (isnan(tid)) {
    const char *s = str(e, "tid");
    unsigned h = 5381;
    for (; s && *s; s++) h = h * 33 + (unsigned char)*s;
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
  } t[] = {{"Float", 4},  {"float", 4}, {"Half", 2},  {"BFloat16", 2}, {"Double", 8},
           {"Long", 8},   {"Int", 4},   {"Byte", 1},  {"Char", 1},     {"Bool", 1},
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
  } t[] = {{"allreduce", SC_COLL_ALL_REDUCE},     {"allgather", SC_COLL_ALL_GATHER},
           {"reducescatter", SC_COLL_REDUCE_SCATTER}, {"alltoall", SC_COLL_ALL_TO_ALL},
           {"broadcast", SC_COLL_BROADCAST},       {"sendrecv", SC_COLL_SEND_RECV},
           {"send", SC_COLL_SEND_RECV},            {"recv", SC_COLL_SEND_RECV},
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

/* Collective name, message size and group size from a kernel's args. */
static void coll_args(const kin_ctx *c, const json_t *args, tg_gpu *g) {
  const char *cn = str(args, "Collective name");
  const char *kn = tg_str(c->r, g->name);
  const char *under = strchr(kn, '_');
  g->coll_op = coll_op_of(cn ? cn : under ? under + 1 : kn);
  double in = num(args, "In msg nelems", 0), out = num(args, "Out msg nelems", 0);
  double eb = dtype_bytes(str(args, "dtype"));
  double elems = g->coll_op == SC_COLL_ALL_GATHER ? out : in;
  g->bytes = elems > 0 && eb > 0 ? elems * eb : 0;
  g->group = (int)num(args, "Group size", 0);
  if (g->group <= 0 && c->r->world > 0) g->group = c->r->world;
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
  static const char *const gemm[] = {"gemm", "Gemm", "GEMM", "cutlass", "xmma", "cublas",
                                     "conv", "Conv", "wgrad", "dgrad", "s884", "h884",
                                     "s1688", "h1688", "sm80_", "sm90_", "ampere_", "volta_",
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
  return sc_error_set(c->err, SC_EINPUT, "%s: traceEvents[%zu].%s: %s", c->origin, i, key, what);
}

/* ts and dur of event i (us), checked finite, dur >= 0. */
static int times(const kin_ctx *c, const json_t *e, size_t i, double *ts, double *dur) {
  *ts = num(e, "ts", NAN), *dur = num(e, "dur", NAN);
  if (!isfinite(*ts)) return bad(c, i, "ts", "expected a number (microseconds)");
  if (!isfinite(*dur) || *dur < 0) return bad(c, i, "dur", "expected a number >= 0 (microseconds)");
  return SC_OK;
}

/* A cpu op: only ProfilerStep#N annotations are kept. */
static int add_cpu(kin_ctx *c, const json_t *e, const char *name, size_t i) {
  if (strncmp(name, "ProfilerStep#", 13)) return c->r->ignored++, SC_OK;
  tg_step s;
  int rc = times(c, e, i, &s.ts, &s.dur);
  if (rc) return rc;
  s.number = strtol(name + 13, NULL, 10);
  s.thread = thread_of(c, e);
  if (s.thread < 0 || VEC_PUSH(c->r->steps, s)) return nomem(c);
  return SC_OK;
}

static int add_runtime(kin_ctx *c, const json_t *e, const char *name, size_t i) {
  tg_host h = {0, 0, 0, 0, TG_CALL, -1, 0, -1, -1};
  int rc = times(c, e, i, &h.ts, &h.dur);
  if (rc) return rc;
  const json_t *args = json_object_get(e, "args");
  h.corr = num(args, "correlation", -1);
  h.thread = thread_of(c, e);
  h.name = tg_name(c->r, name, strlen(name));
  if (!strncmp(name, "hip", 3)) c->r->amd = 1;
  if (h.thread < 0 || h.name < 0 || VEC_PUSH(c->r->host, h)) return nomem(c);
  return SC_OK;
}

static int add_gpu(kin_ctx *c, const json_t *e, const char *name, size_t i, kin_role role) {
  tg_gpu g = {0};
  int rc = times(c, e, i, &g.ts, &g.dur);
  if (rc) return rc;
  const json_t *args = json_object_get(e, "args");
  g.stream = (int)num(args, "stream", num(e, "tid", 0));
  g.corr = num(args, "correlation", -1);
  g.launch = -1, g.coll_op = -1;
  g.kind = role == KR_MEMCPY ? TG_MEMCPY : role == KR_MEMSET ? TG_MEMSET : TG_KERNEL;
  if (g.kind == TG_KERNEL && (!strncmp(name, "nccl", 4) || !strncmp(name, "rccl", 4)))
    g.kind = TG_COMM;
  g.name = tg_name(c->r, name, strlen(name));
  if (g.name < 0) return nomem(c);
  if (g.kind == TG_COMM) coll_args(c, args, &g);
  g.cls = class_of(name, g.kind);
  g.fp32 = strstr(name, "sgemm") || strstr(name, "fp32") || strstr(name, "f32");
  if (VEC_PUSH(c->r->gpu, g)) return nomem(c);
  return SC_OK;
}

static int add_event(kin_ctx *c, const json_t *e, size_t i) {
  if (!json_is_object(e)) return bad(c, i, "", "expected an object (one trace event)");
  const char *ph = str(e, "ph");
  if (!ph || strcmp(ph, "X")) return c->r->ignored++, SC_OK; /* flows, metadata, instants */
  const char *name = str(e, "name"), *cat = str(e, "cat");
  if (!name) return bad(c, i, "name", "expected a string");
  kin_role role = role_of(cat);
  switch (role) {
  case KR_CPU: return add_cpu(c, e, name, i);
  case KR_RUNTIME: return add_runtime(c, e, name, i);
  case KR_KERNEL:
  case KR_MEMCPY:
  case KR_MEMSET: return add_gpu(c, e, name, i, role);
  case KR_UNKNOWN:
    if (!c->r->unknown++) snprintf(c->unknown_cat, sizeof c->unknown_cat, "%s", cat);
    return SC_OK;
  default: return c->r->ignored++, SC_OK;
  }
}

/* deviceProperties[0] and distributedInfo. */
static void header(kin_ctx *c, const json_t *root) {
  const json_t *dp = json_array_get(json_object_get(root, "deviceProperties"), 0);
  const char *gname = str(dp, "name");
  snprintf(c->r->device, sizeof c->r->device, "%s", gname ? gname : "");
  int major = (int)num(dp, "computeMajor", 0), minor = (int)num(dp, "computeMinor", 0);
  c->r->amd = strstr(c->r->device, "AMD") || strstr(c->r->device, "Instinct") || strstr(c->r->device, "Radeon");
  c->r->arch = c->r->amd ? 0 : major * 10 + minor;
  const json_t *di = json_object_get(root, "distributedInfo");
  c->r->rank = (int)num(di, "rank", -1);
  c->r->world = (int)num(di, "world_size", 0);
}

static int kin_root(kin_ctx *c, const json_t *root) {
  const json_t *ev = json_is_array(root) ? root : json_object_get(root, "traceEvents");
  if (!ev && json_is_array(json_object_get(root, "nodes")))
    return sc_error_set(c->err, SC_EINPUT,
                        "%s: a PyTorch execution trace (schema %s): stepcast reads the PyTorch "
                        "profiler (Kineto) trace of the same run; execution traces are not read "
                        "yet (docs/trace.md)",
                        c->origin, str(root, "schema") ? str(root, "schema") : "unknown");
  if (!json_is_array(ev))
    return sc_error_set(c->err, SC_EINPUT,
                        "%s: traceEvents: expected an array of trace events (is this a PyTorch "
                        "profiler trace? an execution trace has \"nodes\" instead)",
                        c->origin);
  if (json_is_object(root)) header(c, root);
  for (size_t i = 0; i < json_array_size(ev); i++) {
    int rc = add_event(c, json_array_get(ev, i), i);
    if (rc) return rc;
  }
  if (c->r->unknown && c->j)
    tg_warn(c->j, "%s: %ld events of unknown category skipped (first: \"%s\")", c->origin,
            c->r->unknown, c->unknown_cat);
  return tg_link(c->r, c->err);
}

int kin_load_buffer(const char *buf, size_t len, const char *origin, tg_rank *r, tg_job *j,
                    sc_error *err) {
  kin_ctx c = {origin ? origin : "<buffer>", r, j, err, {0}, ""};
  snprintf(r->path, sizeof r->path, "%s", c.origin);
  json_error_t je;
  json_t *root = json_loadb(buf ? buf : "", buf ? len : 0, JSON_DECODE_INT_AS_REAL, &je);
  if (!root && json_error_code(&je) == json_error_out_of_memory) return nomem(&c);
  if (!root)
    return sc_error_set(err, SC_EINPUT, "%s:%d:%d: invalid JSON: %s", c.origin, je.line,
                        je.column, je.text);
  int rc = kin_root(&c, root);
  json_decref(root);
  mem_free(c.tids.v);
  return rc;
}

/* Read path through zlib (which passes plain files through): *buf
 * (mem_free it) holds *len bytes and a NUL. */
static int read_gz(const char *path, char **buf, size_t *len, sc_error *err) {
  *buf = NULL, *len = 0;
  gzFile f = gzopen(path, "rb");
  if (!f) return sc_error_set(err, SC_EIO, "%s: cannot read the trace (%s)", path, strerror(errno));
  char *b = NULL;
  int cap = 0, got;
  size_t n = 0;
  do {
    if (vec_grow((void **)&b, &cap, (long)n + 65537, 1)) {
      mem_free(b), gzclose(f);
      return sc_error_set(err, SC_ENOMEM, "%s: out of memory (or over 2 GiB) reading the trace", path);
    }
    got = gzread(f, b + n, (unsigned)((size_t)cap - 1 - n));
    if (got > 0) n += (size_t)got;
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

int kin_load_file(const char *path, tg_rank *r, tg_job *j, sc_error *err) {
  char *buf;
  size_t len;
  int rc = read_gz(path, &buf, &len, err);
  if (rc) return rc;
  rc = kin_load_buffer(buf, len, path, r, j, err);
  mem_free(buf);
  return rc;
}
