#!/usr/bin/env bash
# cli_e2e_net.sh -- end-to-end checks of `stepcast collective` and
# `stepcast topo`: exit codes, output shape, and error messages that name
# the bad element of a topology. Usage: tests/cli_e2e_net.sh PATH/TO/stepcast
# Prints one line per failure and a final "N passed, N failed"; exits 1
# when anything failed.
set -u
CLI=${1:?usage: cli_e2e_net.sh PATH/TO/stepcast}
. "$(dirname "$0")/e2e_lib.sh"

# ------------------------------------------------------------- topo: good
expect 0 "ring" -- topo --list
expect 0 "fat_tree" -- topo --list
expect 0 "check        ok" -- topo ring:n=8 --check
expect 0 'digraph "ring:n=4"' -- topo ring:n=4 --dot
expect 0 "check        ok" -- topo dgx1 --check
expect 0 "check        ok" -- topo rail:nodes=2,gpus=8 --check
expect 0 "check        ok" -- topo Fat_Tree:hosts=32,radix=8,levels=2 --check
printf '{"name": "pair", "nodes": [{"name": "g0"}, {"name": "g1"}],\n "links": [{"from": "g0", "to": "g1", "bw_GBps": 25}]}\n' > "$TMP/ok.json"
expect 0 "check        ok" -- topo "$TMP/ok.json" --check

# -------------------------------------------------------------- topo: bad
printf '{"nodes": [{"name": "g0"}, {"name": "g1"}, {"name": "g2"}],\n "links": [{"from": "g0", "to": "g1", "bw_GBps": 25}]}\n' > "$TMP/disc.json"
expect 2 "disconnected" -- topo "$TMP/disc.json"
expect 2 "g2" -- topo "$TMP/disc.json"
printf '{"nodes": [{"name": "g0"}, {"name": "g1"}],\n "links": [{"from": "g0", "to": "g1", "bw_GBps": 0}]}\n' > "$TMP/zero.json"
expect 2 "links[0].bw_GBps: 0; valid: 1e-6..1e9" -- topo "$TMP/zero.json"
printf '{"nodes": [{"name": "g0"}, {"name": "g1"}],\n "links": [{"from": "g0", "to": "g1", "bw_GBps": 25},\n  {"from": "g1", "to": "g0", "bw_GBps": -5}]}\n' > "$TMP/neg.json"
expect 2 "links[1].bw_GBps: -5; valid: 1e-6..1e9" -- topo "$TMP/neg.json"
printf '{"nodes": [{"name": "g0"}, {"name": "g1"}],\n "links": [{"from": "g0", "to": "g9", "bw_GBps": 25}]}\n' > "$TMP/unknown.json"
expect 2 "links[0].to: unknown node 'g9'" -- topo "$TMP/unknown.json"
printf '{"nodes": [{"name": "g0"}, {"name": "g1"}],\n "links": [{"from": "gx", "to": "g1", "bw_GBps": 25}]}\n' > "$TMP/unknown_from.json"
expect 2 "links[0].from: unknown node 'gx'" -- topo "$TMP/unknown_from.json"
printf '{"nodes": [{"name": "g0"}, {"name": "g1"}],\n "links": [{"from": "g0", "to": "g1", "bw_GBps": 25}\n' > "$TMP/syntax.json"
expect 2 "$TMP/syntax.json:" -- topo "$TMP/syntax.json"
expect 2 "n=0 must be >= 2" -- topo ring:n=0
expect 2 "unknown topology generator 'nosuch'" -- topo nosuch:n=3
expect 3 "cannot read the topology file (No such file" -- topo "$TMP/absent.json"
expect 2 "unexpected argument" -- topo ring:n=4 --bogus

