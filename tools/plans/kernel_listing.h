// How `ember-plans show` describes the compiled kernels a plan uses (Note [Kernel links],
// store/admin/kernel_inventory.h): a table, the CUDA source of each, and the JSON array.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/admin/kernel_inventory.h"

namespace ember::plans {

// "kernels (2)" and a table: id, name, arch, compiler, bytes, created, and a note for a kernel
// whose binary fails its checksum. Kernels read with binaries (to check them).
std::string FormatKernelTable(const std::vector<KernelRecord>& kernels);

// For each kernel a header line ("source of kernel 3 (name, sm_90); nvrtc 12.4; options: …")
// and its source, or a line saying that none is stored (rows written before schema 2).
std::string FormatKernelSources(const std::vector<KernelRecord>& kernels);

// The JSON array of docs/ember-plans.md ("show --json"); "source" only when with_source.
nlohmann::ordered_json KernelsJson(const std::vector<KernelRecord>& kernels, bool with_source);

}  // namespace ember::plans
