import type { CountryCode } from 'libphonenumber-js/min';
import { literal, type Transaction } from 'sequelize';
import { recordAuditEvent, SYSTEM_ACTOR, type TActor } from '../audit';
import { Client, ClientNumber, User } from '../core/db/models/index';
import { AppError } from '../core/errors';
import { formatNumber, parseNumberInput, requireNumberInput } from '../core/phone-input';
import { db } from '../core/db/db';
import { assertSubjectVisible } from '../access';
import { inlineSql, queryRows, raw, sql } from '../core/sql';
import { visibleTo, type TReader, type TViewer } from '../core/visibility';
import { stopsNumber } from '../opt-outs';
import { assertClientWritable } from '../core/client-writable';
import { clientErasure, toClientErasure, type TClientErasure } from './erased-client';
import { holdNotice, toHoldNotice, type THoldNotice } from './hold-notice';

/** `linked`: linked from the inbox (the conversation offers to unlink it). */
export type TClientNumberDto = {
  digits: string;
  primary: boolean;
  linked: boolean;
  addedAt: Date;
  addedBy: { id: number; name: string } | null;
};
/** `phone` is the primary number, "+<digits>". */
export type TClientDto = {
  id: number;
  name: string;
  phone: string;
  email: string | null;
  numbers: TClientNumberDto[];
  /** Asked to receive no more chat messages (sends are refused), with how. */
  optedOutAt: Date | null;
  optOutSource: string | null;
  /** Only its members see it (server/access/README.md "Ethical walls"). */
  restricted: boolean;
  /** The person given the client's conversation when it first needs someone (server/ownership/README.md "Ownership"). */
  responsible: { id: number; name: string } | null;
  /** A live legal hold on the client (server/records/README.md "Records"): shown to everyone who may see the client. */
  hold: THoldNotice | null;
  /** When retention or an erasure request erased the client's name and numbers. */
  erasedAt: Date | null;
  /** How they were erased, and the batch whose certificate says so (null while not erased). */
  erasure: TClientErasure | null;
};

/**
 * What number-taking operations need: where national numbers are read, and who is acting — a
 * person (`reader`: the client must be one they may see) or the system (seeding).
 */
export type TNumberContext = { defaultCountry?: CountryCode; actor?: TActor; reader?: TReader };

const INCLUDE_NUMBERS = [{ model: ClientNumber, as: 'numbers', include: [{ model: User, as: 'addedByUser', attributes: ['id', 'name'] }] }];

// An opt-out belongs to a number (server/messaging/README.md "Sending messages", Opt-outs): a client shows as opted out
// when any of its numbers has (in any spelling of it in its country), with the earliest such stop
// and how it came.
const OPTED_OUT_OF = (column: 'at' | 'source') =>
  literal(
    inlineSql(sql`(SELECT o.${raw(column)} FROM client_numbers n JOIN number_opt_outs o ON o.last9 = n.last9 AND ${stopsNumber(sql`o`, sql`n.digits`)}
            WHERE n.client_id = "Client".id ORDER BY o.at, o.digits LIMIT 1)`),
  );
// Who handles the client's conversation when it first needs someone (server/ownership/README.md "Ownership").
const RESPONSIBLE = literal(
  `(SELECT json_build_object('id', u.id, 'name', u.name) FROM users u WHERE u.id = "Client".responsible_user_id)`,
);
const WITH_OPT_OUT = {
  include: [
    [OPTED_OUT_OF('at'), 'optedOutAt'] as const,
    [OPTED_OUT_OF('source'), 'optOutSource'] as const,
    [RESPONSIBLE, 'responsible'] as const,
    [literal(inlineSql(holdNotice(sql`"Client".id`))), 'hold'] as const,
    [literal(inlineSql(clientErasure(sql`"Client".id`))), 'erasure'] as const,
  ],
};

function toDto(c: Client): TClientDto {
  const numbers = [...(c.numbers ?? [])]
    .sort((a, b) => Number(b.primary) - Number(a.primary) || a.addedAt.getTime() - b.addedAt.getTime() || a.id - b.id)
    .map((n) => ({
      digits: n.digits,
      primary: n.primary,
      linked: n.addedVia === 'link',
      addedAt: n.addedAt,
      addedBy: n.addedByUser ? { id: n.addedByUser.id, name: n.addedByUser.name } : null,
    }));
  const primary = numbers.find((n) => n.primary) ?? numbers[0];
  return {
    id: c.id,
    name: c.name,
    phone: primary ? `+${primary.digits}` : '',
    email: c.email,
    numbers,
    optedOutAt: (c.get('optedOutAt') as Date | null | undefined) ?? null,
    optOutSource: (c.get('optOutSource') as string | null | undefined) ?? null,
    restricted: c.restricted,
    responsible: (c.get('responsible') as { id: number; name: string } | null | undefined) ?? null,
    hold: toHoldNotice(c.get('hold')),
    erasedAt: c.erasedAt ?? null,
    erasure: c.erasedAt ? toClientErasure(c.get('erasure')) : null,
  };
}

