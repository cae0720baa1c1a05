/*
 * collrow.c -- defaults of a collective measurement row (collrow.h).
 */
#include "validate/collrow.h"

#include <ctype.h>
#include <math.h>

#include "coll/coll.h"
#include "validate/rowdefaults.h"
#include "validate/rowvalues.h"

#include "validate/rowtext.h"

int collrow_host_gpus(const char *notes) {
  double n = rowtext_after(notes, "nGpus ", 1);
  return n >= 1 && n <= 1024 && n == floor(n) ? (int)n : 1;
}

int collrow_op(const char *op) {
  char b[32];
  size_t n = 0;
  for (; *op && n + 1 < sizeof b; op++)
    if (*op != '-' && !isspace((unsigned char)*op)) b[n++] = (char)tolower((unsigned char)*op);
  if (*op) return -1; /* too long to be an op's name */
  b[n] = '\0';
  return coll_op_from_name(b);
}

int collrow_links(const char *gpu, double gpu_nvlink, double nvl_GBps, double nic_Gbps,
                  int spans, double *intra_bw, double *inter_bw, char *assumed, size_t an) {
  *intra_bw = nvl_GBps > 0 ? nvl_GBps * 1e9 : gpu_nvlink;
  if (nvl_GBps <= 0)
    rowv_note(assumed, an, "nvlink_GBps %.0f of the GPU (blank)", gpu_nvlink / 1e9);
  *inter_bw = nic_Gbps * 1e9 / 8;
  if (nic_Gbps > 0 || !spans) return 0;
  const char *ref = NULL;
  *inter_bw = rowd_reference_nic(gpu, &ref);
  if (!ref) return 1;
  rowv_note(assumed, an, "nic_Gbps %.0f of %s (not published)", *inter_bw * 8 / 1e9, ref);
  return 0;
}

const char *collrow_blank(const csv_file *f) {
  static const char *const need[] = {"op", "bytes", "ranks", "gpu"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
    const char *s = csv_get(f, csv_col(f, need[i]));
    while (isspace((unsigned char)*s)) s++;
    if (!*s) return need[i];
  }
  return NULL;
}

int collrow_node(const char *gpu, char *assumed, size_t an) {
  int gpn, domain;
  const char *ref = rowd_reference_node(gpu, &gpn, &domain);
  rowv_note(assumed, an, "%d GPUs per node (blank; %s%s)", domain,
            ref ? "NVLink domain of " : "no reference system", ref ? ref : "");
  return domain;
}
