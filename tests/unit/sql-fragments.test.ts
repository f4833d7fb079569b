import { describe, expect, it } from 'vitest';
import { autoReplyCtes } from '../../server/business-hours';
import { encodeCursor } from '../../server/core/record-pages';
import { inlineSql, sql, sqlInteger, type Sql } from '../../server/core/sql';
import { visibleTo } from '../../server/core/visibility';
import { threadsPageQuery } from '../../server/inbox/list-threads';
import { THREAD_FILTERS } from '../../server/inbox/threads-sql';
import { stopsNumber } from '../../server/opt-outs';

// SQL fragments carry their own values (server/core/sql.ts): whoever embeds one numbers nothing,
// and the statement's $n follow the values in the order they appear, however deep the nesting.

/** The placeholders of a statement's text, in order. */
const placeholders = (text: string) => [...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));

describe('the sql tag', () => {
  it('numbers nested fragments’ values $1…$n in the order they appear', () => {
    const inner = sql`b = ${2} AND ${sql`c = ${3}`}`;
    const query = sql`SELECT * FROM t WHERE a = ${1} AND ${inner} AND d = ${4}`;
    expect(query.text).toBe('SELECT * FROM t WHERE a = $1 AND b = $2 AND c = $3 AND d = $4');
    expect(query.values).toEqual([1, 2, 3, 4]);
  });

  it('keeps a value that looks like SQL a value: it never reaches the text', () => {
    const hostile = "x'; DROP TABLE clients; --";
    const query = sql`SELECT id FROM clients WHERE name = ${hostile} AND id = ${sql`${7}::int`}`;
    expect(query.text).toBe('SELECT id FROM clients WHERE name = $1 AND id = $2::int');
    expect(query.text).not.toContain('DROP');
    expect(query.values).toEqual([hostile, 7]);
  });

  it('embeds the walls’ rule with the viewer’s id inside it, numbered after the caller’s own values', () => {
    const query = sql`SELECT c.id FROM clients c WHERE c.id = ${5} AND ${visibleTo({ id: 42 }, sql`c.id`, null)} AND c.name = ${'Amelia'}`;
    expect(placeholders(query.text)).toEqual([1, 2, 3, 4]);
    expect(query.values).toEqual([5, 42, 42, 'Amelia']);
    expect(query.text).toContain('ws.user_id = $2)');
    expect(query.text).toContain('wm.user_id = $3)');
    expect(query.text).toContain('c.name = $4');
  });

  it('asks for a column of people when the viewer is a column: no value at all', () => {
    const rule = visibleTo(sql`u.id`, sql`c.client_id`, sql`c.case_id`);
    expect(rule.values).toEqual([]);
    expect(rule.text).toContain('ws.user_id = u.id');
  });

  it('writes only numbers, booleans and NULL into text, for a model finder’s literal', () => {
    expect(inlineSql(sql`a = ${3} AND b = ${true} AND c IS ${null}`)).toBe('a = 3 AND b = true AND c IS NULL');
    expect(() => inlineSql(sql`name = ${"x' OR true --"}`)).toThrow(TypeError);
    expect(() => sqlInteger(1.5)).toThrow(TypeError);
    expect(sqlInteger(500).text).toBe('500');
  });
});

/** A statement the tag numbered: $1…$n once each, in order, one per value it carries. */
function expectNumberedByTheTag(statement: Sql): void {
  expect(placeholders(statement.text)).toEqual(statement.values.map((_, i) => i + 1));
}

describe('the fragments other modules embed carry their own values', () => {
  it('reads a page of conversations with every value bound where it is used, for every filter', () => {
    const cursor = encodeCursor('2026-01-05 16:30:00.123+00', 77);
    for (const filter of THREAD_FILTERS) {
      const statement = threadsPageQuery({ id: 42, role: 'staff' }, { filter, cursor, limit: 10, replyTargetMinutes: 240 });
      expectNumberedByTheTag(statement);
      expect(statement.values).toEqual(expect.arrayContaining([42, 11, 'open', 240, '2026-01-05 16:30:00.123+00', 77]));
      expect(statement.text).not.toContain('2026-01-05');
    }
  });

  it('queues out-of-hours replies for the candidate ids it is given, numbered after what precedes it', () => {
    const statement = sql`WITH inserted AS (SELECT ${1} AS id), ${autoReplyCtes(sql`inserted`, ['wamid.1', 'wamid.2'])} SELECT 1`;
    expectNumberedByTheTag(statement);
    expect(statement.values).toEqual([1, ['wamid.1', 'wamid.2']]);
    expect(statement.text).toContain('FROM inserted s JOIN unnest($2::text[]) AS candidate(chat_msg_id)');
  });

  it('asks whether an opt-out stops a number given as a value or as a column', () => {
    const byValue = stopsNumber(sql`o`, sql`${'447700900123'}`);
    expectNumberedByTheTag(byValue);
    expect(byValue.values).toEqual(['447700900123', '447700900123', '447700900123']);
    expect(stopsNumber(sql`o`, sql`n.digits`).values).toEqual([]);
  });
});
