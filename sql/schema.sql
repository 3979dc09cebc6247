-- rcf SQLite schema, version 2.
--
-- Layers:
--   * raw tables      filled by `rcf ingest` from importer events, one row per thing the log said;
--   * derived tables  filled by analysis/ after every ingest (canonical compiles, attributions,
--                     convergence), recomputed per run;
--   * public views    the stable API (runs, compiles, recompiles, convergence, ingest_stats and
--                     a few decoded helpers). Tables behind the views may change between versions;
--                     the views keep their columns.
-- Repeated text (file names, reasons, guard code) is interned in `strings`; columns named *_sid
-- hold a strings.string_id.
-- Compile references: (rank, epoch, frame_id, frame_compile_id, attempt, ca_id) identify a Dynamo
-- compile within one source: rank -1 = the log has no rank; epoch counts torch._dynamo.reset()s;
-- frame_id -1 = no compile id was logged; ca_id = compiled-autograd id or -1.

-- Key/value facts about this database file. Key 'schema_version' = the integer version of this
-- schema; rcf refuses to open a database of another version.
CREATE TABLE schema_info (
  key TEXT PRIMARY KEY,  -- fact name
  value TEXT NOT NULL    -- fact value
);

-- Interned strings.
CREATE TABLE strings (
  string_id INTEGER PRIMARY KEY,  -- referenced by *_sid columns
  text TEXT NOT NULL UNIQUE       -- the text, verbatim from the log
);

-- One run = one execution of one lane (a lane is a configuration: model + flags + stack bundle).
CREATE TABLE run_table (
  run_id INTEGER PRIMARY KEY,  -- stable id of the run
  lane TEXT NOT NULL,          -- lane name (rcf ingest --lane), e.g. 'mtp1-torch2.12'
  run TEXT NOT NULL,           -- run label (rcf ingest --run), e.g. 'cold', 'warm', a date
  bundle TEXT,                 -- JSON object of stack versions and flags when known, else NULL:
                               -- declared (rcf ingest --bundle, rcf capture) or printed by the
                               -- logs (TORCH_TRACE torch/python/cuda/triton versions)
  created_at TEXT NOT NULL,    -- UTC time of the first ingest into this run (ISO 8601)
  UNIQUE (lane, run)
);

-- One ingested input (a file, a member of a walked directory, or stdin).
CREATE TABLE source (
  source_id INTEGER PRIMARY KEY,  -- stable id of the source
  run_id INTEGER NOT NULL REFERENCES run_table(run_id),  -- run the source belongs to
  path TEXT NOT NULL,             -- path as given or found by the directory walk ('-' = stdin)
  format TEXT NOT NULL,           -- importer that read it (e.g. 'torch_trace', 'dynamo_text')
  encoding TEXT NOT NULL,         -- 'plain' or 'gzip'
  content_hash TEXT NOT NULL,     -- XXH64 and length of the decompressed bytes; re-ingesting the same content is a no-op,
                                  -- except that the identical logs of two ranks (file_rank) are two sources, and that in
                                  -- another run only the same path is the same file (two deterministic runs write the same bytes)
  bytes INTEGER NOT NULL,         -- decompressed bytes read
  lines INTEGER NOT NULL,         -- physical lines read
  events INTEGER NOT NULL,        -- events the importer emitted
  skipped INTEGER NOT NULL,       -- lines understood and irrelevant (see line_note)
  rejected INTEGER NOT NULL,      -- malformed lines, counted and skipped (see line_note, rejected_line)
  warnings INTEGER NOT NULL,      -- records used despite a problem (MD5 mismatch, truncated block)
  first_error TEXT,               -- 'path:line: reason' of the first rejected line or read error, else NULL
  read_error TEXT,                -- why reading stopped early (corrupt gzip, I/O error), else NULL
  file_rank INTEGER,              -- rank from the file name (dedicated_log_torch_trace_rank_N), else NULL
  ingested_at TEXT NOT NULL,      -- UTC time of the ingest (ISO 8601)
  host TEXT,                      -- machine the source was ingested on (rcf ingest --host, default
                                  -- its hostname; rcf merge keeps it), NULL when unknown
  prefix_checkpoints TEXT NOT NULL DEFAULT '', -- XXH64 of the first 4, 8 ... 64 KiB, then of every 64 KiB more, of the
                                  -- decompressed bytes, 16 hex digits each, concatenated: how rcf merge tells
                                  -- an earlier version of a growing log from another log (docs/merge.md)
  UNIQUE (run_id, content_hash, file_rank)
);

-- Counts of input lines per fate and reason; with the parsed lines they add up to source.lines.
CREATE TABLE line_note (
  source_id INTEGER NOT NULL REFERENCES source(source_id),  -- source of the lines
  fate TEXT NOT NULL,       -- 'skipped', 'rejected', 'warning', or 'framed' (read after a wrapper
                            -- or glue was removed; not part of the sum, docs/line_framing.md)
  reason TEXT NOT NULL,     -- snake_case reason, e.g. 'bad_json', 'no_glog_prefix', 'other_logger'
  count INTEGER NOT NULL,   -- number of lines (warnings: records) with this fate and reason
  first_line INTEGER NOT NULL,  -- 1-based line number of the first one
  first_excerpt TEXT,       -- start of the first such line (at most 200 bytes)
  PRIMARY KEY (source_id, fate, reason)
);

-- Rejected lines kept with their position (the first 1000 per source; line_note has all counts).
CREATE TABLE rejected_line (
  source_id INTEGER NOT NULL REFERENCES source(source_id),  -- source of the line
  line INTEGER NOT NULL,    -- 1-based line number
  reason TEXT NOT NULL,     -- why it was rejected
  excerpt TEXT              -- start of the line (at most 200 bytes)
);

