/*
 * test_rowtext.c -- searching a measurement row's free text
 * (src/validate/rowtext.c): words ignoring case, the number after a key.
 */
#include <criterion/criterion.h>

#include "validate/rowtext.h"

Test(rowtext, has_ignores_case) {
  cr_expect(rowtext_has("NVSwitch (DGX A100)", "nvswitch"));
  cr_expect(rowtext_has("a PCIE gen4 x16", "pcie"));
  cr_expect(rowtext_has("x", ""), "the empty word is everywhere");
  cr_expect(!rowtext_has("nvlink", "nvswitch"));
  cr_expect(!rowtext_has("", "x"));
  cr_expect(!rowtext_has(NULL, "x"));
}

Test(rowtext, number_after_a_key) {
  cr_expect_float_eq(rowtext_after("power-law (alpha 1.05)", "alpha ", 0), 1.05, 1e-12);
  cr_expect_float_eq(rowtext_after("embeddings ~12.5 GB", "embeddings", 0), 12.5, 1e-12);
  cr_expect_float_eq(rowtext_after("x=3", "x", 0), 3, 0);
  cr_expect_float_eq(rowtext_after("128", "", 16), 128, 0, "key \"\": the leading number");
  cr_expect_float_eq(rowtext_after("", "", 16), 16, 0);
  cr_expect_float_eq(rowtext_after("alpha none", "alpha ", 7), 7, 0, "no number: dflt");
  cr_expect_float_eq(rowtext_after("ALPHA 2", "alpha ", 7), 7, 0, "the key's case counts");
  cr_expect_float_eq(rowtext_after(NULL, "alpha", 7), 7, 0);
  /* nccl-tests' header through collrow_host_gpus (tests/test_coll_host.c) */
  cr_expect_float_eq(rowtext_after("nThread 1 nGpus 8 minBytes 8", "nGpus ", 1), 8, 0);
}

Test(rowtext, count_with_thousands_separators) {
  /* the HugeCTR Wide&Deep rows' notes */
  cr_expect_float_eq(rowtext_count_after("README prints vocab_size 2,359,296 for these runs",
                                         "vocab_size ", 0), 2359296, 0);
  cr_expect_float_eq(rowtext_count_after("vocab_size=1798261;", "vocab_size", 0), 1798261, 0);
  cr_expect_float_eq(rowtext_count_after("sizes 3, 4 and 5", "sizes ", 0), 3, 0,
                     "a comma and a space separate numbers");
  cr_expect_float_eq(rowtext_count_after("n 1,2345", "n ", 0), 1, 0,
                     "a group of four digits is not a thousands group");
  cr_expect_float_eq(rowtext_count_after("n 12,345.", "n ", 0), 12345, 0);
  cr_expect_float_eq(rowtext_count_after("n -5", "n ", 9), 9, 0, "no digit after the key: dflt");
  cr_expect_float_eq(rowtext_count_after("vocab", "vocab_size", 9), 9, 0);
  cr_expect_float_eq(rowtext_count_after(NULL, "n", 9), 9, 0);
}

Test(rowtext, word_is_not_part_of_a_longer_word) {
  cr_assert(rowtext_word("NeMo 2.0 recipe", "nemo"));
  cr_assert(rowtext_word("recipe (NeMo)", "nemo"));
  cr_assert_not(rowtext_word("Nemotron-4 340B", "nemo"));
  cr_assert_not(rowtext_word("nemo2", "nemo"));
  cr_assert_not(rowtext_word(NULL, "nemo"));
}
