import type { TLogger } from '../core/logger';
import { reportUnlessStopping } from '../core/stopping';
import type { TSigningKey } from '../signing';
import { CheckpointRefusedError, checkpointHead, type TCheckpoint } from './audit-checkpoints';

// When checkpoints are signed: every minute the head moved, on every instance (one checkpoint per
// head, so they cannot double up), and right after an export's event commits (record-audit-event.ts),
// so the head an export carries is signed at once.

export const CHECKPOINT_EVERY_MS = 60_000;

export type TCheckpointScheduleOptions = {
  /** How often the head is looked at; tests shorten it. */
  intervalMs?: number;
  /** The checkpoints' clock. */
  now?: () => Date;
  /** Hears each run's outcome (the checkpoint made, or null): tests wait on it instead of the clock. */
  onRun?: (made: TCheckpoint | null) => void;
};

type TSigner = { signNow: () => Promise<void> };

// The server's signers, newest last: the trail's append (record-audit-event.ts) has no deps to carry
// the key, so the instance that started one lends it here. Two in one process (tests) share the trail.
const signers: TSigner[] = [];

/** Signs the head now, after an export's event committed; nothing where no server signs (a script). */
export async function checkpointAfterExport(): Promise<void> {
  await signers.at(-1)?.signNow();
}

/** Signs the head at start, then every interval when it moved; the stop awaits a run in flight. */
export function scheduleAuditCheckpoints(
  deps: { logger: TLogger; signingKey: TSigningKey },
  options: TCheckpointScheduleOptions = {},
): () => Promise<void> {
  const now = options.now ?? (() => new Date());
  const sign = async (): Promise<TCheckpoint | null> => {
    try {
      const made = await checkpointHead(deps.signingKey, now, (problem) => deps.logger.warn({ problem }, 'audit checkpoints'));
      if (made) deps.logger.debug({ checkpoint: made.id, eventId: made.eventId }, 'signed an audit checkpoint');
      return made;
    } catch (error) {
      // A trail that no longer verifies is never signed: said loudly, each time the head is looked at.
      if (error instanceof CheckpointRefusedError) deps.logger.error({ problem: error.message }, 'not signing the audit trail');
      else
        reportUnlessStopping(
          () => deps.logger.warn({ error: (error as Error).name }, 'signing an audit checkpoint failed'),
          () => deps.logger.debug({ error: (error as Error).name }, 'an audit checkpoint was not signed: stopping'),
        );
      return null;
    }
  };
  let running: Promise<void> | null = null;
  const tick = () => {
    running ??= sign().then((made) => {
      running = null;
      options.onRun?.(made);
    });
  };
  const signer: TSigner = { signNow: () => sign().then(() => undefined) };
  signers.push(signer);
  tick();
  const timer = setInterval(tick, options.intervalMs ?? CHECKPOINT_EVERY_MS).unref();
  return async () => {
    clearInterval(timer);
    const at = signers.indexOf(signer);
    if (at >= 0) signers.splice(at, 1);
    await running;
  };
}
