import { spawn } from 'node:child_process';

// `npm run test:static` (the start of `npm test`): the npm scripts named on the command line run at
// once, each one's output (stdout and stderr, in the order written) held back and printed whole when
// it ends, under a line naming it, its exit code and its time; the run fails if any of them failed.

type TResult = { name: string; code: number | null; output: string; seconds: number };

function runScript(name: string): Promise<TResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let output = '';
    const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
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

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('Usage: tsx tests/support/static-checks.ts <npm script>...');
  process.exit(2);
}
const results = await Promise.all(
  names.map(async (name) => {
    const result = await runScript(name);
    print(result);
    return result;
  }),
);
const failed = results.filter((r) => r.code !== 0).map((r) => r.name);
console.log(failed.length ? `\nStatic checks failed: ${failed.join(', ')}` : `\nStatic checks passed: ${names.join(', ')}`);
process.exitCode = failed.length ? 1 : 0;