-- Where the read of a plain log stopped for good, for the sources that can be read on once the log
-- has grown (docs/watch.md, "A log that grew, ingested again"): `rcf ingest` of the grown log reads
-- its first `bytes` bytes again without writing them, takes back the rows the end of the source
-- wrote, and writes only what follows. A source without a row is read again whole when it grows
-- (gzip, shorter than the sniffing window, ended inside a line, or copied by `rcf merge`).
CREATE TABLE source_resume (
  source_id INTEGER PRIMARY KEY REFERENCES source(source_id),  -- the source
  line INTEGER NOT NULL,           -- the last line read before the end of the source
  bytes INTEGER NOT NULL,          -- bytes read before the end: all of the source, ending in a newline
  step_pattern TEXT NOT NULL,      -- the --step-pattern of that read, '' when none (another reads anew)
  group_base INTEGER NOT NULL,     -- the source's xla_execution_group ids are this + the importer's number
  series_line INTEGER,             -- the progress-line series still open then (step_marker row that
                                   -- the end wrote): its first line; NULL when none was open
  series_step INTEGER,             -- its first step
  series_shape_sid INTEGER,        -- its shape (strings)
  series_repeats INTEGER,          -- lines it stood for then
  series_line_stride INTEGER,      -- its line stride
  series_step_stride INTEGER,      -- its step stride
  end_rows TEXT NOT NULL           -- JSON object, table name -> rows the end of the source wrote
                                   -- (the source's last rows of that table, by rowid)
);

-- ---------------------------------------------------------------------------------------------
-- Raw Dynamo tables (TORCH_TRACE and Dynamo text logs).

-- A Dynamo compile as a log reported it. The same compile can appear several times (TORCH_TRACE
-- metrics and a text recompile block, or only referenced by a later reason); analysis merges them
-- into compile_event. A 'referenced' record is written for an older compile a recompile block
-- names only when the source has no record naming its function yet (each block re-lists the
-- entries it rejected: every mention stays in guard_failure.old_compile_id).
CREATE TABLE dynamo_compile_raw (
  raw_id INTEGER PRIMARY KEY,  -- row id
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the record
  rank INTEGER NOT NULL,       -- rank, -1 if none
  epoch INTEGER NOT NULL,      -- reset epoch
  frame_id INTEGER NOT NULL,   -- F of the compile id, -1 if not logged
  frame_compile_id INTEGER NOT NULL,  -- C of the compile id, -1 if not logged
  attempt INTEGER NOT NULL,    -- restart attempt (the _A suffix), 0 if none
  ca_id INTEGER NOT NULL,      -- compiled-autograd id, -1 if none
  kind TEXT NOT NULL,          -- 'forward', 'backward', 'runtime', 'recompile_block', 'referenced'
  co_name_sid INTEGER,         -- compiled function name
  co_filename_sid INTEGER,     -- file of the compiled function
  co_firstlineno INTEGER,      -- first line of the compiled function, NULL if unknown
  start_us INTEGER,            -- compile start, epoch microseconds
  duration_ms REAL,            -- compile wall time in milliseconds
  cache_size INTEGER,          -- cache entries with the same ID_MATCH'd objects (vs recompile_limit)
  accumulated_cache_size INTEGER,  -- all cache entries of the code object
  guard_count INTEGER,         -- guards installed
  shape_env_guard_count INTEGER,  -- symbolic-shape guards installed
  graph_op_count INTEGER,      -- ops in the captured graph
  graph_node_count INTEGER,    -- nodes in the captured graph
  graph_input_count INTEGER,   -- graph inputs
  has_guarded_code INTEGER,    -- 1 if a compiled entry was installed, 0 if not, NULL unknown
  recompile_limit INTEGER,     -- dynamo_config.recompile_limit in force
  accumulated_recompile_limit INTEGER,  -- dynamo_config.accumulated_recompile_limit in force
  fail_type_sid INTEGER,       -- exception type of a failed compile (e.g. BackendCompilerFailed)
  fail_reason_sid INTEGER,     -- exception text of a failed compile
  recompile_reason_sid INTEGER,  -- compilation_metrics.recompile_reason (first reason only)
  restart_reasons TEXT,        -- JSON list of graph-break restart reasons, NULL if none
  user_stack TEXT,             -- JSON list of {file,line,function,code} frames, outermost first
  pid INTEGER,                 -- process id of the glog prefix, NULL if the log printed none
  clock_offset_s INTEGER       -- the writer's clock minus UTC (glog prefix against the compile's end
                               -- time), a multiple of 15 minutes; NULL when not both are logged
);

-- One rejected cache entry's reason for a recompile.
CREATE TABLE guard_failure (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the reason
  rank INTEGER NOT NULL,       -- compile reference of the NEW compile (see header)
  epoch INTEGER NOT NULL,
  frame_id INTEGER NOT NULL,
  frame_compile_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  ca_id INTEGER NOT NULL,
  entry_index INTEGER NOT NULL,   -- position in the logged list (0 = first listed)
  verbose_group INTEGER NOT NULL, -- 'guard <i> failures:' group of recompiles_verbose, -1 if none
  old_compile_id TEXT NOT NULL,   -- 'F/C' of the rejecting cache entry, '' when not logged
  reason_sid INTEGER NOT NULL,    -- the reason text as logged (right-trimmed, id removed)
  origin TEXT NOT NULL            -- where it came from: trace_recompile_reasons, text_recompiles, text_limit_warning, ...
);

-- A Dynamo graph break.
CREATE TABLE graph_break (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the record
  rank INTEGER NOT NULL,       -- compile reference (see header)
  epoch INTEGER NOT NULL,
  frame_id INTEGER NOT NULL,
  frame_compile_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  ca_id INTEGER NOT NULL,
  user_file_sid INTEGER,       -- user file of the break
  user_line INTEGER,           -- user line of the break
  user_function_sid INTEGER,   -- user function of the break
  gb_type_sid INTEGER,         -- graph-break type (first line of the reason block), if logged
  reason_sid INTEGER,          -- full reason text
  suppressed INTEGER NOT NULL, -- 1 for a duplicate whose details the runtime suppressed
  sync_signature INTEGER NOT NULL,  -- 1 when the reason is a host sync (.item(), data-dependent, ...)
  user_stack TEXT,             -- JSON list of frames, outermost first
  origin TEXT NOT NULL,        -- text_graph_breaks, text_item_warning, trace_restart, ...
  pid INTEGER                  -- process id of the record's log prefix, NULL when none
);

-- Dynamo hit a recompile limit: the frame falls back to eager from then on.
CREATE TABLE recompile_limit_hit (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the warning
  rank INTEGER NOT NULL,       -- compile reference (see header)
  epoch INTEGER NOT NULL,
  frame_id INTEGER NOT NULL,
  frame_compile_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  ca_id INTEGER NOT NULL,
  limit_type TEXT NOT NULL,    -- recompile_limit, accumulated_recompile_limit, cache_size_limit, ...
  limit_value INTEGER,         -- the limit in force, NULL if not printed
  function_sid INTEGER,        -- function that hit it
  file_sid INTEGER,            -- its file
  firstlineno INTEGER,         -- its first line
  last_reason_sid INTEGER,     -- last reason printed with the warning, NULL if the era printed none
  hard_failure INTEGER NOT NULL,  -- 1 when it raised FailOnRecompileLimitHit instead of falling back
  origin TEXT NOT NULL         -- where it came from
);

