// SPDX-License-Identifier: Apache-2.0
// Device kernels of the CUDA probe: deterministic pseudo-random fills (never zeros: zeros
// switch fewer transistors and overstate GEMM rates, probe.md 2.2), HBM streaming kernels
// with 16-byte accesses and a grid-stride loop, and an empty kernel for launch latency.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "kernels.hpp"

namespace {

// The same hash on host and device, so the host can recompute any input element.
__device__ __host__ inline float hashed_value(unsigned long long i, unsigned seed) {
  unsigned long long x = i * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<float>(x & 0xFFFFFF) / static_cast<float>(0x1000000) * 2.0f - 1.0f;  // [-1, 1)
}

template <typename T>
__device__ inline T convert(float v);
template <>
__device__ inline float convert<float>(float v) { return v; }
template <>
__device__ inline __half convert<__half>(float v) { return __float2half(v); }
template <>
__device__ inline __nv_bfloat16 convert<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <>
__device__ inline __nv_fp8_e4m3 convert<__nv_fp8_e4m3>(float v) { return __nv_fp8_e4m3(v); }

template <typename T>
__global__ void fill_kernel(T* p, unsigned long long n, unsigned seed) {
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
    p[i] = convert<T>(hashed_value(i, seed));
}

__global__ void read_kernel(const float4* a, unsigned long long n, float* sink) {
  float4 acc = make_float4(0, 0, 0, 0);
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    const float4 v = __ldcg(a + i);
    acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
  }
  // One write per thread that saw data, so the reads cannot be optimised away.
  if (acc.x + acc.y + acc.z + acc.w == 12345.678f) sink[0] = acc.x;
}

__global__ void copy_kernel(const float4* a, float4* c, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
    __stcg(c + i, __ldcg(a + i));
}

__global__ void triad_kernel(float4* a, const float4* b, const float4* c, float s, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    const float4 x = __ldcg(b + i), y = __ldcg(c + i);
    __stcg(a + i, make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w));
  }
}

__global__ void empty_kernel() {}

template <typename T>
cudaError_t fill(void* p, unsigned long long n, unsigned seed, cudaStream_t s) {
  fill_kernel<T><<<1024, 256, 0, s>>>(static_cast<T*>(p), n, seed);
  return cudaGetLastError();
}

}  // namespace

float probe_host_value(unsigned long long i, unsigned seed) { return hashed_value(i, seed); }

cudaError_t probe_fill(ProbeType t, void* p, unsigned long long n, unsigned seed, cudaStream_t s) {
  switch (t) {
    case ProbeType::f32: return fill<float>(p, n, seed, s);
    case ProbeType::f16: return fill<__half>(p, n, seed, s);
    case ProbeType::bf16: return fill<__nv_bfloat16>(p, n, seed, s);
    case ProbeType::fp8: return fill<__nv_fp8_e4m3>(p, n, seed, s);
  }
  return cudaErrorInvalidValue;
}

cudaError_t probe_stream(StreamKind k, float* a, float* b, float* c, unsigned long long floats, int blocks, cudaStream_t s) {
  const unsigned long long n = floats / 4;
  switch (k) {
    case StreamKind::read: read_kernel<<<blocks, 256, 0, s>>>(reinterpret_cast<const float4*>(a), n, c); break;
    case StreamKind::copy:
      copy_kernel<<<blocks, 256, 0, s>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(b), n);
      break;
    case StreamKind::triad:
      triad_kernel<<<blocks, 256, 0, s>>>(reinterpret_cast<float4*>(a), reinterpret_cast<const float4*>(b),
                                          reinterpret_cast<const float4*>(c), 3.0f, n);
      break;
  }
  return cudaGetLastError();
}

cudaError_t probe_empty(cudaStream_t s) {
  empty_kernel<<<1, 1, 0, s>>>();
  return cudaGetLastError();
}
