import 'dotenv/config';
import { z } from 'zod';
import { checkFirmNumbers } from './firm-numbers';
import { FIRM_DIGITS, startProviderSimulator, type TSimNumber, type TSimulatorOptions } from './provider-simulator';
import { WEBHOOK_RETRY_DEFAULTS } from './webhook-retries';

// npm run provider:sim — the simulator as a standalone server (see server/dev/provider-sim/README.md "Provider simulator").
const ZSimEnv = z.object({
  SIM_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  SIM_API_KEY: z.string().min(1).default('sim-api-key'),
  SIM_WEBHOOK_URL: z.url().default('http://127.0.0.1:3000/api/webhooks/chat'),
  MESSAGING_WEBHOOK_SECRET: z.string().optional(),
  MESSAGING_PROFILE_PATH: z.string().startsWith('/').default('/whatsapp_business_profile'),
  MESSAGING_TEMPLATES_PATH: z.string().startsWith('/').default('/v1/configs/templates'),
  SIM_ENFORCE_WINDOW: z.enum(['true', 'false']).default('false'),
  SIM_API_MODE: z.enum(['cloud', 'onprem']).default('cloud'),
  // Webhook retries, as the provider's (webhook-retries.ts): on, ~1 s doubling to 15 min, for 7 days.
  SIM_WEBHOOK_RETRIES: z.enum(['true', 'false']).default('true'),
  SIM_WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(WEBHOOK_RETRY_DEFAULTS.baseMs),
  SIM_WEBHOOK_RETRY_CAP_MS: z.coerce.number().int().min(1).default(WEBHOOK_RETRY_DEFAULTS.capMs),
  SIM_WEBHOOK_RETRY_FOR_MS: z.coerce.number().int().min(0).default(WEBHOOK_RETRY_DEFAULTS.forMs),
  // The firm's other numbers, one key each as a BSP issues them: `key:digits[:phoneNumberId],…`.
  SIM_NUMBERS: z
    .string()
    .default('')
    .transform((list, ctx): TSimNumber[] =>
      list
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
        .flatMap((item, index) => {
          const [apiKey, digits, phoneNumberId, ...rest] = item.split(':');
          if (!apiKey || !digits || !/^\d{8,15}$/.test(digits) || phoneNumberId === '' || rest.length) {
            // Says which item, never what it holds: the item starts with a key.
            ctx.addIssue({ code: 'custom', message: `item ${index + 1} is not apiKey:digits[:phoneNumberId] (digits: 8-15, no +)` });
            return [];
          }
          return [{ apiKey, digits, phoneNumberId: phoneNumberId ?? `SIM${index + 2}` }];
        }),
    ),
});

const parsed = ZSimEnv.safeParse(process.env);
if (!parsed.success) {
  console.error(`Invalid simulator configuration:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  process.exit(1);
}
const env = parsed.data;
/** A length of time as a person reads it: 1 s, 15 min, 7 days. */
const span = (ms: number) => {
  const units: [number, string][] = [
    [86_400_000, ' days'],
    [3_600_000, ' h'],
    [60_000, ' min'],
    [1_000, ' s'],
  ];
  const [size, unit] = units.find(([size]) => ms >= size && ms % size === 0) ?? [1, ' ms'];
  return `${ms / size}${unit}`;
};
const options: TSimulatorOptions = {
  port: env.SIM_PORT,
  apiKey: env.SIM_API_KEY,
  numbers: env.SIM_NUMBERS,
  profilePath: env.MESSAGING_PROFILE_PATH,
  webhookUrl: env.SIM_WEBHOOK_URL,
  webhookSecret: env.MESSAGING_WEBHOOK_SECRET,
  templatesPath: env.MESSAGING_TEMPLATES_PATH,
  enforceWindow: env.SIM_ENFORCE_WINDOW === 'true',
  apiMode: env.SIM_API_MODE,
  webhookRetries: env.SIM_WEBHOOK_RETRIES === 'true',
  webhookRetryBaseMs: env.SIM_WEBHOOK_RETRY_BASE_MS,
  webhookRetryCapMs: env.SIM_WEBHOOK_RETRY_CAP_MS,
  webhookRetryForMs: env.SIM_WEBHOOK_RETRY_FOR_MS,
};
try {
  checkFirmNumbers(options);
} catch (error) {
  console.error(`Invalid simulator configuration:\n  SIM_NUMBERS: ${(error as Error).message}`);
  process.exit(1);
}
const sim = await startProviderSimulator(options);
console.log(`Provider simulator on ${sim.url}`);
console.log(`  API key:  ${env.SIM_API_KEY === 'sim-api-key' ? 'sim-api-key (default)' : 'from SIM_API_KEY'}`);
const numbers = [`${FIRM_DIGITS} (SIM, the key above)`, ...env.SIM_NUMBERS.map((n) => `${n.digits} (${n.phoneNumberId})`)];
console.log(`  numbers:  ${numbers.join(', ')}${env.SIM_NUMBERS.length ? '; the others with their keys from SIM_NUMBERS' : ''}`);
console.log(
  `  receipts → ${env.SIM_WEBHOOK_URL}${env.MESSAGING_WEBHOOK_SECRET ? ' (signed)' : ' (UNSIGNED: set MESSAGING_WEBHOOK_SECRET to match the app)'}`,
);
console.log(
  `  24-hour rule: ${env.SIM_ENFORCE_WINDOW === 'true' ? `enforced (${env.SIM_API_MODE})` : 'not enforced (SIM_ENFORCE_WINDOW=true to enforce)'}`,
);
console.log(
  `  retries:  ${
    env.SIM_WEBHOOK_RETRIES === 'true'
      ? `a post the app does not take is tried again: after ${span(env.SIM_WEBHOOK_RETRY_BASE_MS)}, doubling up to ${span(env.SIM_WEBHOOK_RETRY_CAP_MS)}, for ${span(env.SIM_WEBHOOK_RETRY_FOR_MS)}`
      : 'off (one try per post)'
  }`,
);
console.log(
  '  control:  POST /__sim/inbound {"from","body","name","toNumber"} · POST /__sim/next {"status"|"hang"} · POST /__sim/config {...} · GET /__sim/requests',
);
console.log('            POST /__sim/press {"messageId","buttonId"} · POST /__sim/age {"messageId","days"} · GET /__sim/messages');
console.log('            GET /__sim/retries (webhook posts waiting for a retry)');
const stop = () => void sim.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
