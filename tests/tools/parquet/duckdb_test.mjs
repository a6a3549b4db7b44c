// `itt-dump parquet` read by a real DuckDB (npm's @duckdb/node-api), its
// answers compared with `itt-dump stats --format=json` and `leaks` on the
// same traces. The five queries of docs/ITT_DUMP.md ("Queries") are taken
// from the page and run as they are there. Run by run_duckdb_test.sh.

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';

const runfiles = process.env.ITTC_RUNFILES;
const tmp = process.env.TEST_TMPDIR ?? fs.mkdtempSync('/tmp/duckdb_test');
const require = createRequire(path.join(process.env.ITTC_DUCKDB_MODULES, 'x.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const bin = (p) => path.join(runfiles, p);
const itt_dump = bin('tools/itt-dump');

function run(argv, env = {}) {
  const r = spawnSync(argv[0], argv.slice(1), {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 1 << 28,
  });
  if (r.error) throw r.error;
  return r;
}

function ok(argv, env) {
  const r = run(argv, env);
  assert.equal(r.status, 0, `${argv.join(' ')}: status ${r.status}\n${r.stderr}`);
  return r;
}

const stats = (...files) => JSON.parse(ok([itt_dump, 'stats', '--format=json', ...files]).stdout);

// The SQL blocks of docs/ITT_DUMP.md's "Queries" section, in order.
function docQueries() {
  const doc = fs.readFileSync(bin('docs/ITT_DUMP.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Queries\n'), doc.indexOf('\n## ', doc.indexOf('\n## Queries\n') + 5));
  const blocks = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1].trim());
  return {
    views: blocks[0],
    topTasks: blocks[1],
    spread: blocks[2],
    waits: blocks[3],
    counters: blocks[4],
    leaks: blocks[5],
  };
}
const Q = docQueries();

// A DuckDB connection with the page's views over `dir`.
async function open(dir) {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(Q.views.replaceAll('DIR', dir));
  return {
    rows: async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJson(),
    one: async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJson()[0],
  };
}

function parquet(out, ...files) {
  fs.rmSync(out, { recursive: true, force: true });
  return ok([itt_dump, 'parquet', ...files, '-o', out]);
}

const key = (...parts) => parts.join('\u0001');

// Every row of stats' tasks section against the slices of the same key.
async function checkTasks(db, st) {
  const rows = await db.rows(`SELECT category, name, kind, count(*) AS count, sum(dur) AS total_ns,
      max(dur) AS max_ns FROM slice WHERE kind IN ('task', 'overlapped_task', 'region', 'event')
      AND NOT open_at_end GROUP BY ALL`);
  const got = new Map(rows.map((r) => [key(r.category, r.name, r.kind), r]));
  assert.ok(st.tasks.length > 0);
  assert.equal(got.size, st.tasks.length);
  for (const t of st.tasks) {
    const r = got.get(key(t.domain, t.name, t.kind));
    assert.ok(r, `no slices for ${t.domain}/${t.name}/${t.kind}`);
    assert.equal(Number(r.count), t.count, t.name);
    assert.equal(Number(r.total_ns), t.total_ns, t.name);
    assert.equal(Number(r.max_ns), t.max_ns, t.name);
  }
  // The page's query: its rows are stats' rows, largest total first.
  const top = await db.rows(Q.topTasks);
  assert.ok(top.length > 0);
  const stTop = [...st.tasks].sort((a, b) => b.total_ns - a.total_ns);
  assert.equal(Number(top[0].total_ns), stTop[0].total_ns);
  for (const r of top) {
    const t = st.tasks.find((x) => x.domain === r.category && x.name === r.name && x.kind === r.kind);
    assert.ok(t);
    assert.equal(Number(r.count), t.count);
    assert.equal(Number(r.total_ns), t.total_ns);
    assert.equal(Number(r.max_ns), t.max_ns);
  }
}

async function checkFrames(db, st) {
  const rows = await db.rows(`SELECT category, count(*) AS count, max(dur) AS max_ns FROM slice
      WHERE kind = 'frame' AND NOT open_at_end GROUP BY ALL`);
  assert.equal(rows.length, st.frames.length);
  for (const f of st.frames) {
    const r = rows.find((x) => x.category === f.domain);
    assert.ok(r, f.domain);
    assert.equal(Number(r.count), f.count);
    assert.equal(Number(r.max_ns), f.max_ns);
  }
}

