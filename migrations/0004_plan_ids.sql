-- 0004_plan_ids: a plan's id is never given to another plan (issue 40). Until now plans.id was a
-- plain rowid, which SQLite hands out again once the highest row is deleted: a writer that still
-- held the id of a plan `ember-plans gc` had removed then appended its trigger to the next plan
-- inserted. AUTOINCREMENT makes ids grow forever (sqlite_sequence keeps the highest ever used).
-- Never edit this file once it has landed: add 0005_*.sql instead (migrations/README.md).
--
-- SQLite cannot change a column in place, so the table is rebuilt, keeping every row, id and
-- column: SQLite's own recipe (https://www.sqlite.org/lang_altertable.html, "Making Other Kinds
-- Of Table Schema Changes"). The runner (store/database/migrations.cpp) applies migrations with
-- foreign-key enforcement off, so that dropping the old table neither cascades into triggers,
-- plan_usage, plan_kernels and kernels nor fails, and checks before committing that every
-- reference still holds.

CREATE TABLE plans_rebuilt (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  environment_id    INTEGER NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  first_op_hash     INTEGER NOT NULL,
  plan_key          BLOB    NOT NULL CHECK (length(plan_key) = 16),
  ops_blob          BLOB    NOT NULL,
  plan_blob         BLOB    NOT NULL,
  checksum          INTEGER NOT NULL,
  ops_bytes         INTEGER NOT NULL,
  plan_bytes        INTEGER NOT NULL,
  num_ops           INTEGER NOT NULL,
  explore_ms        REAL    NOT NULL DEFAULT 0,
  created           INTEGER NOT NULL,
  last_hit          INTEGER,
  hits              INTEGER NOT NULL DEFAULT 0,
  origin            TEXT    NOT NULL DEFAULT 'local',
  status            TEXT    NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'quarantined')),
  quarantine_reason TEXT,
  first_op_kind     INTEGER,
  found_dims        TEXT,
  UNIQUE (environment_id, plan_key)
);

INSERT INTO plans_rebuilt (id, environment_id, first_op_hash, plan_key, ops_blob, plan_blob,
                           checksum, ops_bytes, plan_bytes, num_ops, explore_ms, created, last_hit,
                           hits, origin, status, quarantine_reason, first_op_kind, found_dims)
  SELECT id, environment_id, first_op_hash, plan_key, ops_blob, plan_blob, checksum, ops_bytes,
         plan_bytes, num_ops, explore_ms, created, last_hit, hits, origin, status,
         quarantine_reason, first_op_kind, found_dims
  FROM plans;

DROP TABLE plans;
ALTER TABLE plans_rebuilt RENAME TO plans;
CREATE INDEX plans_by_first_op ON plans (environment_id, first_op_hash);
CREATE INDEX plans_by_first_kind ON plans (environment_id, first_op_kind);
