/*
 * test_dp_framework_rows.c -- what a dp_training row's `dtype` and
 * `framework` cells make of the exchange (src/validate/dp_rows.c,
 * docs/dp.md "Per framework"): automatic mixed precision all-reduces fp32
 * gradients; TensorFlow 2 without Horovod sends one message after the
 * backward pass; Horovod fuses, copying through its fusion buffer;
 * anything else keeps the scheme's default.
 * Rows are written to a temporary file in the dp_training schema
 * (../shared/validation/DP-AND-RECSYS.md), so nothing here needs ../shared.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepcast.h"

static const char header[] =
    "id,source,notes,model,model_variant,batch_per_gpu,grad_accum,global_batch,seq,dtype,"
    "framework,data,gpu,gpus,gpus_per_node,nodes,intra_node,intra_node_GBps,host_link,"
    "network_Gbps,nics_per_node,fabric,transport,scheme,scheme_family,ps_count,ps_placement,"
    "synchronous,measured_samples_per_s,measured_uncertainty,measured_iter_s,worker_step_s,"
    "measured_from,confidence,unstated_inputs\n";

/* One row: id, model variant, batch, seq, dtype, framework; 16 V100 in two
 * DGX-1-like servers, one 100 Gb/s EDR HCA each, NCCL all-reduce. */
static void row(FILE *f, const char *id, const char *model, const char *variant, int batch,
                const char *seq, const char *dtype, const char *fw) {
  fprintf(f,
          "%s,test,\"model: 224x224\",%s,%s,%d,1,%d,%s,%s,\"%s\",synthetic,v100-sxm2-16gb,16,8,2,"
          "nvlink-hybrid-cube-mesh,,pcie-gen3-x16,100,1,infiniband-edr,rdma,allreduce_nccl,"
          "allreduce,,,1,1000,,0.5,0.5,test,verified,\n",
          id, model, variant, batch, batch * 16, seq, dtype, fw);
}

/* A BERT-large row of MLPerf's shape: notes and data as given, one
 * 8-GPU NVSwitch server. */
static void bert_row(FILE *f, const char *id, const char *notes, const char *data, int seq) {
  fprintf(f,
          "%s,test,\"%s\",bert_large,bert_large,32,1,256,%d,unknown,PyTorch NVIDIA Release "
          "22.04,%s,a100-sxm4-80gb,8,8,1,nvswitch,300,,,,none,none,allreduce_nccl,allreduce,,,1,"
          "1000,,0.5,0.5,test,verified,\n",
          id, notes, seq, data);
}

/* A BERT-large (or ResNet-50) row of MLPerf's shape on two 8-GPU
 * NVSwitch servers with the given framework text and unstated_inputs. */
static void nv_row(FILE *f, const char *id, const char *model, const char *fw,
                   const char *unstated) {
  fprintf(f,
          "%s,test,\"max seq 512; most implementations pack/unpad sequences\",%s,%s,32,1,512,512,unknown,\"%s\",real (Wikipedia),"
          "a100-sxm4-80gb,16,8,2,nvswitch,300,,1600,8,infiniband-hdr,,allreduce_nccl,allreduce,,,"
          "1,1000,,0.5,0.5,test,verified,\"%s\"\n",
          id, model, !strcmp(model, "resnet50") ? "resnet50_v1.5" : model, fw, unstated);
}

static char path[64];

