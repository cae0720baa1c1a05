/*
 * search_limits.c -- the user's constraints on `stepcast search`'s plan
 * space: fixed degrees (--tp, --pp, --dp, --cp, --ep), the ZeRO stages
 * (--zero 1,3), the GEMM types (--dtypes bf16,fp8) and a memory margin
 * (--headroom 4 for GiB, 0.1 or 10% for a fraction), parsed by the
 * library's sc_search_opts_set. docs/search.md.
 */
#include <stdio.h>
#include <string.h>

#include "search_limits.h"

void search_limits_help(void) {
  printf("  --tp N, --pp N, --dp N, --cp N, --ep N   fix that degree (the rest is searched)\n"
         "  --zero LIST           ZeRO stages searched, e.g. 1,3 (default 0,1,2,3)\n"
         "  --dtypes LIST         GEMM types searched, e.g. bf16,fp8 (default the scenario's;\n"
         "                        fp8 changes numerics, so it is only searched when asked;\n"
         "                        a type the GPU has no peak for is skipped)\n"
         "  --headroom X          memory kept free on every GPU: GiB (4), or a fraction of\n"
         "                        its memory (0.1 or 10%%)\n");
}

const char *const search_limits_flags[] = {"--tp",   "--pp",     "--dp",       "--cp", "--ep",
                                           "--zero", "--dtypes", "--headroom", NULL};

int search_limits_take(int argc, char **argv, int *i, sc_search_opts *o) {
  const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : "";
  for (size_t k = 0; search_limits_flags[k]; k++) {
    if (strcmp(a, search_limits_flags[k])) continue;
    (*i)++;
    /* the library parses it (src/search/opts_set.c), as for the bindings */
    sc_error err = {0};
    if (sc_search_opts_set(o, a + 2, v, &err) == SC_OK) return 1;
    fprintf(stderr, "stepcast search: --%s\n", err.msg);
    return -1;
  }
  return 0;
}
