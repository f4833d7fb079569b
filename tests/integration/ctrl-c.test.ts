import { expect, it } from 'vitest';
import { startAppProcess } from '../support/app-process';

// Ctrl-C in a terminal signals the whole process group: `npm start`'s node and the embedded PostgreSQL it
// started. PostgreSQL ending our connections as we close is expected then: the stop is clean and quiet.
it('Ctrl-C (SIGINT to the process group) stops the app with exit 0 and no warning or error', async () => {
  const app = await startAppProcess({ ownProcessGroup: true, env: { LOG_LEVEL: 'info' } });
  try {
    const before = app.output().length;
    app.killGroup('SIGINT');
    const code = await app.exited;
    // The app's own lines since the signal name what went wrong when it did not exit 0.
    expect(code, app.output().slice(before)).toBe(0);
    const afterSignal = app
      .output()
      .slice(before)
      .split('\n')
      .filter((line) => /"level":(40|50|60)/.test(line));
    expect(afterSignal).toEqual([]);
    expect(app.output()).toContain('"msg":"shutting down"');
  } finally {
    await app.stop();
  }
}, 180_000);
