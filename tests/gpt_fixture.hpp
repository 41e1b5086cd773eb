// SPDX-License-Identifier: Apache-2.0
#pragma once
// A GPT-style model (MHA, GeLU, f = 4h, biases and dropout) for which Korthikanti's closed forms
// hold: the hand-derived tests of memory, offload and fine-tuning share it.
#include "gpuplan/analysis/model.hpp"

inline gpuplan::ModelArch gpt(int layers = 24, int hidden = 4096, int heads = 32, int vocab = 51200) {
  gpuplan::ModelArch m;
  m.id = "gpt-test";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.head_dim = hidden / heads;
  m.ffn = 4 * hidden;
  m.vocab = vocab;
  m.activation = gpuplan::Activation::gelu;
  m.layernorm = true;
  m.tied_embeddings = true;
  m.linear_bias = true;
  m.max_context = 2048;
  return m;
}
