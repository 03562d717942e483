-- 0006_graph_recipes (PostgreSQL): migrations/0006_graph_recipes.sql on a server. The recipes
-- of launch windows that repeated, one row per environment, workload and tape key,
-- checksummed; every host of the fleet with the same environment and workload reads what any
-- of them stored. Never edit this file once it has landed.
CREATE TABLE graph_recipes (
  environment_id BIGINT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  workload       TEXT   NOT NULL,
  key            BIGINT NOT NULL,
  body           TEXT   NOT NULL,
  kernels        TEXT   NOT NULL,
  checksum       BIGINT NOT NULL,
  updated        BIGINT NOT NULL,
  PRIMARY KEY (environment_id, workload, key)
);