static void write_rows(void) {
  snprintf(path, sizeof path, "/tmp/sc_dp_fw_rows_%d.csv", (int)getpid());
  FILE *f = fopen(path, "w");
  cr_assert(f, "cannot write %s", path);
  fputs(header, f);
  row(f, "amp", "bert_base", "bert_base", 64, "128", "amp", "oneflow 0.2.0");
  row(f, "fp32", "bert_base", "bert_base", 64, "128", "fp32", "oneflow 0.2.0");
  /* NVIDIA's BERT (PyTorch named first, no Horovod) */
  row(f, "nvamp", "bert_base", "bert_base", 64, "128", "amp", "pytorch 1.5 (NGC 20.03, APEX)");
  row(f, "nvfp32", "bert_base", "bert_base", 64, "128", "fp32", "pytorch 1.5 (NGC 20.03, APEX)");
  /* Horovod dated by an NGC release before 20.11, by its version, or not */
  row(f, "hvdngc", "resnet50", "resnet50_v1.5", 128, "", "fp32",
      "tensorflow-1.15 (NGC 20.03, Horovod, DALI)");
  row(f, "hvd016", "resnet50", "resnet50_v1.5", 128, "", "fp32",
      "horovod 0.16.1 (tensorflow-1.13, OpenMPI 4.0.0)");
  row(f, "hvdnew", "resnet50", "resnet50_v1.5", 128, "", "fp32", "Horovod 0.28.1, NGC 23.05");
  row(f, "tf2", "resnet50", "resnet50_v1.5", 128, "", "fp32", "tensorflow-2.3");
  row(f, "tf2ddp", "resnet50", "resnet50_v1.5", 128, "", "fp32", "oneflow 0.2.0");
  row(f, "hvd", "resnet50", "resnet50_v1.5", 128, "", "fp32", "mxnet 1.6.0 (Horovod)");
  /* the GEMM library an NGC release dates: 20.03 is CUDA 10.2, 20.06 CUDA 11 */
  row(f, "tfamp", "bert_base", "bert_base", 64, "128", "amp",
      "tensorflow-1.15 (NGC 20.03, Horovod, XLA)");
  row(f, "ngc2006", "bert_base", "bert_base", 64, "128", "amp", "MXNet NVIDIA Release 20.06");
  /* or the framework's own release, named without a container */
  row(f, "gluonamp", "bert_base", "bert_base", 64, "128", "amp", "mxnet 1.6.0 (gluon-nlp, Horovod)");
  row(f, "gluonfp32", "bert_base", "bert_base", 64, "128", "fp32",
      "mxnet 1.6.0 (gluon-nlp, Horovod)");
  row(f, "paddleamp", "bert_base", "bert_base", 64, "128", "amp", "paddle 1.8.3");
  row(f, "tf24amp", "bert_base", "bert_base", 64, "128", "amp", "tensorflow-2.4");
  nv_row(f, "mx16a100", "resnet50", "MXNet 1.6.0", "dtype");
  /* an NGC release number is not TensorFlow 2 */
  row(f, "ngc", "resnet50", "resnet50_v1.5", 128, "", "fp32", "NGC TensorFlow 21.05-tf1");
  static const char packs[] = "most implementations pack/unpad sequences";
  bert_row(f, "packed", packs, "real (Wikipedia)", 512);
  bert_row(f, "padded", "max seq 512", "real (Wikipedia)", 512);
  bert_row(f, "packed128", packs, "real (Wikipedia)", 128);
  bert_row(f, "packedsyn", packs, "synthetic", 512);
  static const char nv[] = "dtype (the NVIDIA-derived implementations train in mixed precision)";
  nv_row(f, "nvbert", "bert_large", "PyTorch NVIDIA Release 21.09", nv);
  nv_row(f, "nvbertngc", "bert_large", "NGC MXNet 22.05 , NGC PyTorch 22.05", nv);
  nv_row(f, "nvbertnone", "bert_large", "", nv);
  nv_row(f, "paddlebert", "bert_large", "PaddlePaddle (branch: develop)", nv);
  nv_row(f, "plainbert", "bert_large", "PyTorch NVIDIA Release 21.09", "dtype");
  nv_row(f, "nvresnet", "resnet50", "MXNet NVIDIA Release 21.09", nv);
  nv_row(f, "nvbertlist", "bert_large", "NVIDIA Release 22.04 Tensorflow, MxNet, PyTorch", nv);
  nv_row(f, "tfbert", "bert_large", "tf2.0", nv);
  nv_row(f, "hvdbert", "bert_large", "PyTorch 1.9, Horovod", "dtype");
  /* NVIDIA's PyTorch BERT with APEX, its MXNet BERT, OneFlow's */
  row(f, "nvmx", "bert_base", "bert_base", 64, "128", "amp", "mxnet 1.6.0 (NGC 20.03, APEX)");
  fclose(f);
}

static sc_scenario scenario(const char *id) {
  sc_scenario s;
  sc_error e = {0};
  cr_assert_eq(sc_validate_row_scenario(path, id, &s, &e), SC_OK, "row %s: %s", id, e.msg);
  return s;
}

static sc_dp_result predict(const sc_scenario *s) {
  sc_dp_result r;
  sc_error e = {0};
  cr_assert_eq(sc_dp_predict(s, &r, &e), SC_OK, "%s", e.msg);
  return r;
}

/* Validate the test file: row `yes` lists `words` among its assumptions,
 * row `no` does not. */
