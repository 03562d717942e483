-- 0002_plan_kernels: kernels shared between plans, kept with the source they were compiled from
-- (issue 16; docs/PLAN_DATABASE.md, "Compiled kernels").
-- Never edit this file once it has landed: add 0003_*.sql instead (migrations/README.md).

-- What a kernel was compiled from, so that it can be read (`ember-plans show --source`) and
-- rebuilt: the extern "C" function's name, the CUDA source, the compile options. Old rows get
-- empty values (they were written by tests only: no engine before this version stored kernels).
ALTER TABLE kernels ADD COLUMN name    TEXT NOT NULL DEFAULT '';
ALTER TABLE kernels ADD COLUMN source  TEXT NOT NULL DEFAULT '';
ALTER TABLE kernels ADD COLUMN options TEXT NOT NULL DEFAULT '';

-- Which plans use which kernels. Two plans whose traces generate the same source share one
-- kernels row (its key is the source's), so the link is a table of its own; kernels.plan_id
-- keeps the plan the kernel was first compiled for. A kernel that no plan links to is an
-- orphan: `ember-plans verify` reports it and `ember-plans gc` removes it.
CREATE TABLE plan_kernels (
  plan_id   INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
  kernel_id INTEGER NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
  PRIMARY KEY (plan_id, kernel_id)
);
CREATE INDEX plan_kernels_by_kernel ON plan_kernels (kernel_id);

INSERT INTO plan_kernels (plan_id, kernel_id)
  SELECT plan_id, id FROM kernels WHERE plan_id IS NOT NULL;
