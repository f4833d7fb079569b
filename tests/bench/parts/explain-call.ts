import { QueryTypes, type Sequelize } from 'sequelize';

// EXPLAIN ANALYZE of what a procedure actually sends, for a missed target: the statements a call
// runs are captured from Sequelize's log (text and bind values as sent), each is explained, and the
// slowest plan is the one printed. Procedures build their SQL inside the server (search, unread
// counts), so repeating the call is the only way the plan shown is the plan that was measured.

type TStatement = { sql: string; bind: unknown[] };

const EXECUTING = /^Executing \([^)]*\): /;

async function captureStatements(sequelize: Sequelize, call: () => Promise<unknown>): Promise<TStatement[]> {
  const statements: TStatement[] = [];
  const options = (sequelize as unknown as { options: { logging: unknown } }).options;
  const before = options.logging;
  options.logging = (message: string, queryOptions?: { bind?: unknown }) => {
    const sql = message.replace(EXECUTING, '');
    if (/^\s*(WITH|SELECT)\b/i.test(sql))
      statements.push({ sql, bind: Array.isArray(queryOptions?.bind) ? (queryOptions.bind as unknown[]) : [] });
  };
  try {
    await call();
  } finally {
    options.logging = before;
  }
  return statements;
}

/** The plan of the slowest statement `call` runs, with its execution time, or a note that it ran none. */
export async function explainCall(sequelize: Sequelize, call: () => Promise<unknown>): Promise<string> {
  const statements = await captureStatements(sequelize, call);
  let slowest: { ms: number; plan: string } | null = null;
  for (const { sql, bind } of statements) {
    const rows = await sequelize.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, { bind, type: QueryTypes.SELECT });
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    const ms = Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? 0);
    if (!slowest || ms > slowest.ms) slowest = { ms, plan };
  }
  return slowest ? `The slowest of its ${statements.length} statements:\n${slowest.plan}` : 'It ran no SELECT (nothing to explain).';
}

/** `EXPLAIN ANALYZE` of one statement as the app would send it (text and bind values), for a missed target. */
export const explainStatement =
  (sequelize: Sequelize, { sql, bind }: { sql: string; bind: unknown[] }) =>
  async (): Promise<string> =>
    (await sequelize.query<{ 'QUERY PLAN': string }>(`EXPLAIN ANALYZE ${sql}`, { bind, type: QueryTypes.SELECT }))
      .map((r) => r['QUERY PLAN'])
      .join('\n');
