/*
 * rowhorovod.h -- which Horovod release a measurement row ran, and the
 * tensor-fusion defaults of that release (module prefix: vhv_).
 *
 * Horovod's background thread fuses the gradients ready at each cycle
 * into one buffer (docs/dp.md "Layer-wise overlap"). Its defaults changed
 * in release 0.21.0 (2020-11): before it, a 64 MiB fusion threshold and
 * a 5 ms cycle; from it on, 128 MiB and 1 ms, as the copied source sets
 * them (../shared/reference/horovod operations.cc,
 * SetTensorFusionThresholdBytes(128 MiB), SetCycleTimeMs(1)). The older
 * values and the release of the change are recalled from Horovod's
 * CHANGELOG and earlier operations.cc (not in ../shared/reference).
 *
 * A row's framework text dates its Horovod, the same way for every row:
 *   - "horovod X.Y[.Z]" (also "horovod-", "v", "==", ": " before the
 *     number; the first "horovod" that carries one): that release;
 *   - an NGC container release YY.MM ("NGC 20.03", "NGC20.06", "NGC
 *     MXNet 21.05", "NVIDIA Release 20.06"): a container built before
 *     2020-11 cannot hold 0.21, so a release before 20.11 runs the older
 *     defaults; a later one may hold either, and keeps the newer ones;
 *   - neither: the newer ones (the copied source's).
 */
#ifndef SC_VALIDATE_ROWHOROVOD_H
#define SC_VALIDATE_ROWHOROVOD_H

/* Fusion defaults of the Horovod a framework text names. */
typedef struct vhv_defaults {
  double fusion_bytes;  /* HOROVOD_FUSION_THRESHOLD's default, bytes */
  double cycle_s;       /* HOROVOD_CYCLE_TIME's default, seconds */
  int before_021;       /* 1: the text dates it before 0.21.0 */
} vhv_defaults;

/* The defaults for text (NULL reads as empty: the newer ones). */
vhv_defaults vhv_for(const char *text);

/* The NGC container release the text names as YY.MM, e.g. 20.03 (0 when
 * it names none). */
double vhv_ngc_release(const char *text);

#endif /* SC_VALIDATE_ROWHOROVOD_H */
