import { buildServer } from './server-build';

// A global setup of the integration and e2e projects: the server and its scripts built once
// (tests/support/server-build.ts); processes the tests start run the build (tests/README.md "Tests").
// Workers start after global setups and inherit the variable; a run of both projects builds once.
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.FIRM_CHAT_TEST_SERVER_BUILD) return undefined;
  const built = await buildServer();
  process.env.FIRM_CHAT_TEST_SERVER_BUILD = built.dir;
  return async () => {
    delete process.env.FIRM_CHAT_TEST_SERVER_BUILD;
    await built.remove();
  };
}
