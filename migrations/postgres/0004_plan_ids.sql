-- 0004_plan_ids (PostgreSQL): the server half of migrations/0004_plan_ids.sql, which makes a
-- SQLite file's plan ids never reused. Here plans.id was an identity column from the start
-- (0001_plan_store.sql), and a sequence never hands a value out twice (deleted rows and rolled
-- back inserts leave gaps, never reuse), so nothing changes but this note on the column.
-- Never edit this file once it has landed.
COMMENT ON COLUMN plans.id IS
  'identity: never reused, so a writer holding a removed plan''s id never reaches another plan';