// Samples and last values per counter, and the page's per-millisecond
// query adding up to them.
async function checkCounters(db, st) {
  assert.ok(st.counters.length > 0);
  const rows = await db.rows(`SELECT category, name, count(*) AS samples, min(value) AS min,
      max(value) AS max, arg_max(value, id) AS last FROM counter GROUP BY ALL`);
  assert.equal(rows.length, st.counters.length);
  const buckets = await db.rows(Q.counters);
  for (const c of st.counters) {
    const r = rows.find((x) => x.category === c.domain && x.name === c.name);
    assert.ok(r, c.name);
    assert.equal(Number(r.samples), c.samples);
    assert.equal(Number(r.last), Number(c.last));
    assert.equal(Number(r.min), Number(c.min));
    assert.equal(Number(r.max), Number(c.max));
    const mine = buckets.filter((b) => b.category === c.domain && b.name === c.name);
    assert.equal(mine.reduce((n, b) => n + Number(b.samples), 0), c.samples);
    assert.equal(Number(mine[mine.length - 1].last_value), Number(c.last));
    assert.equal(Math.max(...mine.map((b) => Number(b.max_value))), Number(c.max));
  }
}

test('the sample trace: tasks, frames, counters and waits as stats has them', async () => {
  const trace = path.join(tmp, 'sample.itt');
  ok([bin('tests/tools/make_sample_trace'), 'sample', trace]);
  const out = path.join(tmp, 'sample.pq');
  parquet(out, trace);
  for (const table of ['slice', 'instant', 'counter', 'flow', 'heap', 'args', 'thread', 'process']) {
    assert.ok(fs.existsSync(path.join(out, table, 'part-0.parquet')), table);
  }
  const st = stats(trace);
  const db = await open(out);
  await checkTasks(db, st);
  await checkFrames(db, st);
  await checkCounters(db, st);

  // Waits per sync object: the page's query against stats' sync section.
  const waits = await db.rows(Q.waits);
  assert.ok(st.sync.length > 0);
  for (const s of st.sync) {
    if (s.total_wait_ns === 0) continue;
    const r = waits.find((w) => w.name === s.name);
    assert.ok(r, s.name);
    assert.equal(Number(r.total_wait_ns), s.total_wait_ns);
    assert.equal(Number(r.max_wait_ns), s.max_wait_ns);
    assert.equal(r.type, s.type);
  }

  // Nesting: every task's parent is a task of the same thread one level up.
  const bad = await db.one(`SELECT count(*) AS n FROM slice c JOIN slice p ON p.id = c.parent_id
      WHERE p.utid <> c.utid OR p.depth + 1 <> c.depth OR c.ts < p.ts`);
  assert.equal(Number(bad.n), 0);
  const nested = await db.one(`SELECT count(*) AS n FROM slice WHERE parent_id IS NOT NULL`);
  assert.ok(Number(nested.n) > 0);
  const ids = await db.one(`SELECT count(*) AS n, count(DISTINCT id) AS d FROM slice`);
  assert.equal(ids.n, ids.d);

  // The task left open, metadata as args of its task, the JIT load, the
  // marker, the threads.
  const open_ = await db.rows(`SELECT name FROM slice WHERE open_at_end`);
  assert.equal(open_.length, 1);
  const args = await db.rows(`SELECT s.name, a.key, a.int_value FROM args a JOIN slice s ON s.id = a.slice_id`);
  assert.deepEqual(args, [{ name: 'work', key: 'bytes', int_value: '42' }]);
  const jit = await db.rows(`SELECT name, size FROM instant WHERE kind = 'jit_method_load'`);
  assert.equal(jit.length, 1);
  assert.equal(jit[0].name, 'jitted_fn');
  assert.equal(Number(jit[0].size), 256);
  const threads = await db.rows(`SELECT tid, name FROM thread ORDER BY tid`);
  assert.deepEqual(threads, [{ tid: '101', name: 'main' }, { tid: '102', name: 'worker' }]);
  const events = await db.one(`SELECT (SELECT count(*) FROM slice WHERE kind = 'event') AS legacy`);
  assert.equal(Number(events.legacy), 1);
});

