/*
 * test_net_topo.c -- generators, the JSON loader, checks, routing.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "net/route.h"
#include "net/topo_gen.h"
#include "load/topo_json.h"

static const char *const specs[] = {
    "ring:n=8", "torus:x=4,y=4,z=4", "mesh:x=3,y=5", "star:n=8,ps=1", "tree:k=3,depth=3",
    "expo:n=16", "dgx1", "rail:nodes=4,gpus=8", "dgx:nodes=2", "hier:nodes=3,gpus=4",
    "fat_tree:hosts=128,radix=16,levels=3,oversub=2", "fat_tree:hosts=32,radix=8,levels=2",
    "dragonfly:groups=5,routers=4,hosts=2"};

Test(net_topo, every_generator_builds_a_connected_graph) {
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
    topo *t;
    sc_error e = {0};
    char warn[512];
    cr_assert_eq(topo_gen(specs[i], &t, &e), SC_OK, "%s: %s", specs[i], e.msg);
    cr_expect_eq(topo_check(t, &e, warn, sizeof warn), SC_OK, "%s: %s", specs[i], e.msg);
    cr_expect_eq(warn[0], 0, "%s: unexpected warning %s", specs[i], warn);
    cr_expect(t->n_gpus > 0, "%s: no GPU", specs[i]);
    topo_free(t);
  }
}

static void expect_bad(const char *json, const char *needle) {
  topo *t;
  sc_error e = {0};
  int rc = topo_json_load_buffer(json, strlen(json), "t.json", &t, &e);
  cr_expect_eq(rc, SC_EINPUT, "accepted: %s", json);
  cr_expect(t == NULL);
  cr_expect(strstr(e.msg, needle), "message '%s' lacks '%s'", e.msg, needle);
}

Test(net_topo, bad_topologies_are_rejected_naming_the_element) {
  expect_bad("{\"nodes\": [{\"name\": \"a\"}], \"links\": [", "t.json:1:");
  expect_bad("{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"links\": "
             "[{\"from\": \"a\", \"to\": \"c\", \"bw_GBps\": 1}]}",
             "links[0].to: unknown node 'c'");
  expect_bad("{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"links\": "
             "[{\"from\": \"a\", \"to\": \"b\", \"bw_GBps\": 0}]}",
             "links[0].bw_GBps");
  expect_bad("{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"links\": "
             "[{\"from\": \"a\", \"to\": \"b\", \"bw_GBps\": -3}]}",
             "links[0].bw_GBps");
  expect_bad("{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}], \"links\": "
             "[{\"from\": \"a\", \"to\": \"b\", \"bw_GBps\": 1}]}",
             "disconnected");
  expect_bad("{\"nodes\": [{\"name\": \"a\", \"kind\": \"router\"}], \"links\": []}",
             "nodes[0].kind");
  expect_bad("{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"a\"}], \"links\": []}",
             "two nodes are named \"a\"");
  expect_bad("{\"nodez\": []}", "nodez: unknown key");
  expect_bad("{\"generator\": \"ring:n=1\"}", "n=1 must be >= 2");
  expect_bad("{\"generator\": \"moebius\"}", "unknown topology generator");
}

Test(net_topo, asymmetric_links_are_warned_not_rejected) {
  const char *j = "{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"links\": ["
                  "{\"from\": \"a\", \"to\": \"b\", \"bw_GBps\": 10, \"duplex\": false},"
                  "{\"from\": \"b\", \"to\": \"a\", \"bw_GBps\": 5, \"duplex\": false}]}";
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_json_load_buffer(j, strlen(j), "t.json", &t, &e), SC_OK, "%s", e.msg);
  char warn[512];
  cr_expect_eq(topo_check(t, &e, warn, sizeof warn), SC_OK);
  cr_expect(strstr(warn, "asymmetric"), "warning: %s", warn);
  topo_free(t);
}

Test(net_topo, example_files_load) {
  const char *files[] = {"examples/topologies/two_dgx_a100.json",
                         "examples/topologies/fat_tree_64.json"};
  for (int i = 0; i < 2; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SC_SOURCE_DIR, files[i]);
    topo *t;
    sc_error e = {0};
    cr_expect_eq(topo_json_load_file(path, &t, &e), SC_OK, "%s", e.msg);
    topo_free(t);
  }
}

Test(net_topo, routes_are_shortest_and_dimension_ordered) {
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_gen("torus:x=4,y=4,z=1", &t, &e), SC_OK);
  route_table *r = route_new(t, ROUTE_DOR);
  const int *p;
  int n;
  cr_assert_eq(route_path(r, 0, 15, &p, &n), 0);
  cr_expect_eq(n, 2, "0 -> 15 on a 4x4 torus: %d hops", n); /* wrap both dims */
  for (int i = 1; i < n; i++) cr_expect(t->links[p[i - 1]].dim <= t->links[p[i]].dim);
  route_free(r);
  topo_free(t);
  cr_assert_eq(topo_gen("fat_tree:hosts=128,radix=16,levels=3", &t, &e), SC_OK);
  r = route_new(t, ROUTE_ECMP);
  cr_assert_eq(route_path(r, 0, 127, &p, &n), 0);
  cr_expect_eq(n, 6, "cross-pod route: %d links (up 3, down 3)", n);
  cr_assert_eq(route_path(r, 0, 1, &p, &n), 0);
  cr_expect_eq(n, 2);
  route_free(r);
  topo_free(t);
}
