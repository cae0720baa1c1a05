/*
 * ovsize.h -- the size of the cluster given on the command line (module
 * prefix: ovs_).
 *
 * cluster.gpus and cluster.nodes say one thing twice (gpus = nodes x
 * gpus_per_node). An override of one of them (`-n 1024`, `--nodes 16`,
 * `--set cluster.gpus=1024`) replaces what the document said of the
 * size, so the other key of the document is dropped before the overrides
 * apply: `-n 1024` on a file with "nodes": 64 is 1,024 GPUs (128 nodes
 * of 8; a count that is not whole nodes is refused by the cluster checks
 * with the counts nearby). Overrides of both keys stand together and must
 * agree, as in a file.
 */
#ifndef SC_LOAD_OVSIZE_H
#define SC_LOAD_OVSIZE_H

#include <stddef.h>

#include <jansson.h>

/* Drop from root's "cluster" object (when it is one) the size key that
 * an override of ov[0..n) replaces: "nodes" when one sets cluster.gpus
 * and none cluster.nodes, "gpus" the other way round. Changes nothing
 * else; cannot fail. */
void ovs_drop_replaced(json_t *root, const char *const *ov, size_t n);

#endif /* SC_LOAD_OVSIZE_H */