# ------------------------------------------------------ collective: good
expect 0 "busbw" -- collective --op all_reduce --ranks 8 --arch 80 --nvlink 300 --min 1K --max 1G
expect 0 "ring" -- collective --op all_gather --ranks 16 --ppn 8 --nic 200 --min 1M --max 64M
expect 0 "busbw" -- collective --op All_Reduce --ranks 8 --min 1M --max 1M
expect 0 "bytes,nccl_us" -- collective --ranks 8 --format csv --min 1M --max 1M
# no NVLink: a Gen4 x16 slot, NCCL's 24 GB/s: 1 GiB all-reduced by 8 ranks
# reaches 23.97 GB/s of bus bandwidth (12 x 31.5 / 15.75 = 24, less latency)
expect 0 "PCIe 31.5 GB/s" -- collective --ranks 8 --arch 80 --pcie 31.5 --min 1G --max 1G
expect 0 "  23.97 ring /Simple" -- collective --ranks 8 --arch 80 --pcie 31.5 --min 1G --max 1G
expect 2 "--pcie expects the slot's x16 rate" -- collective --ranks 8 --pcie 0
# the servers' CPU across nodes (NCCL's tuner rows; docs/network.md): A100 is taken as DGX A100's AMD
expect 0 "54.91       1.19       2.24 tree /LL" -- collective --ranks 16 --ppn 8 --min 64K --max 64K
expect 0 "50.80       1.29       2.42 tree /LL" -- collective --ranks 16 --ppn 8 --min 64K --max 64K --host-cpu intel
expect 2 "--host-cpu expects auto, intel, amd or arm, got 'xeon'" -- collective --host-cpu xeon
expect 2 "--pcie expects a number (the slot's x16 rate in GB/s, e.g. 31.5), got 'fast'" -- collective --ranks 8 --pcie fast
expect 2 "--nvlink and --pcie both given: --pcie means the GPUs have no NVLink; give one of them" -- collective --ranks 8 --nvlink 100 --pcie 31.5
expect 2 "pcie: the PCIe slot's x16 rate" -- collective --ranks 8 --pcie inf
expect 0 '"rows": [' -- collective --ranks 8 --format json --min 1M --max 1M
# the conditions of the sweep, as the table's first line gives them (JSON had only op and ranks)
expect 0 '"ranks_per_node": 8, "arch": 90, "link": "nvlink", "link_GBps": 450, "nic_Gbps": 200, "fabric": "efa", "host_cpu": "amd", "gpus_per_thread": 1, "topology": "rail:nodes=2"' -- collective --ranks 16 --ppn 8 --arch 90 --nvlink 450 --nic 200 --fabric efa --host-cpu amd --topo rail:nodes=2 --format json --min 1M --max 1M
expect 0 'NIC 200 Gb/s, fabric efa, host CPU amd' -- collective --ranks 16 --ppn 8 --arch 90 --nvlink 450 --nic 200 --fabric efa --host-cpu amd --min 1M --max 1M
expect 0 '"topology": null' -- collective --ranks 8 --format json --min 1M --max 1M
# predict says on which fabric and topology it ran (it did not)
expect 0 "network   efa; topology rail:nodes=64,gpus=8,nvlink=450,nic=400; failed n0.nic3-rail3" -- predict examples/llama3-70b-512-h100.json --set cluster.topology=rail:nodes=64,gpus=8,nvlink=450,nic=400 --set cluster.fabric=efa --set cluster.link_fail=n0.nic3-rail3
expect 0 '"nic_Gbps": 400, "fabric": "roce", "topology": "fat_tree:hosts=512,radix=64,levels=2,oversub=2,bw=50,gpus=8,nvlink=450"}' -- predict examples/llama3-70b-512-h100.json --set cluster.topology=fat_tree:hosts=512,radix=64,levels=2,oversub=2,bw=50,gpus=8,nvlink=450 --set cluster.fabric=roce --format json
# a job whose NVLink domain is not the topology's is refused (the closed
# form is scaled from a reference fabric of the job's domain: --ppn 4 on
# servers of 8 ran 4x slower than the same ranks at --ppn 8)
expect 2 "ranks_per_node 4, but topology rail:nodes=2,gpus=8 puts 8 GPUs on NVSwitch n0.nvs" -- collective --ranks 16 --ppn 4 --topo rail:nodes=2,gpus=8 --min 1M --max 1M
expect 2 "cluster.topology: cluster.nvlink_domain 8, but topology rail:nodes=128,gpus=4,nvlink=450,nic=400 puts 4 GPUs on NVSwitch n0.nvs" -- predict examples/llama3-70b-512-h100.json --set cluster.topology=rail:nodes=128,gpus=4,nvlink=450,nic=400
# collective --html: the conditions, a value on hover at every size and the table's figures
expect 0 "<p>sm90, NVLink 450 GB/s per GPU per direction, NIC 400 Gb/s per GPU, efa</p>" -- collective --ranks 16 --ppn 8 --arch 90 --nvlink 450 --nic 400 --fabric efa --min 1M --max 1M --html -
expect 0 "<title>1048576 B: 216.80 us, busbw 9.07 GB/s, tree/LL128</title>" -- collective --ranks 16 --ppn 8 --arch 90 --nvlink 450 --nic 400 --fabric efa --min 1M --max 1M --html -
expect 0 "<tr><td>1048576</td><td>216.80</td><td>4.84</td><td>9.07</td><td>tree/LL128</td></tr>" -- collective --ranks 16 --ppn 8 --arch 90 --nvlink 450 --nic 400 --fabric efa --min 1M --max 1M --html -
expect 0 "network   infiniband; topology fat_tree:hosts=512,radix=64,levels=2,oversub=4,bw=50,gpus=8,nvlink=450" -- search -m llama3-70b -g h100-sxm5-80gb -n 512 --gb 1024 --top 1 --no-rerank --set cluster.topology=fat_tree:hosts=512,radix=64,levels=2,oversub=4,bw=50,gpus=8,nvlink=450
# ... judged on the topology as built: a failed NVLink cable (GPU 3 off its NVSwitch) is a what-if, not a smaller domain
expect 0 "failed n0.gpu3-n0.nvs" -- predict examples/llama3-70b-512-h100.json --set cluster.topology=rail:nodes=64,gpus=8,nvlink=450,nic=400 --set cluster.link_fail=n0.gpu3-n0.nvs
# topo --check measures the half-shift exchange: GPU i <-> i + n/2 all at once. Two DGX A100
# on one leaf: each pair over its 200 Gb/s NIC (25 GB/s); rails keep GPU g of every server on
# one switch (the 400 Gb/s NIC, whatever the spines); a 2:1 fat-tree of the same servers
# gets at most half of it
expect 0 "exchange     24.998 GB/s per GPU per direction" -- topo examples/topologies/two_dgx_a100.json --check
expect 0 "exchange     49.990 GB/s per GPU per direction" -- topo rail:nodes=8,gpus=8,nvlink=450,nic=400,oversub=2 --check
expect 0 '"lat_max_us": 1, "routing": "ecmp", "exchange_GBps": 49.99' -- topo rail:nodes=2,gpus=8 --check --format json
expect 0 'lat_max_us,routing,exchange_GBps,check,warnings' -- topo rail:nodes=2,gpus=8 --check --format csv
# the check's warnings reach the CSV too (one cell, "; " between them)
printf '{"name":"asym","nodes":[{"name":"g0","kind":"gpu"},{"name":"g1","kind":"gpu"}],"links":[{"from":"g0","to":"g1","bw_GBps":10,"duplex":false},{"from":"g1","to":"g0","bw_GBps":20,"duplex":false}]}' > "$TMP/asym.json"
expect 0 'ok,asymmetric link g0 -> g1 (10 GB/s) has no reverse link of the same bandwidth; asymmetric link g1 -> g0' -- topo "$TMP/asym.json" --check --format csv
ft=$("$CLI" topo fat_tree:hosts=64,radix=16,levels=2,oversub=2,bw=50,gpus=8,nvlink=450 --check --format csv | awk -F, 'NR == 2 {print $12}')
if awk -v x="${ft:-99}" 'BEGIN {exit !(x > 0 && x <= 25)}'; then pass=$((pass + 1))
else echo "FAIL: 2:1 fat-tree exchange '${ft:-}' GB/s not in (0, 25]"; fail=$((fail + 1)); fi
# fat_tree of 8-GPU servers: hosts must be whole servers
expect 0 "nvswitch 8, nic 64" -- topo fat_tree:hosts=64,radix=16,levels=2,oversub=2,gpus=8
expect 2 "hosts=60 must be whole servers of gpus=8 (valid nearby: 56 or 64)" -- topo fat_tree:hosts=60,radix=16,levels=2,gpus=8
expect 0 "busbw" -- collective --ranks 8 --topo ring:n=8 --algo ring --min 1M --max 4M
# the 8 x A100 table reaches at least 200 GB/s bus bandwidth at 1 GiB
out=$("$CLI" collective --ranks 8 --arch 80 --nvlink 300 --format csv --min 1G --max 1G 2>&1)
bus=$(echo "$out" | awk -F, 'NR == 2 {print int($4)}')
if [[ ${bus:-0} -ge 200 && ${bus:-0} -le 240 ]]; then pass=$((pass + 1))
else echo "FAIL: 8 x A100 all_reduce 1 GiB busbw '${bus:-}' not in 200..240 GB/s"; fail=$((fail + 1)); fi

