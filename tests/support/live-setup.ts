import { createUser } from '../../server/auth/users';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { createHttpClient, startTestServer, type TTestServer } from './test-server';
import { WEBHOOK_SECRET } from './webhook';

export const SIM_API_KEY = 'sim-key-0123456789';

export type TLiveSetup = {
  server: TTestServer;
  sim: ProviderSimulator;
  staff: ReturnType<typeof createHttpClient>['client'];
  director: ReturnType<typeof createHttpClient>['client'];
  /** The staff member's session cookie, for the plain HTTP routes (/api/media). */
  staffCookie: string;
  stop: () => Promise<void>;
};

/** The app in live mode against a provider simulator on real HTTP, with a staff and a director signed in. */
export async function startLiveSetup(
  env: Record<string, string> = {},
  options: Parameters<typeof startTestServer>[2] = {},
): Promise<TLiveSetup> {
  const sim = await startProviderSimulator({ apiKey: SIM_API_KEY, webhookSecret: WEBHOOK_SECRET, autoReceipts: false });
  const server = await startTestServer(
    {
      MESSAGING_API_KEY: SIM_API_KEY,
      MESSAGING_PROVIDER_URL: sim.url,
      MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SESSION_SECRET: 'test-session-secret-0123456789abcdef',
      NEXT_PUBLIC_SITE_URL: 'https://chat.firm.example',
      ...env,
    },
    undefined,
    options,
  );
  sim.configure({ webhookUrl: `${server.url}/api/webhooks/chat` });
  await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' });
  await createUser({ email: 'dee@firm.test', name: 'Dee Director', role: 'director', password: 'director-password' });
  // The session cookie is Secure (https site URL) but the jar sends it over http anyway, as a proxy would.
  const { client: staff, jar: staffJar } = createHttpClient(server.url);
  await staff.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
  const director = createHttpClient(server.url).client;
  await director.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
  // The catalogue is read from the simulator in the background at start-up: a test sends templates
  // only once it is stored. A read given up on a busy machine (a short provider timeout) is asked
  // again; where the provider is not reachable yet (a test's proxy, pointed after this), it stays empty.
  await server.templatesSynced;
  if ((await director.chat.providerTemplates.query()).templates.length === 0) {
    await director.chat.refreshTemplates.mutate().catch(() => undefined);
  }
  return {
    server,
    sim,
    staff,
    director,
    staffCookie: [...staffJar].map(([k, v]) => `${k}=${v}`).join('; '),
    stop: async () => {
      await sim.settle();
      await sim.close();
      await server.stop();
    },
  };
}
