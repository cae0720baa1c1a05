/*
 * test_dtype.c -- the one table of dtype names (src/core/dtype.c): names
 * and parsing agree, a prefix or another case is no name.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "core/dtype.h"

Test(dtype, names_round_trip) {
  for (int d = 0; d < SC_DTYPE_COUNT; d++) {
    const char *n = sc_dtype_name((sc_dtype)d);
    cr_expect_str_eq(n, dtype_names[d]);
    cr_expect_eq(dtype_from_name(n, strlen(n)), d, "%s", n);
  }
  cr_expect_eq(dtype_from_name("bf16,fp8", 4), SC_BF16, "a list's first item");
  cr_expect_eq(dtype_from_name("bf1", 3), -1);
  cr_expect_eq(dtype_from_name("BF16", 4), -1);
  cr_expect_eq(dtype_from_name("", 0), -1);
  cr_expect_str_eq(sc_dtype_name((sc_dtype)SC_DTYPE_COUNT), "invalid");
}
