import type { TAuditDetail } from '../../../../../shared/audit/audit-details';
import type { TDescribers, TSentence } from './audit-sentence';

// A protected table changed: the database's own row (server/records/README.md "Records"), which names
// the database login that made the change, the person the app said it acted for and the app's event
// of the same transaction, if any (a change with none is what went around the app).

type TRow = NonNullable<TAuditDetail<'db.change'>['row']>;

const numbered = (row: TRow, key: string) => (typeof row[key] === 'number' ? ` #${row[key]}` : '');

/** What changed, in words, by table; a table this page does not know is named as it is. */
const WHAT: Record<string, (row: TRow, s: TSentence, changed: readonly string[]) => string> = {
  legal_holds: (row, s) => `legal hold${numbered(row, 'id')} on ${s.subject}`,
  access_members: (row, s) =>
    `a member${typeof row.user_id === 'number' ? ` (person #${row.user_id})` : ''} of the wall around ${s.subject}`,
  access_screens: (row, s) => `a screen${typeof row.user_id === 'number' ? ` of person #${row.user_id}` : ''} from ${s.subject}`,
  clients: (_row, s) => `the restriction of ${s.subject}`,
  cases: (_row, s, changed) => `the ${changed.includes('restricted') ? 'restriction' : 'status and closing time'} of ${s.subject}`,
  users: (_row, s) => `the account of ${s.person}`,
  erasure_requests: (row, s) => `erasure request${numbered(row, 'id')} of ${s.subject}`,
  retention_batches: (_row, s) => s.subject,
  business_hours: () => 'the business hours',
};

const VERB = { insert: 'added', update: 'changed', delete: 'deleted' } as const;

export const DATABASE_SENTENCES: TDescribers<'db.change'> = {
  'db.change': (d, s) => {
    const by = d.dbRole ? (s.who ? `${s.who} (database login ${d.dbRole})` : `The database login ${d.dbRole}`) : s.actor;
    const what = d.table ? (WHAT[d.table]?.(d.row ?? {}, s, d.changed ?? []) ?? `a row of ${d.table}`) : s.subject;
    const columns = d.op === 'update' && d.changed?.length ? `: ${d.changed.join(', ')}` : '';
    const event = d.appEventId ? `, as the app’s event #${d.appEventId} records` : ', with no event of the app’s';
    return `${by} ${d.op ? VERB[d.op] : 'changed'} ${what} in the database${event}${columns}`;
  },
};
