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

const wantsReauth = (error: unknown) =>
  error instanceof TRPCClientError && (error.data as { reauth?: boolean } | null | undefined)?.reauth === true;

export const stepUpLink: TRPCLink<AppRouter> =
  () =>
  ({ op, next }) =>
    observable((observer) => {
      let current: Unsubscribable = next(op).subscribe({
        next: (value) => observer.next(value),
        complete: () => observer.complete(),
        error: (error) => {
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