-- Inductor did not use CUDA graphs for a compiled graph or part of it, and said why
-- (docs/cudagraph_skips.md).
CREATE TABLE cudagraph_skip (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the message
  rank INTEGER NOT NULL,       -- compile reference (see header); frame_id -1 if the line has none
  epoch INTEGER NOT NULL,
  frame_id INTEGER NOT NULL,
  frame_compile_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  ca_id INTEGER NOT NULL,
  kind TEXT NOT NULL,          -- 'skipped' (no CUDA graphs for the graph), 'partitioned' (these ops
                               -- run outside CUDA graphs), 'rerecord_limit' (CUDA graph trees gave up
                               -- re-recording and run the function eagerly)
  reason_sid INTEGER NOT NULL, -- the reason as printed, without the 'skipping cudagraphs due to' lead-in
  user_file_sid INTEGER,       -- innermost frame of the 'Found from :' stack, NULL if none printed
  user_line INTEGER,           -- its line
  user_function_sid INTEGER,   -- its function
  user_stack TEXT,             -- JSON list of frames, outermost first, NULL if none printed
  origin TEXT NOT NULL         -- 'text_perf_hints' (Dynamo/Inductor text log) or 'trace_compilation_metrics'
);

-- Guards installed by a compile, one row per guard.
CREATE TABLE guard (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the guard-set record
  rank INTEGER NOT NULL,       -- compile reference (see header)
  epoch INTEGER NOT NULL,
  frame_id INTEGER NOT NULL,
  frame_compile_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  ca_id INTEGER NOT NULL,
  format TEXT NOT NULL,        -- dynamo_guards or dynamo_cpp_guards_str
  ordinal INTEGER NOT NULL,    -- position in the guard set
  code_sid INTEGER NOT NULL    -- guard code ('KIND: code' for the C++ guard tree)
);

-- A timed compile phase (chromium B/E pair).
CREATE TABLE phase_timing (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the begin event
  rank INTEGER NOT NULL,       -- compile reference (see header)
  epoch INTEGER NOT NULL,
  frame_id INTEGER NOT NULL,
  frame_compile_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  ca_id INTEGER NOT NULL,
  name_sid INTEGER NOT NULL,   -- phase name (dynamo, backend_compile, inductor_compile, ...)
  start_us INTEGER NOT NULL,   -- start, epoch microseconds
  duration_us INTEGER NOT NULL -- duration in microseconds
);

-- FX-graph / AOTAutograd cache outcome of a compile.
CREATE TABLE cache_outcome (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the record
  rank INTEGER NOT NULL,       -- compile reference (see header)
  epoch INTEGER NOT NULL,
  frame_id INTEGER NOT NULL,
  frame_compile_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  ca_id INTEGER NOT NULL,
  cache TEXT NOT NULL,         -- fx_graph or aotautograd
  state TEXT NOT NULL,         -- hit, miss or bypass
  key_sid INTEGER,             -- cache key
  detail_sid INTEGER           -- bypass reason, if any
);

-- An input tensor of a compile (describe_tensor + describe_source).
CREATE TABLE input_tensor (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the description
  rank INTEGER NOT NULL,       -- compile reference (see header)
  epoch INTEGER NOT NULL,
  frame_id INTEGER NOT NULL,
  frame_compile_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  ca_id INTEGER NOT NULL,
  source_expr_sid INTEGER,     -- source expression, e.g. L['x']
  dtype TEXT,                  -- e.g. torch.float32
  device TEXT,                 -- e.g. device(type='cpu')
  sizes TEXT,                  -- JSON list of dims
  strides TEXT,                -- JSON list of strides
  requires_grad INTEGER        -- 1/0, NULL unknown
);

-- One row of a compile_times table ('TorchDynamo compilation metrics:').
CREATE TABLE compile_times (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the row
  function_sid INTEGER NOT NULL,  -- dynamo_timed key (e.g. _compile.compile_inner)
  total_s REAL NOT NULL,       -- sum of the values, seconds
  values_s TEXT NOT NULL       -- JSON list of every value, seconds
);

-- What Inductor logged about a compiled graph, or the order a process ran its graphs in
-- (TORCH_TRACE; docs/rank_divergence.md): the facts ranks are compared on.
CREATE TABLE graph_fact (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the record
  rank INTEGER NOT NULL,       -- compile reference of the graph (see header); frame_id -1 for an
  epoch INTEGER NOT NULL,      -- execution order, which belongs to no compile
  frame_id INTEGER NOT NULL,
  frame_compile_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  ca_id INTEGER NOT NULL,
  kind TEXT NOT NULL,          -- 'collective_schedule' (inductor_collective_schedule),
                               -- 'code_collectives' (collective calls in inductor_output_code),
                               -- 'tensor_meta' (inductor_runtime_and_tensor_meta: op -> outputs),
                               -- 'execution_order' (graph_execution: compile ids as run)
  items TEXT NOT NULL          -- JSON list of strings, in logged order
);

-- ---------------------------------------------------------------------------------------------
-- Raw XLA-side tables (torch_xla debug output, metrics, saved graphs, HLO, JAX, step timings).

-- One PT_XLA_DEBUG Compilation Analysis block: exactly one real XLA compile (Execution blocks are
-- counted in xla_execution_group / xla_execution). The step boundaries of a source, in line
-- order, are its XLA_EMIT_STEPLOG markers (step_marker, origin 'steplog') and its 'execute'
-- blocks whose cause_class is step_end, parallel_loader_step_end or profiler_step_end (step ends).
CREATE TABLE xla_block (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the block's first line
  kind TEXT NOT NULL,          -- compile
  cause_sid INTEGER,           -- cause text as printed
  cause_class TEXT NOT NULL,   -- normalised cause (step_end, tensor_value_access, dynamo_compile, ...)
  graph_name_sid INTEGER,      -- Graph Name (torch_xla.compile name), NULL if absent
  graph_hash TEXT,             -- Graph Hash as printed (lowercase hex), NULL if absent
  inputs INTEGER,              -- Number of Graph Inputs
  outputs INTEGER,             -- Number of Graph Outputs
  frames_sid INTEGER,          -- JSON list of {file,line,function}, innermost first (interned)
  frames_cut INTEGER NOT NULL, -- 1 when the runtime printed '..........' (more frames existed)
  truncated INTEGER NOT NULL,  -- 1 when the block was cut off
  markers_before INTEGER NOT NULL,   -- steplog markers of the source before the block
  step_ends_before INTEGER NOT NULL  -- step ends of the source before the block
);

