// SPDX-License-Identifier: Apache-2.0
#pragma once
// The probe's device kernels, callable from host C++ (kernels.cu is the only CUDA source).
#include <cuda_runtime.h>

enum class ProbeType { f32, f16, bf16, fp8 };
enum class StreamKind { read, copy, triad };

// Fills n elements with values in [-1, 1) from a hash of the index; probe_host_value gives the same value on the host.
cudaError_t probe_fill(ProbeType t, void* p, unsigned long long n, unsigned seed, cudaStream_t s);
float probe_host_value(unsigned long long i, unsigned seed);
// One pass over `floats` floats per array: read a; copy a -> b; triad a = b + 3 c.
cudaError_t probe_stream(StreamKind k, float* a, float* b, float* c, unsigned long long floats, int blocks, cudaStream_t s);
cudaError_t probe_empty(cudaStream_t s);
