import { ConnectionError, ConnectionRefusedError, DatabaseError, TimeoutError, UniqueConstraintError } from 'sequelize';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../server/core/db/database-errors';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code, sql: 'SELECT 1' }) as never;

describe('classifying database errors', () => {
  it('treats connection loss, refused connections, timeouts and shutdowns as "unavailable" (503, retry)', () => {
    expect(isDatabaseUnavailable(new ConnectionError(new Error('gone')))).toBe(true);
    expect(isDatabaseUnavailable(new ConnectionRefusedError(new Error('ECONNREFUSED')))).toBe(true);
    expect(isDatabaseUnavailable(new TimeoutError(pgError('57014')))).toBe(true);
    expect(isDatabaseUnavailable(new DatabaseError(pgError('57014', 'canceling statement due to statement timeout')))).toBe(true);
    expect(isDatabaseUnavailable(new DatabaseError(pgError('57P01', 'terminating connection due to administrator command')))).toBe(true);
    expect(isDatabaseUnavailable(new DatabaseError(pgError('08006')))).toBe(true);
  });

  it('never treats a unique violation or bad data as "unavailable": retrying those cannot help', () => {
    expect(isDatabaseUnavailable(new UniqueConstraintError({ parent: pgError('23505') }))).toBe(false);
    expect(isDatabaseUnavailable(new DatabaseError(pgError('22P02', 'invalid input syntax')))).toBe(false);
    expect(isDatabaseUnavailable(new Error('anything else'))).toBe(false);
  });
});
