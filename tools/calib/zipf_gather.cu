// zipf_gather.cu -- pooled embedding gathers with power-law row ids on one
// GPU: what the L2 cache saves when a few rows take most lookups
// (docs/calibration.md, "L2 hits of power-law lookups"; the model is
// src/recsys/rs_emb.c, the hottest rows that fit in L2 at RS_L2_HIT_COST
// of an HBM read). Build and run on the GPU:
//   nvcc -O3 -arch=sm_90 zipf_gather.cu -o zipf_gather && ./zipf_gather
// Tables of 16 MiB to 8 GiB of fp32 rows of 64 or 256 bytes (16 or 64
// elements); 2^23 lookups pooled (summed) P = 1 or 16 to a bag; row ids
// drawn from a continuous power law over ranks [1, R + 1) with exponent
// alpha (0: uniform), rank r's row at r x 0x9E3779B97F4A7C15 mod R (a
// bijection for R a power of two: the hot rows scattered over the table).
// Two kernels: one thread per 4-byte element of a bag (the access of
// PyTorch's embedding_bag, TensorFlow's and HugeCTR's row kernels), and
// one thread per 16 bytes (a vectorised kernel such as FBGEMM's). Prints
// one CSV row per case: ns per lookup, the mean of 5 launches after 2
// warm-ups (CUDA events); the ids are drawn once per (table, alpha, P).
#include <cmath>
#include <cstdint>
#include <cstdio>

__device__ uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

__global__ void draw(int64_t *ids, int64_t L, int64_t R, double alpha, uint64_t seed) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t >= L) return;
  double u = (double)(mix(t ^ seed) >> 11) * (1.0 / 9007199254740992.0);
  int64_t rank;
  if (alpha == 0) {
    rank = (int64_t)(u * (double)R);
  } else {
    double x = fabs(alpha - 1) < 1e-9 ? exp(u * log((double)R + 1))
                                      : pow(u * (pow((double)R + 1, 1 - alpha) - 1) + 1, 1 / (1 - alpha));
    rank = (int64_t)x - 1;
  }
  if (rank < 0) rank = 0;
  if (rank > R - 1) rank = R - 1;
  ids[t] = (int64_t)(((uint64_t)rank * 0x9E3779B97F4A7C15ULL) & (uint64_t)(R - 1));
}

// one thread per element: bag b = t >> s, element e; D = 1 << s floats a row
__global__ void pool1(const float *T, const int64_t *ids, float *o, int64_t bags, int s, int P) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t >= bags << s) return;
  int64_t b = t >> s, e = t & ((1 << s) - 1);
  float acc = 0;
  for (int p = 0; p < P; p++) acc += T[(ids[b * P + p] << s) + e];
  o[t] = acc;
}

// one thread per 16 bytes: D / 4 threads a row
__global__ void pool4(const float4 *T, const int64_t *ids, float4 *o, int64_t bags, int s4, int P) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t >= bags << s4) return;
  int64_t b = t >> s4, e = t & ((1 << s4) - 1);
  float4 acc = {0, 0, 0, 0};
  for (int p = 0; p < P; p++) {
    float4 v = T[(ids[b * P + p] << s4) + e];
    acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
  }
  o[t] = acc;
}

static cudaEvent_t e0, e1;
#define TIME(launch, out)                                           \
  do {                                                              \
    for (int r_ = 0; r_ < 2; r_++) launch;                          \
    cudaEventRecord(e0);                                            \
    for (int r_ = 0; r_ < 5; r_++) launch;                          \
    cudaEventRecord(e1);                                            \
    cudaEventSynchronize(e1);                                       \
    float ms_;                                                      \
    cudaEventElapsedTime(&ms_, e0, e1);                             \
    out = ms_ / 5 * 1e-3;                                           \
  } while (0)

int main() {
  const int64_t L = 1 << 23;
  const size_t TB = 8ull << 30;
  const double alphas[] = {0, 0.5, 0.8, 0.95, 1.05, 1.2, 1.4};
  const int tmib_log2[] = {4, 5, 6, 7, 9, 11, 13}; /* 16 MiB .. 8 GiB */
  const int rowb[] = {64, 256}, pools[] = {1, 16};
  float *T, *o;
  int64_t *I;
  int dev;
  cudaDeviceProp prop;
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&prop, dev);
  if (cudaMalloc(&T, TB) || cudaMalloc(&I, L * 8) || cudaMalloc(&o, L * 256)) {
    fprintf(stderr, "zipf_gather: cudaMalloc failed\n");
    return 1;
  }
  cudaMemset(T, 0, TB);
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  printf("# device %s, %d SMs, L2 %d bytes, lookups %lld\n", prop.name, prop.multiProcessorCount,
         prop.l2CacheSize, (long long)L);
  printf("row_bytes,table_MiB,rows,alpha,pool,kernel,ns_per_lookup\n");
  for (int ri = 0; ri < 2; ri++)
    for (int ti = 0; ti < 7; ti++)
      for (int ai = 0; ai < 7; ai++)
        for (int pi = 0; pi < 2; pi++) {
          int64_t R = ((int64_t)1 << (20 + tmib_log2[ti])) / rowb[ri], bags = L / pools[pi];
          int s = rowb[ri] == 64 ? 4 : 6;
          draw<<<(L + 255) / 256, 256>>>(I, L, R, alphas[ai], 12345 + 7 * ai);
          double t1, t4;
          TIME((pool1<<<(unsigned)(((bags << s) + 255) / 256), 256>>>(T, I, o, bags, s, pools[pi])), t1);
          TIME((pool4<<<(unsigned)(((bags << (s - 2)) + 255) / 256), 256>>>((const float4 *)T, I,
                                                                                  (float4 *)o, bags,
                                                                                  s - 2, pools[pi])),
               t4);
          for (int k = 0; k < 2; k++)
            printf("%d,%d,%lld,%.2f,%d,%s,%.5f\n", rowb[ri], 1 << tmib_log2[ti], (long long)R,
                   alphas[ai], pools[pi], k ? "vec16" : "elem4", (k ? t4 : t1) / L * 1e9);
          fflush(stdout);
        }
  printf("# status: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
