/*
 * bench_event.c -- the event engine at scale: GPT-3 175B on 1,024 A100
 * (TP 8, PP 8, DP 16, 96 micro-batches) and Llama-3 405B on 16,384 H100
 * (TP 8, PP 16, DP 128, 2,048 sequences = 16 micro-batches; embedding and
 * loss in the stage split as in the Llama 3 paper: 128 units), each with
 * and without the trace's spans, folded (one replica per stage) and, for
 * GPT-3, unfolded (every replica); Llama-3 also on a rail-optimized
 * topology (flow engine). Prints wall seconds (job open,
 * lowering, costing and the simulation) and peak RSS.
 */
#include <stdio.h>
#include <sys/resource.h>

#include "core/clock.h"
#include "engine/event.h"
#include "job/job.h"
#include "stepcast.h"

static int bench(const char *what, const char *json, int fold, int trace) {
  sc_scenario s;
  sc_error e = {0};
  sc_scenario_default(&s);
  if (sc_scenario_load_string(&s, json, "bench", NULL, 0, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  double t0 = clock_now_s();
  sc_event_opts o = {fold, trace};
  sc_result r;
  sc_event_pred *p = NULL;
  if (sc_predict_event(&s, &o, &r, &p, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  double wall = clock_now_s() - t0;
  const ev_out *ev = event_pred_run(p);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("%-34s fold %d trace %d: step %.4f s (closed form %.4f s) | wall %.3f s, %d classes, "
         "%ld events, %ld tasks, %ld spans, peak RSS %.1f MB\n",
         what, fold, trace, r.step_s, sc_event_closed_step(p), wall, ev->classes, ev->events,
         ev->tasks, ev->n_spans, ru.ru_maxrss / 1024.0);
  sc_event_pred_free(p);
  return 0;
}

int main(void) {
  const char *gpt3 = "{\"model\": \"gpt3-175b\", \"cluster\": {\"preset\": \"dgx-a100\", "
                     "\"gpus\": 1024}, \"plan\": {\"tp\": 8, \"pp\": 8, \"dp\": 16, "
                     "\"global_batch\": 1536, \"micro_batch\": 1}}";
  const char *llama = "{\"model\": \"llama3-405b\", \"cluster\": {\"preset\": \"dgx-h100\", "
                      "\"gpus\": 16384}, \"plan\": {\"tp\": 8, \"pp\": 16, \"dp\": 128, "
                      "\"global_batch\": 2048, \"micro_batch\": 1, "
                      "\"pp_embedding_in_split\": true, \"pp_loss_in_split\": true}}";
  int rc = bench("GPT-3 175B, 1,024 A100", gpt3, 1, 0);
  rc |= bench("GPT-3 175B, 1,024 A100", gpt3, 1, 1);
  rc |= bench("GPT-3 175B, 1,024 A100", gpt3, 0, 0);
  rc |= bench("Llama-3 405B, 16,384 H100", llama, 1, 0);
  rc |= bench("Llama-3 405B, 16,384 H100", llama, 1, 1);
  /* the same on a rail-optimized topology: collectives through the flow
   * engine, and the data-parallel reduction of all 8 groups of a stage */
  const char *llama_topo =
      "{\"model\": \"llama3-405b\", \"cluster\": {\"preset\": \"dgx-h100\", \"gpus\": 16384, "
      "\"topology\": \"rail:nodes=2048,gpus=8,nvlink=450,nic=400,spines=64\"}, "
      "\"plan\": {\"tp\": 8, \"pp\": 16, \"dp\": 128, \"global_batch\": 2048, "
      "\"micro_batch\": 1, \"pp_embedding_in_split\": true, \"pp_loss_in_split\": true}}";
  rc |= bench("Llama-3 405B, 16,384 H100, rails", llama_topo, 1, 1);
  return rc;
}
