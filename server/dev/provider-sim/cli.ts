import 'dotenv/config';
import { z } from 'zod';
import { startProviderSimulator } from './provider-simulator';

// npm run provider:sim — the simulator as a standalone server (see README "Provider simulator").
const ZSimEnv = z.object({
  SIM_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  SIM_API_KEY: z.string().min(1).default('sim-api-key'),
  SIM_WEBHOOK_URL: z.url().default('http://127.0.0.1:3000/api/webhooks/chat'),
  MESSAGING_WEBHOOK_SECRET: z.string().optional(),
  MESSAGING_PROFILE_PATH: z.string().startsWith('/').default('/whatsapp_business_profile'),
  MESSAGING_TEMPLATES_PATH: z.string().startsWith('/').default('/v1/configs/templates'),
  SIM_ENFORCE_WINDOW: z.enum(['true', 'false']).default('false'),
  SIM_API_MODE: z.enum(['cloud', 'onprem']).default('cloud'),
});

const parsed = ZSimEnv.safeParse(process.env);
if (!parsed.success) {
  console.error(`Invalid simulator configuration:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  process.exit(1);
}
const env = parsed.data;
const sim = await startProviderSimulator({
  port: env.SIM_PORT,
  apiKey: env.SIM_API_KEY,
  profilePath: env.MESSAGING_PROFILE_PATH,
  webhookUrl: env.SIM_WEBHOOK_URL,
  webhookSecret: env.MESSAGING_WEBHOOK_SECRET,
  templatesPath: env.MESSAGING_TEMPLATES_PATH,
  enforceWindow: env.SIM_ENFORCE_WINDOW === 'true',
  apiMode: env.SIM_API_MODE,
});
console.log(`Provider simulator on ${sim.url}`);
console.log(`  API key:  ${env.SIM_API_KEY === 'sim-api-key' ? 'sim-api-key (default)' : 'from SIM_API_KEY'}`);
console.log(
  `  receipts → ${env.SIM_WEBHOOK_URL}${env.MESSAGING_WEBHOOK_SECRET ? ' (signed)' : ' (UNSIGNED: set MESSAGING_WEBHOOK_SECRET to match the app)'}`,
);
console.log(
  `  24-hour rule: ${env.SIM_ENFORCE_WINDOW === 'true' ? `enforced (${env.SIM_API_MODE})` : 'not enforced (SIM_ENFORCE_WINDOW=true to enforce)'}`,
);
console.log(
  '  control:  POST /__sim/inbound {"from","body","name"} · POST /__sim/next {"status"|"hang"} · POST /__sim/config {...} · GET /__sim/requests',
);
console.log('            POST /__sim/press {"messageId","buttonId"} · POST /__sim/age {"messageId","days"} · GET /__sim/messages');
const stop = () => void sim.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
