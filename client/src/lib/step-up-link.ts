import { TRPCClientError, type TRPCLink } from '@trpc/client';
import { observable, type Unsubscribable } from '@trpc/server/observable';
import type { AppRouter } from '../../../server/app/app-router';

// Step-up (server/auth/README.md "Step-up and the firm's policy"): a call refused with `reauth`
// waits while the person confirms it's them (a dialog the auth feature registers here), then is
// sent once more, so its caller sees only the answer. Cancelling fails the call with a plain error.

type TAskStepUp = () => Promise<void>;
let askStepUp: TAskStepUp | null = null;

/** The auth feature's "Confirm it's you" dialog registers itself here (lib may not import features). */
export function setStepUpHandler(handler: TAskStepUp | null): void {
  askStepUp = handler;
}

type TOnMustEnrol = () => void;
let onMustEnrol: TOnMustEnrol | null = null;

/**
 * Called when a call is refused with `enrol` (the firm's policy now holds this person at enrolment, e.g. a
 * director who just required it of everyone): the auth feature asks `auth.me` again, which shows the set-up page.
 */
export function setMustEnrolHandler(handler: TOnMustEnrol | null): void {
  onMustEnrol = handler;
}

/**
 * Asks the person to confirm it's them with the registered dialog, for what the link does not carry: a plain
 * HTTP route's 403 `{error: {reauth: true}}` (an export). Resolves once they have; rejects when they cancel.
 */
export function askForStepUp(): Promise<void> {
  return askStepUp ? askStepUp() : Promise.reject(new Error('Not done: confirm it is you, then try again.'));
}

/** Whether a plain HTTP route's error answer asks for a step-up (`{error: {code, message, reauth: true}}`). */
export function answerWantsStepUp(body: unknown): boolean {
  return (body as { error?: { reauth?: unknown } } | null)?.error?.reauth === true;
}

const hint = (error: unknown, name: 'reauth' | 'enrol') =>
  error instanceof TRPCClientError && (error.data as Record<string, unknown> | null | undefined)?.[name] === true;
const wantsReauth = (error: unknown) => hint(error, 'reauth');

export const stepUpLink: TRPCLink<AppRouter> =
  () =>
  ({ op, next }) =>
    observable((observer) => {
      let current: Unsubscribable = next(op).subscribe({
        next: (value) => observer.next(value),
        complete: () => observer.complete(),
        error: (error) => {
          if (hint(error, 'enrol')) onMustEnrol?.();
          const ask = askStepUp;
          if (!ask || !wantsReauth(error) || op.path === 'auth.stepUp') return observer.error(error);
          ask().then(
            () => {
              current = next(op).subscribe(observer);
            },
            (cancelled: unknown) =>
              observer.error(TRPCClientError.from(cancelled instanceof Error ? cancelled : new Error(String(cancelled)))),
          );
        },
      });
      return () => current.unsubscribe();
    });
