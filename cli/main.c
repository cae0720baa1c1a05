/*
 * main.c -- the stepcast command-line tool: dispatch to a subcommand.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_recsys(int argc, char **argv); /* cmd_recsys.c */
#include "stepcast.h"

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *help;
} command;

static const command commands[] = {
    {"predict", cmd_predict, "predict step time, throughput, MFU and memory of a scenario"},
    {"dp", cmd_dp, "every data-parallel scheme (PS, all-reduce, gossip) for a job, fastest first"},
    {"search", cmd_search, "the fastest parallel plans that fit, for a model, cluster and batch"},
    {"validate", cmd_validate, "predict published measurements (CSV) and report the error"},
    {"collective", cmd_collective, "nccl-tests-like table of a collective on a topology"},
    {"topo", cmd_topo, "describe, check or export (DOT) a topology"},
    {"trace", cmd_trace, "replay PyTorch profiler traces of a job, what bounds its step, what-if"},
    {"recsys", cmd_recsys, "recommendation models: embedding sharding time, memory, planner"},
    {"presets", cmd_presets, "list the GPU, model and cluster presets"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out) {
  fprintf(out, "usage: stepcast COMMAND [ARGS]   (stepcast COMMAND --help for details)\n\n");
  for (size_t i = 0; i < N_COMMANDS; i++)
    fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].help);
  fprintf(out, "\nWith no command, `stepcast` runs `stepcast predict` on the built-in default\n"
               "(GPT-3 175B on 1,024 A100 80 GB).\n");
}

/* The exit code of a command that returned rc, after making sure its
 * standard output was written (a full disk or a closed pipe is an I/O
 * error, exit 3, not a success). */
static int finish(int rc) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "stepcast: cannot write the output (standard output)\n");
    return rc ? rc : 3;
  }
  return rc;
}

/* The command `word` most likely meant ("pred", "colective": the
 * loaders' "did you mean", sc_name_suggest), or NULL. */
static const char *near_command(const char *word) {
  const char *names[N_COMMANDS];
  for (size_t i = 0; i < N_COMMANDS; i++) names[i] = commands[i].name;
  return sc_name_suggest(word, names, N_COMMANDS);
}

static int dispatch(int argc, char **argv) {
  const char *near;
  if (argc < 2) {
    char *args[] = {"predict", NULL};
    return cmd_predict(1, args);
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("stepcast %s\n", SC_VERSION);
    return 0;
  }
  for (size_t i = 0; i < N_COMMANDS; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  /* a scenario file as the first argument means predict */
  if (argv[1][0] != '-' && strstr(argv[1], ".json")) return cmd_predict(argc, argv);
  if (argv[1][0] == '-') /* `stepcast -m llama3-8b`: predict's options without the command */
    fprintf(stderr, "stepcast: unknown command '%s': options go after a command (`stepcast "
                    "predict %s ...`; stepcast COMMAND --help lists its options)\n\n",
            argv[1], argv[1]);
  else if ((near = near_command(argv[1])))
    fprintf(stderr, "stepcast: unknown command '%s'; did you mean '%s'?\n\n", argv[1], near);
  else fprintf(stderr, "stepcast: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 2;
}

int main(int argc, char **argv) {
  /* A reader that closes the pipe early (`stepcast validate | head`) makes
   * writes fail with EPIPE instead of killing the process, so that finish
   * reports it as exit 3, as docs/output.md says, not a death by signal. */
  signal(SIGPIPE, SIG_IGN);
  return finish(dispatch(argc, argv));
}
