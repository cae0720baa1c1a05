/*
 * scenario_args.c -- scenario arguments shared by predict and search.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scenario_args.h"

/* Short flags and the key path each one sets. */
typedef struct flag { const char *flag; const char *path; } flag;
static const flag flags[] = {
    {"-m", "model"},           {"--model", "model"},
    {"-g", "cluster.gpu"},     {"--gpu", "cluster.gpu"},
    {"-n", "cluster.gpus"},    {"--gpus", "cluster.gpus"},
    {"--nodes", "cluster.nodes"},
    {"--nic-gbps", "cluster.nic_Gbps"}, {"--nic", "cluster.nic_Gbps"}, /* collective's, trace's name */
    {"--tp", "plan.tp"},       {"--pp", "plan.pp"},   {"--dp", "plan.dp"},
    {"--cp", "plan.cp"},       {"--ep", "plan.ep"},   {"--vpp", "plan.vpp"},
    {"--sp", "plan.sp"},       {"--zero", "plan.zero"},
    {"--mb", "plan.micro_batch"}, {"--gb", "plan.global_batch"},
    {"--schedule", "plan.schedule"}, {"--recompute", "plan.recompute"},
    {"--dtype", "plan.dtype"}, {"--seq", "model.seq"},
    {"--framework", "plan.framework"},
};
#define N_FLAGS (sizeof flags / sizeof flags[0])

int scen_args_init(scen_args *a, int argc) {
  memset(a, 0, sizeof *a);
  a->fmt = SC_FORMAT_TABLE;
  a->ov = calloc((size_t)argc + 1, sizeof *a->ov);
  a->spelled = calloc((size_t)argc + 1, sizeof *a->spelled);
  return a->ov && a->spelled ? 0 : 3;
}

void scen_args_free(scen_args *a) {
  for (size_t i = 0; i < a->n_ov; i++) {
    free(a->ov[i]);
    if (a->spelled) free(a->spelled[i]);
  }
  free(a->ov);
  free(a->spelled);
  a->ov = a->spelled = NULL;
  a->n_ov = 0;
}

int scen_args_take(scen_args *a, const char *cmd, int argc, char **argv, int *i) {
  const char *arg = argv[*i];
  const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
  if (!strcmp(arg, "--format")) {
    int f = cli_format(cmd, val, 1);
    if (f < 0) return 2;
    a->fmt = (sc_format)f;
    (*i)++;
    return 1;
  }
  if (!strcmp(arg, "--set")) {
    if (!val || !strchr(val, '=')) {
      fprintf(stderr, "stepcast %s: --set expects KEY=VALUE, e.g. --set plan.tp=8\n", cmd);
      return 2;
    }
    a->ov[a->n_ov++] = strdup(val);
    (*i)++;
    return 1;
  }
  for (size_t k = 0; k < N_FLAGS; k++) {
    if (strcmp(arg, flags[k].flag)) continue;
    if (!val) {
      fprintf(stderr, "stepcast %s: %s expects a value (sets %s)\n", cmd, arg, flags[k].path);
      return 2;
    }
    size_t len = strlen(flags[k].path) + strlen(val) + 2;
    char *o = malloc(len);
    if (!o) return 2;
    snprintf(o, len, "%s=%s", flags[k].path, val);
    size_t slen = strlen(arg) + strlen(val) + 2;
    char *sp = malloc(slen);
    if (sp) snprintf(sp, slen, "%s %s", arg, val);
    a->spelled[a->n_ov] = sp; /* NULL when out of memory: the key path is named */
    a->ov[a->n_ov++] = o;
    (*i)++;
    return 1;
  }
  if (arg[0] == '-') return 0;
  if (a->file) {
    fprintf(stderr, "stepcast %s: one scenario file only (got '%s' and '%s')\n", cmd, a->file,
            arg);
    return 2;
  }
  a->file = arg;
  return 1;
}

int scen_args_take_last(scen_args *a, const char *cmd, int argc, char **argv, int *i) {
  int took = scen_args_take(a, cmd, argc, argv, i);
  if (took == 1) return 0;
  return took == 0 ? cli_unknown_option(cmd, argv[*i]) : 2;
}

/* Print "stepcast CMD: MSG", naming a flag as typed where the library's
 * message blames the override it became: '(set by override
 * "cluster.gpus=0")' reads '(set by -n 0)'. */
