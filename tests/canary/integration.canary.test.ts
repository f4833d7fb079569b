import { expect, it } from 'vitest';
import { sql } from '../support/sql';
import { createTestDatabase } from '../support/test-database';

// Runs through the integration project's global setup (the embedded PostgreSQL, whose exit hook
// once turned failed runs into exit 0) and a real query, then fails.
it('canary: this integration test fails on purpose', async () => {
  const database = await createTestDatabase();
  try {
    const [row] = await sql<{ answer: number }>(database.url, 'SELECT 2 AS answer');
    expect(row?.answer, 'deliberate canary failure').toBe(3);
  } finally {
    await database.drop();
  }
});
