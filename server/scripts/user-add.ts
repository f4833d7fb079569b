import 'dotenv/config';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { hasHiddenCharacters } from '../../shared/visible-text';
import { ConfigError, loadConfig } from '../core/config';
import { openDatabase } from '../core/db/open-database';
import { AppError } from '../core/errors';
import { createLogger } from '../core/logger';
import { createUser } from '../auth/users';

// npm run user:add -- --email E --name N --role director|staff [--password P]
const ZArgs = z.object({
  email: z.email('--email must be an email address'),
  name: z
    .string()
    .trim()
    .min(1, '--name is required')
    .refine((name) => !hasHiddenCharacters(name), '--name has a hidden control or text-direction character: type it again'),
  role: z.enum(['director', 'staff'], { message: '--role must be director or staff' }),
  password: z.string().min(10, 'the password needs at least 10 characters'),
});

async function promptPassword(): Promise<string> {
  if (!process.stdin.isTTY) throw new Error('--password is required when not run in a terminal');
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  const answer = await rl.question('Password (10+ characters): ');
  rl.close();
  return answer;
}

async function main() {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' }, password: { type: 'string' } },
  });
  const args = ZArgs.safeParse({ ...values, password: values.password ?? (await promptPassword()) });
  if (!args.success) throw new ConfigError(args.error.issues.map((i) => i.message).join('\n'));
  const config = loadConfig();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const database = await openDatabase(config, logger);
  try {
    const user = await createUser(args.data);
    console.log(`Created ${user.role} ${user.email} (id ${user.id}).`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof AppError || error instanceof Error ? error.message : error);
  process.exit(1);
});