-- The distinct PT_XLA_DEBUG Execution and Unexpected Execution blocks of a source. A level-2 log
-- prints one block per graph run (most of the file) and repeats a few blocks: each distinct one
-- is stored once here and counted per step segment in xla_execution. (A source with more than
-- 4096 distinct blocks, or 65536 frames in them, may store a block again under a new group_id.)
CREATE TABLE xla_execution_group (
  group_id INTEGER PRIMARY KEY, -- referenced by xla_execution
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  first_line INTEGER NOT NULL, -- line of the first block of the group
  kind TEXT NOT NULL,          -- execute, unexpected_execute
  cause_sid INTEGER,           -- cause text as printed
  cause_class TEXT NOT NULL,   -- normalised cause (step_end, dynamo_execute, tensor_value_access, ...)
  graph_name_sid INTEGER,      -- Graph Name, NULL if absent
  graph_hash TEXT,             -- Graph Hash as printed, NULL if absent
  inputs INTEGER,              -- Number of Graph Inputs
  outputs INTEGER,             -- Number of Graph Outputs
  frames_sid INTEGER,          -- JSON list of {file,line,function}, innermost first (interned)
  frames_cut INTEGER NOT NULL, -- 1 when the runtime printed '..........' (more frames existed)
  truncated INTEGER NOT NULL   -- 1 when the blocks were cut off
);

-- Execution blocks counted per step segment: one row per group that ran in a segment of a source
-- (the blocks between two step boundaries, see xla_block). A segment with more than 256 groups
-- may count a group in several rows. sum(executions) is the number of blocks; their lines are
-- accounted for in source.lines like every other line.
CREATE TABLE xla_execution (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  group_id INTEGER NOT NULL,   -- xla_execution_group: what the blocks printed
  markers_before INTEGER NOT NULL,   -- the segment: steplog markers of the source before it
  step_ends_before INTEGER NOT NULL, -- the segment: step ends of the source before it
  first_line INTEGER NOT NULL, -- first line of the group's first block in the segment
  last_line INTEGER NOT NULL,  -- first line of the group's last block in the segment
  executions INTEGER NOT NULL  -- blocks of the group in the segment (>= 1)
);

-- Post Compilation Analysis sizes; belongs to the closest preceding compile block of its source.
CREATE TABLE xla_post_compile (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the block
  computation_hash TEXT,       -- 'Computation hash:' (v2.7+), NULL if absent
  input_gb REAL,               -- Graph input size
  output_gb REAL,              -- Graph output size
  aliased_gb REAL,             -- Aliased Input size
  intermediate_gb REAL,        -- Intermediate tensor size
  program_gb REAL              -- Compiled program size
);

-- pt-xla-profiler lines.
CREATE TABLE xla_profiler_note (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line
  kind TEXT NOT NULL,          -- too_frequent, too_slow, not_lowered, unlowered_summary_frame
  metric TEXT,                 -- metric named by the line, NULL for op lists
  count INTEGER,               -- too frequent: count; summary frame: count
  steps INTEGER,               -- too frequent: during this many steps
  seconds REAL,                -- too slow: longest instance
  text_sid INTEGER             -- op list, frame text or raw message
);

-- One value of a metrics report.
CREATE TABLE metric_sample (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of the value
  step INTEGER,                -- [MetricsData; step=N] of the block, NULL if none
  report_index INTEGER NOT NULL,  -- n-th report in the source (0-based)
  name_sid INTEGER NOT NULL,   -- metric or counter name
  kind TEXT NOT NULL,          -- metric or counter
  field TEXT NOT NULL,         -- TotalSamples, Accumulator, ValueRate, Rate, Mean, StdDev, Value, P<percent>
  value REAL NOT NULL,         -- ns for times, bytes for sizes, per second for rates, else as printed
  unit TEXT NOT NULL           -- ns, bytes, ns/s, bytes/s, 1/s or '' (plain)
);