# one thread driving the 8 GPUs (nccl-tests -g 8): 8 x (5.186 + 0.312 x 1
# channel) = 43.984 us a
# 1 KiB all-reduce, host-bound (the GPUs take 35.02 us)
out=$("$CLI" collective --ranks 8 --gpus-per-thread 8 --format csv --min 1K --max 1K 2>&1)
t=$(echo "$out" | awk -F, 'NR == 2 {print $2}')
if [[ "${t:-}" == "43.984" ]]; then pass=$((pass + 1))
else echo "FAIL: --gpus-per-thread 8, 1 KiB: '${t:-}' us, want 43.984"; fail=$((fail + 1)); fi
expect 0 "8 GPUs per host thread" -- collective --ranks 8 --gpus-per-thread 8 --min 1K --max 1K

# ------------------------------------------------------- collective: bad
expect 2 "--gpus-per-thread expects an integer 1..1024" -- collective --gpus-per-thread 0
expect 2 "is larger than the 8 GPUs of ring:n=8" -- collective --ranks 16 --topo ring:n=8 --algo ring --min 1M --max 1M
expect 2 "--op expects all_reduce, all_gather" -- collective --op nosuch
expect 2 "no algorithm 'nosuch'" -- collective --ranks 8 --topo ring:n=8 --algo nosuch
expect 2 "--ranks expects an integer 1..16777216" -- collective --ranks 0
expect 2 "disconnected" -- collective --ranks 3 --topo "$TMP/disc.json" --algo ring --min 1M --max 1M
expect 2 "unknown node 'g9'" -- collective --ranks 2 --topo "$TMP/unknown.json" --algo ring --min 1M --max 1M

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
