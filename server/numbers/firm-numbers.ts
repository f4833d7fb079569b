import type { Transaction } from 'sequelize';
import type { CountryCode } from 'libphonenumber-js';
import { recordAuditEvent, type TActor } from '../audit';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { formatNumber, requireNumberInput } from '../core/phone-input';
import { queryRows, sql } from '../core/sql';
import { parsePhoneDigits } from '../../shared/phone';
import type { TNumberKeys } from './number-keys';
import type { TAddNumberInput, TFirmNumber, TUpdateNumberInput } from './number-schema';

// The firm's numbers, one row each (migration 0040; server/numbers/README.md "Several numbers").
// Number 1 is the configuration's; the others are added by directors. Every change is audited by
// number and label, never by key or secret.

const SUBJECT = 'numbers';
const NOT_FOUND = 'That number is not one of the firm’s.';
export const CONFIGURED_NUMBER_ID = 1;

/** What adding or changing a number needs beyond its input: the sealing, the country typed numbers are read in, number 1's key (MESSAGING_API_KEY). */
export type TNumberSetup = { keys: () => TNumberKeys; defaultCountry: CountryCode | undefined; configuredKey: string | undefined };

const SELECT = sql`SELECT n.id, n.digits AS phone, n.label, n.phone_number_id AS "phoneNumberId", n.active,
    n.id = ${CONFIGURED_NUMBER_ID} AS configured, n.provider_key_sealed IS NOT NULL AS "hasOwnKey",
    n.webhook_secret_sealed IS NOT NULL AS "hasOwnWebhookSecret"
  FROM firm_numbers n`;

async function readOne(id: number, transaction?: Transaction): Promise<TFirmNumber> {
  const [row] = await queryRows<TFirmNumber>(sql`${SELECT} WHERE n.id = ${id}`, { transaction });
  if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
  return row;
}

/** Every number the firm has had, the configured one first, then in the order they were added. */
export function listFirmNumbers(): Promise<TFirmNumber[]> {
  return queryRows<TFirmNumber>(sql`${SELECT} ORDER BY n.id`);
}

/**
 * Number 1 takes FIRM_PHONE's digits at every start: the configuration names it, the row keeps
 * records tied to it whatever the configuration says next.
 */
export async function syncConfiguredNumber(firmPhone: string): Promise<void> {
  const digits = parsePhoneDigits(firmPhone) ?? '';
  const [taken] = await queryRows<{ label: string }>(
    sql`SELECT label FROM firm_numbers WHERE digits = ${digits} AND active AND id <> ${CONFIGURED_NUMBER_ID}`,
  );
  if (taken)
    throw new Error(
      `FIRM_PHONE ${formatNumber(digits)} is also the firm's number “${taken.label}” added in Settings: deactivate that one, or set FIRM_PHONE to the firm's main number.`,
    );
  await queryRows(sql`UPDATE firm_numbers SET digits = ${digits}, updated_at = now()
    WHERE id = ${CONFIGURED_NUMBER_ID} AND digits IS DISTINCT FROM ${digits} RETURNING id`);
}

/** One active number has these digits (or this provider id): another is refused, naming the one that has them. */
async function assertFree(digits: string, phoneNumberId: string | null, exceptId: number | null, transaction: Transaction): Promise<void> {
  await queryRows(sql`SELECT pg_advisory_xact_lock(hashtext('firm_numbers'))`, { transaction });
  const [taken] = await queryRows<{ label: string; same: boolean }>(
    sql`SELECT label, digits = ${digits} AS same FROM firm_numbers
      WHERE active AND id IS DISTINCT FROM ${exceptId}::int AND (digits = ${digits} OR phone_number_id = ${phoneNumberId}::text)`,
    { transaction },
  );
  if (!taken) return;
  const field = taken.same ? 'phone' : 'phoneNumberId';
  const what = taken.same
    ? `${formatNumber(digits)} is already the firm’s number “${taken.label}”.`
    : `“${taken.label}” already has that provider id.`;
  throw new AppError('CONFLICT', what, { [field]: [what] });
}

