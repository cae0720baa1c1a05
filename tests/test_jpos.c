/*
 * test_jpos.c -- the line and column of a key path's value in JSON text
 * (src/load/jpos.h), and every loader's type and range errors carrying
 * them as its syntax errors do.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "load/graph_json.h"
#include "load/jpos.h"
#include "load/scenario.h"
#include "load/topo_json.h"
#include "net/topo.h"
#include "stepcast.h"
#include "stepcast_recsys.h"
#include "tmpfile.h"

/* path must be at line:col of text (0, 0: not found). */
static void at(const char *text, const char *path, int line, int col) {
  int l = 0, c = 0;
  int found = jpos_find(text, strlen(text), path, &l, &c);
  cr_assert_eq(found, line > 0, "%s in %s: found %d", path, text, found);
  if (found)
    cr_assert(l == line && c == col, "%s in %s: %d:%d, expected %d:%d", path, text, l, c, line,
              col);
}

Test(jpos, finds_keys_and_elements) {
  const char *t = "{\n  \"a\": {\"b\": [10, {\"c\": \"x\"}]},\n  \"d\": 1\n}";
  at(t, "a", 2, 8);
  at(t, "a.b", 2, 14);
  at(t, "a.b[0]", 2, 15);
  at(t, "a.b[1].c", 2, 25);
  at(t, "d", 3, 8);
  at(t, "a.b[2]", 0, 0);     /* past the end */
  at(t, "a.z", 0, 0);        /* no such key */
  at(t, "d.e", 0, 0);        /* below a number */
  at(t, "a[0]", 0, 0);       /* an object is not an array */
  at(t, "(top level)", 0, 0);
  at(t, "", 0, 0);
}

Test(jpos, skips_what_looks_like_structure_inside_strings) {
  /* brackets, braces, quotes and a key's name inside strings and keys */
  const char *t = "{\"s\": \"[{\\\"x\\\": 1}]\", \"k\\\"q\": {\"x\": 2}, \"x\": [\"]\", 3]}";
  at(t, "x", 1, 46);
  at(t, "x[1]", 1, 52);
  at(t, "k\"q.x", 1, 37);
  /* keys written with \u escapes: one byte, two bytes of UTF-8 */
  at("{\"pl\\u0061n\": 1}", "plan", 1, 15);
  at("{\"caf\\u00e9\": 1, \"x\": 2}", "caf\xc3\xa9", 1, 15);
  at("{\"\\ud83d\\ude00\": 1}", "\xf0\x9f\x98\x80", 0, 0); /* a surrogate pair: not decoded */
}

Test(jpos, skips_an_operator_label_and_counts_characters) {
  const char *t = "{\"blocks\": [{\"ops\": [{\"m\": 1}, {\"m\": \"x\"}]}]}";
  at(t, "blocks[0].ops[1] (op \"b.c\").m", 1, 38);
  at(t, "blocks[0].ops[1].m (op \"b\")", 1, 38);
  /* "é" is two bytes and one column (jansson counts characters too) */
  at("{\"n\": \"\xc3\xa9\", \"m\": true}", "m", 1, 17);
}

Test(jpos, annotate_rewrites_only_a_found_path_not_set_by_an_override) {
  const char *t = "{\n \"plan\": {\"tp\": \"8\"}}";
  sc_error e;
  sc_error_set(&e, SC_EINPUT, "f.json: plan.tp: expected a positive integer");
  jpos_annotate(&e, "f.json", t, strlen(t));
  cr_assert_str_eq(e.msg, "f.json:2:17: plan.tp: expected a positive integer");
  cr_assert_eq(e.code, SC_EINPUT);
  static const char *const kept[] = {
      "f.json: plan.pp: not in the file",
      "f.json: plan.tp: bad (set by override \"plan.tp=8\")",
      "f.json:1:2: invalid JSON: ...",
      "other.json: plan.tp: another file's",
      "f.json: no key path here",
  };
  for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
    sc_error_set(&e, SC_EINPUT, "%s", kept[i]);
    jpos_annotate(&e, "f.json", t, strlen(t));
    cr_assert_str_eq(e.msg, kept[i]);
  }
}

/* msg starts with prefix. */
static void starts(const char *msg, const char *prefix) {
  cr_assert(!strncmp(msg, prefix, strlen(prefix)), "'%s' does not start with '%s'", msg, prefix);
}

/* Each loader: a wrong type on line 3 names its line and column. */
Test(jpos, every_loader_gives_the_place_of_a_wrong_value) {
  sc_error e = {0};
  sc_scenario s;
  const char *scen = "{\n  \"plan\": {\n    \"pp\": 2, \"tp\": \"8\"\n  }\n}\n";
  cr_assert_eq(sc_scenario_load_string(&s, scen, "s.json", NULL, 0, &e), SC_EINPUT);
  cr_assert_str_eq(e.msg, "s.json:3:20: plan.tp: expected a positive integer, got string \"8\"");
  /* a relation between values names the place of the one at fault */
  const char *rel = "{\"plan\": {\n \"tp\": 5}}";
  cr_assert_eq(sc_scenario_load_string(&s, rel, "s.json", NULL, 0, &e), SC_EINPUT);
  starts(e.msg, "s.json:2:8: plan.tp: 5 does not divide");
  /* a value an override set is in no file: no place */
  const char *const ov[] = {"plan.tp=x"};
  cr_assert_eq(sc_scenario_load_string(&s, scen, "s.json", ov, 1, &e), SC_EINPUT);
  starts(e.msg, "s.json: plan.tp: ");

  const char *tj = "{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}],\n \"links\": [\n"
                   "  {\"from\": \"a\", \"to\": \"b\", \"bw_GBps\": \"fast\"}]}";
  topo *t = NULL;
  cr_assert_eq(topo_json_load_buffer(tj, strlen(tj), "t.json", &t, &e), SC_EINPUT);
  cr_assert_str_eq(e.msg, "t.json:3:39: links[0].bw_GBps: must be a number");

  const char *gj = "{\"name\": \"g\", \"seq\": 4, \"blocks\": [{\"name\": \"l\", \"role\": "
                   "\"layer\",\n \"input\": {\"name\": \"x\", \"shape\": [4, 8]}, \"ops\": [\n"
                   "  {\"name\": \"a\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
                   "\"out_features\": \"16\"}], \"output\": \"y\"}]}";
  wg_graph *g = NULL;
  cr_assert_eq(graph_json_load_buffer(gj, strlen(gj), "g.json", &g, &e), SC_EINPUT);
  starts(e.msg, "g.json:3:74: blocks[0].ops[0].out_features (op \"a\"): expected");

  char path[] = "/tmp/sc_jpos_XXXXXX";
  tmp_write(path, "{\"model\": {\"tables\": \"1x10x13@1\",\n"
                  "  \"top_mlp\": [1],\n  \"dense_features\": \"13\"}}");
  sc_rs_job j;
  sc_rs_plan p;
  int autop;
  cr_assert_eq(sc_rs_job_load_file(path, &j, &p, &autop, &e), SC_EINPUT);
  char want[160];
  snprintf(want, sizeof want, "%s:3:21: model.dense_features: expected", path);
  starts(e.msg, want);
  unlink(path);
}
