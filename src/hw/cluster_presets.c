/*
 * cluster_presets.c -- the GPU servers stepcast knows by name (module
 * prefix: clus_).
 *
 * A preset describes ONE server (or one rack for rack-scale NVLink):
 * `gpus` is its GPU count, and a scenario multiplies it with "nodes".
 * nvlink_bw is 0 in every preset: it then follows the GPU preset
 * (sc_gpu.nvlink_bw), so swapping the GPU of a preset keeps the NVLink
 * figure consistent; the comment gives the value it resolves to.
 *
 * Units: bandwidth per GPU per direction in bytes/s; latency in seconds.
 *
 * Sources:
 *   [DGXA100]  NVIDIA DGX A100 datasheet (2020): 8x A100 80GB, 6 NVSwitch,
 *              NVLink 3 600 GB/s bidirectional per GPU, 8x single-port
 *              ConnectX-6 200 Gb/s HDR InfiniBand for compute (one rail
 *              per GPU) + 2 for storage.
 *   [DGXH100]  NVIDIA DGX H100 datasheet (2023): 8x H100 SXM5, 4 NVSwitch,
 *              NVLink 4 900 GB/s bidirectional per GPU, 4 OSFP ports
 *              serving 8x single-port ConnectX-7, 400 Gb/s each.
 *   [HGXH100]  NVIDIA HGX H100 8-GPU baseboard: the DGX H100 GPU complex;
 *              reference designs pair each GPU with one 400 Gb/s NIC.
 *   [DGXB200]  NVIDIA DGX B200 datasheet (2024): 8x B200, NVLink 5 1.8 TB/s
 *              bidirectional per GPU, 8x single-port ConnectX-7 400 Gb/s.
 *   [NVL72]    NVIDIA DGX GB200 / GB200 NVL72 datasheet (2024): 72 Blackwell
 *              GPUs in one NVLink 5 domain (130 TB/s = 72 x 1.8 TB/s), 18
 *              compute trays of 4 GPUs, one 400 Gb/s ConnectX-7 InfiniBand
 *              port per GPU (800 Gb/s ConnectX-8: gb300-nvl72).
 *   [DGXB300]  NVIDIA DGX B300 / HGX B300 datasheets (2025): 8x B300
 *              (Blackwell Ultra, 288 GB), NVLink 5 1.8 TB/s bidirectional
 *              per GPU, 8x ConnectX-8 SuperNIC 800 Gb/s (one per GPU).
 *   [NVL72U]   NVIDIA GB300 NVL72 datasheet (2025): 72 Blackwell Ultra GPUs
 *              in one NVLink 5 domain (130 TB/s), 18 compute trays of 4
 *              GPUs, one 800 Gb/s ConnectX-8 SuperNIC per GPU.
 *   [DGX2]     NVIDIA DGX-2 datasheet (2018): 16x V100 SXM3 32GB on 12
 *              NVSwitch (300 GB/s bidirectional per GPU), 8x 100 Gb/s
 *              EDR InfiniBand for compute: 800 Gb/s per 16 GPUs = 50 Gb/s
 *              per GPU. Shoeybi et al. 2019 (Megatron-LM) quote the same
 *              "100 GB/sec ... using 8 InfiniBand adapters per server".
 *   [DGX1]     NVIDIA DGX-1 with Tesla V100 datasheet (2017): 8x V100 SXM2
 *              in a hybrid cube-mesh (6 NVLink 2 links of 25 GB/s per
 *              direction per GPU, not all pairs directly linked), 4x EDR
 *              100 Gb/s InfiniBand: 50 Gb/s per GPU.
 *
 * Host side (sc_host: GPUs per uplink to the CPU, that uplink, CPU memory
 * bandwidth and size per server; activation offloading, hostlink.c).
 * Memory bandwidth is the DDR peak, sockets x channels x MT/s x 8 bytes,
 * from the CPU datasheets (no STREAM measurement of these servers is in
 * ../shared/calibration/, so it is an upper bound); 0 = not in our sources
 * (not limited). The uplink is 0 (= the GPU's own host-link rate,
 * cost_host_bw) where it is the same kind of link as the GPU's:
 *   [DGXA100-SA] NVIDIA DGX A100 system architecture whitepaper / user
 *              guide topology: 4 PCIe Gen4 switches, each with 2 A100 and
 *              2 ConnectX-6 and one x16 Gen4 uplink to the CPU; 2x AMD
 *              EPYC 7742 (8 channels DDR4-3200 each: 409.6 GB/s); the
 *              DGX A100 640GB datasheet: 2 TB system memory.
 *   [HGX-PCIE] ../shared/calibration/interconnect_p2p_bandwidth.csv rows
 *              3-4: the HGX 8-GPU Hopper baseboard has "each GPU on its own
 *              PCIe 5 x16 link" (8 links measured within 0.10 GB/s).
 *   [DGXH100-H] DGX H100 datasheet: 2x Intel Xeon Platinum 8480C (8
 *              channels DDR5-4800 each: 614.4 GB/s), 2 TB system memory.
 *   [DGXB200-H] DGX B200 datasheet: 2x Intel Xeon Platinum 8570 (8
 *              channels DDR5-5600 each: 716.8 GB/s), 2 TB system memory
 *              (4 TB option).
 *   [GRACE]    NVIDIA Grace CPU / GB200 superchip datasheets: one Grace per
 *              2 Blackwell GPUs over NVLink-C2C 900 GB/s bidirectional
 *              (450 per direction, shared by the two), up to 480 GB
 *              LPDDR5X at up to 512 GB/s per Grace; a compute tray of 4
 *              GPUs has 2 Grace (960 GB, 1024 GB/s).
 *   [DGX2-H]   DGX-2 datasheet / system architecture: 2 GPUs (and one
 *              100 Gb/s NIC) per PCIe Gen3 leaf switch; 2x Xeon Platinum
 *              8168 (6 channels DDR4-2666 each: 255.9 GB/s), 1.5 TB.
 *   [DGX1-H]   DGX-1 (V100) whitepaper: four PCIe switches, each with 2
 *              GPUs and 1 NIC, uplinked to the 2 Xeon E5-2698 v4 (4
 *              channels DDR4-2133 each: 136.5 GB/s); datasheet: 512 GB.
 *   [P5]       AWS EC2 P5 instance page / user guide (2023): p5.48xlarge,
 *              8x H100 SXM 80GB, NVSwitch (900 GB/s bidirectional per
 *              GPU), 3200 Gb/s EFA (v2) per instance: 400 Gb/s per GPU.
 *   [P5EN]     AWS EC2 P5en (2024): p5en.48xlarge, 8x H200 141GB, 3200
 *              Gb/s EFA v3 per instance; ../shared/calibration/
 *              collective_benchmarks.csv rows 189-191: "EFA v3 inter-node:
 *              16x 200 Gb/s NICs per node" = 400 Gb/s per GPU.
 *   [P6B200]   AWS EC2 P6-B200 (2025): p6-b200.48xlarge, 8x B200;
 *              collective_benchmarks.csv rows 123-162: "EFA v4 8x400 Gb/s
 *              (50 GB/s per GPU)".
 *   [A3MEGA]   Google Cloud A3 Mega machine type (a3-megagpu-8g, 2024):
 *              8x H100 SXM 80GB, 8 GPU NICs of 200 Gb/s with
 *              GPUDirect-TCPXO (1,800 Gb/s per VM with the host NIC);
 *              collective_benchmarks.csv rows 28-58 ("GCP A3 Mega ...
 *              GPUDirect-TCPXO per repo name").
 *   [DGXH200]  NVIDIA DGX H200 datasheet (2024): 8x H200 141GB, 4 NVSwitch,
 *              NVLink 900 GB/s bidirectional per GPU, 8x single-port
 *              ConnectX-7 400 Gb/s for compute; 2x Intel Xeon Platinum
 *              8480C, 2 TB system memory (as DGX H100).
 *   [DSV3]     DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437
 *              v1 (2024), Sec. 3.1 and 3.2.2: nodes of 8 H800 joined by
 *              NVLink and NVSwitch, InfiniBand between nodes, "IB (50 GB/s)"
 *              per GPU = one 400 Gb/s port per GPU.
 *   [P4D]      AWS EC2 P4 instance page / user guide (2020): p4d.24xlarge,
 *              8x A100 40GB on NVSwitch (600 GB/s bidirectional per GPU),
 *              400 Gb/s EFA per instance = 50 Gb/s per GPU; p4de.24xlarge
 *              the same with 8x A100 80GB.
 *   [NDV4]     Microsoft Azure ND A100 v4-series / NDm A100 v4-series
 *              documentation (2021): 8x A100 SXM4 40GB (NDm: 80GB), NVLink 3,
 *              one 200 Gb/s HDR InfiniBand per GPU (1.6 Tb/s per VM).
 *   [NDH100V5] Microsoft Azure ND H100 v5-series documentation (2023): 8x
 *              H100 SXM 80GB, NVLink 4, one 400 Gb/s NDR InfiniBand
 *              (ConnectX-7) per GPU, 3.2 Tb/s per VM.
 *   [NDH200V5] Microsoft Azure ND H200 v5-series documentation (2024): 8x
 *              H200 141GB, NVLink 4, one 400 Gb/s NDR InfiniBand per GPU,
 *              3.2 Tb/s per VM.
 *   [P5E]      AWS EC2 P5 instance page (2024): p5e.48xlarge, 8x H200 141GB,
 *              3,200 Gb/s EFA per instance = 400 Gb/s per GPU.
 *   [DGXA100-320] NVIDIA DGX A100 datasheet (2020), 320GB system: 8x A100
 *              40GB, otherwise as [DGXA100] (8x 200 Gb/s HDR for compute,
 *              2x EPYC 7742) with 1 TB system memory.
 *   [NDMI300X] Microsoft Azure ND MI300X v5-series documentation (2024): 8x
 *              MI300X on Infinity Fabric, one 400 Gb/s NDR InfiniBand per
 *              GPU, 3.2 Tb/s per VM.
 *   [FRONTIER] OLCF Frontier User Guide (docs.olcf.ornl.gov, System
 *              Overview, node diagram): an HPE Cray EX235a node, 4 MI250X =
 *              8 GCDs (the GPUs the mi250x preset counts), 4 HPE Slingshot
 *              200 Gb/s NICs (one per module: 100 Gb/s per GCD), each GCD
 *              on its own 36 GB/s-per-direction Infinity Fabric link to the
 *              64-core EPYC 7A53, 512 GB DDR4.
 *   [FABRIC]   the fabric's per-traversal latency and efficiency:
 *              src/coll/fabrics.c (fitted / derived on the calibration
 *              rows named there).
 *   [NCCL-LAT] typical per-hop latencies from NCCL's hwLatency table
 *              (src/graph/tuning.cc, ../shared/calibration/
 *              nccl_tuning_constants.csv): NVLINK Ring LL 0.6 us (rows 61,
 *              124, 178: NCCL 2.30.7, 2.21.5, 2.18.3), NET Ring LL 2.7 us
 *              (rows 103, 160, 214).
 */