static void print_load_error(const scen_args *a, const char *cmd, const char *msg) {
  static const char tag[] = " (set by override \"";
  const char *at = strstr(msg, tag);
  for (size_t i = 0; at && i < a->n_ov; i++) {
    const char *who = at + sizeof tag - 1;
    size_t n = strlen(a->ov[i]);
    if (!a->spelled[i] || strncmp(who, a->ov[i], n) || strcmp(who + n, "\")")) continue;
    fprintf(stderr, "stepcast %s: %.*s (set by %s)\n", cmd, (int)(at - msg), msg, a->spelled[i]);
    return;
  }
  fprintf(stderr, "stepcast %s: %s\n", cmd, msg);
}

/* 1 when an override sets tp or pp, the degrees the default's plan
 * brings that every other follows from (dp, and ep through dp*cp). */
static int sets_degrees(const scen_args *a) {
  static const char *const keys[] = {"plan.tp=", "plan.pp=", "plan.pp_layout="};
  for (size_t i = 0; i < a->n_ov; i++)
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
      if (!strncmp(a->ov[i], keys[k], strlen(keys[k]))) return 1;
  return 0;
}

/* Before a degree error on the built-in default with another model or GPU
 * count and no degrees given: say where the degrees came from (the
 * default's GPT-3 175B plan) and what to do, rather than leave the user
 * to guess why "pp 16" appears. predict only: search walks the degrees. */
static void default_plan_hint(const scen_args *a, const char *cmd, const char *msg) {
  if (a->file || a->base || strcmp(cmd, "predict") || !a->n_ov || sets_degrees(a)) return;
  if (!strstr(msg, "tp*pp") && !strstr(msg, "plan.tp:") && !strstr(msg, "plan.pp:") &&
      !strstr(msg, "dp*cp"))
    return;
  sc_scenario d;
  sc_scenario_default(&d);
  fprintf(stderr,
          "stepcast %s: note: without a scenario file the plan is the built-in default's "
          "(%s on %d GPUs: tp %d, pp %d); give --tp/--pp/--dp for this model and cluster, or run "
          "`stepcast search` with the same options for the fastest plan that fits\n",
          cmd, d.model.name, d.cluster.gpus, d.plan.tp, d.plan.pp);
}

int scen_args_load(const scen_args *a, const char *cmd, sc_scenario *s) {
  sc_error err = {0};
  const char *const *ov = (const char *const *)a->ov;
  cli_ov_note_repeats(cmd, ov, (const char *const *)a->spelled, a->n_ov);
  int rc = a->file ? sc_scenario_load_file_ex(s, a->file, ov, a->n_ov, a->load_flags, &err)
                   : sc_scenario_load_string_ex(s, a->base ? a->base : "{}", "<default scenario>", ov, a->n_ov,
                                                a->load_flags, &err);
  if (rc == SC_OK) return 0;
  default_plan_hint(a, cmd, err.msg); /* before the error, which stays the last line */
  print_load_error(a, cmd, err.msg);
  return rc == SC_EIO ? 3 : 2;
}

/* 1 when name is in the NULL-terminated list (NULL: none). */
static int listed(const char *name, const char *const *list) {
  for (size_t i = 0; list && list[i]; i++)
    if (!strcmp(name, list[i])) return 1;
  return 0;
}

void scen_args_help(const char *const *except) {
  if (!listed("SCENARIO.json", except))
    printf("  SCENARIO.json         the scenario (default: GPT-3 175B on 1,024 A100 80 GB)\n");
  printf("  --set KEY=VALUE       set a key path, e.g. --set plan.tp=8 (repeatable)\n");
  for (size_t i = 0; i < N_FLAGS; i++) {
    if (listed(flags[i].flag, except)) continue;
    /* an alias beside it (-m, --model) shares its line */
    int alias = i + 1 < N_FLAGS && !strcmp(flags[i + 1].path, flags[i].path) &&
                !listed(flags[i + 1].flag, except);
    char names[48];
    snprintf(names, sizeof names, "%s%s%s", flags[i].flag, alias ? ", " : "",
             alias ? flags[i + 1].flag : "");
    printf("  %-20s  same as --set %s=VALUE\n", names, flags[i].path);
    i += (size_t)alias;
  }
  printf("  --format table|json|csv   output format (default table)\n");
}
