/*
 * test_gpu_names.c -- the GPU presets published runs use, and the names
 * rows write for them: every preset and cluster preset loads and
 * predicts; the spellings of nvidia-smi, clouds and papers map to the
 * right preset, a half-stated name to the documented default with a note,
 * and a name of a part stepcast has no preset for to none; a validation
 * set written in such spellings is predicted row by row, none skipped.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "stepcast.h"
#include "hw/gpu_names.h"
#include "trace/whatif.h"

/* ------------------------------------------------------------- mapping */

typedef struct name_case {
  const char *text;    /* as a row writes it */
  const char *preset;  /* expected preset id; NULL = no preset */
  const char *note;    /* a word the note must contain; NULL = no note */
} name_case;

static const name_case names[] = {
    /* preset ids and the set ids of ../shared/validation: as before, no note */
    {"a100-sxm4-80gb", "a100-sxm4-80gb", NULL},
    {"A100-SXM4-40GB", "a100-sxm4-40gb", NULL},
    {"a100-sxm4", "a100-sxm4-80gb", NULL},
    {"v100", "v100-sxm2-32gb", NULL},
    {"H100-SXM5-80GB", "h100-sxm5-80gb", NULL},
    {"MI300X", "mi300x", NULL},
    {"GB200", "gb200", NULL},
    {"mi250x", "mi250x", NULL},
    /* nvidia-smi, cloud and paper spellings that say everything */
    {"NVIDIA H100 80GB HBM3", "h100-sxm5-80gb", NULL},
    {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb", NULL},
    {"A100 80GB PCIe", "a100-pcie-80gb", NULL},
    {"NVIDIA A100-PCIE-40GB", "a100-pcie-40gb", NULL},
    {"a100_pcie_40gb", "a100-pcie-40gb", NULL},
    {"A100 PCI-E 40 GB", "a100-pcie-40gb", NULL},
    {"Tesla V100-SXM2-16GB", "v100-sxm2-16gb", NULL},
    {"tesla v100 sxm2 32 gb", "v100-sxm2-32gb", NULL},
    {"V100-SXM3-32GB", "v100-sxm3-32gb", NULL},
    {"Tesla V100S-PCIE-32GB", "v100s-pcie-32gb", NULL},
    {"Tesla P100-SXM2-16GB", "p100-sxm2-16gb", NULL},
    {"NVIDIA H100 PCIe", "h100-pcie-80gb", NULL},
    {"H100 80GB HBM2e", "h100-pcie-80gb", NULL},
    {"NVIDIA H100 NVL", "h100-nvl-94gb", NULL},
    {"H100 SXM 96GB", "h100-sxm5-96gb", NULL},
    {"NVIDIA H200 SXM 141GB", "h200", NULL},
    {"NVIDIA H800", "h800", NULL},
    {"H800-SXM5-80GB", "h800", NULL},
    {"NVIDIA A800-SXM4-80GB", "a800-sxm4-80gb", NULL},
    {"NVIDIA A800 80GB PCIe", "a800-pcie-80gb", NULL},
    {"NVIDIA GH200 144G HBM3e", "gh200-144gb", NULL},
    {"GH200 96GB", "gh200-96gb", NULL},
    {"NVIDIA L40S", "l40s", NULL},
    {"NVIDIA L40", "l40", NULL},
    {"NVIDIA L4", "l4", NULL},
    {"NVIDIA A10", "a10", NULL},
    {"NVIDIA RTX A6000", "rtx-a6000", NULL},
    {"NVIDIA RTX A5000", "rtx-a5000", NULL},
    {"NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada", NULL},
    {"NVIDIA GeForce RTX 4090", "rtx-4090", NULL},
    {"Tesla T4", "t4", NULL},
    {"NVIDIA GeForce RTX 3090", "rtx-3090", NULL},
    {"8x NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb", NULL},
    {"NVIDIA A30", "a30-pcie-24gb", NULL},
    {"NVIDIA A40", "a40-pcie-48gb", NULL},
    {"AMD Instinct MI300X OAM", "mi300x", NULL},
    {"AMD Instinct MI325X", "mi325x", NULL},
    {"NVIDIA GB200 NVL72", "gb200", NULL},
    {"NVIDIA B200", "b200", NULL},
    {"NVIDIA HGX B200", "b200", NULL},
    /* half-stated: the documented default, said in the note */
    {"NVIDIA A100", "a100-sxm4-80gb", "form factor, memory not stated"},
    {"A100 40GB", "a100-sxm4-40gb", "form factor not stated"},
    {"A100 PCIe", "a100-pcie-80gb", "memory not stated"},
    {"A100 SXM4", "a100-sxm4-80gb", "memory not stated"},
    {"DGX A100", "a100-sxm4-80gb", "memory not stated"},
    {"H100", "h100-sxm5-80gb", "not stated"},
    {"H100 80GB", "h100-sxm5-80gb", "form factor not stated"},
    {"Tesla V100", "v100-sxm2-32gb", "not stated"},
    {"V100 16GB", "v100-sxm2-16gb", "form factor not stated"},
    {"GH200", "gh200-144gb", "memory not stated"},
    {"A800", "a800-sxm4-80gb", "form factor not stated"},
    {"Tesla P100", "p100-pcie-16gb", "form factor not stated"},
    {"NVIDIA A10G", "a10", "A10G"},
    {"AMD Instinct MI250X", "mi250x", "GCD"},
    {"AMD MI250X GCD", "mi250x", "GCD"},
    {"Tesla K80", "k80", "GK210"},
    /* parts without a preset, contradictions and non-GPU text: none */
    {"A800-SXM4-40GB", NULL, NULL},
    {"H200 NVL", NULL, NULL},
    {"MI300", NULL, NULL},
    {"MI300A", NULL, NULL},
    {"Quadro RTX 6000", NULL, NULL},
    {"RTX 4090 D", NULL, NULL},
    {"RTX 3090 Ti", NULL, NULL},
    {"8xA100", NULL, NULL},
    {"A100X", NULL, NULL},
    {"A100 48GB", NULL, NULL},
    {"V100 SXM2 24GB", NULL, NULL},
    {"H100 SXM5 HBM2e", NULL, NULL},
    {"A100 SXM4 PCIe", NULL, NULL},
    {"A100 40GB 80GB", NULL, NULL},
    {"A100 H100", NULL, NULL},
    {"GH200 480GB", NULL, NULL},
    {"H20", NULL, NULL},
    {"pascal-unknown", NULL, NULL},
    {"TPU v4", NULL, NULL},
    {"NVIDIA", NULL, NULL},
    {"", NULL, NULL},
    {"a b c d e f g h i j k l m n a100", NULL, NULL},
};

Test(gpu_names, spellings_map_to_presets) {
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const name_case *c = &names[i];
    char note[128] = "x";
    const sc_gpu *g = gpun_resolve(c->text, note, sizeof note);
    if (!c->preset) {
      cr_expect_null(g, "'%s' -> %s, expected no preset", c->text, g ? g->name : "");
      continue;
    }
    cr_expect_not_null(g, "'%s' -> no preset, expected %s", c->text, c->preset);
    if (!g) continue;
    cr_expect_str_eq(g->name, c->preset, "'%s' -> %s, expected %s", c->text, g->name, c->preset);
    if (c->note)
      cr_expect(strstr(note, c->note) && strstr(note, c->preset),
                "'%s': note '%s' lacks '%s'", c->text, note, c->note);
    else
      cr_expect_str_empty(note, "'%s': unexpected note '%s'", c->text, note);
  }
}

