import type { CountryCode } from 'libphonenumber-js';
import { z } from 'zod';
import { authedProcedure, directorProcedure, router } from '../trpc/init';
import { addFirmNumber, deactivateFirmNumber, listFirmNumbers, updateFirmNumber } from './firm-numbers';
import { numberKeysFrom } from './number-keys';
import { ZAddNumberInput, ZFirmNumber, ZNumberIdInput, ZUpdateNumberInput } from './number-schema';

/** The firm's business numbers (server/numbers/README.md "Several numbers"): everyone reads them (labels, reply-from), directors manage them. */
export function createNumbersRouter(deps: {
  signingKeyFile: string;
  defaultCountry: CountryCode | undefined;
  configuredKey: string | undefined;
  /** Told once a change has committed: this instance's webhook reads the numbers again at once (the feed tells the others). */
  onChanged: () => void;
}) {
  const setup = { keys: numberKeysFrom(deps.signingKeyFile), defaultCountry: deps.defaultCountry, configuredKey: deps.configuredKey };
  const changed = <T>(done: T): T => {
    deps.onChanged();
    return done;
  };
  return router({
    /** Anyone signed in: each message's number label and the composer's reply-from choice. Never a key or secret. */
    list: authedProcedure.output(z.array(ZFirmNumber)).query(() => listFirmNumbers()),

    /** Directors only (server/decisions/0013-roles-enforced-by-the-server.md), whatever the page shows. */
    add: directorProcedure
      .input(ZAddNumberInput)
      .output(ZFirmNumber)
      .mutation(async ({ ctx, input }) => changed(await addFirmNumber({ userId: ctx.user.id, ip: ctx.clientIp }, setup, input))),

    update: directorProcedure
      .input(ZUpdateNumberInput)
      .output(ZFirmNumber)
      .mutation(async ({ ctx, input }) => changed(await updateFirmNumber({ userId: ctx.user.id, ip: ctx.clientIp }, setup, input))),

    deactivate: directorProcedure
      .input(ZNumberIdInput)
      .output(ZFirmNumber)
      .mutation(async ({ ctx, input }) => changed(await deactivateFirmNumber({ userId: ctx.user.id, ip: ctx.clientIp }, input.id))),
  });
}