static void said_only_by(const char *yes, const char *no, const char *words) {
  sc_validation v;
  sc_error e = {0};
  cr_assert_eq(sc_validate_file(path, &v, &e), SC_OK, "%s", e.msg);
  int seen = 0;
  for (int i = 0; i < v.n; i++) {
    if (strcmp(v.rows[i].id, yes) && strcmp(v.rows[i].id, no)) continue;
    int said = strstr(v.rows[i].assumed, words) != NULL;
    cr_assert_eq(said, !strcmp(v.rows[i].id, yes), "%s: %s", v.rows[i].id, v.rows[i].assumed);
    seen++;
  }
  cr_assert_eq(seen, 2);
  sc_validation_free(&v);
}

static void cleanup(void) { remove(path); }

TestSuite(dp_framework_rows, .init = write_rows, .fini = cleanup);

Test(dp_framework_rows, amp_exchanges_fp32_gradients) {
  sc_scenario amp = scenario("amp"), fp32 = scenario("fp32");
  cr_assert_eq(amp.plan.dtype, SC_FP16, "AMP still runs its GEMMs in fp16");
  cr_assert_float_eq(amp.dp.grad_bytes, 4, 0);
  cr_assert_float_eq(fp32.dp.grad_bytes, 0, 0, "fp32 keeps the by-dtype default");
  sc_dp_result r = predict(&amp);
  double params = sc_model_params(&amp.model);
  /* 4 bytes per parameter: 110 M parameters of BERT-base give ~440 MB,
   * not the 220 MB an fp16 exchange would move */
  cr_assert_float_eq(r.grad_bytes, 4 * params, 1e-9 * r.grad_bytes, "%g vs %g", r.grad_bytes,
                     4 * params);
  cr_assert_float_eq(r.grad_bytes, predict(&fp32).grad_bytes, 1e-9 * r.grad_bytes);
  /* the same bytes as fp32 over the same links, behind a faster backward:
   * no less exposed */
  cr_assert_geq(r.exposed_s, 0.999 * predict(&fp32).exposed_s);
}

Test(dp_framework_rows, nvidia_bert_casts_its_flat_buffer_to_fp16_under_amp) {
  /* run_pretraining.py --allreduce_post_accumulation_fp16: the AMP row
   * all-reduces 2 bytes per parameter after the backward pass, the fp32
   * row 4 (the by-dtype default) */
  sc_scenario amp = scenario("nvamp"), fp32 = scenario("nvfp32");
  cr_assert_eq(amp.dp.fusion, SC_DP_FUSION_NONE);
  cr_assert_float_eq(amp.dp.grad_bytes, 2, 0);
  cr_assert_float_eq(fp32.dp.grad_bytes, 0, 0);
  sc_dp_result ra = predict(&amp), rf = predict(&fp32);
  cr_assert_float_eq(ra.grad_bytes, 0.5 * rf.grad_bytes, 1e-9 * rf.grad_bytes, "%g vs %g / 2",
                     ra.grad_bytes, rf.grad_bytes);
  /* nothing overlaps: half the bytes, less than the fp32 row's exposure */
  cr_assert_lt(ra.exposed_s, rf.exposed_s);
}

Test(dp_framework_rows, horovod_before_0_21_fuses_64_mib_every_5_ms) {
  sc_scenario ngc = scenario("hvdngc"), v016 = scenario("hvd016"), nw = scenario("hvdnew"),
              plain = scenario("hvd");
  cr_assert_float_eq(ngc.dp.bucket_bytes, 64.0 * 1048576, 0);
  cr_assert_float_eq(ngc.dp.cycle_s, 5e-3, 0);
  cr_assert_float_eq(v016.dp.bucket_bytes, 64.0 * 1048576, 0);
  cr_assert_float_eq(v016.dp.cycle_s, 5e-3, 0);
  /* a later or undated Horovod: the scheme's (the copied source's) */
  cr_assert_float_eq(nw.dp.bucket_bytes, 0, 0);
  cr_assert_float_eq(nw.dp.cycle_s, 0, 0);
  cr_assert_float_eq(plain.dp.cycle_s, 0, 0);
  /* the same row under the newer defaults: ticks five times rarer fuse
   * what a 1 ms cycle sends as several messages */
  sc_scenario cur_s = ngc;
  cur_s.dp.bucket_bytes = cur_s.dp.cycle_s = 0;
  sc_dp_result old = predict(&ngc), cur = predict(&cur_s);
  cr_assert_lt(old.messages, cur.messages, "%d vs %d", old.messages, cur.messages);
  cr_assert_float_eq(old.compute_s, cur.compute_s, 1e-12,
                     "the compute is the framework's, not Horovod's");
}

