// SPDX-License-Identifier: Apache-2.0
#pragma once
// Catalog records as the analyses' inputs: the one place ids become devices, links and model
// architectures (above both the catalog and the analyses, which know nothing of each other).
#include <string>

#include "gpuplan/analysis/device.hpp"
#include "gpuplan/analysis/model.hpp"
#include "gpuplan/catalog/catalog.hpp"

namespace gpuplan {

// An interconnect record as a link (throws the catalog's unknown-id error).
Link link_by_id(const Catalog& c, const std::string& id);
// An accelerator record with its links; Error(data) when it has no FLOP rate.
Device resolve_device(const Catalog& catalog, const std::string& id);
// A model record (fields as in catalogs/models.toml).
ModelArch model_from_record(const Record& r);
// The accelerator a --gpu value names: a catalog id, or a .toml file holding one accelerator
// record (its links named by catalog ids), checked as a catalog file is.
Device device_named(const Catalog& c, const std::string& id_or_path);
// The model a --model value names: a catalog id, or a file (config.json, a directory holding one,
// a .gguf header, a catalog .toml record) through the importers.
ModelArch model_named(const Catalog& c, const std::string& id_or_path);

}  // namespace gpuplan
