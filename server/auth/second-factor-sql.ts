import { sql, type Sql } from '../core/sql';

// Whether a person (`userId`: a value, or a column such as sql`s.user_id`) has each second factor:
// one rule for the sign-in ticket, Settings and the check on every request (server/auth/README.md
// "Step-up and the firm's policy"). Only a confirmed authenticator app counts.
export const hasTotpSql = (userId: number | Sql) =>
  sql`EXISTS (SELECT 1 FROM totp_factors t WHERE t.user_id = ${userId} AND t.confirmed_at IS NOT NULL)`;
export const hasPasskeySql = (userId: number | Sql) => sql`EXISTS (SELECT 1 FROM passkeys k WHERE k.user_id = ${userId})`;
