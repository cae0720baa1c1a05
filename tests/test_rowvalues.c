/*
 * test_rowvalues.c -- the spellings of a measurement row's coded cells
 * (src/validate/rowvalues.c) and of a collective's op (collrow_op): every
 * accepted spelling gives its one value, and what names none is refused,
 * never guessed.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "coll/coll.h"
#include "validate/collrow.h"
#include "validate/rowvalues.h"

static sc_dtype dt(const char *s) {
  sc_dtype d = (sc_dtype)-1;
  cr_assert(rowv_dtype(s, &d), "'%s' should name a dtype", s);
  return d;
}

Test(rowvalues, dtype_spellings) {
  cr_expect_eq(dt("bf16"), SC_BF16);
  cr_expect_eq(dt("BF16"), SC_BF16);
  cr_expect_eq(dt(" bfloat16 "), SC_BF16);
  cr_expect_eq(dt("bf16-mixed"), SC_BF16, "Lightning's precision string");
  cr_expect_eq(dt("16-mixed"), SC_FP16);
  cr_expect_eq(dt("32-true"), SC_FP32);
  cr_expect_eq(dt("Float16"), SC_FP16);
  cr_expect_eq(dt("amp"), SC_FP16, "PyTorch AMP's default type");
  cr_expect_eq(dt("fp16 amp"), SC_FP16);
  cr_expect_eq(dt("TF32"), SC_TF32);
  cr_expect_eq(dt("FP8"), SC_FP8);
  cr_expect_eq(dt("fp8-hybrid"), SC_FP8);
  cr_expect_eq(dt("nvfp4"), SC_FP4);
  sc_dtype d = SC_FP32;
  cr_expect_not(rowv_dtype("", &d));
  cr_expect_not(rowv_dtype("mixed", &d), "mixed names no GEMM type");
  cr_expect_not(rowv_dtype("int8", &d));
  cr_expect_not(rowv_dtype("bf16-mixed-and-a-very-long-tail-text", &d));
  cr_expect_eq(d, SC_FP32, "a refused cell leaves the value alone");
}

Test(rowvalues, recompute_spellings) {
  static const struct { const char *s; sc_recompute r; } ok[] = {
      {"none", SC_RECOMP_NONE}, {"No", SC_RECOMP_NONE}, {"false", SC_RECOMP_NONE},
      {"0", SC_RECOMP_NONE}, {"selective", SC_RECOMP_SELECTIVE},
      {"Selective", SC_RECOMP_SELECTIVE}, {"core_attn", SC_RECOMP_SELECTIVE},
      {"full", SC_RECOMP_FULL}, {"FULL", SC_RECOMP_FULL}, {"true", SC_RECOMP_FULL},
      {"yes", SC_RECOMP_FULL}, {"1", SC_RECOMP_FULL}, {"uniform", SC_RECOMP_FULL},
      {"block", SC_RECOMP_FULL}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    sc_recompute r = (sc_recompute)-1;
    cr_expect(rowv_recompute(ok[i].s, &r), "'%s' should be read", ok[i].s);
    cr_expect_eq(r, ok[i].r, "'%s': %d, expected %d", ok[i].s, r, ok[i].r);
  }
  sc_recompute r;
  cr_expect_not(rowv_recompute("partial", &r));
  cr_expect_not(rowv_recompute("", &r), "blank is the caller's");
}

Test(rowvalues, flags_and_zero) {
  int v = -1;
  cr_expect(rowv_flag("TRUE", &v) && v == 1);
  cr_expect(rowv_flag("off", &v) && v == 0);
  cr_expect(rowv_flag("1", &v) && v == 1);
  cr_expect_not(rowv_flag("2", &v));
  cr_expect_not(rowv_flag("maybe", &v));
  static const struct { const char *s; int z; } ok[] = {
      {"0", 0}, {"3", 3}, {"ZeRO-2", 2}, {"zero1", 1}, {"Stage 3", 3}, {"z2", 2},
      {"FSDP", 3}, {"full_shard", 3}, {"HSDP", 3}, {"ddp", 0}, {"shard_grad_op", 2}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    int z = -1;
    cr_expect(rowv_zero(ok[i].s, &z), "'%s' should be read", ok[i].s);
    cr_expect_eq(z, ok[i].z, "'%s': %d, expected %d", ok[i].s, z, ok[i].z);
  }
  int z;
  cr_expect_not(rowv_zero("4", &z));
  cr_expect_not(rowv_zero("zero-12", &z));
  cr_expect_not(rowv_zero("deepspeed", &z));
}

static void layout(const char *text, const int *want, int n) {
  sc_plan p;
  memset(&p, 0, sizeof p);
  char why[96] = "";
  cr_assert(rowv_pp_layout(text, &p, why, sizeof why), "'%s': %s", text, why);
  cr_assert_eq(p.n_pp_layout, n, "'%s': %d stages, expected %d", text, p.n_pp_layout, n);
  for (int i = 0; i < n; i++)
    cr_expect_eq(p.pp_layout[i], want[i], "'%s' stage %d: %d layers, expected %d", text, i,
                 p.pp_layout[i], want[i]);
}

Test(rowvalues, pipeline_layout_text) {
  layout("4,8,8,6", (int[]){4, 8, 8, 6}, 4);
  layout("4 | 8 ; 8", (int[]){4, 8, 8}, 3);
  /* Megatron-Core's grammar: E and L are not transformer layers */
  layout("Et*3|(tt|)*2L", (int[]){3, 2, 2, 0}, 4);
  layout("Ettt|tttt|tttL", (int[]){3, 4, 3}, 3);
  layout("E|t*4|t*4|L", (int[]){0, 4, 4, 0}, 4);
  layout("Et*7|(t*8|)*14t*7L", (int[]){7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7}, 16);
  sc_plan p;
  memset(&p, 0, sizeof p);
  char why[96] = "";
  cr_expect_not(rowv_pp_layout("Et*3|(tt|", &p, why, sizeof why));
  cr_expect(strstr(why, "')'") != NULL, "why: %s", why);
  cr_expect_not(rowv_pp_layout("Ex*3", &p, why, sizeof why));
  cr_expect_not(rowv_pp_layout("t*0", &p, why, sizeof why));
  cr_expect_not(rowv_pp_layout("(t*999)*999", &p, why, sizeof why), "bounded unrolling");
  cr_expect_eq(p.n_pp_layout, 0, "a refused layout sets nothing");
}