Test(dp_framework_rows, fusion_follows_the_framework) {
  cr_assert_eq(scenario("tf2").dp.fusion, SC_DP_FUSION_NONE);
  cr_assert_eq(scenario("hvd").dp.fusion, SC_DP_FUSION_HOROVOD);
  cr_assert_eq(scenario("ngc").dp.fusion, SC_DP_FUSION_AUTO);
  cr_assert_eq(scenario("tf2ddp").dp.fusion, SC_DP_FUSION_AUTO);
}

Test(dp_framework_rows, tf2_sends_one_message_after_the_backward_pass) {
  sc_scenario s2 = scenario("tf2"), sd = scenario("tf2ddp");
  sc_dp_result tf2 = predict(&s2), ddp = predict(&sd);
  /* one message of every gradient, started when the backward pass ends:
   * nothing overlaps, so the whole exchange is exposed and the step is
   * the one-GPU compute plus it */
  cr_assert_eq(tf2.messages, 1);
  cr_assert_float_eq(tf2.exposed_s, tf2.comm_s, 1e-12, "%g vs %g", tf2.exposed_s, tf2.comm_s);
  cr_assert_float_eq(tf2.step_s, tf2.compute_s + tf2.comm_s, 1e-9 * tf2.step_s, "%g vs %g + %g",
                     tf2.step_s, tf2.compute_s, tf2.comm_s);
  /* DDP's buckets hide most of theirs behind the backward pass */
  cr_assert_gt(ddp.messages, 1);
  cr_assert_lt(ddp.exposed_s, 0.5 * ddp.comm_s, "%g of %g", ddp.exposed_s, ddp.comm_s);
  cr_assert_gt(tf2.step_s, ddp.step_s);
}

Test(dp_framework_rows, horovod_copies_through_its_fusion_buffer) {
  /* one fused message of every gradient (a 10 s cycle tick after the
   * backward pass, no size cap) against the same single message without
   * Horovod: the all-reduce is the same, Horovod adds the memcpy into and
   * out of its fusion buffer, 2 copies x (read + write) of every byte at
   * the GPU's achievable HBM bandwidth */
  sc_scenario hvd = scenario("hvd");
  hvd.dp.cycle_s = 10, hvd.dp.bucket_bytes = 1e15;
  sc_scenario one = hvd;
  one.dp.fusion = SC_DP_FUSION_NONE;
  sc_dp_result rh = predict(&hvd), r1 = predict(&one);
  cr_assert_eq(rh.messages, 1);
  cr_assert_eq(r1.messages, 1);
  double bw = hvd.cluster.gpu.hbm_bw * hvd.cluster.gpu.hbm_eff;
  cr_assert_gt(bw, 0);
  double copy = 4 * rh.grad_bytes / bw; /* ResNet-50: ~102 MB / ~0.8 TB/s x 4 ~ 0.5 ms */
  cr_assert_float_eq(rh.comm_s - r1.comm_s, copy, 1e-9, "%g - %g vs %g", rh.comm_s, r1.comm_s,
                     copy);
  cr_assert(copy > 1e-4 && copy < 2e-3, "%g s", copy);
}

Test(dp_framework_rows, packed_wikipedia_bert_runs_half_the_tokens) {
  /* the notes say the implementations pack or unpad, the data is the
   * Wikipedia pre-training set at 512: half its tokens are padding
   * (Krell et al. 2021), so the encoder runs 256 tokens a sequence;
   * without the notes, at another length or on other data: padded (0) */
  sc_scenario pk = scenario("packed"), pd = scenario("padded");
  cr_assert_eq(pk.model.bert.tokens, 256);
  cr_assert_eq(pd.model.bert.tokens, 0);
  cr_assert_eq(scenario("packed128").model.bert.tokens, 0);
  cr_assert_eq(scenario("packedsyn").model.bert.tokens, 0);
  /* per sequence the linear layers (~90 % of BERT-large's FLOPs at 512)
   * halve and attention quarters: the compute falls to between 40 % and
   * 60 % of the padded one's (batch 32: GEMM efficiency hardly moves) */
  double ratio = predict(&pk).compute_s / predict(&pd).compute_s;
  cr_assert(ratio > 0.4 && ratio < 0.6, "packed / padded compute %g", ratio);
  /* the report says what it assumed for the row */
  said_only_by("packed", "padded", "256 tokens per sequence");
}

