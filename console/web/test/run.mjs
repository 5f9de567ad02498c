// Bundles each test/*.test.ts with esbuild into a temporary directory and runs them with node's
// test runner. Exits non-zero when a test fails (or the bundling does).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const testDir = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const entries = readdirSync(testDir)
  .filter((name) => name.endsWith('.test.ts'))
  .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
  .sort()
  .map((name) => join(testDir, name));
if (entries.length === 0) {
  console.error('no tests found');
  process.exit(1);
}

const outdir = mkdtempSync(join(tmpdir(), 'console-web-tests-'));
let status = 1;
try {
  await esbuild.build({
    entryPoints: entries,
    outdir,
    bundle: true,
    format: 'esm',
    // Neutral, not node: packages resolve to the same (browser) builds the console bundles.
    platform: 'neutral',
    mainFields: ['module', 'main'],
    external: ['node:*'],
    target: 'node18',  // Debian 12's Node.js
    outExtension: { '.js': '.mjs' },
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  const bundles = readdirSync(outdir)
    .filter((name) => name.endsWith('.mjs'))
    .sort()
    .map((name) => join(outdir, name));
  const run = spawnSync(process.execPath, ['--enable-source-maps', '--test', ...bundles], { stdio: 'inherit' });
  status = run.status ?? 1;
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
process.exit(status);