test('legacy events of several names, and ids too large to key, each keep their names', async () => {
  const trace = path.join(tmp, 'names.itt');
  ok([bin('tests/tools/make_sample_trace'), 'names', trace]);
  const out = path.join(tmp, 'names.pq');
  parquet(out, trace);
  const db = await open(out);
  await checkTasks(db, stats(trace));
  const names = await db.rows(`SELECT name, count(*) AS n FROM slice WHERE kind = 'event'
      GROUP BY name ORDER BY name`);
  assert.deepEqual(names.map((r) => [r.name, Number(r.n)]),
      [['event#3', 2], ['load', 2], ['store', 2]]);
  const far = await db.rows(`SELECT category, name FROM slice WHERE kind = 'task' AND name = 'far'`);
  assert.deepEqual(far.map((r) => [r.category, r.name]), [['distant', 'far']]);
});

test('a reallocation onto a block never freed ends that block in a row of its own', async () => {
  const trace = path.join(tmp, 'realloc.itt');
  ok([bin('tests/tools/make_sample_trace'), 'realloc', trace]);
  const out = path.join(tmp, 'realloc.pq');
  parquet(out, trace);
  const db = await open(out);
  const task = await db.one(`SELECT id FROM slice WHERE name = 'work'`);
  const rows = await db.rows(`SELECT kind, ts, address, size, function, domain, slice_id, block,
      released_block FROM heap ORDER BY id`);
  const row = (kind, ts, address, size, fn, block, released) => ({
    kind, ts: String(ts), address: String(address), size: String(size), function: fn,
    domain: 'libc', slice_id: task.id, block: block === null ? null : String(block),
    released_block: released === null ? null : String(released),
  });
  assert.deepEqual(rows, [
    row('alloc', 210, 0xa000, 64, 'malloc', 1, null),
    row('alloc', 310, 0xb000, 32, 'malloc', 2, null),
    row('realloc', 410, 0xa000, 128, 'realloc', 3, 2),
    row('replaced', 410, 0xa000, 64, 'realloc', null, 1),
    row('free', 460, 0, 0, 'free', null, null),
  ]);

  // The same trace as two processes of a set: the second's addresses are
  // as it wrote them too, free(NULL)'s 0 with them (no process tag).
  const set = path.join(tmp, 'realloc-set');
  fs.mkdirSync(set);
  fs.copyFileSync(trace, path.join(set, 'a.itt'));
  fs.copyFileSync(trace, path.join(set, 'b.itt'));
  const both = path.join(tmp, 'realloc-set.pq');
  parquet(both, set);
  const bdb = await open(both);
  const addresses = await bdb.rows(`SELECT count(*) AS n, list(DISTINCT address ORDER BY address)
      AS addresses FROM heap GROUP BY pid ORDER BY pid`);
  assert.deepEqual(addresses, [0, 1].map(() => ({
    n: '5', addresses: ['0', String(0xa000), String(0xb000)],
  })));

  // Filters keep rows, not pairs: from 300 ns on, the first allocation has
  // no row, but its block is still the one the reallocation replaces, and
  // every block keeps its number.
  const late = path.join(tmp, 'realloc-late.pq');
  parquet(late, '--from=300', trace);
  const ldb = await open(late);
  const lrows = await ldb.rows(`SELECT kind, ts, address, size, function, domain, slice_id, block,
      released_block FROM heap ORDER BY id`);
  // The task around them began before 300 ns: the filter drops its slice,
  // so no row names it.
  const unlinked = (r) => ({ ...r, slice_id: null });
  assert.deepEqual(lrows, [
    unlinked(row('alloc', 310, 0xb000, 32, 'malloc', 2, null)),
    unlinked(row('realloc', 410, 0xa000, 128, 'realloc', 3, 2)),
    unlinked(row('replaced', 410, 0xa000, 64, 'realloc', null, 1)),
    unlinked(row('free', 460, 0, 0, 'free', null, null)),
  ]);
});

