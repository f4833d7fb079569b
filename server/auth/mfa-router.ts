import { z } from 'zod';
import { recordAuditEvent } from '../audit';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { queryRows, sql } from '../core/sql';
import { enrolmentProcedure, router, stepUpProcedure } from '../trpc/init';
import { deleteRecoveryCodes, recoveryCodesLeft, replaceRecoveryCodes, RECOVERY_CODE_COUNT } from './recovery-codes';
import { secondFactorKeysFrom } from './second-factor-keys';
import { endOtherSessions } from './manage-sessions';
import { endWatchedSessionIds } from './session-watch';
import { markSecondFactorProven, sessionKeyOf } from './sessions';
import { countPasskeys, secondFactorMethodsOf } from './sign-in-ticket';
import { checkTotpCode, startTotp, ZTotpCode } from './totp';

// A person's own second factors, from Settings › "Two-step sign-in" (server/auth/README.md "Two-step sign-in").

/** `signingKeyFile`: what second factors' keys are derived from (second-factor-keys.ts). */
export type TMfaRouterDeps = { sessionSecret: string; now: () => Date; signingKeyFile: string };

export function createMfaRouter(deps: TMfaRouterDeps) {
  const keys = secondFactorKeysFrom(deps.signingKeyFile);
  return router({
    status: enrolmentProcedure
      .output(z.object({ totp: z.boolean(), passkeys: z.number().int(), recoveryCodesLeft: z.number().int() }))
      .query(async ({ ctx }) => {
        const methods = await secondFactorMethodsOf(ctx.user.id);
        const passkeys = methods.includes('passkey') ? await countPasskeys(ctx.user.id) : 0;
        return { totp: methods.includes('totp'), passkeys, recoveryCodesLeft: await recoveryCodesLeft(ctx.user.id) };
      }),

    /** A new seed for the authenticator app; it counts only once a code from it is confirmed. */
    startTotp: enrolmentProcedure
      .output(z.object({ secret: z.string(), otpauthUrl: z.string() }))
      .mutation(({ ctx }) => startTotp(ctx.user, keys())),

    /** Confirms the seed being set up with a code from it; the recovery codes are shown this once. */
    confirmTotp: enrolmentProcedure
      .input(z.object({ code: ZTotpCode }))
      .output(z.object({ recoveryCodes: z.array(z.string()) }))
      .mutation(async ({ ctx, input }) => {
        const result = await checkTotpCode(ctx.user.id, input.code, keys(), deps.now(), { confirmed: false });
        if (result === 'none') throw new AppError('PRECONDITION_FAILED', 'Start setting up an authenticator app first.');
        if (result !== 'accepted') {
          const message = 'That code is not right. Check the time on your phone and enter the code the app shows now.';
          throw new AppError('INVALID_INPUT', message, { code: [message] });
        }
        const recoveryCodes = await db().transaction(async (transaction) => {
          const codes = await replaceRecoveryCodes(ctx.user.id, keys(), { transaction });
          await recordAuditEvent(
            {
              actor: { userId: ctx.user.id, ip: ctx.clientIp },
              action: 'auth.mfa_enrol',
              subject: `user:${ctx.user.id}`,
              detail: { method: 'totp' },
            },
            transaction,
          );
          return codes;
        });
        // The code just confirmed is a proof of the factor on this session (server/auth/README.md "Step-up and the firm's policy").
        await markSecondFactorProven(ctx.sessionToken, deps.sessionSecret, deps.now());
        return { recoveryCodes };
      }),

    /** Removes the authenticator app and ends the person's other sessions (the one in use stays). */
    remove: stepUpProcedure
      .input(z.object({ method: z.literal('totp') }))
      .output(z.object({ sessionsEnded: z.number().int() }))
      .mutation(async ({ ctx, input }) => {
        const currentKey = sessionKeyOf(ctx.sessionToken, deps.sessionSecret);
        const { keys, sessionsEnded } = await db().transaction(async (transaction) => {
          const removed = await queryRows<{ confirmed: boolean }>(
            sql`DELETE FROM totp_factors WHERE user_id = ${ctx.user.id} RETURNING confirmed_at IS NOT NULL AS confirmed`,
            { transaction },
          );
          if (!removed.some((row) => row.confirmed)) throw new AppError('NOT_FOUND', 'No authenticator app is set up.');
          const { keys, sessionsEnded } = await endOtherSessions(ctx.user.id, currentKey, transaction);
          await recordAuditEvent(
            {
              actor: { userId: ctx.user.id, ip: ctx.clientIp },
              action: 'auth.mfa_remove',
              subject: `user:${ctx.user.id}`,
              detail: { method: input.method, sessionsEnded },
            },
            transaction,
          );
          return { keys, sessionsEnded };
        });
        endWatchedSessionIds(keys);
        // Recovery codes stand in for a factor: with none left they would only be a way round the password alone.
        const left = await secondFactorMethodsOf(ctx.user.id);
        if (!left.includes('passkey')) await deleteRecoveryCodes(ctx.user.id);
        return { sessionsEnded };
      }),

    /** A new set of recovery codes; the old ones stop working. */
    regenerateRecoveryCodes: enrolmentProcedure.output(z.object({ recoveryCodes: z.array(z.string()) })).mutation(async ({ ctx }) => {
      const methods = await secondFactorMethodsOf(ctx.user.id);
      if (!methods.includes('totp') && !methods.includes('passkey')) {
        throw new AppError('PRECONDITION_FAILED', 'Set up an authenticator app or a passkey first: recovery codes stand in for one.');
      }
      const recoveryCodes = await db().transaction(async (transaction) => {
        const codes = await replaceRecoveryCodes(ctx.user.id, keys(), { transaction });
        await recordAuditEvent(
          {
            actor: { userId: ctx.user.id, ip: ctx.clientIp },
            action: 'auth.recovery_codes_regenerated',
            subject: `user:${ctx.user.id}`,
            detail: { count: RECOVERY_CODE_COUNT },
          },
          transaction,
        );
        return codes;
      });
      return { recoveryCodes };
    }),
  });
}