Test(dp_framework_rows, nvidia_bert_reduces_once_after_the_backward_pass) {
  /* a BERT row on PyTorch or MXNet, or an NGC container's list, without
   * Horovod: NVIDIA's BERT all-reduces the accumulated gradients in one
   * flat message after the backward pass (DeepLearningExamples'
   * --allreduce_post_accumulation) */
  cr_assert_eq(scenario("nvbert").dp.fusion, SC_DP_FUSION_NONE);
  cr_assert_eq(scenario("nvbertngc").dp.fusion, SC_DP_FUSION_NONE);
  /* a container's list, whatever it names first */
  cr_assert_eq(scenario("nvbertlist").dp.fusion, SC_DP_FUSION_NONE);
  /* the framework decides, not the row's other text: the same row
   * without MLPerf's "NVIDIA-derived" precision sentence */
  cr_assert_eq(scenario("plainbert").dp.fusion, SC_DP_FUSION_NONE);
  /* another implementation (Paddle named first), no framework named, a
   * CNN: the scheme's default (DDP buckets); Horovod named: its fusion */
  cr_assert_eq(scenario("paddlebert").dp.fusion, SC_DP_FUSION_AUTO);
  cr_assert_eq(scenario("nvbertnone").dp.fusion, SC_DP_FUSION_AUTO);
  cr_assert_eq(scenario("nvresnet").dp.fusion, SC_DP_FUSION_AUTO);
  cr_assert_eq(scenario("hvdbert").dp.fusion, SC_DP_FUSION_HOROVOD);
  sc_scenario nv = scenario("nvbert"), plain = nv;
  plain.dp.fusion = SC_DP_FUSION_AUTO;
  sc_dp_result rn = predict(&nv), rp = predict(&plain);
  /* nothing overlaps: the step is the compute plus the whole exchange */
  cr_assert_eq(rn.messages, 1);
  cr_assert_float_eq(rn.exposed_s, rn.comm_s, 1e-12, "%g vs %g", rn.exposed_s, rn.comm_s);
  cr_assert_float_eq(rn.step_s, rn.compute_s + rn.comm_s, 1e-9 * rn.step_s);
  /* the same compute and gradient bytes as the bucketed default, which
   * hides part of its exchange behind the backward pass */
  cr_assert_float_eq(rn.compute_s, rp.compute_s, 1e-12);
  cr_assert_float_eq(rn.grad_bytes, rp.grad_bytes, 1e-9 * rn.grad_bytes);
  cr_assert_gt(rp.messages, 1);
  cr_assert_lt(rp.exposed_s, rp.comm_s);
  cr_assert_gt(rn.step_s, rp.step_s);
  /* the report says what it assumed */
  said_only_by("nvbert", "paddlebert", "after backward (NVIDIA BERT)");
}

Test(dp_framework_rows, tensorflow_bert_stays_padded) {
  /* TensorFlow's BERT pads every sequence to max_seq_length: a row whose
   * framework text names TensorFlow alone runs seq tokens even where the
   * notes say most implementations pack; PyTorch's, an NGC list's: 256 */
  cr_assert_eq(scenario("tfbert").model.bert.tokens, 0);
  cr_assert_eq(scenario("nvbert").model.bert.tokens, 256);
  cr_assert_eq(scenario("nvbertlist").model.bert.tokens, 256);
  cr_assert_eq(scenario("paddlebert").model.bert.tokens, 256);
  /* and, being TensorFlow 2, sends one message after the backward pass */
  cr_assert_eq(scenario("tfbert").dp.fusion, SC_DP_FUSION_NONE);
}

/* How much slower row id's step is under cuBLAS 10 than under cuBLAS 11,
 * every other input the row's (seconds of compute). */
static double pre11_slowdown(const char *id) {
  sc_scenario s = scenario(id), s11 = s;
  cr_assert_eq(s.plan.cublas_pre11, 1, "row %s", id);
  s11.plan.cublas_pre11 = 0;
  return predict(&s).compute_s - predict(&s11).compute_s;
}