Test(rowvalues, notes_join) {
  char a[32] = "";
  rowv_note(a, sizeof a, "x %d", 1);
  rowv_note(a, sizeof a, "y");
  cr_expect_str_eq(a, "x 1; y");
  rowv_note(a, sizeof a, "%s", "a long text that does not fit at all");
  cr_expect_eq(strlen(a), sizeof a - 1, "truncated at the end, never past it");
  cr_expect_str_eq(a + sizeof a - 4, "...", "a cut note says so: %s", a);
  rowv_note(a, sizeof a, "z");
  cr_expect_str_eq(a + sizeof a - 4, "...", "nothing appended after the cut");
}

Test(rowvalues, a_note_that_fits_exactly_is_not_marked_cut) {
  char a[8] = "";
  rowv_note(a, sizeof a, "1234567");
  cr_expect_str_eq(a, "1234567");
  char b[8] = "abc";
  rowv_note(b, sizeof b, "de");
  cr_expect_str_eq(b, "abc; de");
  char c[8] = "abc";
  rowv_note(c, sizeof c, "def");
  cr_expect_str_eq(c, "abc;...", "the separator alone fits: still marked");
}

Test(rowvalues, collective_op_spellings) {
  cr_expect_eq(collrow_op("all_reduce"), COLL_ALL_REDUCE);
  cr_expect_eq(collrow_op("AllReduce"), COLL_ALL_REDUCE, "NCCL's name");
  cr_expect_eq(collrow_op("ReduceScatter"), COLL_REDUCE_SCATTER);
  cr_expect_eq(collrow_op("all-gather"), COLL_ALL_GATHER);
  cr_expect_eq(collrow_op("alltoall"), COLL_ALL_TO_ALL, "nccl-tests' name");
  cr_expect_eq(collrow_op("All-to-All"), COLL_ALL_TO_ALL);
  cr_expect_eq(collrow_op("broadcast"), COLL_BROADCAST);
  cr_expect_eq(collrow_op("sendrecv"), COLL_SEND_RECV);
  cr_expect_eq(collrow_op("gather"), -1);
  cr_expect_eq(collrow_op(""), -1);
}

Test(rowvalues, collective_blank_links) {
  char a[128] = "";
  double intra, inter;
  cr_expect_eq(collrow_links("h100-sxm5-80gb", 450e9, 0, 0, 1, &intra, &inter, a, sizeof a), 0);
  cr_expect_float_eq(intra, 450e9, 1);
  cr_expect(inter > 0, "a blank NIC of a multi-node row: the reference system's");
  cr_expect(strstr(a, "nvlink_GBps 450") && strstr(a, "nic_Gbps 400") && strstr(a, "dgx-h100"), "%s", a);
  a[0] = '\0';
  cr_expect_eq(collrow_links("h100-sxm5-80gb", 450e9, 400, 100, 1, &intra, &inter, a, sizeof a), 0);
  cr_expect_float_eq(inter, 100e9 / 8, 1);
  cr_expect_str_eq(a, "", "nothing assumed when the cells are given");
  cr_expect_eq(collrow_links("k80", 16e9, 0, 0, 1, &intra, &inter, a, sizeof a), 1,
               "no reference system: the caller skips");
  a[0] = '\0';
  cr_expect_eq(collrow_links("k80", 16e9, 16, 0, 0, &intra, &inter, a, sizeof a), 0,
               "one node: no NIC needed");
  cr_expect_str_eq(a, "");
}

Test(rowvalues, too_many_stages_are_refused) {
  sc_plan p;
  memset(&p, 0, sizeof p);
  char why[96] = "";
  cr_expect_not(rowv_pp_layout("(t|)*300t", &p, why, sizeof why));
  cr_expect(strstr(why, "virtual stages"), "why: %s", why);
  cr_expect_not(rowv_pp_layout("(t|)*255t", &p, why, sizeof why) == 0, "256 stages are allowed");
  cr_expect_eq(p.n_pp_layout, 256);
  memset(&p, 0, sizeof p);
  cr_expect_not(rowv_pp_layout("(t|)*256t", &p, why, sizeof why), "257 are not");
}