-- A step boundary printed by the runtime or found by a user pattern.
CREATE TABLE step_marker (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line
  step INTEGER,                -- explicit step number, NULL when only the boundary is known
  origin TEXT NOT NULL,        -- steplog (a sync), metrics_file (a sync), step_line (a progress
                               -- line of the user's output, docs/training_steps.md), compile_line
                               -- (a console line a compile printed: step NULL, shape_sid its
                               -- location, then ` [F/C]` when it names its compile)
  shape_sid INTEGER,           -- step_line: the line's shape (`[train] step #`), else NULL
  time_s REAL,                 -- step_line: the time that opened the line (epoch seconds; the printed
                               -- clock read as UTC when time_zoned = 0), else NULL
  time_zoned INTEGER NOT NULL DEFAULT 0, -- 1 when the line named its time zone
  time_on_arrival INTEGER NOT NULL DEFAULT 0, -- 1 when time_s is when the line reached rcf
                               -- capture (its console's line-time sidecar, docs/capture.md), not
                               -- a time printed in the line
  repeats INTEGER NOT NULL DEFAULT 1,    -- step_line: the row stands for this many lines, line i
  line_stride INTEGER NOT NULL DEFAULT 0,  -- at line + i * line_stride printing step
  step_stride INTEGER NOT NULL DEFAULT 0   -- step + i * step_stride (store/step_marker_series.h)
);

-- One HLO module (a --xla_dump_to file or a module embedded in a saved graph).
CREATE TABLE hlo_module (
  hlo_module_id INTEGER PRIMARY KEY,  -- row id, referenced by hlo_parameter / hlo_constant
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of 'HloModule'
  module_name_sid INTEGER NOT NULL,  -- module name (SyncTensorsGraph.68, jit_f, ...)
  module_id INTEGER,           -- module_NNNN of the dump file name, NULL otherwise
  stage TEXT,                  -- before_optimizations, after_optimizations, a pass name, NULL unknown
  file_name TEXT,              -- dump file name, NULL for embedded modules
  entry_layout_sid INTEGER,    -- entry_computation_layout text
  instruction_count INTEGER NOT NULL,  -- instructions over all computations
  structure_fingerprint TEXT NOT NULL, -- ignores instruction names/ids and constant values
  full_fingerprint TEXT NOT NULL,      -- ignores only instruction names/ids
  skeleton_fingerprint TEXT NOT NULL,  -- ignores also instruction shapes and attribute values: the ops and their wiring
  op_histogram TEXT NOT NULL,  -- JSON object opcode -> count
  truncated INTEGER NOT NULL,  -- 1 when the module was cut off
  graph_hash TEXT              -- torch_xla graph hash when embedded in a saved graph, else NULL
);

-- Entry-computation parameters of an HLO module: its input signature.
CREATE TABLE hlo_parameter (
  hlo_module_id INTEGER NOT NULL REFERENCES hlo_module(hlo_module_id),  -- module
  number INTEGER NOT NULL,     -- parameter number
  name TEXT,                   -- instruction name
  dtype TEXT NOT NULL,         -- element type (f32, bf16, s32, pred, tuple, ...)
  dims TEXT NOT NULL,          -- JSON list of dimensions
  layout TEXT,                 -- layout as printed, NULL if not printed
  shape_text TEXT NOT NULL     -- the whole shape as printed
);

-- Constants of an HLO module (what a changed Python scalar shows up as).
CREATE TABLE hlo_constant (
  hlo_module_id INTEGER NOT NULL REFERENCES hlo_module(hlo_module_id),  -- module
  ordinal INTEGER NOT NULL,    -- position in the module
  name TEXT,                   -- instruction name
  shape_text TEXT NOT NULL,    -- shape as printed
  value_sid INTEGER NOT NULL,  -- value text as printed ('{...}' when elided)
  elided INTEGER NOT NULL,     -- 1 when the printer hid the value
  user_op TEXT,                -- opcode of the first instruction using it
  op_name_sid INTEGER,         -- metadata op_name / op_type
  source_file_sid INTEGER,     -- metadata source_file
  source_line INTEGER          -- metadata source_line
);

-- Every instruction of an HLO module, in the form an op-attribute diff compares: when two programs
-- have the same inputs and skeleton but another structure, analysis names the instructions that
-- differ from these rows (analysis/op_attribute_diff.h), never from the input files.
CREATE TABLE hlo_instruction_text (
  hlo_module_id INTEGER PRIMARY KEY REFERENCES hlo_module(hlo_module_id),  -- module
  instructions TEXT NOT NULL   -- one line per instruction in printed order, tab-separated fields:
                               -- name ordinal, name, opcode, canonical shape, shape as printed,
                               -- operand ordinals, metadata op_name, source_file, source_line,
                               -- then key, calls, canonical and printed value per attribute
                               -- (store/hlo_instruction_text.h)
);

-- One graph of an XLA_SAVE_TENSORS_FILE.
CREATE TABLE saved_graph (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of '## BEGIN_GRAPH' (or the block's first line)
  format TEXT NOT NULL,        -- text, hlo, dot, stablehlo
  header_kind TEXT NOT NULL,   -- old (Hashes:) or new (Root Hashes: + Graph Hash:)
  graph_hash TEXT,             -- Graph Hash, NULL with the old header
  root_hashes TEXT,            -- JSON list of root hashes
  graph_name_sid INTEGER,      -- Graph Name, NULL if absent
  dynamo INTEGER NOT NULL,     -- 1 for a [dynamo] block
  frames TEXT,                 -- JSON list of Python frames, innermost first
  ir_node_count INTEGER NOT NULL,  -- IR lines (text format)
  truncated INTEGER NOT NULL   -- 1 when cut off before '## END_GRAPH'
);

-- One frame group of a scripts/grab_graphs.py summary: `Frame has N graph(s) (M unique):`
-- (docs/xla_saved_graph.md).
CREATE TABLE grab_graphs_frame (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line of 'Frame has'
  graphs INTEGER NOT NULL,     -- N: saved graphs (syncs) with this Python stack
  unique_graphs INTEGER NOT NULL,  -- M: distinct graph texts among them (programs)
  frames TEXT,                 -- JSON list of Python frames, innermost first; NULL when cut off
  frames_cut INTEGER NOT NULL  -- 1 when the input ended before the frame lines
);

-- jax_log_compiles records.
CREATE TABLE jax_compile (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line
  function_sid INTEGER NOT NULL,  -- traced function
  phase TEXT NOT NULL,         -- trace, lower, compile, compiling
  seconds REAL,                -- duration when printed
  signature_sid INTEGER,       -- argument shapes and types when printed
  raw_sid INTEGER              -- the message
);

-- jax_explain_cache_misses explanations.
CREATE TABLE jax_cache_miss (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line
  function_sid INTEGER,        -- function
  location TEXT,               -- file:line of the function when printed
  cause_class TEXT NOT NULL,   -- never_seen, shape, dtype, weak_type, static_arg, pytree, context, other
  detail_sid INTEGER           -- explanation text
);

-- JAX persistent compilation cache events.
CREATE TABLE jax_persistent_cache (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line
  event TEXT NOT NULL,         -- hit, miss, write, skip
  key_sid INTEGER,             -- cache key (jit_<name>-<sha256>)
  function_sid INTEGER,        -- function when printed
  seconds REAL                 -- time when printed
);

-- torch_xla VLOG graph lines (TF_CPP_VMODULE=tensor=5 / xla_graph_executor=5; docs/xla_formats.md).
-- A compile is one 'Compiling IR graph hash' record; its 'done!' line is folded into it.
CREATE TABLE xla_vlog (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line (a compile: its start line, or its done line without one)
  kind TEXT NOT NULL,          -- compile, execute, tensors_graph, parameter_sequence, cache_hit,
                               -- get_tensor (user code read tensor values: a host sync), graph_size
  graph_hash TEXT,             -- as printed (hex, or the 2019 decimal form), NULL when none
  device TEXT,                 -- device named by the line (TPU:0), NULL when none
  thread INTEGER,              -- glog thread id, NULL when not printed
  count INTEGER,               -- get_tensor: tensors read; graph_size: IR nodes; else NULL
  compile_ms REAL,             -- compile: start to done from the timestamps, NULL when unknown
  finished INTEGER NOT NULL    -- compile: 1 when its done line was seen
);

-- File names of a pasted --xla_dump_to directory listing (docs/xla_formats.md): which modules and
-- stages a dump held. A listing decides no compile.
CREATE TABLE xla_dump_file (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line
  module_id INTEGER,           -- module_NNNN
  module_name_sid INTEGER,     -- module name (SyncTensorsGraph.68, jit_train_step), NULL if none
  stage TEXT,                  -- before_optimizations, after_optimizations, ..., NULL if unknown
  file_name TEXT NOT NULL      -- the name as listed
);

-- Step timings (CSV, JSONL, --step-pattern).
CREATE TABLE step_timing (
  run_id INTEGER NOT NULL,     -- run
  source_id INTEGER NOT NULL,  -- source
  line INTEGER NOT NULL,       -- line
  step INTEGER NOT NULL,       -- training step
  wall_ms REAL,                -- step wall time
  compile_ms REAL,             -- compile time within the step, when given
  timestamp_s REAL             -- epoch seconds when given
);

-- ---------------------------------------------------------------------------------------------
-- Derived tables (analysis/), recomputed for a run after each ingest into it.

-- One row per real compile (a program built, not a cache hit), merged across sources and formats.
CREATE TABLE compile_event (
  compile_row INTEGER PRIMARY KEY,  -- row id
  run_id INTEGER NOT NULL,     -- run
  ordinal INTEGER NOT NULL,    -- 1-based order of the compile within the run (time, then source order)
  step INTEGER,                -- training step of the compile (sync where the run's step_axis is sync), NULL when none
  site_sid INTEGER NOT NULL,   -- user code location the program belongs to (Dynamo: co_filename:co_firstlineno (co_name))
  program_key TEXT NOT NULL,   -- what the runtime calls the program (Dynamo: 'F/C', 'rankN:F/C' with several ranks);
                               -- texts unique to one compile are stored in the row, not interned in strings
  kind TEXT NOT NULL,          -- 'dynamo' (a compiled entry was installed) or 'dynamo_failed' (the compile raised: counted, no program)
  cause_reported TEXT,         -- what the runtime itself said about it (first reason, fail type), NULL if nothing
  compile_ms REAL,             -- compile wall time, NULL if unknown
  cache TEXT,                  -- backend cache outcome: 'hit', 'miss', 'bypass', NULL unknown
  rank INTEGER NOT NULL,       -- compile reference (see header)
  epoch INTEGER NOT NULL,
  frame_id INTEGER NOT NULL,
  frame_compile_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,    -- final attempt of the compile
  ca_id INTEGER NOT NULL,
  source_id INTEGER NOT NULL,  -- source of the most informative record
  line INTEGER NOT NULL,       -- its line
  evidence TEXT NOT NULL,      -- which records prove the compile ('compilation_metrics', 'recompile_block', 'referenced', 'pt_xla_debug_compilation_analysis', 'jax_log_compiles')
  hlo_module_id INTEGER,       -- the program's HLO module (hlo_module), when linked (see analysis/xla_compiles.h)
  saved_graph_source_id INTEGER,  -- source of the program's saved graph (XLA_SAVE_TENSORS_FILE), when linked
  saved_graph_line INTEGER     -- line of that saved graph
);

-- Why a compile happened; one row per compile in compile_event.
CREATE TABLE attribution (
  compile_row INTEGER PRIMARY KEY REFERENCES compile_event(compile_row),  -- the compile
  cause TEXT NOT NULL,         -- first_compile or a cause of the vocabulary (shape, dtype, constant, ...)
  prev_program_key TEXT,       -- program this one was compared with / rejected by, NULL if none
  detail TEXT,                 -- human evidence sentence (which input, dim, old -> new; ...)
  confidence TEXT NOT NULL,    -- high, medium or low
  evidence TEXT,               -- which artifacts decided it (e.g. 'trace recompile_reasons line 1234')
  subject_sid INTEGER,         -- what changed (tensor name, guarded expression), for aggregation
  reason_sid INTEGER,          -- primary raw reason text, NULL if none
  other_reasons INTEGER NOT NULL DEFAULT 0  -- further rejected cache entries that also gave reasons
);

-- Programs cached vs step (only for runs whose compiles carry steps), stored as change points so
-- that a run of a million steps keeps a few rows: the first and the last step, and every step
-- with a compile, a compile time above zero or a wall time. A step between two rows had no
-- compile and the programs_cached of the row before it.
CREATE TABLE convergence_point (
  run_id INTEGER NOT NULL,     -- run
  step INTEGER NOT NULL,       -- training step, or sync where run_convergence.step_axis = 'sync'
  programs_cached INTEGER NOT NULL,  -- distinct programs compiled up to and including this step
  compiles_in_step INTEGER NOT NULL, -- real compiles during this step
  compile_ms REAL,             -- compile time in this step: step timings' compile column, else the
                               -- CompileTime accumulator delta of the metrics file, else the sum of
                               -- known compile_ms of its compiles; NULL when none is known
  wall_ms REAL,                -- step wall time from step timings, NULL when none
  PRIMARY KEY (run_id, step)
);

-- Per-run convergence facts (analysis/convergence_summary.h), one row per run with compiles or
-- a curve.
CREATE TABLE run_convergence (
  run_id INTEGER PRIMARY KEY,  -- run
  state TEXT NOT NULL,         -- settled, not_settled, still_growing, no_data (no steps in the logs)
  first_step INTEGER,          -- first step of the curve, NULL with no_data
  last_step INTEGER,           -- last step of the curve, NULL with no_data
  settle_step INTEGER,         -- last step in which a new program appeared (0: none did), NULL with no_data
  programs_at_settle INTEGER,  -- programs cached at settle_step, NULL with no_data
  final_programs INTEGER,      -- programs cached at last_step, NULL with no_data
  new_after_growth_step INTEGER,  -- programs that appeared after growth_step, NULL with no_data
  growth_step INTEGER NOT NULL,   -- step after which a new program counts as still growing (20)
  compiles INTEGER NOT NULL,   -- real compiles of the run (with or without a step)
  programs INTEGER NOT NULL,   -- distinct program keys of the run
  recompiles INTEGER NOT NULL, -- compiles whose cause is not first_compile
  compile_ms REAL,             -- compile time of the run: sum of convergence_point.compile_ms, else
                               -- of the compiles' known compile_ms; NULL when unknown
  wall_ms REAL,                -- sum of step wall times (step timings), NULL when none
  execute_ms REAL,             -- ExecuteTime accumulator of the last metrics block, NULL when none
  compile_share REAL,          -- compile_ms / wall_ms when both are known, else NULL
  counted_compiles INTEGER,    -- compiles a runtime counter says the run did, named by no record or
                               -- not: the last metrics report's CompileTime TotalSamples, else
                               -- UncachedCompile (largest over the run's sources); NULL when no
                               -- report counts them (docs/xla_formats.md)
  counted_by TEXT,             -- where that count was read, e.g. 'metrics CompileTime TotalSamples
                               -- at report.txt:3'; NULL with counted_compiles
  step_axis TEXT NOT NULL DEFAULT 'sync',  -- what `step` counts in this run's compiles, curve and
                               -- facts: 'step' (training steps) or 'sync' (undecided: syncs)
  step_basis TEXT NOT NULL DEFAULT 'none', -- the evidence that decided the training step:
                               -- step_pattern, step_lines, step_timings, step_timestamps,
                               -- trace_clock, none
  step_detail TEXT             -- how it was decided, or what would decide it (docs/training_steps.md)
);

-- Recompiles aggregated per run x site x cause (the fix-first list ranks these).
CREATE TABLE cause_group (
  run_id INTEGER NOT NULL,     -- run
  site_sid INTEGER NOT NULL,   -- site (as in compile_event)
  cause TEXT NOT NULL,         -- cause of the vocabulary (never first_compile)
  recompiles INTEGER NOT NULL, -- recompiles at this site with this cause
  compile_ms_lost REAL,        -- their compile time: measured per compile, or the share of their
                               -- step's compile time (see compile_ms_basis); NULL when unknown
  compile_ms_basis TEXT NOT NULL,  -- 'measured', 'step_share' (step compile time split evenly over
                                   -- the step's compiles) or 'unknown'
  first_step INTEGER,          -- step of the first such recompile, NULL when unknown
  last_step INTEGER,           -- step of the last one
  detail TEXT,                 -- one representative detail (a shape dim lists every value it took)
  subject_sid INTEGER,         -- what changed, for the most common subject
  remedy_variant TEXT NOT NULL DEFAULT '',  -- which remedy of the cause fits this group (see
                               -- cause_remedy): 'graph_break', 'ops_changed' or '' (the standard
                               -- one), decided from the representative subject and detail
  -- The fix-first rank is not stored: fix_first numbers the groups in their order (a rank held
  -- here moved for every group below a new one, so a watched run rewrote half its groups at
  -- every batch).
  PRIMARY KEY (run_id, site_sid, cause)
);

-- Sources that analysis read as the same process as another source of their run, so that each
-- compile is counted once: Dynamo text logs of a TORCH_TRACE log's process
-- (analysis/same_process_sources.h) and copies of a PT_XLA_DEBUG stream
-- (analysis/xla_same_process.h); rewritten by every analysis.
CREATE TABLE source_merge (
  run_id INTEGER NOT NULL,           -- run
  source_id INTEGER NOT NULL,        -- the text log, or the PT_XLA_DEBUG copy
  same_process_as INTEGER NOT NULL,  -- the source whose compiles it also describes
  evidence TEXT NOT NULL             -- why: the pid and the compiles that agree, or the records
                                     -- that agree and what was assumed
);

-- Where the ranks of a run stopped doing the same thing (analysis/rank_divergence.h); rewritten by
-- every analysis of the run.
CREATE TABLE rank_divergence_row (
  run_id INTEGER NOT NULL,     -- run
  kind TEXT NOT NULL,          -- compile_ids, cache, collectives, tensor_meta, execution_order, recompiles
  rank_groups TEXT NOT NULL,   -- ranks that agree, groups separated by ' | ' (e.g. '0,2 | 1')
  first_index INTEGER,         -- 0-based position of the first difference in the compared sequence
  detail TEXT NOT NULL         -- what differs, where, and why (the cause), as text
);

-- The standard remedy for each cause, shown in the fix-first list, and the remedies of the cases
-- where the standard one does not apply (cause_group.remedy_variant).
CREATE TABLE cause_remedy (
  cause TEXT NOT NULL,         -- cause of the vocabulary
  variant TEXT NOT NULL DEFAULT '',  -- '' = the standard remedy of the cause; else the case:
                               -- 'graph_break' (a sync_fragment made by a graph break that is
                               -- not a host sync), 'ops_changed' (a graph_structure change that
                               -- is not an alternation)
  remedy TEXT NOT NULL,        -- what to change in the code
  PRIMARY KEY (cause, variant)
);
INSERT INTO cause_remedy(cause, variant, remedy) VALUES
  ('constant', '', 'keep counters and scalars that reach the graph in tensors or register_buffer, updated in place, instead of Python attributes; clamp values computed from the batch to the configured ones'),
  ('key_subset', '', 'canonicalise optional batch keys to a fixed structure: always present, same shape and dtype, masked when inactive'),
  ('shape', '', 'pad or clamp dynamic dimensions to a fixed set of sizes (static top-k, fixed capacity, padded sequence length)'),
  ('dtype', '', 'fix input dtypes before the compiled region (cast explicitly; avoid XLA_USE_BF16 and autocast flips)'),
  ('sync_fragment', 'graph_break', 'remove the graph break the detail names (an unsupported call, or torch._dynamo.graph_break()): use a supported equivalent or move it out of the compiled function; TORCH_LOGS=graph_breaks lists every break'),
  ('sync_fragment', '', 'remove .item(), .cpu(), print(tensor) and data-dependent Python branches from the step; keep the result on device'),
  ('graph_structure', 'ops_changed', 'make the traced ops the same at every step: a Python branch, flag or mode that changes them (train/eval, an optional layer, a data-dependent path) becomes a tensor op (torch.where) or a compiled function of its own; the op delta in the detail shows what changed'),
  ('graph_structure', '', 'wrap the whole accumulation chain in one compiled region and do not use zero_grad(set_to_none=True) inside it'),
  ('tensor_meta', '', 'keep requires_grad, device and grad mode of inputs the same across calls (or compile eval and train separately)'),
  ('global_state', '', 'keep grad mode, autocast and other global state the same at every call of the compiled function'),
  ('object_identity', '', 'reuse the same module and object instances across calls; do not rebuild them per step'),
  ('type', '', 'pass the same Python and tensor types every call (e.g. Parameter vs Tensor, list vs tuple)'),
  ('backend', '', 'compile with one backend callable, created once'),
  ('unknown', '', 'capture the artifact the detail names (torch.compile: TORCH_LOGS=recompiles_verbose or TORCH_TRACE; torch_xla: HLO via XLA_SAVE_TENSORS_FMT=hlo or --xla_dump_to, PT_XLA_DEBUG_LEVEL=2) and re-run rcf');

-- ---------------------------------------------------------------------------------------------
-- Public views.

-- runs(run_id, lane, run, bundle, source_count)
CREATE VIEW runs AS
SELECT r.run_id, r.lane, r.run, r.bundle,
       (SELECT count(*) FROM source s WHERE s.run_id = r.run_id) AS source_count
FROM run_table r;

-- compiles: one row per real compile.
CREATE VIEW compiles AS
SELECT c.run_id, r.lane, r.run, c.ordinal, c.step,
       site.text AS site, c.program_key, c.kind, c.cause_reported, c.compile_ms, c.cache
FROM compile_event c
JOIN run_table r ON r.run_id = c.run_id
JOIN strings site ON site.string_id = c.site_sid;

-- recompiles: one row per real compile whose cause is not first_compile.
CREATE VIEW recompiles AS
SELECT c.run_id, r.lane, r.run, c.ordinal, c.step,
       site.text AS site, c.program_key, a.prev_program_key,
       a.cause, a.detail, a.confidence, a.evidence
FROM attribution a
JOIN compile_event c ON c.compile_row = a.compile_row
JOIN run_table r ON r.run_id = c.run_id
JOIN strings site ON site.string_id = c.site_sid
WHERE a.cause <> 'first_compile';

-- compile_artifacts: the saved graph and HLO module linked to each compile, when present.
CREATE VIEW compile_artifacts AS
SELECT c.run_id, r.lane, r.run, c.ordinal, c.program_key,
       c.hlo_module_id, mn.text AS hlo_module, h.file_name AS hlo_file, h.stage AS hlo_stage,
       gs.path AS saved_graph_source, c.saved_graph_line
FROM compile_event c
JOIN run_table r ON r.run_id = c.run_id
LEFT JOIN hlo_module h ON h.hlo_module_id = c.hlo_module_id
LEFT JOIN strings mn ON mn.string_id = h.module_name_sid
LEFT JOIN source gs ON gs.source_id = c.saved_graph_source_id
WHERE c.hlo_module_id IS NOT NULL OR c.saved_graph_source_id IS NOT NULL;

-- convergence: programs cached vs step per run, with compile and wall time per step when known;
-- change points only (see convergence_point): programs cached at step S is the programs_cached
-- of the last row with step <= S. `axis` says what `step` counts: 'step' (training steps) or
-- 'sync' (the run's evidence could not decide the training step; see run_convergence).
CREATE VIEW convergence AS
SELECT p.run_id, r.lane, r.run, p.step, p.programs_cached, p.compiles_in_step,
       p.compile_ms, p.wall_ms, coalesce(c.step_axis, 'sync') AS axis
FROM convergence_point p JOIN run_table r ON r.run_id = p.run_id
LEFT JOIN run_convergence c ON c.run_id = p.run_id;

-- convergence_summary: did each run settle (see run_convergence).
CREATE VIEW convergence_summary AS
SELECT c.run_id, r.lane, r.run, c.state, c.first_step, c.last_step, c.settle_step,
       c.programs_at_settle, c.final_programs, c.new_after_growth_step, c.growth_step,
       c.compiles, c.programs, c.recompiles, c.compile_ms, c.wall_ms, c.execute_ms,
       c.compile_share, c.counted_compiles, c.counted_by, c.step_axis, c.step_basis,
       c.step_detail
FROM run_convergence c JOIN run_table r ON r.run_id = c.run_id;

-- fix_first: recompiles per run x site x cause, ranked by compile time lost, with the remedy.
-- rank: 1 = fix first; compile_ms_lost desc (unknown last), then recompiles desc, site, cause
-- (store/fix_first_queries.cc reads the first rows in this order).
CREATE VIEW fix_first AS
SELECT g.run_id, r.lane, r.run,
       row_number() OVER (PARTITION BY g.run_id ORDER BY g.compile_ms_lost IS NULL,
                          g.compile_ms_lost DESC, g.recompiles DESC, site.text, g.cause) AS rank,
       site.text AS site, g.cause, g.recompiles,
       g.compile_ms_lost, g.compile_ms_basis, g.first_step, g.last_step, g.detail,
       s.text AS subject, m.remedy
FROM cause_group g
JOIN run_table r ON r.run_id = g.run_id
JOIN strings site ON site.string_id = g.site_sid
LEFT JOIN strings s ON s.string_id = g.subject_sid
LEFT JOIN cause_remedy m ON m.cause = g.cause AND m.variant = g.remedy_variant;

-- rank_divergence: where the ranks of a multi-rank run stopped doing the same thing, one row per
-- divergence, with the groups of ranks that agree and the cause (docs/rank_divergence.md).
-- kind: compile_ids (ranks compiled different compile ids), cache (different hit/miss on the
-- compiles all ranks made), collectives (different collective schedules of one graph, or code that
-- does not make the scheduled collective calls), tensor_meta (different Inductor output metadata
-- of one graph), execution_order (graphs run in another order), recompiles (a rank recompiled at
-- a site where others did not: rank, program, step and cause). Ranks are labelled by the file
-- name's rank (dedicated_log_torch_trace_rank_N), else the logged rank.
CREATE VIEW rank_divergence AS
SELECT d.run_id, r.lane, r.run, d.kind, d.rank_groups, d.first_index, d.detail
FROM rank_divergence_row d
JOIN run_table r ON r.run_id = d.run_id;

-- ingest_stats: one row per source; every line is parsed or counted under a named reason; host:
-- the machine it was ingested on.
CREATE VIEW ingest_stats AS
SELECT path AS source, format, lines, bytes, events, rejected, first_error, host
FROM source;

-- merged_sources: logs of one process read as one (source_merge with paths; host: the machine
-- `source` was ingested on).
CREATE VIEW merged_sources AS
SELECT m.run_id, s.path AS source, t.path AS same_process_as, m.evidence, s.host
FROM source_merge m JOIN source s ON s.source_id = m.source_id
JOIN source t ON t.source_id = m.same_process_as;

-- guard_failures: guard_failure with text decoded.
CREATE VIEW guard_failures AS
SELECT g.run_id, s.path AS source, g.line, g.rank, g.epoch, g.frame_id, g.frame_compile_id,
       g.attempt, g.entry_index, g.verbose_group, g.old_compile_id, t.text AS reason, g.origin
FROM guard_failure g JOIN source s ON s.source_id = g.source_id
JOIN strings t ON t.string_id = g.reason_sid;

-- graph_breaks: graph_break with text decoded.
CREATE VIEW graph_breaks AS
SELECT g.run_id, s.path AS source, g.line, g.rank, g.frame_id, g.frame_compile_id, g.attempt,
       f.text AS user_file, g.user_line, fn.text AS user_function, gt.text AS gb_type,
       rs.text AS reason, g.suppressed, g.sync_signature, g.origin
FROM graph_break g JOIN source s ON s.source_id = g.source_id
LEFT JOIN strings f ON f.string_id = g.user_file_sid
LEFT JOIN strings fn ON fn.string_id = g.user_function_sid
LEFT JOIN strings gt ON gt.string_id = g.gb_type_sid
LEFT JOIN strings rs ON rs.string_id = g.reason_sid;

-- cudagraph_skips: why CUDA graphs were not used, with the compile it belongs to when the run has
-- it (program_key and site from compiles; NULL when the log names no compile id or the compile
-- is not in the run).
CREATE VIEW cudagraph_skips AS
SELECT k.run_id, r.lane, r.run, s.path AS source, k.line, k.rank, k.frame_id, k.frame_compile_id,
       k.attempt, c.program_key, site.text AS site, k.kind, rs.text AS reason,
       f.text AS user_file, k.user_line, fn.text AS user_function, k.user_stack, k.origin
FROM cudagraph_skip k
JOIN run_table r ON r.run_id = k.run_id
JOIN source s ON s.source_id = k.source_id
JOIN strings rs ON rs.string_id = k.reason_sid
LEFT JOIN compile_event c ON k.frame_id >= 0 AND c.run_id = k.run_id AND c.source_id = k.source_id
  AND c.rank = k.rank AND c.epoch = k.epoch AND c.ca_id = k.ca_id AND c.frame_id = k.frame_id
  AND c.frame_compile_id = k.frame_compile_id
LEFT JOIN strings site ON site.string_id = c.site_sid
LEFT JOIN strings f ON f.string_id = k.user_file_sid
LEFT JOIN strings fn ON fn.string_id = k.user_function_sid;

-- recompile_limit_hits: recompile_limit_hit with text decoded.
CREATE VIEW recompile_limit_hits AS
SELECT h.run_id, s.path AS source, h.line, h.rank, h.frame_id, h.frame_compile_id,
       h.limit_type, h.limit_value, fn.text AS function, f.text AS file, h.firstlineno,
       lr.text AS last_reason, h.hard_failure, h.origin
FROM recompile_limit_hit h JOIN source s ON s.source_id = h.source_id
LEFT JOIN strings fn ON fn.string_id = h.function_sid
LEFT JOIN strings f ON f.string_id = h.file_sid
LEFT JOIN strings lr ON lr.string_id = h.last_reason_sid;
