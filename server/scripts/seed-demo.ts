import 'dotenv/config';
import { loadConfig } from '../core/config';
import { openDatabase } from '../core/db/open-database';
import { createLogger } from '../core/logger';
import { isDatabaseEmpty, seedDemoData } from '../seed/seed-demo';

// npm run seed:demo — seeds demo users and data on purpose (e.g. on a DATABASE_URL server), once.
async function main() {
  const config = loadConfig();
  const logger = createLogger('warn');
  const database = await openDatabase(config, logger);
  try {
    if (!(await isDatabaseEmpty())) {
      console.error('This database already has users; demo data is only seeded into an empty database.');
      process.exitCode = 1;
      return;
    }
    await seedDemoData({ defaultCountry: config.defaultCountry });
    console.log('Demo data seeded. Demo accounts are listed on the sign-in page in demo mode and in README.md.');
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