Test(gpu_names, null_text_and_note_are_safe) {
  cr_assert_null(gpun_resolve(NULL, NULL, 0));
  cr_assert_not_null(gpun_resolve("A100", NULL, 0));
  char tiny[8];
  cr_assert_not_null(gpun_resolve("A100", tiny, sizeof tiny));
  cr_assert_eq(strlen(tiny), sizeof tiny - 1, "note truncated, terminated");
}

/* A traced device name (PyTorch profiler deviceProperties) reads the same
 * way; a name it cannot read falls back to the old substring table, then
 * the SM version. */
Test(gpu_names, traced_device_names) {
  static const struct {
    const char *name;
    int arch;
    const char *preset;
  } t[] = {{"NVIDIA A100-SXM4-80GB", 80, "a100-sxm4-80gb"}, /* the shipped traces' */
           {"Tesla V100-SXM2-32GB", 70, "v100-sxm2-32gb"},
           {"NVIDIA L40S", 89, "l40s"},
           {"NVIDIA H800", 90, "h800"},
           {"NVIDIA A100 80GB PCIe", 80, "a100-pcie-80gb"},
           {"NVIDIA H100 80GB HBM3", 90, "h100-sxm5-80gb"},
           {"AMD Instinct MI300X", 0, "mi300x"},
           {"Some Future GPU", 90, "h100-sxm5-80gb"}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    const sc_gpu *g = wi_traced_gpu(t[i].name, t[i].arch);
    cr_expect(g && !strcmp(g->name, t[i].preset), "'%s' -> %s, expected %s", t[i].name,
              g ? g->name : "none", t[i].preset);
  }
  cr_expect_null(wi_traced_gpu("Some Future GPU", 89), "sm89 without a readable name: none");
}

