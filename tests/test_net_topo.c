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
    "fat_tree:hosts=64,radix=16,levels=2,oversub=2,gpus=8",
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
             "nodes[1].name: \"a\" is also the name of nodes[0]");
  /* a duplicate name is reported as such, not as the self-loop its link became */
  expect_bad("{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"a\"}], "
             "\"links\": [{\"from\": \"a\", \"to\": \"b\", \"bw_GBps\": 1}]}",
             "nodes[2].name: \"a\" is also the name of nodes[0]");
  /* a kind that is not a string is no GPU */
  expect_bad("{\"nodes\": [{\"name\": \"a\", \"kind\": 5}], \"links\": []}",
             "nodes[0].kind: must be a string");
  expect_bad("{\"nodes\": [{\"name\": \"a\", \"kind\": null}], \"links\": []}",
             "nodes[0].kind: must be a string");
  expect_bad("{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"links\": "
             "[{\"from\": \"a\", \"to\": \"b\", \"bw_GBps\": 1e-320}]}",
             "links[0].bw_GBps");
  expect_bad("{\"nodez\": []}", "nodez: unknown key");
  expect_bad("{\"generator\": \"ring:n=1\"}", "n=1 must be >= 2");
  expect_bad("{\"generator\": \"moebius\"}", "unknown topology generator");
  expect_bad("{\"nodes\": [{\"name\": \"a\"}], \"links\": [], \"routing\": \"ospf\"}",
             "routing: must be \"ecmp\" (hashed, Ethernet) or \"dmodk\"");
  expect_bad("{\"nodes\": [{\"name\": \"a\"}], \"links\": [], \"routing\": \"dor\"}",
             "dimension order is the torus and mesh generators' own");
  expect_bad("{\"generator\": \"ring:n=4\", \"routing\": \"dmodk\"}",
             "routing: a generator sets its own");
  expect_bad("{\"generator\": \"fat_tree:hosts=16,radix=8,levels=2,ecmp=2\"}",
             "ecmp=2: valid are 0");
}

Test(net_topo, a_file_names_its_routing) {
  const char *j = "{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"links\": "
                  "[{\"from\": \"a\", \"to\": \"b\", \"bw_GBps\": 1}], \"routing\": \"DModK\"}";
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_json_load_buffer(j, strlen(j), "t.json", &t, &e), SC_OK, "%s", e.msg);
  cr_expect_eq(t->routing, ROUTE_DMODK);
  topo_free(t);
  const char *k = "{\"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"links\": "
                  "[{\"from\": \"a\", \"to\": \"b\", \"bw_GBps\": 1}]}";
  cr_assert_eq(topo_json_load_buffer(k, strlen(k), "t.json", &t, &e), SC_OK, "%s", e.msg);
  cr_expect_eq(t->routing, ROUTE_ECMP);
  topo_free(t);
}

/* A misspelt generator key or name gets the "did you mean" a JSON file's
 * key gets (name_suggest); one close to nothing gets none; the valid list
 * follows either way. */
