// gather_bench.cu -- random vs sequential row gathers and row updates on
// one GPU (docs/calibration.md, "Random row reads"). Build and run on the
// GPU: nvcc -O3 -arch=sm_90 gather_bench.cu -o gather_bench && ./gather_bench
// A table of 8 GiB (far beyond L2) of rows of 4..1024 bytes; 2^24 lookups
// with uniform random (splitmix64) or sequential row ids; one thread per
// 4-byte element (the access of HugeCTR's and TensorFlow's row kernels):
// read the id, read the element, write it to a dense output (gather), or
// add 1 to it in place (update: read and write the row). Prints ns per
// lookup (mean of 5 launches after 2 warm-ups) and the copy rates.
#include <cstdint>
#include <cstdio>
__device__ uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
__global__ void ids(int64_t *i, int64_t L, int64_t R, int rnd) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t < L) i[t] = rnd ? mix(t) % R : t % R;
}
__global__ void gather(const float *T, const int64_t *i, float *o, int64_t N, int s) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t < N) o[t] = T[(i[t >> s] << s) + (t & ((1 << s) - 1))];
}
__global__ void update(float *T, const int64_t *i, int64_t N, int s) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t < N) T[(i[t >> s] << s) + (t & ((1 << s) - 1))] += 1.0f;
}
__global__ void copy4(const float *a, float *b, int64_t n) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t < n) b[t] = a[t];
}
__global__ void copy16(const float4 *a, float4 *b, int64_t n) {
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t < n) b[t] = a[t];
}
static cudaEvent_t e0, e1;
#define TIME(launch, reps, out)                                     \
  do {                                                              \
    for (int r_ = 0; r_ < 2; r_++) launch;                          \
    cudaEventRecord(e0);                                            \
    for (int r_ = 0; r_ < (reps); r_++) launch;                     \
    cudaEventRecord(e1);                                            \
    cudaEventSynchronize(e1);                                       \
    float ms_;                                                      \
    cudaEventElapsedTime(&ms_, e0, e1);                             \
    out = ms_ / (reps) * 1e-3;                                      \
  } while (0)
int main() {
  size_t TB = 8ull << 30;
  int64_t L = 1 << 24;
  float *T, *o;
  int64_t *I;
  cudaMalloc(&T, TB);
  cudaMemset(T, 0, TB);
  cudaMalloc(&I, L * 8);
  cudaMalloc(&o, L * 1024);
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  int64_t n = (1ull << 30) / 4;
  double t;
  TIME((copy4<<<(n + 255) / 256, 256>>>(T, T + (1ull << 28), n)), 10, t);
  printf("copy 4 B per thread, 1 GiB: %.1f GB/s (read + write)\n", 2.0 * (1ull << 30) / t / 1e9);
  TIME((copy16<<<(n / 4 + 255) / 256, 256>>>((float4 *)T, (float4 *)(T + (1ull << 28)), n / 4)), 10, t);
  printf("copy 16 B per thread, 1 GiB: %.1f GB/s (read + write)\n", 2.0 * (1ull << 30) / t / 1e9);
  printf("%-10s %6s %12s %12s\n", "ids", "rowB", "gather_ns", "update_ns");
  for (int rnd = 0; rnd < 2; rnd++)
    for (int s = 0; s <= 8; s++) {
      int64_t R = TB / (4 << s), N = L << s;
      ids<<<(L + 255) / 256, 256>>>(I, L, R, rnd);
      double g, u;
      TIME((gather<<<(N + 255) / 256, 256>>>(T, I, o, N, s)), 5, g);
      TIME((update<<<(N + 255) / 256, 256>>>(T, I, N, s)), 5, u);
      printf("%-10s %6d %12.4f %12.4f\n", rnd ? "random" : "sequential", 4 << s, g / L * 1e9,
             u / L * 1e9);
    }
  printf("status: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
