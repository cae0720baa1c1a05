/*
 * test_coll_validation.c -- NCCL's cost model against the published
 * collective measurements of ../shared/validation/collectives, through the
 * same reader `stepcast validate` uses.
 *
 * Issue 3 asks for MAPE <= 10 % from 1 MiB and <= 25 % below 1 MiB on
 * every set. Not all sets are there yet (docs/network.md); the bounds
 * below are regression guards at the current level, to be lowered as the
 * model improves. Note that COLL_LAUNCH_S was fitted to these sets
 * (src/coll/coll_nccl.c), so they are not an independent check.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>

#include "io/validate.h"

static void check(const char *file, double max_large, double max_small) {
  char path[512];
  snprintf(path, sizeof path, "%s/validation/collectives/%s", SC_SHARED_DIR, file);
  if (access(path, R_OK) != 0) cr_skip_test("%s not found", path);
  val_file vf;
  sc_error err = {0};
  cr_assert_eq(val_run(path, &vf, &err), SC_OK, "%s", err.msg);
  cr_expect_eq(vf.skipped, 0, "%s: %d rows skipped", file, vf.skipped);
  cr_expect(vf.mape_large <= max_large, "%s: MAPE from 1 MiB %.1f %% > %.1f %%", file,
            100 * vf.mape_large, 100 * max_large);
  cr_expect(vf.mape_small <= max_small, "%s: MAPE below 1 MiB %.1f %% > %.1f %%", file,
            100 * vf.mape_small, 100 * max_small);
  val_free(&vf);
}

Test(coll_validation, azure_allreduce_a100_h100) { check("azure_allreduce_a100_h100.csv", 0.092, 0.185); }
Test(coll_validation, vtrain_allreduce_a100) { check("vtrain_allreduce_a100.csv", 0.091, 0.25); }
Test(coll_validation, vtrain_allreduce_v100) { check("vtrain_allreduce_v100.csv", 0.11, 0.25); }