/**
 * The clients the reader may see, by name or by any number: typed digits, or the number read as a person typed it (07700 900123).
 * Erased clients are left out (they are final and quiet), unless `erased`: then only they are listed.
 */
export async function listClients(
  viewer: TViewer,
  search?: string,
  defaultCountry?: CountryCode,
  options: { erased?: boolean } = {},
): Promise<TClientDto[]> {
  const term = search?.trim() ?? '';
  const digits = parseNumberInput(term, defaultCountry) ?? term.replace(/\D/g, '');
  // Ids first (name or any number), then the page with its numbers.
  const rows = await queryRows<{ id: number }>(
    sql`SELECT c.id FROM clients c
     WHERE (${term} = '' OR c.name ILIKE ${`%${term.replace(/[\\%_]/g, '\\$&')}%`}
        OR (length(${digits}) >= 3 AND EXISTS (SELECT 1 FROM client_numbers n WHERE n.client_id = c.id AND n.digits LIKE ${`%${digits}%`})))
       AND ${visibleTo(viewer, sql`c.id`, null)} AND (c.erased_at IS NOT NULL) = ${options.erased === true}
     ORDER BY c.name, c.id LIMIT 200`,
  );
  const clients = await Client.findAll({
    where: { id: rows.map((r) => r.id) },
    attributes: WITH_OPT_OUT,
    include: INCLUDE_NUMBERS,
    order: [
      ['name', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  return clients.map(toDto);
}

/** A client the reader may see (NOT_FOUND otherwise, as for one that does not exist). */
export async function getClient(reader: TReader, id: number): Promise<TClientDto> {
  await assertSubjectVisible(reader, { clientId: id });
  return readClient(id);
}

async function readClient(id: number): Promise<TClientDto> {
  const client = await Client.findByPk(id, { attributes: WITH_OPT_OUT, include: INCLUDE_NUMBERS });
  if (!client) throw new AppError('NOT_FOUND', 'Client not found.');
  return toDto(client);
}

/** Throws NOT_FOUND unless the client exists (reads only its id). */
export async function assertClientExists(id: number): Promise<void> {
  if (!(await Client.findByPk(id, { attributes: ['id'] }))) throw new AppError('NOT_FOUND', 'Client not found.');
}

/**
 * A number is not unique across clients (a family may share one), but giving a client a number
 * another client has must be a person's decision: CONFLICT naming that client unless `confirm`.
 * A holder the reader is walled from is not named ("another client"), and its number is never
 * shared by them, confirmed or not: a shared number's messages are filed on no client, where all
 * staff read them, so sharing it would open the walled client's new messages to anyone (server/access/README.md
 * "Ethical walls").
 */
export async function assertNumberFreeOrConfirmed(
  viewer: TViewer | null,
  digits: string,
  exceptClientId: number | null,
  confirm: boolean | undefined,
): Promise<void> {
  const holders = await queryRows<{ name: string; visible: boolean }>(
    sql`SELECT c.name, ${viewer ? visibleTo(viewer, sql`c.id`, null) : sql`true`} AS visible
     FROM clients c WHERE c.id <> ${exceptClientId ?? 0} AND EXISTS (SELECT 1 FROM client_numbers n WHERE n.client_id = c.id AND n.digits = ${digits})
     ORDER BY c.name`,
  );
  if (holders.length === 0) return;
  const named = holders.filter((h) => h.visible).map((h) => h.name);
  if (named.length < holders.length) {
    const message = `${formatNumber(digits)} is already another client's number, one you cannot see: a director who can see that client must decide whether it is shared.`;
    throw new AppError('CONFLICT', message, { phone: [message] });
  }
  if (confirm) return;
  const names = named.join(' and ');
  const message = `${formatNumber(digits)} is already ${names}'s number. Add it here as well only if they share this phone: messages from a shared number are not filed automatically.`;
  throw new AppError('CONFLICT', message, { phone: [message] });
}

export async function createClient(
  input: { name: string; phone: string; email?: string | null; confirm?: boolean },
  context: TNumberContext = {},
): Promise<TClientDto> {
  const digits = requireNumberInput(input.phone, context.defaultCountry);
  await assertNumberFreeOrConfirmed(context.reader ?? null, digits, null, input.confirm);
  const actor = context.actor ?? SYSTEM_ACTOR;
  const id = await db().transaction(async (transaction) => {
    const client = await Client.create({ name: input.name.trim(), email: input.email?.trim() || null }, { transaction });
    await ClientNumber.create({ clientId: client.id, digits, primary: true, addedBy: actor.userId }, { transaction });
    return client.id;
  });
  return readClient(id);
}

/** Adds a number to a client (not primary); adding one it already has changes nothing. */
export async function addClientNumber(
  input: { clientId: number; phone: string; confirm?: boolean },
  context: TNumberContext = {},
): Promise<TClientDto> {
  await assertClientReachable(input.clientId, context);
  await assertClientWritable(input.clientId);
  const digits = requireNumberInput(input.phone, context.defaultCountry);
  if (await ClientNumber.findOne({ where: { clientId: input.clientId, digits }, attributes: ['id'] })) return readClient(input.clientId);
  await assertNumberFreeOrConfirmed(context.reader ?? null, digits, input.clientId, input.confirm);
  await db().transaction(async (transaction) => {
    if (await insertClientNumber(input.clientId, digits, context.actor ?? SYSTEM_ACTOR, 'client', transaction)) {
      await recordAuditEvent(
        { actor: context.actor ?? SYSTEM_ACTOR, action: 'client.number_add', subject: `client:${input.clientId}`, detail: { digits } },
        transaction,
      );
    }
  });
  return readClient(input.clientId);
}

/** NOT_FOUND unless the client exists and, for a person, is one they may see. */
async function assertClientReachable(clientId: number, context: TNumberContext): Promise<void> {
  if (context.reader) await assertSubjectVisible(context.reader, { clientId });
  else await assertClientExists(clientId);
}

/** Inserts the number unless the client has it; true when it was added. */
export async function insertClientNumber(
  clientId: number,
  digits: string,
  actor: TActor,
  via: 'client' | 'link',
  transaction: Transaction,
): Promise<boolean> {
  // Linking a number to an erased client would start filing their messages again.
  await assertClientWritable(clientId, transaction);
  const [rows] = await db().query(
    `INSERT INTO client_numbers (client_id, digits, "primary", added_by, added_via) VALUES ($1, $2, false, $3, $4)
     ON CONFLICT (client_id, digits) DO NOTHING RETURNING id`,
    { bind: [clientId, digits, actor.userId, via], transaction },
  );
  return rows.length > 0;
}

/**
 * Removes a number from a client; its messages stay where they are (inbox.unlink moves them).
 * The last number cannot go; when the primary goes, the oldest other number becomes primary.
 */
export async function removeClientNumber(input: { clientId: number; phone: string }, context: TNumberContext = {}): Promise<TClientDto> {
  await assertClientReachable(input.clientId, context);
  await assertClientWritable(input.clientId);
  const digits = requireNumberInput(input.phone, context.defaultCountry);
  await db().transaction(async (transaction) => {
    await removeNumberRow(input.clientId, digits, transaction);
    await recordAuditEvent(
      { actor: context.actor ?? SYSTEM_ACTOR, action: 'client.number_remove', subject: `client:${input.clientId}`, detail: { digits } },
      transaction,
    );
  });
  return readClient(input.clientId);
}

/**
 * Deletes one client_numbers row under the rules above (locks the client's numbers). `onlyLinked`:
 * the undo of a link, which may take away only a number that was linked from the inbox.
 */
export async function removeNumberRow(
  clientId: number,
  digits: string,
  transaction: Transaction,
  options: { onlyLinked?: boolean } = {},
): Promise<void> {
  const numbers = await ClientNumber.findAll({
    where: { clientId },
    order: [
      ['addedAt', 'ASC'],
      ['id', 'ASC'],
    ],
    lock: transaction.LOCK.UPDATE,
    transaction,
  });
  const target = numbers.find((n) => n.digits === digits);
  if (!target) throw new AppError('NOT_FOUND', `${formatNumber(digits)} is not one of this client's numbers.`);
  if (options.onlyLinked && target.addedVia !== 'link') {
    throw new AppError(
      'CONFLICT',
      `${formatNumber(digits)} was not linked from the inbox; remove it on the client page if it is not this client's.`,
    );
  }
  if (numbers.length === 1)
    throw new AppError('CONFLICT', `${formatNumber(digits)} is this client's only number; add another before removing it.`);
  await target.destroy({ transaction });
  if (target.primary) await numbers.find((n) => n.id !== target.id)!.update({ primary: true }, { transaction });
}