test('waits acquired, cancelled and still open at the end are slices of their kind', async () => {
  const trace = path.join(tmp, 'waits.itt');
  ok([bin('tests/tools/make_sample_trace'), 'waits', trace]);
  const out = path.join(tmp, 'waits.pq');
  parquet(out, trace);
  const db = await open(out);
  const task = await db.one(`SELECT id FROM slice WHERE name = 'work'`);
  const rows = await db.rows(`SELECT ts, dur, category, name, kind, parent_id, open_at_end
      FROM slice WHERE name = 'queue_lock' ORDER BY ts`);
  const row = (ts, dur, kind, open) => ({
    ts: String(ts), dur: String(dur), category: 'std::mutex', name: 'queue_lock', kind,
    parent_id: task.id, open_at_end: open,
  });
  // The open one ends with the trace (1000 ns); each is under the task
  // open on its thread when it began (the open one's too, which outlives
  // the task).
  assert.deepEqual(rows, [
    row(200, 100, 'wait', false),
    row(400, 50, 'cancelled_wait', false),
    row(500, 500, 'wait', true),
  ]);
});

test('under filters no row names a slice the dataset does not have', async () => {
  const sample = path.join(tmp, 'filtered-sample.itt');
  ok([bin('tests/tools/make_sample_trace'), 'sample', sample]);
  const waits = path.join(tmp, 'filtered-waits.itt');
  ok([bin('tests/tools/make_sample_trace'), 'waits', waits]);
  const cases = [
    [sample, '--name=work'], [sample, '--name=io'], [sample, '--from=150'],
    [sample, '--thread=worker'], [waits, '--name=queue_lock'], [waits, '--from=150'],
  ];
  for (const [trace, filter] of cases) {
    for (const serial of [[], ['--serial']]) {
      const out = path.join(tmp, 'filtered.pq');
      parquet(out, filter, ...serial, trace);
      const db = await open(out);
      const dangling = await db.one(`SELECT
          (SELECT count(*) FROM slice c WHERE c.parent_id IS NOT NULL
             AND c.parent_id NOT IN (SELECT id FROM slice)) AS parents,
          (SELECT count(*) FROM heap h WHERE h.slice_id IS NOT NULL
             AND h.slice_id NOT IN (SELECT id FROM slice)) AS heap_tasks`);
      assert.deepEqual(dangling, { parents: '0', heap_tasks: '0' }, `${filter} ${serial}`);
    }
  }
  // The waits trace's wait slices name the task around them, kept or not.
  const out = path.join(tmp, 'filtered.pq');
  parquet(out, '--name=queue_lock', waits);
  const db = await open(out);
  const parents = await db.rows(`SELECT DISTINCT parent_id FROM slice WHERE name = 'queue_lock'`);
  assert.deepEqual(parents, [{ parent_id: null }]);
});

test('metadata keeps its type: a whole double is real, a u64 past INT64_MAX exact', async () => {
  const trace = path.join(tmp, 'metadata.itt');
  ok([bin('tests/tools/make_sample_trace'), 'metadata', trace]);
  const out = path.join(tmp, 'metadata.pq');
  parquet(out, trace);
  const db = await open(out);
  const rows = await db.rows(`SELECT key, scope, value_type, int_value,
      (int_value::HUGEINT + 18446744073709551616) % 18446744073709551616 AS uint_value,
      real_value FROM args ORDER BY ts`);
  assert.deepEqual(rows.map((r) => [r.key, r.scope, r.value_type]), [
    ['whole_double', 'task', 'real'], ['half_double', 'task', 'real'], ['float', 'task', 'real'],
    ['u64_max', 'task', 'int'], ['u64_big', 'task', 'int'], ['s64', 'task', 'int'],
    ['global_double', 'global', 'real']]);
  assert.deepEqual(rows.map((r) => r.real_value),
      [2, 2.5, 4, null, null, null, 8]);
  assert.equal(rows[3].uint_value, '18446744073709551615');
  assert.equal(rows[4].uint_value, '9223372036854775808');
  assert.equal(rows[5].int_value, '-3');
});

