-- 0005_device_facts: what a backend measured about its device, kept with the plans of the
-- environment (issue 43; docs/PLAN_DATABASE.md, "Device facts"; Note [Device facts] in
-- store/persistent_facts.h), so that a process does not measure again what another one did.
-- Never edit this file once it has landed: add 0006_*.sql instead (migrations/README.md).
--
-- A fact is a short name and a short value, text the backend writes and parses itself ("which
-- matmul epilogue is faster for this shape class": engine/runtime/device_facts.h). One row per
-- environment and name; a new value replaces the old one. checksum: XXH3-64 over the name and
-- the value (Note [Row checksums], store/codec/row_checksum.h), as a signed INTEGER; a row that
-- fails it is skipped on load. updated: when the value was last written (Unix milliseconds).
-- The facts of an environment go with it (ON DELETE CASCADE).
CREATE TABLE device_facts (
  environment_id INTEGER NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  name           TEXT    NOT NULL,
  value          TEXT    NOT NULL,
  checksum       INTEGER NOT NULL,
  updated        INTEGER NOT NULL,
  PRIMARY KEY (environment_id, name)
);
