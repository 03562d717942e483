-- 0001_plan_store: the first schema of ember's plan database (DESIGN.md §5).
-- Never edit this file once it has landed: add 0002_*.sql instead (migrations/README.md).
--
-- Conventions: times are INTEGER milliseconds since the Unix epoch (UTC); 64-bit hashes are
-- stored as the signed INTEGER with the same bits; 128-bit hashes are 16-byte BLOBs, high half
-- first, each half big-endian (XXH128's canonical order); checksums are XXH3-64 as signed
-- INTEGER (store/row_checksum.h, Note [Row checksums]).

-- 'EMBR': marks the file as an ember plan database (a foreign SQLite file is refused).
PRAGMA application_id = 1162691154;

-- One row per applied migration, written by the runner in the migration's own transaction.
CREATE TABLE schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL,
  applied_at INTEGER NOT NULL
);

-- What plans depend on: engine and schema versions, backend, device model and compute
-- capability (never the ordinal), fusers and their versions, max_blocks.
-- fingerprint: the stable id of the canonical description; description: that canonical JSON.
CREATE TABLE environments (
  id          INTEGER PRIMARY KEY,
  fingerprint TEXT    NOT NULL UNIQUE,
  description TEXT    NOT NULL,
  created     INTEGER NOT NULL
);

-- One row per stored execution plan. ops_blob: the encoded relative ops; plan_blob: the
-- encoded strategy and optimization states. Both are opaque to SQL.
CREATE TABLE plans (
  id                INTEGER PRIMARY KEY,
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
  UNIQUE (environment_id, plan_key)
);
CREATE INDEX plans_by_first_op ON plans (environment_id, first_op_hash);

-- A plan's triggers in append order (position 0, 1, ...); the policy refers to them by index.
-- kind: ExecutionTrigger::Kind's stored number; ops_blob: encoded ops, empty when none.
CREATE TABLE triggers (
  plan_id  INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  kind     INTEGER NOT NULL,
  ops_blob BLOB    NOT NULL DEFAULT X'',
  PRIMARY KEY (plan_id, position),
  UNIQUE (plan_id, kind, ops_blob)
);

-- The exploration ledger: a workload's budget survives restarts. max_explorations NULL means
-- unlimited.
CREATE TABLE workloads (
  id               INTEGER PRIMARY KEY,
  environment_id   INTEGER NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  name             TEXT    NOT NULL,
  explorations     INTEGER NOT NULL DEFAULT 0,
  max_explorations INTEGER,
  hits             INTEGER NOT NULL DEFAULT 0,
  misses           INTEGER NOT NULL DEFAULT 0,
  unfused_runs     INTEGER NOT NULL DEFAULT 0,
  last_seen        INTEGER NOT NULL,
  UNIQUE (environment_id, name)
);

CREATE TABLE plan_usage (
  workload_id INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
  plan_id     INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
  hits        INTEGER NOT NULL DEFAULT 0,
  last_hit    INTEGER NOT NULL,
  PRIMARY KEY (workload_id, plan_id)
);
CREATE INDEX plan_usage_by_plan ON plan_usage (plan_id);

-- Compiled kernels (code): only used when source hash, arch, compiler version and checksum
-- all match. plan_id: the plan the kernel was compiled for, when there is one.
CREATE TABLE kernels (
  id               INTEGER PRIMARY KEY,
  environment_id   INTEGER NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  plan_id          INTEGER REFERENCES plans(id) ON DELETE SET NULL,
  source_hash      BLOB    NOT NULL,
  arch             TEXT    NOT NULL,
  compiler_version TEXT    NOT NULL,
  binary           BLOB    NOT NULL,
  checksum         INTEGER NOT NULL,
  created          INTEGER NOT NULL,
  UNIQUE (environment_id, source_hash, arch, compiler_version)
);
CREATE INDEX kernels_by_plan ON kernels (plan_id);