/* --------------------------------------------------- presets predict */

/* Step time of llama3-8b on 8 GPUs of `gpu` (data parallel, ZeRO-3),
 * in `dtype`; asserts it predicts. */
static double step_on(const char *gpu, const char *dtype) {
  char json[256], o_gpu[64], o_dt[32];
  snprintf(json, sizeof json,
           "{\"model\": \"llama3-8b\", \"cluster\": {\"gpu\": \"%s\", \"gpus\": 8, "
           "\"gpus_per_node\": 8}, \"plan\": {\"tp\": 1, \"pp\": 1, \"dp\": 8, \"zero\": 3, "
           "\"global_batch\": 64, \"micro_batch\": 1}}",
           gpu);
  snprintf(o_gpu, sizeof o_gpu, "cluster.gpu=\"%s\"", gpu);
  snprintf(o_dt, sizeof o_dt, "plan.dtype=\"%s\"", dtype);
  const char *ov[] = {o_gpu, o_dt};
  sc_scenario s;
  sc_error e = {0};
  cr_assert_eq(sc_scenario_load_string(&s, json, "test", ov, 2, &e), SC_OK, "%s: %s", gpu, e.msg);
  sc_result r;
  cr_assert_eq(sc_predict(&s, &r, &e), SC_OK, "%s: %s", gpu, e.msg);
  cr_assert(isfinite(r.step_s) && r.step_s > 0, "%s: step %g", gpu, r.step_s);
  cr_assert(r.mfu > 0.05 && r.mfu < 1, "%s: MFU %g", gpu, r.mfu);
  return r.step_s;
}

Test(gpu_names, new_presets_load_and_predict) {
  static const char *const ids[] = {"h800",  "a800-sxm4-80gb", "a800-pcie-80gb", "gh200-144gb",
                                    "gh200-96gb", "h100-nvl-94gb", "l40s", "l40", "l4", "a10",
                                    "rtx-a6000", "rtx-6000-ada", "rtx-4090", "rtx-3090", "mi250x",
                                    "mi250"};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    const sc_gpu *g = sc_gpu_preset(ids[i]);
    cr_assert_not_null(g, "%s", ids[i]);
    cr_assert(g->peak_flops[SC_BF16] > 0 && g->hbm_bytes > 0 && g->hbm_bw > 0 &&
                  g->nvlink_bw > 0 && g->hbm_eff > 0.5 && g->hbm_eff < 1 &&
                  g->gemm_eff > 0.5 && g->gemm_eff < 1 && g->attn_eff > 0 && g->sm_count > 0,
              "%s: incomplete", ids[i]);
    step_on(ids[i], "bf16");
  }
  step_on("t4", "fp16"); /* Turing: no bf16 */
}

Test(gpu_names, new_presets_rank_as_their_datasheets) {
  /* same board and memory, twice the tensor rate: faster, not twice */
  double l40 = step_on("l40", "bf16"), l40s = step_on("l40s", "bf16");
  cr_assert(l40s < l40 && l40s > 0.5 * l40, "l40s %g, l40 %g", l40s, l40);
  /* a GCD of MI250 has fewer CUs than one of MI250X */
  cr_assert_gt(step_on("mi250", "bf16"), step_on("mi250x", "bf16"));
  /* H800 is H100 with less NVLink: never faster */
  cr_assert_geq(step_on("h800", "bf16"), step_on("h100-sxm5-80gb", "bf16"));
  /* A800 likewise against A100 */
  cr_assert_geq(step_on("a800-sxm4-80gb", "bf16"), step_on("a100-sxm4-80gb", "bf16"));
}

Test(gpu_names, new_cluster_presets_load_and_predict) {
  static const char *const ids[] = {
      "dgx-a100-320gb",   "dgx-h200",         "hgx-h800", "azure-nd-a100-v4",   "azure-ndm-a100-v4",
      "aws-p4d",          "aws-p4de",         "aws-p5e",  "azure-nd-h100-v5",   "azure-nd-h200-v5",
      "azure-nd-mi300x-v5", "olcf-frontier"};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    char json[256];
    snprintf(json, sizeof json,
             "{\"model\": \"llama3-8b\", \"cluster\": {\"preset\": \"%s\", \"nodes\": 2}, "
             "\"plan\": {\"tp\": 1, \"pp\": 1, \"dp\": 16, \"zero\": 3, \"global_batch\": 64, "
             "\"micro_batch\": 1}}",
             ids[i]);
    sc_scenario s;
    sc_error e = {0};
    cr_assert_eq(sc_scenario_load_string(&s, json, "test", NULL, 0, &e), SC_OK, "%s: %s", ids[i],
                 e.msg);
    cr_assert_eq(s.cluster.gpus, 16, "%s", ids[i]);
    cr_assert(s.cluster.nic_bw > 0 && s.cluster.gpu.peak_flops[SC_BF16] > 0, "%s", ids[i]);
    sc_result r;
    cr_assert_eq(sc_predict(&s, &r, &e), SC_OK, "%s: %s", ids[i], e.msg);
    cr_assert(isfinite(r.step_s) && r.step_s > 0, "%s", ids[i]);
  }
}

