#include "store/admin/bundle_contents.h"

namespace ember {

Status ReadBundleContents(SqlSession& db, const PlanFilter& filter, BundleContents* out) {
  if (Status s = ListEnvironments(db, &out->environments); !s.ok()) return s;
  if (Status s = ListPlans(db, filter, &out->plans); !s.ok()) return s;
  return ListKernels(db, {.sources = true, .binaries = true}, &out->kernels);
}

}  // namespace ember
