import { spawn } from 'node:child_process';

// `npm test` and `npm run test:static`: the npm scripts named on the command line run at once, and
// the run fails if any of them failed. The static checks and the unit and integration tests are all
// CPU-bound on a small machine but none fills it alone (a test waits on PostgreSQL, a check runs on
// one core): together they take less time than one after another (tests/README.md "Tests").
// A script's output (stdout and stderr, in the order written) is held back and printed whole under
// a line naming it, its exit code and its time when it ends; a script named after `--live` writes
// straight through instead, so a long test run shows its progress as it goes.

type TResult = { name: string; code: number | null; output: string; seconds: number };

function runScript(name: string, live: boolean): Promise<TResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let output = '';
    const child = spawn('npm', ['run', '--silent', name], { stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const finish = (code: number | null) => resolve({ name, code, output, seconds: (performance.now() - started) / 1000 });
    child.once('error', (error) => {
      output += `${error.message}\n`;
      finish(null);
    });
    child.once('close', finish);
  });
}

function print({ name, code, output, seconds }: TResult): void {
  const verdict = code === 0 ? 'passed' : `FAILED (exit ${code ?? 'none'})`;
  process.stdout.write(`\n── ${name}: ${verdict} in ${seconds.toFixed(1)} s ──\n${output}${output.endsWith('\n') || !output ? '' : '\n'}`);
}

const scripts: { name: string; live: boolean }[] = [];
for (let i = 2; i < process.argv.length; i++) {
  const live = process.argv[i] === '--live';
  const name = live ? process.argv[++i] : process.argv[i];
  if (name) scripts.push({ name, live });
}
if (scripts.length === 0) {
  console.error('Usage: tsx tests/support/run-scripts.ts <npm script>... [--live <npm script>]');
  process.exit(2);
}
const results = await Promise.all(
  scripts.map(async ({ name, live }) => {
    const result = await runScript(name, live);
    print(result);
    return result;
  }),
);
const names = scripts.map((s) => s.name);
const failed = results.filter((r) => r.code !== 0).map((r) => r.name);
console.log(failed.length ? `\nFailed: ${failed.join(', ')}` : `\nPassed: ${names.join(', ')}`);
process.exitCode = failed.length ? 1 : 0;
