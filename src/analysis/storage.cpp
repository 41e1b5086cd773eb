// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/storage.hpp"

#include "gpuplan/error.hpp"

#include <algorithm>
#include <cmath>

namespace gpuplan {

StorageResult storage_needs(const StorageInput& in) {
  StorageResult r;
  const double unique_tokens = in.tokens / std::max(in.epochs, 1e-9);
  r.dataset_raw = bytes(unique_tokens * in.raw_bytes_per_token);
  r.dataset_tokenized = bytes(unique_tokens * in.token_bytes);
  r.read = bytes_per_s(in.tokens_per_s * in.token_bytes);
  r.capacity_needed = r.dataset_raw + r.dataset_tokenized + in.checkpoint * static_cast<double>(checkpoints_kept);
  const StorageSystem* s = in.system;
  if (!s) return r;
  r.units_bandwidth = std::max(1L, checked_count(r.read / s->read, "storage units for bandwidth"));
  r.units_capacity = s->capacity.value() > 0 ? checked_count(r.capacity_needed / s->capacity, "storage units for capacity") : 1;
  r.units = in.units > 0 ? in.units : std::max(r.units_bandwidth, r.units_capacity);
  const ByteRate supply = s->read * static_cast<double>(r.units);
  if (supply < r.read) r.idle_fraction = 1 - supply / r.read;
  r.checkpoint_write = in.checkpoint / (s->write * static_cast<double>(r.units));
  if (in.checkpoint_every.value() > 0)
    r.checkpoint_overhead = r.checkpoint_write / (in.checkpoint_every + r.checkpoint_write);
  return r;
}

}  // namespace gpuplan
