/*
 * test_search_opts.c -- sc_search_opts_set (src/search/opts_set.c): each
 * option's text sets the field the search reads, every bad value is an
 * SC_EINPUT that names the option and what is valid, and leaves the
 * options as they were.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "stepcast.h"

/* Set key=value on fresh defaults into *o; the return code. */
static int set(sc_search_opts *o, const char *key, const char *value, sc_error *err) {
  sc_search_opts_default(o);
  return sc_search_opts_set(o, key, value, err);
}

Test(search_opts, degrees_and_bounds) {
  sc_search_opts o;
  sc_error err = {0};
  const char *keys[] = {"tp", "pp", "dp", "cp", "ep", "max_tp", "max_pp", "max_micro_batch",
                        "max_vpp", "threads"};
  for (int i = 0; i < 10; i++) {
    cr_assert_eq(set(&o, keys[i], "4", &err), SC_OK, "%s: %s", keys[i], err.msg);
    int got[] = {o.tp, o.pp, o.dp, o.cp, o.ep, o.max_tp, o.max_pp, o.max_micro_batch,
                 o.max_vpp, o.threads};
    for (int j = 0; j < 10; j++)
      cr_expect_eq(got[j], i == j ? 4 : 0, "%s=4 set field %d to %d", keys[i], j, got[j]);
  }
  cr_assert_eq(set(&o, "max_plans", "1000000000", &err), SC_OK);
  cr_expect_eq(o.max_plans, 1000000000L);
  cr_assert_eq(set(&o, "max_seconds", "2.5", &err), SC_OK);
  cr_expect_eq(o.max_seconds, 2.5);
}

Test(search_opts, switches) {
  sc_search_opts o;
  sc_error err = {0};
  cr_assert_eq(set(&o, "all", "true", &err), SC_OK);
  cr_expect_eq(o.require_fit, 0);
  cr_assert_eq(sc_search_opts_set(&o, "all", "0", &err), SC_OK);
  cr_expect_eq(o.require_fit, 1);
  cr_assert_eq(set(&o, "rerank", "1", &err), SC_OK);
  cr_expect_eq(o.rerank, 1);
}

Test(search_opts, lists_and_headroom) {
  sc_search_opts o;
  sc_error err = {0};
  cr_assert_eq(set(&o, "zero", "3,1", &err), SC_OK);
  cr_expect_eq(o.zero_stages, 0xau);
  cr_assert_eq(set(&o, "dtypes", "bf16,fp8", &err), SC_OK);
  cr_expect_eq(o.dtypes, (1u << SC_BF16) | (1u << SC_FP8));
  cr_assert_eq(set(&o, "headroom", "10%", &err), SC_OK);
  cr_expect_float_eq(o.headroom_frac, 0.1, 1e-12);
  cr_expect_eq(o.headroom_bytes, 0);
  cr_assert_eq(set(&o, "headroom", "0.25", &err), SC_OK);
  cr_expect_eq(o.headroom_frac, 0.25);
  /* a later headroom replaces the earlier one */
  cr_assert_eq(sc_search_opts_set(&o, "headroom", "4", &err), SC_OK);
  cr_expect_eq(o.headroom_bytes, 4.0 * 1073741824.0);
  cr_expect_eq(o.headroom_frac, 0);
}

/* The inner dimensions: a fixed micro-batch and vpp, the recomputation
 * kinds as a list of names (bit r = sc_recompute r, "partial" bit 3). */
Test(search_opts, inner_dimensions) {
  sc_search_opts o;
  sc_error err = {0};
  cr_assert_eq(set(&o, "micro_batch", "32", &err), SC_OK, "%s", err.msg);
  cr_expect(o.micro_batch == 32 && o.max_micro_batch == 0 && o.vpp == 0);
  cr_assert_eq(set(&o, "vpp", "1", &err), SC_OK, "%s", err.msg);
  cr_expect(o.vpp == 1 && o.max_vpp == 0 && o.micro_batch == 0);
  cr_assert_eq(set(&o, "recompute", "full", &err), SC_OK, "%s", err.msg);
  cr_expect_eq(o.recompute, SC_SEARCH_RECOMP_FULL);
  cr_assert_eq(set(&o, "recompute", "partial,none,selective", &err), SC_OK, "%s", err.msg);
  cr_expect_eq(o.recompute, SC_SEARCH_RECOMP_PARTIAL | SC_SEARCH_RECOMP_NONE |
                                SC_SEARCH_RECOMP_SELECTIVE);
  cr_expect_eq(SC_SEARCH_RECOMP_FULL, 1u << SC_RECOMP_FULL);
}

Test(search_opts, bad_values_named) {
  static const char *const bad[][3] = {
      {"tp", "0", "tp: expected an integer 1..16777216, got '0'"},
      {"ep", "16777217", "ep: expected an integer 1..16777216"},
      {"pp", "4x", "pp: expected an integer"},
      {"max_tp", "4097", "max_tp: expected an integer 1..4096"},
      {"threads", "", "threads: expected an integer"},
      {"max_plans", "0", "max_plans: expected an integer 1..1000000000"},
      {"max_seconds", "nan", "max_seconds: expected seconds > 0"},
      {"rerank", "yes", "rerank: expected true or false"},
      {"zero", "1,4", "zero: expected a comma-separated list of ZeRO stages 0..3, got '1,4'"},
      {"zero", "1,,3", "zero: expected a comma-separated list"},
      {"zero", "1,", "zero: expected a comma-separated list"},
      {"zero", "", "zero: expected a comma-separated list"},
      {"dtypes", "bf16,int8", "dtypes: expected a comma-separated list of fp32, tf32"},
      {"headroom", "-1", "headroom: expected GiB (4), a fraction (0.1) or a percentage (10%)"},
      {"headroom", "100%", "headroom: expected GiB"},
      {"headroom", "4GB", "headroom: expected GiB"},
      {"micro_batch", "0", "micro_batch: expected an integer 1..16777216, got '0'"},
      {"vpp", "4097", "vpp: expected an integer 1..4096"},
      {"recompute", "block", "recompute: expected a comma-separated list of none, selective, "
                             "full, partial, got 'block'"},
      {"recompute", "full,", "recompute: expected a comma-separated list"},
      {"recompute", "Full", "recompute: expected a comma-separated list"},
      {"zero_stages", "1", "unknown search option 'zero_stages'; valid: tp, pp"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    sc_search_opts o, before;
    sc_error err = {0};
    sc_search_opts_default(&o);
    memcpy(&before, &o, sizeof o);
    cr_expect_eq(sc_search_opts_set(&o, bad[i][0], bad[i][1], &err), SC_EINPUT, "%s=%s",
                 bad[i][0], bad[i][1]);
    cr_expect(!strncmp(err.msg, bad[i][2], strlen(bad[i][2])), "%s=%s: '%s'", bad[i][0],
              bad[i][1], err.msg);
    cr_expect(!memcmp(&o, &before, sizeof o), "%s=%s changed the options", bad[i][0], bad[i][1]);
  }
  sc_search_opts o;
  sc_error err = {0};
  cr_expect_eq(sc_search_opts_set(&o, NULL, "1", &err), SC_EINPUT);
}
