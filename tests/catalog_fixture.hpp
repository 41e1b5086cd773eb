// SPDX-License-Identifier: Apache-2.0
#pragma once
// The built-in catalog, parsed once for the whole test binary.
#include <initializer_list>
#include <utility>

#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/scenario.hpp"

inline const gpuplan::Catalog& builtin_catalog() {
  static const gpuplan::Catalog c = gpuplan::Catalog::builtin();
  return c;
}

// The job of settings given as on the command line (key, value), against the built-in catalog.
inline gpuplan::Job job_of(std::initializer_list<std::pair<const char*, const char*>> settings) {
  gpuplan::Scenario s;
  for (const auto& [key, value] : settings) gpuplan::apply_setting(s, key, value);
  return gpuplan::resolve(s, builtin_catalog());
}
// Its training step model.
inline gpuplan::StepModel step_model_of(const gpuplan::Job& j) { return {j.model, j.params, j.device, j.step}; }
