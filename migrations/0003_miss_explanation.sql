-- 0003_miss_explanation: what explains a miss (issue 21; docs/PLAN_DATABASE.md, "Why a segment
-- missed"; Note [Explaining a miss] in engine/stream/miss_explanation.h).
-- Never edit this file once it has landed: add 0004_*.sql instead (migrations/README.md).

-- The first op's kind (OpKind's stored number, engine/ir/op_list.def), so that a segment whose
-- first op has no plan can still find the stored plans that start with the same kind of op, the
-- candidates its miss is explained against. NULL for rows written before this version: they
-- are used as before, only never named as the nearest plan.
ALTER TABLE plans ADD COLUMN first_op_kind INTEGER;
-- The real dim of each relative shape id when the plan was found ("1,64,64"), so that a shape
-- miss can say "the stored plan has [1,1] from 64×64". NULL where unknown.
ALTER TABLE plans ADD COLUMN found_dims TEXT;
CREATE INDEX plans_by_first_kind ON plans (environment_id, first_op_kind);

-- Per workload, the misses of one pattern (the segment's op kinds, the cause, and where it
-- differs: the same miss again, whatever its values) and how often it happened: what
-- `ember-plans explain` ranks. `seen_values` holds the distinct values that differed there
-- (a shape miss's real dim, a Cat's number of inputs; comma-separated, at most 32): many
-- values in few misses tell a dim that changes every step.
CREATE TABLE workload_misses (
  id           INTEGER PRIMARY KEY,
  workload_id  INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
  pattern      INTEGER NOT NULL,
  cause        TEXT    NOT NULL,
  op_position  INTEGER NOT NULL,
  op_name      TEXT    NOT NULL,
  nearest_plan TEXT    NOT NULL,
  first_detail TEXT    NOT NULL,
  last_detail  TEXT    NOT NULL,
  seen_values  TEXT    NOT NULL DEFAULT '',
  count        INTEGER NOT NULL DEFAULT 0,
  first_seen   INTEGER NOT NULL,
  last_seen    INTEGER NOT NULL,
  UNIQUE (workload_id, pattern)
);