test('a frame trace of several row groups, with statistics per column chunk', async () => {
  const trace = path.join(tmp, 'frames.itt');
  ok([bin('tests/tools/make_sample_trace'), 'frames', trace, '4', '150000']);
  const out = path.join(tmp, 'frames.pq');
  parquet(out, trace);
  const st = stats(trace);
  const db = await open(out);
  await checkTasks(db, st);
  await checkFrames(db, st);
  await checkCounters(db, st);
  // Its markers are __itt_marker_scope_thread's (__itt_scope_track): the
  // thread scope, one of the documented four.
  const scopes = await db.rows(`SELECT scope, count(*) AS n FROM instant WHERE kind = 'marker'
      GROUP BY scope`);
  assert.deepEqual(scopes.map((r) => [r.scope, Number(r.n)]), [['thread', 4 * Math.ceil(150000 / 64)]]);
  const file = path.join(out, 'slice', 'part-0.parquet');
  const meta = await db.rows(`SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value,
      compression, encodings FROM parquet_metadata('${file}') WHERE path_in_schema = 'ts'`);
  assert.ok(meta.length >= 4, `${meta.length} row groups`);
  const groups = await db.rows(`SELECT min(ts) AS lo, max(ts) AS hi FROM slice GROUP BY ALL`);
  assert.equal(groups.length, 1);
  for (const m of meta) {
    assert.equal(m.compression, 'ZSTD');
    assert.match(m.encodings, /DELTA_BINARY_PACKED/);
    assert.notEqual(m.stats_min_value, null);
    assert.ok(Number(m.stats_min_value) <= Number(m.stats_max_value));
  }
  const names = await db.rows(`SELECT encodings FROM parquet_metadata('${file}') WHERE path_in_schema = 'name'`);
  for (const n of names) assert.match(n.encodings, /RLE_DICTIONARY/);
  // Each row group's statistics bound its rows: DuckDB skips by them.
  const first = meta.find((m) => m.row_group_id === '0');
  const inFirst = await db.one(`SELECT count(*) AS n FROM read_parquet('${file}')
      WHERE ts BETWEEN ${first.stats_min_value} AND ${first.stats_max_value}`);
  assert.ok(Number(inFirst.n) > 0);
  // At most twice the size of the trace.
  let bytes = 0;
  for (const t of fs.readdirSync(out)) {
    for (const f of fs.readdirSync(path.join(out, t))) bytes += fs.statSync(path.join(out, t, f)).size;
  }
  const traceBytes = fs.statSync(trace).size;
  assert.ok(bytes <= 2 * traceBytes, `dataset ${bytes} bytes, trace ${traceBytes}`);
});

test('a leaking program: the leaks per task as leaks --group has them', async () => {
  const dir = path.join(tmp, 'leaky');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  const trace = path.join(dir, 'leaky.itt');
  ok([bin('tests/tools/leaky_program')], {
    INTEL_LIBITTNOTIFY64: bin('collector/libittcollector.so'),
    ITTC_OUTPUT: trace,
  });
  const out = path.join(tmp, 'leaky.pq');
  parquet(out, trace);
  const leaks = JSON.parse(ok([itt_dump, 'leaks', '--group', '--format=json', trace]).stdout);
  const db = await open(out);
  const rows = await db.rows(Q.leaks);
  assert.equal(rows.reduce((n, r) => n + Number(r.bytes), 0), leaks.leaked_bytes);
  assert.equal(rows.reduce((n, r) => n + Number(r.blocks), 0), leaks.leaked_count);
  assert.equal(rows.length, leaks.leak_groups.length);
  for (const g of leaks.leak_groups) {
    const r = rows.find((x) => x.task === g.task && x.function === g.function);
    assert.ok(r, `${g.function} in ${g.task}`);
    assert.equal(Number(r.blocks), g.count);
    assert.equal(Number(r.bytes), g.bytes);
  }
  const st = stats(trace);
  const calls = await db.rows(`SELECT function, count(*) FILTER (WHERE kind = 'alloc') AS allocations,
      count(*) FILTER (WHERE kind = 'free') AS frees FROM heap GROUP BY ALL`);
  for (const h of st.heap) {
    const r = calls.find((x) => x.function === h.function);
    assert.equal(Number(r.allocations), h.allocations);
    assert.equal(Number(r.frees), h.frees);
  }
});

// mpirun on PATH, by its real directory (it finds its installation from
// its own path).
function mpirun() {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    try {
      const p = fs.realpathSync(path.join(dir, 'mpirun'));
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {}
  }
  return null;
}