#include <stddef.h>
#include <strings.h>

#include "coll/fabrics.h"
#include "hw/cluster_presets.h"
#include "stepcast.h"

#define GBIT (1e9 / 8)  /* one Gb/s in bytes/s */
#define US 1e-6         /* one microsecond in seconds */

/* One server of `n` GPUs of type `gpu_id`, all in one NVLink domain, one
 * NIC rail of `nic_gbit` Gb/s per GPU. */
#define SERVER(id, gpu_id, n, nic_gbit, host_)                           \
  {.name = id, .gpu = {.name = gpu_id}, .gpus = n, .gpus_per_node = n,   \
   .nvlink_domain = n, .nvlink_bw = 0, .nic_bw = (nic_gbit) * GBIT,      \
   .nvlink_lat = 0.6 * US, .nic_lat = 2.7 * US, .topology = "", .host = host_}

/* A rented server: as SERVER, on scale-out fabric `fab` (sc_fabric), whose
 * per-traversal latency it takes ([FABRIC]). */
#define CLOUD(id, gpu_id, n, nic_gbit, fab)                                \
  {.name = id, .gpu = {.name = gpu_id}, .gpus = n, .gpus_per_node = n,     \
   .nvlink_domain = n, .nvlink_bw = 0, .nic_bw = (nic_gbit) * GBIT,        \
   .nvlink_lat = 0.6 * US, .nic_lat = (FAB_##fab##_HOP_US) * US, .topology = "", \
   .host = {1, 0, 0, 0}, .fabric = SC_FABRIC_##fab}

/* The host side of a server: GPUs per uplink, uplink GB/s per direction
 * (0 = the GPU's host link), CPU memory GB/s and GB (0 = not limited). */
#define HOST(per_link, link_gbps, mem_gbps, ram_gb) \
  {per_link, (link_gbps) * 1e9, (mem_gbps) * 1e9, (ram_gb) * 1e9}

/* One rack of `n` GPUs of type `gpu_id` in one NVLink domain, `per_tray`
 * per compute tray (node), one NIC rail of `nic_gbit` Gb/s per GPU. */
#define RACK(id, gpu_id, n, per_tray, nic_gbit, host_)                           \
  {.name = id, .gpu = {.name = gpu_id}, .gpus = n, .gpus_per_node = per_tray,    \
   .nvlink_domain = n, .nvlink_bw = 0, .nic_bw = (nic_gbit) * GBIT,              \
   .nvlink_lat = 0.6 * US, .nic_lat = 2.7 * US, .topology = "", .host = host_}

static const sc_cluster cluster_presets[] = {
    /* [DGXA100] NVLink 300 GB/s per direction (from a100-sxm4-80gb),
     * 200 Gb/s HDR per GPU; latencies [NCCL-LAT]. */
    /* [DGXA100-SA] 2 GPUs per PCIe Gen4 x16 uplink (26.28 GB/s per
     * direction, the GPU's own link rate), 409.6 GB/s, 2 TB. */
    SERVER("dgx-a100", "a100-sxm4-80gb", 8, 200, HOST(2, 0, 409.6, 2000)),
    /* [DGXA100-320] as dgx-a100 with the 40 GB GPUs and 1 TB. */
    SERVER("dgx-a100-320gb", "a100-sxm4-40gb", 8, 200, HOST(2, 0, 409.6, 1000)),
    /* [DGXH100] NVLink 450 GB/s per direction, 400 Gb/s NDR per GPU. */
    /* [HGX-PCIE] own PCIe Gen5 link per GPU; [DGXH100-H] 614.4 GB/s,
     * 2 TB. */
    SERVER("dgx-h100", "h100-sxm5-80gb", 8, 400, HOST(1, 0, 614.4, 2000)),
    /* [HGXH100] as dgx-h100. */
    /* [HGX-PCIE]; the CPUs and memory are the server maker's: not
     * limited. */
    SERVER("hgx-h100", "h100-sxm5-80gb", 8, 400, HOST(1, 0, 0, 0)),
    /* [DGXH200] NVLink 450 GB/s per direction, 400 Gb/s NDR per GPU;
     * [HGX-PCIE] own PCIe Gen5 link per GPU; [DGXH100-H] 614.4 GB/s, 2 TB. */
    SERVER("dgx-h200", "h200", 8, 400, HOST(1, 0, 614.4, 2000)),
    /* [DSV3] NVLink 200 GB/s per direction (from h800), 400 Gb/s per GPU;
     * host side not in the report: not limited. */
    SERVER("hgx-h800", "h800", 8, 400, HOST(1, 0, 0, 0)),
    /* [DGXB200] NVLink 900 GB/s per direction, 400 Gb/s per GPU. */
    /* [DGXB200-H] 716.8 GB/s, 2 TB; the GPUs' PCIe sharing is not in our
     * sources (each its own link). */
    SERVER("dgx-b200", "b200", 8, 400, HOST(1, 0, 716.8, 2000)),
    /* [NVL72] one rack: 72 GPUs in one NVLink domain, 4 per tray (node),
     * NVLink 900 GB/s per direction, 400 Gb/s per GPU. */
    /* [GRACE] 2 GPUs per C2C (450 GB/s per direction), 1024 GB/s and
     * 960 GB per tray. */
    RACK("gb200-nvl72", "gb200", 72, 4, 400, HOST(2, 450, 1024, 960)),
    /* [DGXB300] NVLink 900 GB/s per direction, 800 Gb/s per GPU. */
    /* host side not in our sources: not limited. */
    SERVER("dgx-b300", "b300", 8, 800, HOST(1, 0, 0, 0)),
    /* [DGXB300] the HGX B300 baseboard of the same design. */
    SERVER("hgx-b300", "b300", 8, 800, HOST(1, 0, 0, 0)),
    /* [NVL72U] one rack: 72 GPUs in one NVLink domain, 4 per tray (node),
     * NVLink 900 GB/s per direction, 800 Gb/s per GPU. */
    /* [GRACE] the same Grace trays as gb200-nvl72. */
    RACK("gb300-nvl72", "gb300", 72, 4, 800, HOST(2, 450, 1024, 960)),
    /* [DGX2] NVLink 150 GB/s per direction through NVSwitch, 50 Gb/s per
     * GPU (8 x 100 Gb/s for 16 GPUs). */
    /* [DGX2-H] 2 GPUs per PCIe Gen3 uplink, 255.9 GB/s, 1.5 TB. */
    SERVER("dgx2-v100", "v100-sxm3-32gb", 16, 50, HOST(2, 0, 255.9, 1500)),
    /* [DGX1] hybrid cube-mesh NVLink (150 GB/s per direction per GPU over
     * 6 links), 50 Gb/s per GPU (4 x 100 Gb/s for 8 GPUs). */
    /* [DGX1-H] 2 GPUs per PCIe Gen3 uplink, 136.5 GB/s, 512 GB. */
    SERVER("dgx1-v100", "v100-sxm2-32gb", 8, 50, HOST(2, 0, 136.5, 512)),
    /* Rented servers, their host side not in our sources (not limited,
     * each GPU its own PCIe link). [P5] 400 Gb/s EFA per GPU. */
    CLOUD("aws-p5", "h100-sxm5-80gb", 8, 400, EFA),
    /* [P5EN] 400 Gb/s EFA v3 per GPU. */
    CLOUD("aws-p5en", "h200", 8, 400, EFA),
    /* [P6B200] 400 Gb/s EFA v4 per GPU. */
    CLOUD("aws-p6-b200", "b200", 8, 400, EFA),
    /* [A3MEGA] 200 Gb/s GPUDirect-TCPXO per GPU. */
    CLOUD("gcp-a3-mega", "h100-sxm5-80gb", 8, 200, TCPXO),
    /* [NDV4] 200 Gb/s HDR InfiniBand per GPU. */
    CLOUD("azure-nd-a100-v4", "a100-sxm4-40gb", 8, 200, INFINIBAND),
    CLOUD("azure-ndm-a100-v4", "a100-sxm4-80gb", 8, 200, INFINIBAND),
    /* [P4D] 50 Gb/s EFA per GPU. */
    CLOUD("aws-p4d", "a100-sxm4-40gb", 8, 50, EFA),
    CLOUD("aws-p4de", "a100-sxm4-80gb", 8, 50, EFA),
    /* [NDH100V5] 400 Gb/s NDR InfiniBand per GPU. */
    CLOUD("azure-nd-h100-v5", "h100-sxm5-80gb", 8, 400, INFINIBAND),
    /* [NDH200V5] 400 Gb/s NDR InfiniBand per GPU. */
    CLOUD("azure-nd-h200-v5", "h200", 8, 400, INFINIBAND),
    /* [P5E] 400 Gb/s EFA per GPU. */
    CLOUD("aws-p5e", "h200", 8, 400, EFA),
    /* [NDMI300X] Infinity Fabric 448 GB/s per direction (from mi300x),
     * 400 Gb/s NDR InfiniBand per GPU. */
    CLOUD("azure-nd-mi300x-v5", "mi300x", 8, 400, INFINIBAND),
    /* [FRONTIER] 8 GCDs on Infinity Fabric (50 GB/s per direction, the
     * one-link hop, from mi250x), 100 Gb/s Slingshot per GCD; each GCD its
     * own 36 GB/s CPU link, 512 GB; the DDR bandwidth is not in the guide
     * (not limited). Slingshot is taken at the InfiniBand hop latency
     * (no Slingshot measurement in ../shared). */
    SERVER("olcf-frontier", "mi250x", 8, 100, HOST(1, 36, 0, 512)),
};

#define N_CLUSTER (sizeof cluster_presets / sizeof cluster_presets[0])

/* Look up a cluster preset by id, ignoring case. The result is static
 * read-only data whose gpu member carries only the GPU preset id (see
 * cluster_presets.h); NULL when name is NULL or unknown. */
const sc_cluster *sc_cluster_preset(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < N_CLUSTER; i++)
    if (strcasecmp(cluster_presets[i].name, name) == 0)
      return &cluster_presets[i];
  return NULL;
}

/* Number of cluster presets. */
size_t sc_cluster_preset_count(void) { return N_CLUSTER; }

/* The i-th cluster preset in table order, or NULL when out of range. */
const sc_cluster *sc_cluster_preset_at(size_t i) {
  return i < N_CLUSTER ? &cluster_presets[i] : NULL;
}

/* Copy preset `name` into *out with its GPU filled from the GPU presets.
 * Returns 1, or 0 (leaving *out unchanged) when either id is unknown. */
int clus_preset_fill(sc_cluster *out, const char *name) {
  const sc_cluster *c = sc_cluster_preset(name);
  const sc_gpu *g = c ? sc_gpu_preset(c->gpu.name) : NULL;
  if (!g) return 0;
  *out = *c;
  out->gpu = *g;
  return 1;
}

const sc_cluster *clus_reference(const char *gpu) {
  for (size_t i = 0; gpu && i < N_CLUSTER; i++)
    if (!strcasecmp(cluster_presets[i].gpu.name, gpu) && cluster_presets[i].nic_bw > 0)
      return &cluster_presets[i];
  return NULL;
}