Test(net_topo, generator_typos_suggest_the_key) {
  const char *bad[][2] = {
      {"rail:gpu=8", "generator rail: unknown key 'gpu'; did you mean \"gpus\"? (valid: nodes="},
      {"rail:nodes=2,nvlnk=300", "unknown key 'nvlnk'; did you mean \"nvlink\"? (valid:"},
      {"fat_tree:host=32,radix=8", "unknown key 'host'; did you mean \"hosts\"?"},
      {"rail:zzz=1", "generator rail: unknown key 'zzz' (valid: nodes="},
      {"rail:nodes_per_rack_and_more=1", "unknown key 'nodes_per_rack_and_more' (valid:"},
      {"rial:gpus=8", "unknown topology generator 'rial'; did you mean \"rail\"? (valid: ring,"},
      {"moebius", "unknown topology generator 'moebius' (valid: ring,"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    topo *t = NULL;
    sc_error e = {0};
    cr_expect_eq(topo_gen(bad[i][0], &t, &e), SC_EINPUT, "%s", bad[i][0]);
    cr_expect(strstr(e.msg, bad[i][1]), "%s: %s", bad[i][0], e.msg);
    cr_expect_null(t);
  }
}

/* Generator and node kind names ignore case, as the collective op names
 * do (core/name.h): each spelling builds the graph the table's name
 * builds; a name that is none (underscores count: "fattree") is refused
 * listing them. */
Test(net_topo, generator_and_kind_names_ignore_case) {
  const char *same[][2] = {{"fat_tree:hosts=32,radix=8,levels=2", "Fat_Tree:hosts=32,radix=8,levels=2"},
                           {"fat_tree:hosts=32,radix=8,levels=2", "FAT_TREE:hosts=32,radix=8,levels=2"},
                           {"rail:nodes=2", "Rail:nodes=2"},
                           {"dgx1", "DGX1"}};
  for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
    topo *a, *b;
    sc_error e = {0};
    cr_assert_eq(topo_gen(same[i][0], &a, &e), SC_OK, "%s: %s", same[i][0], e.msg);
    cr_assert_eq(topo_gen(same[i][1], &b, &e), SC_OK, "%s: %s", same[i][1], e.msg);
    cr_expect(a->n_nodes == b->n_nodes && a->n_links == b->n_links && a->n_gpus == b->n_gpus,
              "%s: %d nodes %d links, %s: %d nodes %d links", same[i][0], a->n_nodes, a->n_links,
              same[i][1], b->n_nodes, b->n_links);
    topo_free(a), topo_free(b);
  }
  const char *j = "{\"nodes\": [{\"name\": \"a\", \"kind\": \"GPU\"}, {\"name\": \"s\", "
                  "\"kind\": \"NVSwitch\"}, {\"name\": \"b\", \"kind\": \"Gpu\"}], \"links\": ["
                  "{\"from\": \"a\", \"to\": \"s\", \"bw_GBps\": 10}, "
                  "{\"from\": \"b\", \"to\": \"s\", \"bw_GBps\": 10}]}";
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_json_load_buffer(j, strlen(j), "t.json", &t, &e), SC_OK, "%s", e.msg);
  cr_expect_eq(t->n_gpus, 2, "GPU and Gpu are GPUs: %d", t->n_gpus);
  cr_expect_eq(t->nodes[1].kind, TOPO_NVSWITCH, "NVSwitch: kind %d", (int)t->nodes[1].kind);
  topo_free(t);
  expect_bad("{\"nodes\": [{\"name\": \"a\", \"kind\": \"Router\"}], \"links\": []}",
             "'Router' is not a kind (valid: gpu, nvswitch, nic, switch)");
  expect_bad("{\"generator\": \"FatTree\"}", "'FatTree'; did you mean \"fat_tree\"? (valid: ring, torus, mesh, star, tree, expo, dgx1, "
             "rail, dgx, hier, fat_tree, dragonfly)");
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

/* The size each generator announces before building (and refuses beyond
 * TOPO_MAX_BYTES) is exactly what it builds. */
Test(net_topo, generator_sizes_are_exact) {
  static const char *gens[] = {
      "ring:n=2", "ring:n=7", "torus:x=4,y=3,z=2", "torus:x=2,y=5", "mesh:x=4,y=3,z=2",
      "star:n=5", "star:n=5,ps=1", "tree:k=3,depth=4", "expo:n=12", "expo:n=16", "dgx1",
      "rail:nodes=3,gpus=4,spines=2", "rail:nodes=2,gpus=1",
      "hier:nodes=3,gpus=4", "fat_tree:hosts=100,radix=8,levels=3",
      "fat_tree:hosts=30,radix=8,levels=2", "fat_tree:hosts=96,radix=8,levels=3,gpus=4",
      "fat_tree:hosts=24,radix=8,levels=2,gpus=8", "dragonfly:groups=5,routers=3,hosts=2"};
  for (size_t i = 0; i < sizeof gens / sizeof *gens; i++) {
    sc_error err = {0};
    double nodes = 0, links = 0;
    cr_assert_eq(topo_gen_size(gens[i], &nodes, &links, &err), SC_OK, "%s: %s", gens[i],
                 err.msg);
    topo *t = NULL;
    cr_assert_eq(topo_gen(gens[i], &t, &err), SC_OK, "%s: %s", gens[i], err.msg);
    cr_expect_eq(nodes, t->n_nodes, "%s: estimated %g nodes, built %d", gens[i], nodes,
                 t->n_nodes);
    cr_expect_eq(links, t->n_links, "%s: estimated %g links, built %d", gens[i], links,
                 t->n_links);
    topo_free(t);
  }
}