test('a two-rank Open MPI job read as one dataset partitioned by rank', async () => {
  const launcher = mpirun();
  assert.ok(launcher, 'mpirun not found: tools/test.sh installs openmpi-bin');
  const traces = path.join(tmp, 'mpi') + '/';
  fs.rmSync(traces, { recursive: true, force: true });
  ok([launcher, '--allow-run-as-root', '--oversubscribe', '-np', '2',
      '-x', `INTEL_LIBITTNOTIFY64=${bin('collector/libittcollector.so')}`,
      '-x', `ITTC_OUTPUT=${traces}`, bin('tests/collector/mpi_program')]);
  const out = path.join(tmp, 'mpi.pq');
  parquet(out, traces);
  for (const rank of [0, 1]) {
    assert.ok(fs.existsSync(path.join(out, 'slice', `rank=${rank}`, 'part-0.parquet')));
  }
  const db = await open(out);
  const st = stats(traces);
  await checkTasks(db, st);

  // The page's spread over ranks, against stats per process.
  const perProcess = JSON.parse(ok([itt_dump, 'stats', '--per-process', '--format=json', traces]).stdout);
  const spread = await db.rows(Q.spread);
  assert.deepEqual(spread.map((r) => Number(r.rank)), [0, 1]);
  for (const r of spread) {
    const row = perProcess.process_tasks.find((p) => p.name === 'allreduce' && p.process.startsWith(`rank ${r.rank} `));
    assert.ok(row, `rank ${r.rank}`);
    assert.equal(Number(r.count), row.count);
    assert.equal(Number(r.total_ns), row.total_ns);
    assert.equal(Number(r.max_ns), row.max_ns);
  }
  // Each partition holds its own process only.
  const mixed = await db.one(`SELECT count(*) AS n FROM slice s JOIN process p ON p.upid = s.upid
      WHERE p.rank <> s.rank`);
  assert.equal(Number(mixed.n), 0);
});

test('damaged input gets the usual errors; an output that cannot be written exits 73', async () => {
  const trace = path.join(tmp, 'sample.itt');
  ok([bin('tests/tools/make_sample_trace'), 'sample', trace]);
  const bytes = fs.readFileSync(trace);
  const cut = path.join(tmp, 'cut.itt');
  fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 200));
  const out = path.join(tmp, 'cut.pq');
  fs.rmSync(out, { recursive: true, force: true });
  const r = run([itt_dump, 'parquet', cut, '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /^itt-dump: .*cut\.itt: truncated at offset \d+/m);
  const db = await open(out);
  assert.ok(Number((await db.one(`SELECT count(*) AS n FROM slice`)).n) > 0);

  const empty = path.join(tmp, 'empty.itt');
  fs.writeFileSync(empty, '');
  const e = run([itt_dump, 'parquet', empty, '-o', path.join(tmp, 'empty.pq')]);
  assert.equal(e.status, 3);
  assert.match(e.stderr, /empty file, not a trace/);

  const u = run([itt_dump, 'parquet', trace, '-o', '/dev/null/dataset']);
  assert.equal(u.status, 73);
  assert.match(u.stderr, /^itt-dump: cannot create \/dev\/null/m);

  // A directory the files cannot be written into: nothing looks whole.
  const ro = path.join(tmp, 'readonly.pq');
  fs.rmSync(ro, { recursive: true, force: true });
  fs.mkdirSync(path.join(ro, 'counter'), { recursive: true });
  fs.writeFileSync(path.join(ro, 'counter', '.part-0.parquet.tmp'), '');
  fs.chmodSync(path.join(ro, 'counter', '.part-0.parquet.tmp'), 0o444);
  fs.chmodSync(path.join(ro, 'counter'), 0o555);
  const w = run([itt_dump, 'parquet', trace, '-o', ro]);
  if (process.getuid() !== 0) {
    assert.equal(w.status, 73);
    assert.match(w.stderr, /cannot (create|write)/);
    assert.ok(!fs.existsSync(path.join(ro, 'counter', 'part-0.parquet')));
  }
  fs.chmodSync(path.join(ro, 'counter'), 0o755);
});