/* A scenario takes preset ids only; a published spelling that names one
 * preset is an error that gives the id. */
Test(gpu_names, scenario_error_names_the_preset_of_a_spelling) {
  sc_scenario s;
  sc_error e = {0};
  int rc = sc_scenario_load_string(&s, "{\"cluster\": {\"gpu\": \"NVIDIA L40S\"}}", "t", NULL,
                                   0, &e);
  cr_assert_eq(rc, SC_EINPUT);
  cr_assert(strstr(e.msg, "cluster.gpu") && strstr(e.msg, "\"l40s\""), "%s", e.msg);
}

Test(gpu_names, cli_predicts_on_a_new_preset) {
  char cmd[512];
  snprintf(cmd, sizeof cmd,
           "%s predict --set cluster.gpu=h800 -m llama3-8b -n 8 --tp 1 --pp 1 --dp 8 "
           "--set plan.global_batch=64 --set plan.micro_batch=1 > /dev/null",
           SC_CLI_PATH);
  int st = system(cmd);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
}

/* ------------------------------------------------- validate on names */

/* The validation of tests/data/<file> (asserted to load). */
static void validate(const char *file, sc_validation *vf) {
  char path[512];
  snprintf(path, sizeof path, "%s/tests/data/%s", SC_SOURCE_DIR, file);
  sc_error e = {0};
  cr_assert_eq(sc_validate_file(path, vf, &e), SC_OK, "%s: %s", path, e.msg);
}

/* Row `id` of vf (asserted present). */
static const sc_validation_row *row(const sc_validation *vf, const char *id) {
  for (int i = 0; i < vf->n; i++)
    if (!strcmp(vf->rows[i].id, id)) return &vf->rows[i];
  cr_assert_fail("no row %s", id);
  return NULL;
}

Test(gpu_names, validation_rows_in_published_spellings_are_all_predicted) {
  static const char *const files[] = {"gpu_names_training.csv", "gpu_names_collective.csv"};
  for (size_t f = 0; f < 2; f++) {
    sc_validation vf;
    validate(files[f], &vf);
    cr_assert_geq(vf.n, 7, "%s", files[f]);
    cr_expect_eq(vf.skipped, 0, "%s: %d skipped", files[f], vf.skipped);
    for (int i = 0; i < vf.n; i++)
      cr_expect(vf.rows[i].predicted > 0 && !vf.rows[i].skipped[0], "%s %s: skipped: %s",
                files[f], vf.rows[i].id, vf.rows[i].skipped);
    sc_validation_free(&vf);
  }
}

Test(gpu_names, validation_says_what_a_half_stated_name_assumed) {
  sc_validation vf;
  validate("gpu_names_training.csv", &vf);
  cr_expect(strstr(row(&vf, "names-a100-bare")->assumed, "read as a100-sxm4-80gb"), "%s",
            row(&vf, "names-a100-bare")->assumed);
  cr_expect(strstr(row(&vf, "names-mi250x")->assumed, "GCD"), "%s",
            row(&vf, "names-mi250x")->assumed);
  /* a full name assumes nothing of the GPU (its blank nvlink_GBps is said) */
  cr_expect(!strstr(row(&vf, "names-h100-smi")->assumed, "read as"), "%s",
            row(&vf, "names-h100-smi")->assumed);
  /* two H800 servers, NIC blank: the reference system's (hgx-h800) */
  cr_expect(strstr(row(&vf, "names-h800-2n")->assumed, "hgx-h800"), "%s",
            row(&vf, "names-h800-2n")->assumed);
  /* a spelling predicts exactly what its preset id does */
  cr_expect_eq(row(&vf, "names-h100-smi")->predicted, row(&vf, "names-h100-sku")->predicted);
  sc_validation_free(&vf);
  validate("gpu_names_collective.csv", &vf);
  cr_expect(strstr(row(&vf, "c-a100-bare")->assumed, "not stated"), "%s",
            row(&vf, "c-a100-bare")->assumed);
  sc_validation_free(&vf);
}