/** One label names one active number (the From choice, the Number filter and each message show the label alone). */
async function assertLabelFree(label: string, exceptId: number | null, transaction: Transaction): Promise<void> {
  const [taken] = await queryRows(
    sql`SELECT 1 FROM firm_numbers WHERE active AND lower(label) = lower(${label}) AND id IS DISTINCT FROM ${exceptId}::int`,
    { transaction },
  );
  if (taken) {
    const what = `Another of the firm’s numbers is called “${label}”: give this one another label.`;
    throw new AppError('CONFLICT', what, { label: [what] });
  }
}

/**
 * A key is one number's (the provider sends as the number its key names): one another active number
 * already uses, the configured one included, would send as that number under this one's label.
 */
async function assertKeyUnused(apiKey: string, exceptId: number | null, setup: TNumberSetup, transaction: Transaction): Promise<void> {
  const rows = await queryRows<{ label: string; sealed: string }>(
    sql`SELECT label, provider_key_sealed AS sealed FROM firm_numbers
      WHERE active AND provider_key_sealed IS NOT NULL AND id IS DISTINCT FROM ${exceptId}::int`,
    { transaction },
  );
  const opened = (sealed: string) => {
    try {
      return setup.keys().open(sealed);
    } catch {
      return null; // sealed under another signing key: it cannot be compared, nor used
    }
  };
  const owner = setup.configuredKey === apiKey ? 'the main number’s' : rows.find((r) => opened(r.sealed) === apiKey)?.label;
  if (owner) {
    const what = `That key is ${owner === 'the main number’s' ? owner : `“${owner}”’s`}: each number has its own key from the provider.`;
    throw new AppError('CONFLICT', what, { apiKey: [what] });
  }
}

/** A director adds a number with its own provider key (and webhook secret, else the firm's): audited as `number.add`. */
export function addFirmNumber(actor: TActor, setup: TNumberSetup, input: TAddNumberInput): Promise<TFirmNumber> {
  const { keys } = setup;
  const digits = requireNumberInput(input.phone, setup.defaultCountry, 'phone');
  return db().transaction(async (transaction) => {
    await assertFree(digits, input.phoneNumberId ?? null, null, transaction);
    await assertLabelFree(input.label, null, transaction);
    await assertKeyUnused(input.apiKey, null, setup, transaction);
    const sealedSecret = input.webhookSecret ? keys().seal(input.webhookSecret) : null;
    const [row] = await queryRows<{ id: number }>(
      sql`INSERT INTO firm_numbers (digits, label, phone_number_id, provider_key_sealed, webhook_secret_sealed, created_by)
        VALUES (${digits}, ${input.label}, ${input.phoneNumberId ?? null}, ${keys().seal(input.apiKey)}, ${sealedSecret}, ${actor.userId})
        RETURNING id`,
      { transaction },
    );
    const numberId = row!.id;
    await recordAuditEvent(
      { actor, action: 'number.add', subject: SUBJECT, detail: { numberId, phone: digits, label: input.label } },
      transaction,
    );
    return readOne(numberId, transaction);
  });
}

