/*
 * test_rowhorovod.c -- the Horovod release a row's framework text dates
 * and its fusion defaults (src/validate/rowhorovod.c): before 0.21.0,
 * 64 MiB and 5 ms; from it on (or undated), 128 MiB and 1 ms.
 */
#include <criterion/criterion.h>

#include "validate/rowhorovod.h"

#define MiB (1024.0 * 1024.0)

Test(rowhorovod, an_ngc_release_is_read_where_the_texts_write_it) {
  cr_expect_float_eq(vhv_ngc_release("tensorflow-1.15 (NGC 20.03, Horovod, DALI)"), 20.03, 1e-9);
  cr_expect_float_eq(vhv_ngc_release("MXNet NGC20.06"), 20.06, 1e-9);
  cr_expect_float_eq(vhv_ngc_release("NGC MXNet 21.05 , NGC PyTorch 21.05"), 21.05, 1e-9);
  cr_expect_float_eq(vhv_ngc_release("PyTorch NVIDIA Release 22.04"), 22.04, 1e-9);
  cr_expect_float_eq(vhv_ngc_release("mxnet 1.6.0 (Horovod)"), 0, 0, "a version is not one");
  cr_expect_float_eq(vhv_ngc_release("NGC MXNet 20211013"), 0, 0, "not YY.MM");
  cr_expect_float_eq(vhv_ngc_release(NULL), 0, 0);
}

Test(rowhorovod, releases_before_0_21_fuse_64_mib_every_5_ms) {
  vhv_defaults d = vhv_for("horovod 0.16.1 (tensorflow-1.13, OpenMPI 4.0.0)");
  cr_expect(d.before_021);
  cr_expect_float_eq(d.fusion_bytes, 64 * MiB, 0);
  cr_expect_float_eq(d.cycle_s, 5e-3, 0);
  d = vhv_for("mxnet 1.6.0 (NGC 20.03, DALI + Horovod)");
  cr_expect(d.before_021, "a container of March 2020");
  d = vhv_for("Horovod 0.21.0");
  cr_expect(!d.before_021);
  cr_expect_float_eq(d.fusion_bytes, 128 * MiB, 0);
  cr_expect_float_eq(d.cycle_s, 1e-3, 0);
  cr_expect(!vhv_for("PyTorch 1.9, Horovod, NGC 21.05").before_021, "may hold either: newer");
  cr_expect(!vhv_for("mxnet 1.6.0 (gluon-nlp, Horovod)").before_021, "undated: newer");
  cr_expect(vhv_for("horovod v0.19.5").before_021);
  /* the version, where given, decides over the container */
  cr_expect(!vhv_for("Horovod 0.22.1, NGC 20.03").before_021);
  cr_expect(!vhv_for(NULL).before_021);
}

/* Versions as numbers (major, then minor), however the text spells them;
 * the first "horovod" that carries one; nothing readable: not dated. */
Test(rowhorovod, versions_read_whatever_the_spelling) {
  cr_expect(vhv_for("horovod 0.9").before_021, "0.9 is older than 0.21");
  cr_expect(vhv_for("horovod 0.20.3").before_021);
  cr_expect(!vhv_for("horovod 0.100").before_021, "minor 100 is after 21, not 0.1");
  cr_expect(!vhv_for("horovod 1.0").before_021);
  cr_expect(vhv_for("Horovod V0.19.5").before_021);
  cr_expect(vhv_for("horovod==0.19.0").before_021);
  cr_expect(vhv_for("Horovod: 0.18").before_021);
  cr_expect(vhv_for("Horovod (MPI), horovod 0.19").before_021, "the second names the release");
  cr_expect(!vhv_for("horovod").before_021, "no release: newer");
  cr_expect(!vhv_for("horovod 0.").before_021);
  cr_expect(!vhv_for("horovod .19").before_021);
  cr_expect(!vhv_for("horovod 99999999999999999999999.1").before_021, "overflow saturates");
  cr_expect(vhv_for("horovod 0.99999999999999999999999 NGC 20.03").before_021 == 0,
            "a saturated minor is after 21, and the version decides");
  cr_expect(!vhv_for("").before_021);
  /* NGC releases: 20.03 before 20.11, 21.03 after; not YY.MM: undated */
  cr_expect(vhv_for("Horovod, NGC 20.03").before_021);
  cr_expect(!vhv_for("Horovod, NGC 21.03").before_021);
  cr_expect(!vhv_for("Horovod, NGC 20.11").before_021, "the first release that could hold 0.21");
  cr_expect(!vhv_for("Horovod, NGC 2003").before_021);
  cr_expect(!vhv_for("Horovod, NGC").before_021);
}

