#include "store/admin/bundle_contents.h"

#include "store/admin/recipe_inventory.h"

namespace ember {

Status ReadBundleContents(SqlSession& db, int schema_version, const PlanFilter& filter,
                          BundleContents* out) {
  if (Status s = ListEnvironments(db, &out->environments); !s.ok()) return s;
  if (Status s = ListPlans(db, filter, &out->plans); !s.ok()) return s;
  if (Status s = ListKernels(db, {.sources = true, .binaries = true}, &out->kernels); !s.ok()) {
    return s;
  }
  out->recipes.clear();
  if (schema_version < kGraphRecipesSchema) return Status::Ok();
  return ListGraphRecipes(db, {.workload = filter.workload}, &out->recipes);
}

}  // namespace ember
