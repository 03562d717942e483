-- 0005_device_facts (PostgreSQL): migrations/0005_device_facts.sql on a server. What a backend
-- measured about its device, one row per environment and name, checksummed; every host of the
-- fleet with the same environment reads what any of them measured. Never edit this file once
-- it has landed.
CREATE TABLE device_facts (
  environment_id BIGINT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  name           TEXT   NOT NULL,
  value          TEXT   NOT NULL,
  checksum       BIGINT NOT NULL,
  updated        BIGINT NOT NULL,
  PRIMARY KEY (environment_id, name)
);