/** A new label, key, webhook secret or provider id, audited as `number.update` with which changed (never their values but the label). */
export function updateFirmNumber(actor: TActor, setup: TNumberSetup, input: TUpdateNumberInput): Promise<TFirmNumber> {
  const { keys } = setup;
  return db().transaction(async (transaction) => {
    const [before] = await queryRows<{ digits: string; label: string; phoneNumberId: string | null; active: boolean }>(
      sql`SELECT digits, label, phone_number_id AS "phoneNumberId", active FROM firm_numbers WHERE id = ${input.id} FOR UPDATE`,
      { transaction },
    );
    if (!before) throw new AppError('NOT_FOUND', NOT_FOUND);
    const configured = input.id === CONFIGURED_NUMBER_ID;
    if (configured && (input.apiKey !== undefined || input.webhookSecret !== undefined))
      throw new AppError(
        'PRECONDITION_FAILED',
        'The main number’s key and webhook secret are the configuration’s (MESSAGING_API_KEY, MESSAGING_WEBHOOK_SECRET): change them there.',
      );
    if (!before.active) throw new AppError('PRECONDITION_FAILED', 'That number was deactivated: add it again to use it.');
    const phoneNumberId = input.phoneNumberId === undefined ? before.phoneNumberId : input.phoneNumberId || null;
    const changed = [
      ...(input.label !== undefined && input.label !== before.label ? ['label' as const] : []),
      ...(input.apiKey !== undefined ? ['apiKey' as const] : []),
      ...(input.webhookSecret !== undefined ? ['webhookSecret' as const] : []),
      ...(phoneNumberId !== before.phoneNumberId ? ['phoneNumberId' as const] : []),
    ];
    if (!changed.length) return readOne(input.id, transaction);
    if (changed.includes('phoneNumberId')) await assertFree(before.digits, phoneNumberId, input.id, transaction);
    if (changed.includes('label')) await assertLabelFree(input.label!, input.id, transaction);
    if (input.apiKey !== undefined) await assertKeyUnused(input.apiKey, input.id, setup, transaction);
    await queryRows(
      sql`UPDATE firm_numbers SET label = ${input.label ?? before.label}, phone_number_id = ${phoneNumberId},
          provider_key_sealed = coalesce(${input.apiKey === undefined ? null : keys().seal(input.apiKey)}::text, provider_key_sealed),
          webhook_secret_sealed = coalesce(${input.webhookSecret === undefined ? null : keys().seal(input.webhookSecret)}::text, webhook_secret_sealed),
          updated_at = now()
        WHERE id = ${input.id} RETURNING id`,
      { transaction },
    );
    const label = input.label ?? before.label;
    const detail = { numberId: input.id, phone: before.digits, label, changed, ...(label !== before.label ? { from: before.label } : {}) };
    await recordAuditEvent({ actor, action: 'number.update', subject: SUBJECT, detail }, transaction);
    return readOne(input.id, transaction);
  });
}

/**
 * A number the firm no longer uses: nothing is sent from it, and what the provider posts for it is
 * ignored like any foreign number's. Its records stay, labelled. The configured number stays while
 * the configuration names it.
 */
export function deactivateFirmNumber(actor: TActor, id: number): Promise<TFirmNumber> {
  return db().transaction(async (transaction) => {
    if (id === CONFIGURED_NUMBER_ID)
      throw new AppError('PRECONDITION_FAILED', 'The main number is the configuration’s (FIRM_PHONE): it cannot be deactivated here.');
    const [row] = await queryRows<{ digits: string; label: string; active: boolean }>(
      sql`SELECT digits, label, active FROM firm_numbers WHERE id = ${id} FOR UPDATE`,
      { transaction },
    );
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    if (row.active) {
      await queryRows(sql`UPDATE firm_numbers SET active = false, updated_at = now() WHERE id = ${id} RETURNING id`, { transaction });
      await recordAuditEvent(
        { actor, action: 'number.deactivate', subject: SUBJECT, detail: { numberId: id, phone: row.digits, label: row.label } },
        transaction,
      );
    }
    return readOne(id, transaction);
  });
}

/** Why nothing goes out through a number. */
export const deactivatedNumber = (label: string) => `“${label}” was deactivated: send from another of the firm’s numbers.`;

/** A number one may send from: active, the firm's. */
export async function assertSendingNumber(id: number): Promise<void> {
  const [row] = await queryRows<{ active: boolean; label: string }>(sql`SELECT active, label FROM firm_numbers WHERE id = ${id}`);
  if (!row) throw new AppError('NOT_FOUND', NOT_FOUND, { fromNumberId: [NOT_FOUND] });
  if (!row.active)
    throw new AppError('PRECONDITION_FAILED', deactivatedNumber(row.label), {
      fromNumberId: ['Choose an active number.'],
    });
}
