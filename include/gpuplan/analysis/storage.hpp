// SPDX-License-Identifier: Apache-2.0
#pragma once
// Storage for a training run: the dataset, the read rate that keeps every device fed, the
// checkpoints and what writing them costs in goodput, and how many units of a storage system
// the run needs for bandwidth and for capacity.
#include <string>

#include "gpuplan/units.hpp"

namespace gpuplan {

struct StorageSystem {
  std::string id, name, unit, source;
  ByteRate read = bytes_per_s(0), write = bytes_per_s(0);
  Bytes capacity = bytes(0);  // 0: not given (capacity does not bind)
  double usd_per_tb = 0, usd_per_tb_month = 0;
  Watts power = watts(0);
};

// Raw text per token: about 4 characters of English per token for BPE tokenisers of the GPT
// family (OpenAI, "What are tokens and how to count them"), 1 byte per character. An estimate.
constexpr double default_raw_bytes_per_token = 4;
// Checkpoints kept on storage: the last good one and the one being written.
constexpr int checkpoints_kept = 2;

struct StorageInput {
  double tokens = 0;           // tokens the run processes
  double epochs = 1;           // passes over the data: the dataset is tokens / epochs
  double raw_bytes_per_token = default_raw_bytes_per_token;
  int token_bytes = 4;         // tokenised: 2 when the vocabulary fits 16 bits, else 4
  double tokens_per_s = 0;     // the whole cluster
  Bytes checkpoint = bytes(0);
  Seconds checkpoint_every = seconds(0);  // 0: not given
  const StorageSystem* system = nullptr;
  long units = 0;              // 0: as many as bandwidth and capacity need
};
struct StorageResult {
  Bytes dataset_raw = bytes(0), dataset_tokenized = bytes(0), capacity_needed = bytes(0);
  ByteRate read = bytes_per_s(0);
  long units = 0, units_bandwidth = 0, units_capacity = 0;
  Seconds checkpoint_write = seconds(0);
  double checkpoint_overhead = 0;  // share of wall-clock spent writing checkpoints
  double idle_fraction = 0;        // share of time devices wait on reads (fixed units only)
};
StorageResult storage_needs(const StorageInput& in);

}  // namespace gpuplan
