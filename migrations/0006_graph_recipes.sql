-- 0006_graph_recipes: the recipes of launch windows that repeated, kept with the plans of the
-- environment and the workload that ran them (issue 44; docs/PLAN_DATABASE.md, "Graph recipes";
-- Note [Graph recipes] in store/persistent_recipes.h), so that a later process captures such a
-- window as a CUDA graph at its first occurrence instead of after it has repeated.
-- Never edit this file once it has landed: add 0007_*.sql instead (migrations/README.md).
--
-- key: the tape's TapeHash (engine/runtime/graph_tape.h) as the signed INTEGER with the same
-- bits. body: EncodeTape of the tape (a header line, then one line per launch), at most
-- GraphRecipeStore::kMaxBodyBytes. kernels: the KernelBinaryKey hashes the tape launches
-- (TapeKernels, in first-launch order), each as 16 lower-case hex digits, separated by one
-- space; kept beside the body so that gc and verify can tell which recipes lost a kernel
-- without decoding them. checksum: XXH3-64 over key, body and kernels (Note [Row checksums],
-- store/codec/row_checksum.h), as a signed INTEGER; a row that fails it is skipped on load.
-- updated: when the recipe was last written (Unix milliseconds). A recipe only lowers how
-- often a tape must repeat before it is captured; it never supplies arguments. The recipes of
-- an environment go with it (ON DELETE CASCADE); those whose kernels are gone go at gc.
CREATE TABLE graph_recipes (
  environment_id INTEGER NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  workload       TEXT    NOT NULL,
  key            INTEGER NOT NULL,
  body           TEXT    NOT NULL,
  kernels        TEXT    NOT NULL,
  checksum       INTEGER NOT NULL,
  updated        INTEGER NOT NULL,
  PRIMARY KEY (environment_id, workload, key)
);
