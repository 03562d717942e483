-- 0002_plan_kernels (PostgreSQL): migrations/0002_plan_kernels.sql on a server. A kernel keeps
-- the text it was compiled from, and a plan lists every kernel its run used. Never edit this
-- file once it has landed.

ALTER TABLE kernels ADD COLUMN name    TEXT NOT NULL DEFAULT '';
ALTER TABLE kernels ADD COLUMN source  TEXT NOT NULL DEFAULT '';
ALTER TABLE kernels ADD COLUMN options TEXT NOT NULL DEFAULT '';

CREATE TABLE plan_kernels (
  plan_id   BIGINT NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
  kernel_id BIGINT NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
  PRIMARY KEY (plan_id, kernel_id)
);
CREATE INDEX plan_kernels_by_kernel ON plan_kernels (kernel_id);

INSERT INTO plan_kernels (plan_id, kernel_id)
  SELECT plan_id, id FROM kernels WHERE plan_id IS NOT NULL;