/* Sizes beyond the limit are refused before anything is allocated, with
 * the estimate and the limit in the message (issue 12, hostile input 6). */
Test(net_topo, oversized_generators_are_refused_with_the_estimate) {
  static const char *gens[] = {"fat_tree:hosts=2,radix=65536,levels=3",
                                "rail:nodes=1,gpus=1000,spines=1000000",
                                "dragonfly:groups=1,routers=100000,hosts=1"};
  for (size_t i = 0; i < sizeof gens / sizeof *gens; i++) {
    sc_error err = {0};
    topo *t = NULL;
    cr_assert_eq(topo_gen(gens[i], &t, &err), SC_EINPUT, "%s", gens[i]);
    cr_expect_null(t);
    cr_expect(strstr(err.msg, "too large") && strstr(err.msg, "GB") && strstr(err.msg, "limit"),
              "%s: %s", gens[i], err.msg);
  }
}

/* fat_tree with gpus > 1: its hosts are the NICs of NVSwitch servers, one
 * GPU each behind it; GPU r is GPU r % gpus of server r / gpus (job rank
 * r), a GPU's server peers two hops away over NVLink, other servers over
 * its NIC and the leaves; hosts that are not whole servers are refused. */
Test(net_topo, fat_tree_of_servers) {
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_gen("fat_tree:hosts=32,radix=8,levels=2,gpus=8,nvlink=450", &t, &e), SC_OK,
               "%s", e.msg);
  int kinds[TOPO_KIND_COUNT] = {0};
  for (int v = 0; v < t->n_nodes; v++) kinds[t->nodes[v].kind]++;
  cr_expect_eq(kinds[TOPO_GPU], 32);
  cr_expect_eq(kinds[TOPO_NIC], 32);
  cr_expect_eq(kinds[TOPO_NVSWITCH], 4);
  cr_expect_str_eq(t->nodes[t->gpus[9]].name, "n1.gpu1");
  route_table *rt = route_new(t, ROUTE_ECMP);
  const int *l;
  int len;
  cr_assert_eq(route_path(rt, t->gpus[0], t->gpus[7], &l, &len), 0);
  cr_expect_eq(len, 2, "same server: GPU, NVSwitch, GPU");
  cr_expect_eq(t->links[l[0]].bw, 450e9);
  cr_assert_eq(route_path(rt, t->gpus[0], t->gpus[8], &l, &len), 0);
  cr_expect_eq(len, 6, "next server: GPU, NIC, leaf, spine, leaf, NIC, GPU");
  route_free(rt);
  topo_free(t);
  cr_expect_eq(topo_gen("fat_tree:hosts=30,radix=8,levels=2,gpus=8", &t, &e), SC_EINPUT);
  cr_expect(strstr(e.msg, "valid nearby: 24 or 32"), "%s", e.msg);
}

/* A job's NVLink domain against the topology's NVSwitches: rail servers
 * of 8 take 8 per domain (or all ranks, fewer than 8), not 4; a fat-tree
 * of single-GPU hosts has no NVSwitch and is not judged. */
Test(net_topo, nvlink_domains_agree_with_the_job) {
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_gen("rail:nodes=2,gpus=8", &t, &e), SC_OK, "%s", e.msg);
  cr_expect_eq(topo_domain_check(t, 16, 8, "ppn", &e), SC_OK, "%s", e.msg);
  cr_expect_eq(topo_domain_check(t, 4, 4, "ppn", &e), SC_OK, "%s", e.msg);
  cr_expect_eq(topo_domain_check(t, 16, 4, "ppn", &e), SC_EINPUT);
  cr_expect(strstr(e.msg, "ppn 4, but topology rail:nodes=2,gpus=8 puts 8 GPUs on NVSwitch "
                          "n0.nvs (GPU n0.gpu0, rank 0): give ppn 8"), "%s", e.msg);
  cr_expect_eq(topo_domain_check(t, 16, 16, "ppn", &e), SC_EINPUT);
  topo_free(t);
  cr_assert_eq(topo_gen("fat_tree:hosts=16,radix=8,levels=2", &t, &e), SC_OK, "%s", e.msg);
  cr_expect_eq(topo_domain_check(t, 16, 8, "ppn", &e), SC_OK, "%s", e.msg);
  topo_free(t);
}