Test(dp_framework_rows, ngc_before_20_06_runs_cublas_10) {
  /* NGC 20.03 ships CUDA 10.2: cuBLAS 10, whose 16-bit GEMMs off
   * multiples of 8 run on the CUDA cores; 20.06 and later, and rows
   * naming no container and no release built before CUDA 11, the default
   * (cuBLAS 11) */
  cr_assert_eq(scenario("tfamp").plan.cublas_pre11, 1);
  cr_assert_eq(scenario("nvamp").plan.cublas_pre11, 1);
  cr_assert_eq(scenario("hvdngc").plan.cublas_pre11, 1);
  cr_assert_eq(scenario("ngc2006").plan.cublas_pre11, 0);
  cr_assert_eq(scenario("nvbert").plan.cublas_pre11, 0);
  cr_assert_eq(scenario("amp").plan.cublas_pre11, 0, "OneFlow's release is not dated");
  /* NVIDIA's BERT pads its vocabulary to a multiple of 8 (30,528), the
   * others keep BERT's 30,522 */
  cr_assert_eq(scenario("nvamp").model.bert.vocab, 30528);
  cr_assert_eq(scenario("nvbert").model.bert.vocab, 30528);
  cr_assert_eq(scenario("tfamp").model.bert.vocab, 30522);
  cr_assert_eq(scenario("amp").model.bert.vocab, 30522);
  /* so the TensorFlow row runs its masked-LM decoder on the CUDA cores:
   * slower than the same row under cuBLAS 11 by more than 10 ms a step */
  double slower = pre11_slowdown("tfamp");
  cr_assert(slower > 0.010 && slower < 0.016, "%g s", slower);
  /* said only where it runs 16-bit GEMMs */
  said_only_by("nvamp", "nvfp32", "cuBLAS 10 (NGC 20.03)");
}

Test(dp_framework_rows, a_release_built_before_cuda_11_runs_cublas_10) {
  /* a framework release named alone whose own builds all predate CUDA 11
   * (MXNet 1.6.0, Paddle 1.8.3) ran cuBLAS 10 on a V100; TensorFlow 2.4
   * has CUDA 11 builds, OneFlow is not dated, and an A100 needs CUDA 11
   * whatever the release (MLPerf v0.7's "MXNet 1.6.0": a container's
   * rebuild) */
  static const struct {
    const char *id;
    int pre11;
  } rows[] = {{"gluonamp", 1}, {"gluonfp32", 1}, {"paddleamp", 1},
              {"tf24amp", 0},  {"amp", 0},       {"mx16a100", 0}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    cr_assert_eq(scenario(rows[i].id).plan.cublas_pre11, rows[i].pre11, "row %s", rows[i].id);
  /* gluon-nlp's BERT keeps its 30,522 words: the decoder leaves the
   * tensor cores, the step is slower than under cuBLAS 11 */
  cr_assert_eq(scenario("gluonamp").model.bert.vocab, 30522);
  double slower = pre11_slowdown("gluonamp");
  cr_assert(slower > 0.010 && slower < 0.016, "%g s", slower);
  said_only_by("gluonamp", "gluonfp32", "the release's own builds predate CUDA 11");
}

Test(dp_framework_rows, nvidia_pytorch_bert_with_apex_runs_the_mlm_head_on_every_position) {
  /* NVIDIA's PyTorch BERT of the APEX era (DeepLearningExamples'
   * BertPreTrainingHeads) runs its masked-LM head on all 128 positions, in
   * fp32 as in AMP; NVIDIA's MLPerf BERT (a PyTorch release named
   * without APEX), its MXNet BERT, a container list, OneFlow and
   * TensorFlow gather the masked ones first */
  cr_assert_eq(scenario("nvamp").model.bert.mlm_all_positions, 1);
  cr_assert_eq(scenario("nvfp32").model.bert.mlm_all_positions, 1);
  const char *gathered[] = {"nvbert", "nvbertngc", "nvbertlist", "plainbert", "hvdbert",
                            "nvmx", "amp", "tfamp", "ngc2006"};
  for (size_t i = 0; i < sizeof gathered / sizeof *gathered; i++)
    cr_assert_eq(scenario(gathered[i]).model.bert.mlm_all_positions, 0, "%s", gathered[i]);
  /* the head over 108 more rows of 64 sequences: 2 x 768 x 31,290 x 108 x
   * 64 = 332 GFLOPs forward, about 1 TFLOP forward and backward: the step
   * grows by several ms on a V100 in fp16 (125 TFLOP/s peak) */
  sc_scenario all = scenario("nvamp"), gathered20 = all;
  gathered20.model.bert.mlm_all_positions = 0;
  double more = predict(&all).compute_s - predict(&gathered20).compute_s;
  cr_assert(more > 0.008 && more < 0.040, "%g s", more);
  said_only_by("nvamp", "nvbert", "masked-LM head on every position");
}
